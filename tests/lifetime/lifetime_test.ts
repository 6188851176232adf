import { describe, it, mock } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembleContext,
  type PromptChange,
  type Registrar,
  SystemPrompt,
} from "../../mod.ts";
import { Lifetime } from "../../src/lifetime/lifetime.ts";
import { scopeLayerCount } from "../../src/system_prompt.ts";
import { macrotask, registered, rejects, sectionNames } from "../assertions.ts";

/** Logs `+name` / `-name` for every section (un)registration. */
function logSections(prompt: SystemPrompt, log: string[]): void {
  prompt.change$.subscribe((change: PromptChange) => {
    if (change.kind !== "section") return;
    log.push(`${change.type === "register" ? "+" : "-"}${change.name}`);
  });
}

function section(name: string, order = 1) {
  return { name, order, text: name };
}

describe("registrar.dispose()", () => {
  it("tears down LIFO, awaiting each async teardown before the next", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    registrar.section(section("first"));
    for (const name of ["a", "b", "c"]) {
      registrar.effect(function* () {
        yield async () => {
          log.push(`${name}:start`);
          await macrotask();
          await macrotask();
          log.push(`${name}:end`);
        };
      });
    }
    registrar.section(section("last"));
    log.length = 0;
    await registrar.dispose();
    assert.deepEqual(log, [
      "-last",
      "c:start",
      "c:end",
      "b:start",
      "b:end",
      "a:start",
      "a:end",
      "-first",
    ]);
  });

  it("tears down child registrars in reverse order of creation, recursively", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    logSections(prompt, log);
    const parent = prompt.fork();
    parent.section(section("p1"));
    const child = parent.fork();
    child.section(section("c1"));
    const scoped = parent.scope("agent");
    scoped.section(section("s1"));
    child.section(section("c2"));
    parent.section(section("p2"));
    log.length = 0;
    await parent.dispose();
    assert.deepEqual(log, ["-p2", "-s1", "-c2", "-c1", "-p1"]);
    assert.equal(child.disposed, true);
    assert.equal(scoped.disposed, true);
    assert.equal(prompt.disposed, false);
  });

  it("continues past a failing teardown and rejects with that one error", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    const boom = new Error("boom");
    registrar.section(section("kept-going"));
    registrar.effect(function* () {
      yield () => {
        log.push("failing");
        throw boom;
      };
    });
    registrar.effect(function* () {
      yield () => void log.push("ran first");
    });
    log.length = 0;
    await assert.rejects(registrar.dispose(), (error) => error === boom);
    assert.deepEqual(log, ["ran first", "failing", "-kept-going"]);
    assert.equal(await registered(prompt, "kept-going"), false);
  });

  it("rejects with an AggregateError of several failures, after running everything", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    const first = new Error("first");
    const second = new TypeError("second");
    registrar.effect(function* () {
      yield () => {
        log.push("sync failure");
        throw first;
      };
    });
    registrar.effect(function* () {
      yield () => void log.push("between");
    });
    registrar.effect(function* () {
      yield async () => {
        await macrotask();
        log.push("async failure");
        throw second;
      };
    });
    let caught: unknown;
    await registrar.dispose().catch((error) => {
      caught = error;
    });
    assert.ok(caught instanceof AggregateError, String(caught));
    assert.equal(caught.errors.length, 2);
    assert.ok(caught.errors.includes(first));
    assert.ok(caught.errors.includes(second));
    assert.deepEqual(log, ["async failure", "between", "sync failure"]);
  });

  it("returns the same promise on every call, and is pre-bound", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    registrar.section(section("x"));
    const { dispose } = registrar;
    assert.equal(registrar.dispose, dispose);
    const first = dispose();
    assert.equal(registrar.dispose(), first);
    assert.equal(dispose(), first);
    await first;
    assert.equal(registrar.dispose(), first);
    assert.equal(await registered(prompt, "x"), false);
  });

  it("a detached dispose works without its receiver", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.scope("agent");
    registrar.section(section("x"));
    const d = registrar.dispose;
    await d.call(undefined);
    assert.equal(registrar.disposed, true);
    assert.equal(await registered(prompt, "x", { scope: "agent" }), false);
  });

  it("flips disposed to true synchronously at the start of dispose()", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    let seenDuringTeardown: boolean | undefined;
    registrar.effect(function* () {
      yield async () => {
        await macrotask();
        seenDuringTeardown = registrar.disposed;
      };
    });
    assert.equal(registrar.disposed, false);
    const disposing = registrar.dispose();
    assert.equal(registrar.disposed, true);
    assert.throws(
      () => registrar.section(section("late")),
      rejects("DISPOSED"),
    );
    await disposing;
    assert.equal(seenDuringTeardown, true);
    assert.equal(registrar.disposed, true);
  });

  it("[Symbol.asyncDispose] disposes the registrar", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    registrar.section(section("x"));
    await registrar[Symbol.asyncDispose]();
    assert.equal(registrar.disposed, true);
    assert.equal(await registered(prompt, "x"), false);
  });

  it("await using a registrar disposes it at block end", async () => {
    const prompt = new SystemPrompt();
    {
      await using registrar = prompt.fork();
      registrar.section(section("x"));
      assert.equal(await registered(prompt, "x"), true);
    }
    assert.equal(await registered(prompt, "x"), false);
  });

  it("a child disposed on its own detaches from its parent", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    const child = parent.fork();
    let runs = 0;
    child.effect(function* () {
      yield () => void runs++;
    });
    const log: string[] = [];
    logSections(prompt, log);
    child.section(section("child"));
    parent.section(section("parent"));
    await child.dispose();
    assert.equal(runs, 1);
    assert.equal(parent.disposed, false);
    // The parent still works and no longer owns the child.
    parent.section(section("after"));
    await parent.dispose();
    assert.equal(runs, 1);
    assert.deepEqual(log, [
      "+child",
      "+parent",
      "-child",
      "+after",
      "-after",
      "-parent",
    ]);
  });
});

describe("exact disposers", () => {
  it("remove exactly their registration, once, with one unregister event", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const changes: PromptChange[] = [];
    prompt.change$.subscribe((change) => changes.push(change));
    const disposeA = registrar.section(section("a"));
    registrar.section(section("b"));
    const disposeVar = registrar.variable("model", () => "m");
    const disposeTools = registrar.tools(() => ({
      schemas: [{ name: "t", description: "", parameters: {} }],
    }));
    const disposeListener = registrar.onAssemble((assembly) => ({
      ...assembly,
      variables: { ...assembly.variables, listener: "yes" },
    }));
    assert.equal(changes.length, 5);

    const result = disposeA();
    assert.equal(typeof result?.then, "function");
    await result;
    assert.equal(changes.length, 6);
    assert.equal(changes[5].type, "unregister");
    assert.equal(changes[5].name, "a");
    let assembly = await prompt.assemble();
    assert.deepEqual(sectionNames(assembly).slice(2), ["b"]);

    // The second call is a no-op and may be awaited.
    await disposeA();
    assert.equal(changes.length, 6);

    assert.equal(assembly.variables.listener, "yes");
    await disposeListener();
    await disposeVar();
    await disposeTools();
    assert.deepEqual(
      changes.slice(6).map((c) => [c.type, c.kind, c.name]),
      [
        ["unregister", "listener", undefined],
        ["unregister", "variable", "model"],
        ["unregister", "tools", undefined],
      ],
    );
    assembly = await prompt.assemble();
    assert.deepEqual(assembly.variables, {});
    assert.deepEqual(assembly.tools, []);
    assert.deepEqual(sectionNames(assembly).slice(2), ["b"]);

    // Detached from its owner: the owner's dispose does not remove it again.
    await registrar.dispose();
    assert.deepEqual(
      changes.slice(9).map((c) => [c.type, c.name]),
      [["unregister", "b"]],
    );
  });

  it("removes the registration on the first call even when called concurrently", async () => {
    const prompt = new SystemPrompt();
    const changes: PromptChange[] = [];
    const dispose = prompt.section(section("a"));
    prompt.change$.subscribe((change) => changes.push(change));
    await Promise.all([dispose(), dispose(), dispose()]);
    assert.equal(changes.length, 1);
  });

  it("is AsyncDisposable: await using removes at block end", async () => {
    const prompt = new SystemPrompt();
    {
      await using _d = prompt.section(section("scoped-to-block"));
      assert.equal(await registered(prompt, "scoped-to-block"), true);
    }
    assert.equal(await registered(prompt, "scoped-to-block"), false);
  });

  it("disposes when called with any argument, and [Symbol.asyncDispose] is the same removal", async () => {
    const prompt = new SystemPrompt();
    const dispose = prompt.section(section("a"));
    const first = (dispose as (value: unknown) => Promise<void>)({});
    assert.equal(await registered(prompt, "a"), false);
    assert.equal(dispose[Symbol.asyncDispose](), first);
    assert.equal(dispose(), first);
    assert.equal(typeof dispose, "function");
    assert.ok(dispose instanceof Function);
  });

  it(
    "works with AsyncDisposableStack#use",
    { skip: typeof AsyncDisposableStack === "undefined" },
    async () => {
      const prompt = new SystemPrompt();
      const stack = new AsyncDisposableStack();
      const d = prompt.section(section("stacked"));
      assert.equal(stack.use(d), d);
      stack.use(prompt.variable("model", () => "m"));
      assert.equal(await registered(prompt, "stacked"), true);
      await stack.disposeAsync();
      const assembly = await prompt.assemble();
      assert.equal(sectionNames(assembly).includes("stacked"), false);
      assert.deepEqual(assembly.variables, {});
    },
  );
});

describe("lifetimes: what an owner keeps listed", () => {
  it("an exact disposer unlists its lifetime and every ancestor it left empty", async () => {
    const root = new Lifetime();
    const parent = new Lifetime(root);
    const child = new Lifetime(parent);
    const sibling = new Lifetime(root);
    const disposeSibling = sibling.own(() => {});
    const dispose = child.own(() => {});
    assert.deepEqual(root.listed().reverse(), [sibling, parent]);
    await dispose();
    assert.equal(parent.needed(), false);
    assert.deepEqual(root.listed().reverse(), [sibling]);
    await disposeSibling();
    assert.equal(root.needed(), false);
  });

  it("an exact disposer leaves listed a lifetime that still owns something", async () => {
    const root = new Lifetime();
    const parent = new Lifetime(root);
    const log: string[] = [];
    const first = parent.own(() => log.push("first"));
    parent.own(() => log.push("second"));
    await first();
    assert.deepEqual(root.listed().reverse(), [parent]);
    await root.dispose();
    assert.deepEqual(log, ["first", "second"]);
  });

  it("an effect whose body ends owning nothing is unlisted from its owner", async () => {
    const root = new Lifetime();
    const kept = root.own(() => {});
    root.effect(function* () {});
    assert.equal(root.listed().length, 1, "a sync body that yields nothing");
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => finish = resolve);
    // An effect that only waits: its body yields no teardown.
    // deno-lint-ignore require-yield
    root.effect(async function* () {
      await finished;
    });
    assert.equal(root.listed().length, 2, "listed while its body runs");
    finish();
    await macrotask();
    assert.equal(root.listed().length, 1, "unlisted once the body ended");
    await kept();
    assert.deepEqual(root.listed(), []);
  });
});

describe("effects", () => {
  it("collects a sync generator's teardowns and runs them in reverse", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    logSections(prompt, log);
    const dispose = prompt.effect(function* () {
      yield () => void log.push("1");
      yield prompt.section(section("s"));
      yield async () => {
        await macrotask();
        log.push("3");
      };
      yield () => void log.push("4");
    });
    assert.equal(await registered(prompt, "s"), true);
    log.length = 0;
    await dispose();
    assert.deepEqual(log, ["4", "3", "-s", "1"]);
    await dispose();
    assert.deepEqual(log, ["4", "3", "-s", "1"]);
  });

  it("collects an async generator's teardowns and runs them in reverse", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    logSections(prompt, log);
    const dispose = prompt.effect(async function* () {
      yield () => void log.push("1");
      await macrotask();
      yield prompt.section(section("s"));
      await macrotask();
      yield async () => {
        await macrotask();
        log.push("3");
      };
    });
    for (let i = 0; i < 5; i++) await macrotask();
    assert.equal(await registered(prompt, "s"), true);
    log.length = 0;
    await dispose();
    assert.deepEqual(log, ["3", "-s", "1"]);
  });

  it("is torn down by its owner at its place, and emits no change of its own", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const changes: PromptChange[] = [];
    prompt.change$.subscribe((change) => changes.push(change));
    const log: string[] = [];
    registrar.effect(function* () {
      yield () => void log.push("teardown");
    });
    assert.deepEqual(changes, []);
    await registrar.dispose();
    assert.deepEqual(log, ["teardown"]);
  });

  it("takes its place in the owner's order when effect() is called, before body runs", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    registrar.section(section("x"));
    registrar.effect(function* () {
      // Registered through the owner while the body runs: newer than the
      // effect itself, so torn down before it.
      registrar.section(section("y"));
      yield () => void log.push("effect");
    });
    registrar.section(section("z"));
    log.length = 0;
    await registrar.dispose();
    assert.deepEqual(log, ["-z", "-y", "effect", "-x"]);
  });

  it("takes its place when effect() is called, for an async body too", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    registrar.effect(async function* () {
      await macrotask();
      yield () => void log.push("effect");
    });
    registrar.section(section("after"));
    for (let i = 0; i < 3; i++) await macrotask();
    log.length = 0;
    await registrar.dispose();
    assert.deepEqual(log, ["-after", "effect"]);
  });

  it("adopts a yielded exact disposer: it runs at the effect's position, once", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    registrar.effect(function* () {
      yield registrar.section(section("adopted"));
      yield () => void log.push("yielded after");
    });
    log.length = 0;
    await registrar.dispose();
    // Not adopted, the registration would be a newer item of the registrar
    // and would go first.
    assert.deepEqual(log, ["yielded after", "-adopted"]);
  });

  it("does not adopt a look-alike of an exact disposer: it stays a teardown of its own", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    const exact = prompt.section(section("elsewhere"));
    const calls: unknown[][] = [];
    const lookAlike = Object.setPrototypeOf(
      (...args: unknown[]) => {
        calls.push(args);
        return Promise.reject(new Error("look-alike ran"));
      },
      Object.getPrototypeOf(exact),
    );
    registrar.effect(function* () {
      yield registrar.section(section("mine"));
      yield lookAlike;
    });
    await assert.rejects(registrar.dispose(), /look-alike ran/);
    assert.equal(calls.at(-1)!.length, 0, "torn down as a plain teardown");
    assert.deepEqual(log, ["+elsewhere", "+mine", "-mine"]);
    assert.equal(await registered(prompt, "elsewhere"), true);
  });

  it("adoption detaches the disposer from another registrar", async () => {
    const prompt = new SystemPrompt();
    const other = prompt.fork();
    const owner = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    const d = other.section(section("moved"));
    owner.effect(function* () {
      yield d;
    });
    await other.dispose();
    assert.equal(await registered(prompt, "moved"), true);
    await owner.dispose();
    assert.equal(await registered(prompt, "moved"), false);
    assert.deepEqual(log, ["+moved", "-moved"]);
  });

  it("an effect's own disposer is adoptable by another effect", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    registrar.effect(function* () {
      yield registrar.effect(function* () {
        yield () => void log.push("inner");
      });
      yield () => void log.push("outer, yielded last");
    });
    await registrar.dispose();
    assert.deepEqual(log, ["outer, yielded last", "inner"]);
  });

  it("yielding a child registrar's dispose nests the whole child there", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    let child: Registrar<AssembleContext> | undefined;
    registrar.effect(function* () {
      child = registrar.fork();
      child.section(section("child-section"));
      child.effect(function* () {
        yield () => void log.push("child effect");
      });
      yield child.dispose;
      yield () => void log.push("yielded after the child");
    });
    log.length = 0;
    await registrar.dispose();
    assert.deepEqual(log, [
      "yielded after the child",
      "child effect",
      "-child-section",
    ]);
    assert.equal(child?.disposed, true);
  });

  it("a nested child registrar no longer belongs to its parent", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    const owner = prompt.fork();
    const child = parent.scope("agent");
    child.section(section("c"));
    owner.effect(function* () {
      yield child.dispose;
    });
    await parent.dispose();
    assert.equal(child.disposed, false);
    assert.equal(await registered(prompt, "c", { scope: "agent" }), true);
    await owner.dispose();
    assert.equal(child.disposed, true);
    assert.equal(await registered(prompt, "c", { scope: "agent" }), false);
  });

  it("a sync body that throws part-way runs the collected teardowns in reverse and surfaces the error", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    logSections(prompt, log);
    const boom = new Error("body failed");
    // The README's design: a sync body's error is thrown by effect() itself,
    // after the collected teardowns ran.
    assert.throws(
      () =>
        registrar.effect(function* () {
          yield () => void log.push("a");
          yield registrar.section(section("s"));
          yield () => void log.push("b");
          throw boom;
        }),
      (error) => error === boom,
    );
    assert.deepEqual(log, ["+s", "b", "-s", "a"]);
    // Nothing runs twice, and the registrar is still usable.
    registrar.section(section("later"));
    await registrar.dispose();
    assert.deepEqual(log, ["+s", "b", "-s", "a", "+later", "-later"]);
  });

  it("an async body that throws part-way runs the collected teardowns in reverse and surfaces the error", async () => {
    const reported: unknown[] = [];
    const spy = mock.method(console, "error", (...args: unknown[]) => {
      reported.push(args.at(-1));
    });
    try {
      const prompt = new SystemPrompt();
      const registrar = prompt.fork();
      const log: string[] = [];
      logSections(prompt, log);
      const boom = new Error("async body failed");
      const dispose = registrar.effect(async function* () {
        yield () => void log.push("a");
        await macrotask();
        yield registrar.section(section("s"));
        yield () => void log.push("b");
        throw boom;
      });
      for (let i = 0; i < 5; i++) await macrotask();
      assert.deepEqual(log, ["+s", "b", "-s", "a"]);
      // Nobody awaited the teardown: the error is reported, and the
      // effect's disposer rejects with it.
      assert.deepEqual(reported, [boom]);
      await assert.rejects(dispose(), (error) => error === boom);
      await registrar.dispose();
      assert.deepEqual(log, ["+s", "b", "-s", "a"]);
      assert.deepEqual(reported, [boom]);
    } finally {
      spy.mock.restore();
    }
  });

  it("effect() on a disposed registrar throws DISPOSED and never runs the body", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    await registrar.dispose();
    let ran = false;
    assert.throws(
      () =>
        registrar.effect(function* () {
          ran = true;
          yield () => {};
        }),
      rejects("DISPOSED"),
    );
    assert.equal(ran, false);
  });
});

describe("pinning test (SPEC 4.3)", () => {
  for (const kind of ["fork", "scope"] as const) {
    for (const bodyKind of ["sync", "async"] as const) {
      const run = async (wrapped: boolean): Promise<string[]> => {
        const prompt = new SystemPrompt();
        const key = { agent: true };
        const registrar = kind === "fork" ? prompt.fork() : prompt.scope(key);
        const context = kind === "fork" ? {} : { scope: key };
        const log: string[] = [];
        prompt.change$.subscribe((change) => {
          if (change.name !== "R") return;
          log.push(change.type === "register" ? "registered" : "unregistered");
        });
        const teardownA = () => void log.push("disposed-last");
        const probeP = async () => {
          await macrotask();
          log.push(
            (await registered(prompt, "R", context))
              ? "first: still registered"
              : "first: gone",
          );
        };
        const yieldR = () => {
          const r = registrar.section({ name: "R", order: 1, text: "r" });
          return wrapped ? () => void r() : r;
        };
        if (bodyKind === "sync") {
          registrar.effect(function* () {
            yield teardownA;
            yield yieldR();
            yield probeP;
          });
        } else {
          registrar.effect(async function* () {
            yield teardownA;
            await macrotask();
            yield yieldR();
            yield probeP;
          });
          for (let i = 0; i < 3; i++) await macrotask();
        }
        assert.deepEqual(log, ["registered"]);
        await registrar.dispose();
        assert.equal(await registered(prompt, "R", context), false);
        return log;
      };

      it(`${kind}, ${bodyKind} body: with the exact disposer, P sees R, then R goes, then A`, async () => {
        assert.deepEqual(await run(false), [
          "registered",
          "first: still registered",
          "unregistered",
          "disposed-last",
        ]);
      });

      it(`${kind}, ${bodyKind} body: with a wrapped disposer, R is gone before P finishes`, async () => {
        assert.deepEqual(await run(true), [
          "registered",
          "unregistered",
          "first: gone",
          "disposed-last",
        ]);
      });
    }
  }
});

describe("scope layers", () => {
  it("a scope layer with no registrations left is deleted", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    const before = scopeLayerCount(prompt);
    const scoped = prompt.scope(key);
    const dSection = scoped.section(section("s"));
    const dVariable = scoped.variable("v", () => "x");
    const dTools = scoped.tools(() => ({ schemas: [] }));
    const dListener = scoped.onAssemble((assembly) => assembly);
    assert.equal(scopeLayerCount(prompt), before + 1);
    await dSection();
    await dVariable();
    await dTools();
    assert.equal(scopeLayerCount(prompt), before + 1);
    await dListener();
    assert.equal(scopeLayerCount(prompt), before);
    // The registrar is still alive and recreates the layer on demand.
    scoped.section(section("s"));
    assert.equal(scopeLayerCount(prompt), before + 1);
    await scoped.dispose();
    assert.equal(scopeLayerCount(prompt), before);
  });

  it("a disposed scope leaves no residue and a later registrar for the key starts clean", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    const first = prompt.scope(key);
    first.section(section("persona-override"));
    first.variable("model", () => "old");
    first.fork().tools(() => ({
      schemas: [{ name: "old_tool", description: "", parameters: {} }],
    }));
    first.onAssemble((assembly) => ({ ...assembly, tools: [] }));
    assert.equal(scopeLayerCount(prompt), 1);
    await first.dispose();
    assert.equal(scopeLayerCount(prompt), 0);

    const assemblyAfter = await prompt.assemble({ scope: key });
    assert.deepEqual(sectionNames(assemblyAfter).slice(2), []);
    assert.deepEqual(assemblyAfter.variables, {});
    assert.deepEqual(assemblyAfter.tools, []);
    // Assembling for a key without a layer creates none.
    assert.equal(scopeLayerCount(prompt), 0);

    const second = prompt.scope(key);
    second.section(section("persona-override"));
    second.variable("model", () => "new");
    const assembly = await prompt.assemble({ scope: key });
    assert.deepEqual(sectionNames(assembly).slice(2), ["persona-override"]);
    assert.deepEqual(assembly.variables, { model: "new" });
    assert.equal(scopeLayerCount(prompt), 1);
  });
});

describe("effects: misuse and edge cases", () => {
  it("rejects a body that does not return a generator, leaving no trace", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    assert.throws(
      () => registrar.effect((() => undefined) as never),
      rejects("INVALID_EFFECT"),
    );
    // The composite it opened is gone: the registrar still disposes cleanly
    // and nothing else was registered.
    await registrar.dispose();
    assert.deepEqual(sectionNames(await prompt.assemble()), [
      "harness:identity",
      "deployment:persona",
    ]);
  });

  it("rejects a yielded non-function and unwinds what it collected", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    assert.throws(
      () =>
        prompt.effect(function* () {
          yield () => log.push("collected");
          yield "not a function" as never;
          log.push("never reached");
        }),
      rejects("INVALID_EFFECT"),
    );
    assert.deepEqual(log, ["collected"]);
    await prompt.dispose();
  });

  it("refuses to adopt the disposer of a registrar that owns the effect", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    assert.throws(
      () =>
        registrar.effect(function* () {
          yield registrar.dispose;
        }),
      rejects("INVALID_EFFECT"),
    );
    assert.equal(registrar.disposed, false);
    await prompt.dispose();
  });

  it("ignores a yielded disposer that already ran", async () => {
    const prompt = new SystemPrompt();
    const disposer = prompt.section(section("gone"));
    await disposer();
    const log: string[] = [];
    const composite = prompt.effect(function* () {
      yield disposer;
      yield () => log.push("own teardown");
    });
    await composite();
    assert.deepEqual(log, ["own teardown"]);
    assert.equal(await registered(prompt, "gone"), false);
    await prompt.dispose();
  });

  it("stops an async body disposed mid-way and tears down what it yielded", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => resume = resolve);
    const composite = prompt.effect(async function* () {
      try {
        yield () => log.push("teardown 1");
        await paused;
        yield () => log.push("teardown 2");
        log.push("body went on");
      } finally {
        log.push("body finally");
      }
    });
    await macrotask();
    const disposing = composite();
    resume();
    await disposing;
    assert.deepEqual(log, ["body finally", "teardown 2", "teardown 1"]);
    await prompt.dispose();
  });

  it("reports both an async body's error and a failing teardown", async () => {
    const reported: unknown[] = [];
    const spy = mock.method(console, "error", (...args: unknown[]) => {
      reported.push(args.at(-1));
    });
    try {
      const prompt = new SystemPrompt();
      const bodyError = new Error("body");
      const teardownError = new Error("teardown");
      const composite = prompt.effect(async function* () {
        yield () => {
          throw teardownError;
        };
        await macrotask();
        throw bodyError;
      });
      for (let i = 0; i < 3; i++) await macrotask();
      const check = (error: unknown) => {
        assert.ok(error instanceof AggregateError);
        assert.deepEqual(error.errors, [bodyError, teardownError]);
        return true;
      };
      assert.equal(reported.length, 1);
      check(reported[0]);
      await assert.rejects(composite(), check);
      await prompt.dispose();
    } finally {
      spy.mock.restore();
    }
  });
});
