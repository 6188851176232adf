import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { config } from "rxjs";
import { type ScopeKey, SystemPrompt } from "../mod.ts";
import { scopeLayerCount } from "../src/system_prompt.ts";
import { rejects, sectionNames } from "./assertions.ts";
import { recordChanges, textOf } from "./fixtures.ts";

describe("change$", () => {
  it("emits one event per registration and unregistration, with kind, name and scope", async () => {
    const prompt = new SystemPrompt();
    const changes = recordChanges(prompt).changes;
    const agent = { id: "agent" };
    const scoped = prompt.scope(agent);

    const disposers = [
      prompt.section({ name: "s", order: 0, text: "" }),
      prompt.variable("v", () => "x"),
      prompt.tools(() => ({ schemas: [] })),
      prompt.onAssemble((a) => a),
      scoped.section({ name: "ss", order: 0, text: "" }),
      scoped.variable("sv", () => "x"),
      scoped.tools(() => ({ schemas: [] })),
      scoped.onAssemble((a) => a),
    ];
    assert.equal(changes.length, 8);
    const expected: [string, string | undefined, ScopeKey | undefined][] = [
      ["section", "s", undefined],
      ["variable", "v", undefined],
      ["tools", undefined, undefined],
      ["listener", undefined, undefined],
      ["section", "ss", agent],
      ["variable", "sv", agent],
      ["tools", undefined, agent],
      ["listener", undefined, agent],
    ];
    changes.forEach((change, index) => {
      const [kind, name, scope] = expected[index];
      assert.equal(change.type, "register");
      assert.equal(change.kind, kind);
      assert.equal(change.name, name);
      assert.equal(change.scope, scope);
    });
    assert.equal(
      "scope" in changes[0] && changes[0].scope !== undefined,
      false,
    );

    for (const dispose of disposers) await dispose();
    assert.equal(changes.length, 16);
    changes.slice(8).forEach((change, index) => {
      const [kind, name, scope] = expected[index];
      assert.equal(change.type, "unregister");
      assert.equal(change.kind, kind);
      assert.equal(change.name, name);
      assert.equal(change.scope, scope);
    });
  });

  it("carries the scope key itself (identity), for object, string, number and symbol keys", () => {
    const prompt = new SystemPrompt();
    const changes = recordChanges(prompt).changes;
    const keys: ScopeKey[] = [{ id: 1 }, "agent-1", 7, Symbol("agent")];
    for (const key of keys) {
      prompt.scope(key).section({ name: "x", order: 0, text: "" });
    }
    assert.equal(changes.length, keys.length);
    changes.forEach((change, index) => assert.equal(change.scope, keys[index]));
  });

  it("emits nothing for failed registrations", () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "taken", order: 0, text: "" });
    prompt.variable("taken", () => "");
    const changes = recordChanges(prompt).changes;
    const attempts = [
      () => prompt.section({ name: "taken", order: 0, text: "" }),
      () => prompt.variable("taken", () => ""),
      () => prompt.variable("Bad", () => ""),
      () => prompt.section({ name: "", order: 0, text: "" }),
      () => prompt.tools(null as never),
      () => prompt.scope(null as never),
    ];
    for (const attempt of attempts) assert.throws(attempt);
    assert.deepEqual(changes, []);
  });

  it("emits after the state is committed", async () => {
    const prompt = new SystemPrompt();
    const seen: Promise<[string, boolean]>[] = [];
    prompt.change$.subscribe((change) => {
      if (change.kind !== "section") return;
      seen.push(
        prompt.assemble().then((assembly) => [
          change.type,
          sectionNames(assembly).includes("probe"),
        ]),
      );
    });
    const dispose = prompt.section({ name: "probe", order: 1, text: "" });
    assert.equal(seen.length, 1);
    const registered = await seen[0];
    await dispose();
    assert.equal(seen.length, 2);
    assert.deepEqual(registered, ["register", true]);
    assert.deepEqual(await seen[1], ["unregister", false]);
  });

  it("is hot: a late subscriber sees only later changes", () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "early", order: 0, text: "" });
    const changes = recordChanges(prompt).changes;
    assert.equal(changes.length, 0);
    prompt.section({ name: "late", order: 0, text: "" });
    assert.equal(changes.length, 1);
    assert.equal(changes[0].name, "late");
  });

  it("a throwing subscriber affects neither the state nor other subscribers", async () => {
    // RxJS reports an error thrown by a subscriber asynchronously
    // (reportUnhandledError → setTimeout → throw). Capture it instead of
    // letting it surface as an uncaught error of the test run.
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    // The registry reports each throw with console.error by default
    // (change_stream_test.ts checks what it prints): kept out of the output.
    const logged: unknown[][] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const prompt = new SystemPrompt();
      const boom = new Error("subscriber failed");
      const before: string[] = [];
      const after: string[] = [];
      prompt.change$.subscribe((change) => before.push(change.type));
      prompt.change$.subscribe(() => {
        throw boom;
      });
      prompt.change$.subscribe((change) => after.push(change.type));

      const dispose = prompt.section({ name: "a", order: 1, text: "A" });
      prompt.section({ name: "b", order: 2, text: "B" });
      assert.deepEqual(before, ["register", "register"]);
      assert.deepEqual(after, ["register", "register"]);
      assert.deepEqual(sectionNames(await prompt.assemble()).slice(2), [
        "a",
        "b",
      ]);
      await dispose();
      assert.deepEqual(after, ["register", "register", "unregister"]);
      assert.deepEqual(sectionNames(await prompt.assemble()).slice(2), ["b"]);
      // Let RxJS's deferred error reports run while they are captured.
      await new Promise((resolve) => setTimeout(resolve, 0));
      // Whether the registry isolates subscribers itself or RxJS reports
      // the error, it never reaches the registration call.
      for (const error of reported) assert.equal(error, boom);
      // Register a, register b, unregister a: each throw reported once.
      assert.equal(logged.length, 3);
      for (const args of logged) assert.ok(args.includes(boom));
    } finally {
      config.onUnhandledError = previous;
      console.error = originalError;
    }
  });
});

describe("registry disposal", () => {
  it("disposes every registrar and built-in, completes change$, and refuses later use", async () => {
    const prompt = new SystemPrompt({ persona: "P" });
    const fork = prompt.fork();
    const scoped = prompt.scope("agent");
    const nested = scoped.fork();
    const teardowns: string[] = [];
    fork.section({ name: "f", order: 1, text: "" });
    nested.variable("v", () => "x");
    scoped.effect(function* () {
      yield () => void teardowns.push("scoped effect");
    });
    fork.effect(function* () {
      yield () => void teardowns.push("fork effect");
    });
    let completed = false;
    const unregistered: (string | undefined)[] = [];
    prompt.change$.subscribe({
      next: (change) => {
        if (change.type === "unregister") unregistered.push(change.name);
      },
      complete: () => {
        completed = true;
      },
    });

    const disposing = prompt.dispose();
    assert.equal(prompt.disposed, true);
    await disposing;
    assert.equal(completed, true);
    assert.deepEqual(teardowns, ["scoped effect", "fork effect"]);
    for (const registrar of [fork, scoped, nested]) {
      assert.equal(registrar.disposed, true);
    }
    assert.ok(unregistered.includes("f"));
    assert.ok(unregistered.includes("v"));
    assert.equal(scopeLayerCount(prompt), 0);

    assert.throws(
      () => prompt.section({ name: "x", order: 0, text: "" }),
      rejects("DISPOSED"),
    );
    assert.throws(
      () => fork.tools(() => ({ schemas: [] })),
      rejects("DISPOSED"),
    );
    assert.throws(() => prompt.scope("agent"), rejects("DISPOSED"));
    await assert.rejects(prompt.assemble(), rejects("DISPOSED"));
    await assert.rejects(
      prompt.assemble({ scope: "agent" }),
      rejects("DISPOSED"),
    );

    // A subscriber arriving after disposal is completed at once.
    let lateCompleted = false;
    prompt.change$.subscribe({ complete: () => void (lateCompleted = true) });
    assert.equal(lateCompleted, true);
    // Idempotent.
    assert.equal(prompt.dispose(), disposing);
  });

  it("works with await using", async () => {
    let outer: SystemPrompt | undefined;
    {
      await using prompt = new SystemPrompt();
      outer = prompt;
      prompt.section({ name: "a", order: 0, text: "" });
      assert.equal(prompt.disposed, false);
    }
    assert.equal(outer.disposed, true);
    await assert.rejects(outer.assemble(), rejects("DISPOSED"));
  });
});

describe("scope keys", () => {
  it("compares keys by identity: two equal-looking objects are two layers", async () => {
    const prompt = new SystemPrompt();
    const a = { id: "same" };
    const b = { id: "same" };
    prompt.scope(a).section({ name: "x", order: 1, text: "for a" });
    prompt.scope(b).section({ name: "x", order: 1, text: "for b" });
    assert.equal(scopeLayerCount(prompt), 2);
    assert.equal(textOf(await prompt.assemble({ scope: a }), "x"), "for a");
    assert.equal(textOf(await prompt.assemble({ scope: b }), "x"), "for b");
    assert.equal(
      textOf(await prompt.assemble({ scope: { id: "same" } }), "x"),
      undefined,
    );
    assert.equal(textOf(await prompt.assemble(), "x"), undefined);
  });

  it("string, number and symbol keys select layers with Map semantics", async () => {
    const prompt = new SystemPrompt();
    const symbol = Symbol("agent");
    prompt.scope("1").section({ name: "x", order: 1, text: "string" });
    prompt.scope(1).section({ name: "x", order: 1, text: "number" });
    prompt.scope(symbol).section({ name: "x", order: 1, text: "symbol" });
    assert.equal(scopeLayerCount(prompt), 3);
    assert.equal(textOf(await prompt.assemble({ scope: "1" }), "x"), "string");
    assert.equal(textOf(await prompt.assemble({ scope: 1 }), "x"), "number");
    assert.equal(
      textOf(await prompt.assemble({ scope: symbol }), "x"),
      "symbol",
    );
    assert.equal(
      textOf(await prompt.assemble({ scope: Symbol("agent") }), "x"),
      undefined,
    );
    // Two registrars for an equal primitive key share one layer.
    prompt.scope("1").section({ name: "y", order: 2, text: "also string" });
    assert.equal(scopeLayerCount(prompt), 3);
    assert.deepEqual(
      sectionNames(await prompt.assemble({ scope: "1" })).slice(2),
      ["x", "y"],
    );
  });

  it("exposes the registrar's scopeKey", () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    assert.equal(prompt.scopeKey, undefined);
    assert.equal(prompt.fork().scopeKey, undefined);
    const scoped = prompt.scope(key);
    assert.equal(scoped.scopeKey, key);
    assert.equal(scoped.fork().scopeKey, key);
    assert.equal(scoped.scope("other").scopeKey, "other");
  });

  it("a scope registrar made from a scope registrar writes to the new key's layer", async () => {
    const prompt = new SystemPrompt();
    const outer = prompt.scope("outer");
    const inner = outer.scope("inner");
    inner.section({ name: "x", order: 1, text: "inner" });
    assert.equal(
      textOf(await prompt.assemble({ scope: "inner" }), "x"),
      "inner",
    );
    assert.equal(
      textOf(await prompt.assemble({ scope: "outer" }), "x"),
      undefined,
    );
    // ...and is owned by its parent.
    await outer.dispose();
    assert.equal(inner.disposed, true);
    assert.equal(
      textOf(await prompt.assemble({ scope: "inner" }), "x"),
      undefined,
    );
  });
});

describe("assemble and invalidate: input and state checks", () => {
  it("assemble rejects INVALID_CONTEXT for a context that is not an object", async () => {
    const prompt = new SystemPrompt();
    for (const context of ["agent", 7, true]) {
      await assert.rejects(
        prompt.assemble(context as never),
        rejects("INVALID_CONTEXT", "must be an object"),
      );
    }
  });

  it("assemble rejects INVALID_SCOPE_KEY for a null scope", async () => {
    const prompt = new SystemPrompt();
    await assert.rejects(
      prompt.assemble({ scope: null as unknown as ScopeKey }),
      rejects("INVALID_SCOPE_KEY", "null"),
    );
  });

  it("invalidate throws DISPOSED once the registry is disposed", async () => {
    const prompt = new SystemPrompt();
    prompt.invalidate();
    await prompt.dispose();
    assert.throws(() => prompt.invalidate(), rejects("DISPOSED", "invalidate"));
  });
});

describe("the constructor", () => {
  it("throws INVALID_TOOL_ORDER with the cause when reading toolOrder throws", () => {
    const failure = new Error("entry getter");
    const toolOrder = new Proxy(["shell"], {
      get(target, key) {
        if (key === "0") throw failure;
        return Reflect.get(target, key);
      },
    });
    assert.throws(() => new SystemPrompt({ toolOrder }), (error) => {
      rejects("INVALID_TOOL_ORDER", "Reading toolOrder threw")(error);
      assert.equal((error as Error).cause, failure);
      return true;
    });
  });
});
