import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EMPTY, from, map, of, throwError } from "rxjs";
import {
  type AssembleContext,
  type AssembleListener,
  PERSONA_SECTION,
  type PromptAssembly,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { waterfall$ } from "../../src/assemble/waterfall.ts";
import { macrotask, rejects } from "../assertions.ts";
import { foreignSignal, ownSections, tool, toolNames } from "../fixtures.ts";

describe("waterfall", () => {
  type Listener = AssembleListener<AssembleContext & { extra?: number }>;

  it("runs listeners in registration order; global for every assembly, scope only for its own", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const log: string[] = [];
    const named = (name: string): Listener => (_assembly, _context, next) => {
      log.push(name);
      return next();
    };
    prompt.onAssemble(named("g1"));
    prompt.fork().onAssemble(named("g2"));
    prompt.onAssemble(named("g3"));
    const a = prompt.scope("a");
    a.onAssemble(named("a1"));
    prompt.scope("b").onAssemble(named("b1"));
    a.fork().onAssemble(named("a2"));

    await prompt.assemble();
    assert.deepEqual(log, ["g1", "g2", "g3"]);
    log.length = 0;
    await prompt.assemble({ scope: "a" });
    assert.deepEqual(log, ["g1", "g2", "g3", "a1", "a2"]);
    log.length = 0;
    await prompt.assemble({ scope: "b" });
    assert.deepEqual(log, ["g1", "g2", "g3", "b1"]);
    log.length = 0;
    await prompt.assemble({ scope: "c" });
    assert.deepEqual(log, ["g1", "g2", "g3"]);
  });

  it("interleaves global and scope listeners by registration time", async () => {
    // "In registration order" read literally: one sequence across layers
    // (not all global listeners first).
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const named = (name: string): Listener => (_assembly, _context, next) => {
      log.push(name);
      return next();
    };
    const scoped = prompt.scope("a");
    scoped.onAssemble(named("a1"));
    prompt.onAssemble(named("g1"));
    scoped.onAssemble(named("a2"));
    prompt.onAssemble(named("g2"));
    await prompt.assemble({ scope: "a" });
    assert.deepEqual(log, ["a1", "g1", "a2", "g2"]);
    log.length = 0;
    await prompt.assemble();
    assert.deepEqual(log, ["g1", "g2"]);
  });

  it("passes the caller's context object itself to every listener", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const key = { id: "agent" };
    const seen: unknown[] = [];
    const listener: Listener = (_assembly, context, next) => {
      seen.push(context);
      return next();
    };
    prompt.onAssemble(listener);
    prompt.scope(key).onAssemble(listener);
    const context = { scope: key, extra: 1 };
    await prompt.assemble(context);
    assert.equal(seen.length, 2);
    assert.equal(seen[0], context);
    assert.equal(seen[1], context);

    seen.length = 0;
    await prompt.assemble();
    assert.equal(seen.length, 1);
    assert.equal(typeof seen[0], "object");
  });

  it("memoizes next(): calling it twice returns the same promise and runs the rest once", async () => {
    const prompt = new SystemPrompt();
    let downstream = 0;
    let same = false;
    prompt.onAssemble(async (_assembly, _context, next) => {
      const first = next();
      const second = next();
      same = first === second;
      await first;
      const third = next();
      same &&= third === first;
      return second;
    });
    prompt.onAssemble((_assembly, _context, next) => {
      downstream++;
      return next();
    });
    prompt.onAssemble((assembly) => {
      downstream++;
      return assembly;
    });
    await prompt.assemble();
    assert.equal(same, true);
    assert.equal(downstream, 2);
  });

  it("a listener may mutate the assembly and call next()", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let seenDownstream: string[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      assembly.sections.push({ name: "from-listener", order: -1000, text: "" });
      assembly.variables.added = "yes";
      return next();
    });
    prompt.onAssemble((assembly, _context, next) => {
      seenDownstream = assembly.sections.map((s) => s.name);
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(seenDownstream, [PERSONA_SECTION, "from-listener"]);
    assert.deepEqual(result.sections.map((s) => s.name), [
      PERSONA_SECTION,
      "from-listener",
    ]);
    assert.equal(result.variables.added, "yes");
  });

  it("a listener may wrap next()'s result", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      return {
        ...result,
        variables: {
          ...result.variables,
          outer: String(result.variables.inner),
        },
      };
    });
    prompt.onAssemble((assembly, _context, next) => {
      assembly.variables.inner = "set-downstream";
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(result.variables, {
      inner: "set-downstream",
      outer: "set-downstream",
    });
  });

  it("a listener may short-circuit: later listeners do not run and its value is the result", async () => {
    const prompt = new SystemPrompt();
    let laterRan = false;
    const replacement: PromptAssembly = {
      sections: [{ name: "only", order: 0, text: "only" }],
      tools: [],
      variables: { short: "circuit" },
    };
    prompt.onAssemble(() => replacement);
    prompt.onAssemble((assembly) => {
      laterRan = true;
      return assembly;
    });
    const result = await prompt.assemble();
    assert.equal(laterRan, false);
    // assemble() always sets runtimeContext: a 0.1-shaped result gains [].
    assert.deepEqual(result, { ...replacement, runtimeContext: [] });
  });

  it("a listener may return a value, a Promise or an Observable", async () => {
    const make = (label: string): PromptAssembly => ({
      sections: [],
      tools: [],
      variables: { via: label },
    });
    const returns: [string, Listener][] = [
      ["value", () => make("value")],
      ["promise", () => Promise.resolve(make("promise"))],
      ["async", async () => {
        await macrotask();
        return make("async");
      }],
      ["thenable", () =>
        ({
          then: (resolve: (value: PromptAssembly) => void) =>
            resolve(make("thenable")),
        }) as unknown as PromiseLike<PromptAssembly>],
      ["observable", () => of(make("observable"))],
    ];
    for (const [label, listener] of returns) {
      const prompt = new SystemPrompt();
      prompt.onAssemble(listener);
      assert.deepEqual((await prompt.assemble()).variables, { via: label });
    }
  });

  it("awaits a callable thenable, and a promise through its own then", async () => {
    const make = (label: string): PromptAssembly => ({
      sections: [],
      tools: [],
      variables: { via: label },
    });
    const callable = Object.assign(() => {}, {
      then: (resolve: (value: PromptAssembly) => void) =>
        resolve(make("callable")),
    });
    const own = Promise.resolve(make("native then"));
    let reads = 0;
    Object.defineProperty(own, "then", {
      get: () => {
        reads++;
        return (resolve: (value: PromptAssembly) => void) =>
          resolve(make("own then"));
      },
    });
    const returns: [string, unknown][] = [
      ["callable", callable],
      ["own then", own],
    ];
    for (const [label, result] of returns) {
      const prompt = new SystemPrompt();
      prompt.onAssemble(() => result as PromptAssembly);
      assert.deepEqual((await prompt.assemble()).variables, { via: label });
      await prompt.dispose();
    }
    assert.equal(reads, 1, "then is read once");
  });

  it("an Observable listener may wrap next()", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble((assembly, _context, next) => {
      assembly.variables.before = "b";
      return from(next()).pipe(
        map((result) => ({
          ...result,
          variables: { ...result.variables, after: "a" },
        })),
      );
    });
    assert.deepEqual((await prompt.assemble()).variables, {
      before: "b",
      after: "a",
    });
  });

  it("without listeners the initial assembly is the result", async () => {
    const prompt = new SystemPrompt({ persona: "p" });
    prompt.variable("model", () => "m");
    const assembly = await prompt.assemble();
    assert.deepEqual(ownSections(assembly), []);
    assert.deepEqual(assembly.variables, { model: "m" });
  });

  it("a listener's error rejects the assembly with that same error", async () => {
    const boom = new Error("listener failed");
    const failing: [string, Listener][] = [
      ["throw", () => {
        throw boom;
      }],
      ["reject", () => Promise.reject(boom)],
      ["async throw", async () => {
        await macrotask();
        throw boom;
      }],
      ["observable error", () => throwError(() => boom)],
      ["after next", async (_a, _c, next) => {
        await next();
        throw boom;
      }],
    ];
    for (const [label, listener] of failing) {
      const prompt = new SystemPrompt();
      prompt.onAssemble((_assembly, _context, next) => next());
      prompt.onAssemble(listener);
      await assert.rejects(prompt.assemble(), (error) => {
        assert.equal(error, boom, label);
        return true;
      });
    }
  });

  it("a downstream error propagates through next() to upstream listeners", async () => {
    const prompt = new SystemPrompt();
    const boom = new Error("downstream");
    let caughtUpstream: unknown;
    prompt.onAssemble(async (_assembly, _context, next) => {
      try {
        return await next();
      } catch (error) {
        caughtUpstream = error;
        throw error;
      }
    });
    prompt.onAssemble(() => {
      throw boom;
    });
    await assert.rejects(prompt.assemble(), (error) => error === boom);
    assert.equal(caughtUpstream, boom);
  });

  it("applies canonical tool order before the waterfall; a listener's addition stays where it put it", async () => {
    const prompt = new SystemPrompt({ toolOrder: [TOOL_ORDER_REST, "first"] });
    prompt.tools(() => ({ schemas: [tool("c"), tool("first"), tool("a")] }));
    prompt.tools(() => ({ schemas: [tool("b")] }));
    let seen: string[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      seen = toolNames(assembly);
      assembly.tools.push(tool("0-added"));
      assembly.sections.push({ name: "0-added", order: -1e9, text: "" });
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(seen, ["a", "b", "c", "first"]);
    assert.deepEqual(toolNames(result), ["a", "b", "c", "first", "0-added"]);
    assert.equal(result.sections.at(-1)?.name, "0-added");
  });

  it("rejects INVALID_LISTENER_RESULT for a result that is not an assembly, naming the listener", async () => {
    const results: unknown[] = [undefined, null, 7, { sections: [] }, {
      sections: [],
      tools: [],
      variables: null,
    }];
    for (const result of results) {
      const prompt = new SystemPrompt();
      prompt.onAssemble((_assembly, _context, next) => next());
      prompt.onAssemble(() => result as PromptAssembly);
      await assert.rejects(
        prompt.assemble(),
        (error) => {
          rejects("INVALID_LISTENER_RESULT", "listener #2", "next()")(error);
          // Readable, only wrong: nothing was thrown, so there is no cause.
          assert.equal((error as Error).cause, undefined, String(result));
          return true;
        },
        String(result),
      );
    }
  });

  it("rejects INVALID_LISTENER_RESULT for a result whose fields throw when read", async () => {
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const results: unknown[] = [
      {
        get sections(): never {
          throw new Error("getter");
        },
        tools: [],
        variables: {},
      },
      revoked,
    ];
    for (const result of results) {
      const prompt = new SystemPrompt();
      prompt.onAssemble(() => result as PromptAssembly);
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_LISTENER_RESULT", "listener #1"),
      );
      await prompt.dispose();
    }
  });

  it("keeps what a listener result threw when read as the cause of INVALID_LISTENER_RESULT", async () => {
    // Issue 21, defect 2: the cause was lost ("returned an object").
    const boom = new Error("unreadable result");
    const results: [string, unknown][] = [
      ["then getter", {
        get then(): never {
          throw boom;
        },
        sections: [],
        tools: [],
        variables: {},
      }],
      [
        "throwing Proxy",
        new Proxy({}, {
          get(): never {
            throw boom;
          },
        }),
      ],
      ["sections getter", {
        get sections(): never {
          throw boom;
        },
        tools: [],
        variables: {},
      }],
    ];
    for (const [label, result] of results) {
      const prompt = new SystemPrompt();
      prompt.onAssemble((_assembly, _context, next) => next());
      prompt.onAssemble(() => result as PromptAssembly);
      await assert.rejects(prompt.assemble(), (error) => {
        rejects("INVALID_LISTENER_RESULT", "listener #2")(error);
        assert.equal((error as Error).cause, boom, label);
        return true;
      });
      await prompt.dispose();
    }
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const prompt = new SystemPrompt();
    prompt.onAssemble(() => revoked as PromptAssembly);
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("INVALID_LISTENER_RESULT", "listener #1")(error);
      assert.ok((error as Error).cause instanceof TypeError);
      return true;
    });
    await prompt.dispose();
  });

  /**
   * A registry whose first listener starts the rest with next(), does not
   * wait for it, and answers with `answer`; the second listener runs a
   * macrotask later. `rest()` is what the first listener's next() gave,
   * once it did (a few macrotasks at most).
   */
  function unwaitedRest(
    answer: (assembly: PromptAssembly) => ReturnType<AssembleListener>,
  ): { prompt: SystemPrompt; rest: () => Promise<PromptAssembly | undefined> } {
    const prompt = new SystemPrompt();
    let rest: PromptAssembly | undefined;
    prompt.onAssemble((assembly, _context, next) => {
      next().then((result) => rest = result);
      return answer(assembly);
    });
    prompt.onAssemble(async (assembly, _context, next) => {
      await macrotask();
      assembly.variables.later = "ran";
      return next();
    });
    async function restOf(): Promise<PromptAssembly | undefined> {
      for (let turn = 0; turn < 3 && rest === undefined; turn++) {
        await macrotask();
      }
      return rest;
    }
    return { prompt, rest: restOf };
  }

  it("a rest the listener did not wait for still runs to its end after the assembly resolved", async () => {
    const { prompt, rest } = unwaitedRest((assembly) => ({
      ...assembly,
      variables: { first: "answered" },
    }));
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.variables, { first: "answered" });
    assert.equal((await rest())?.variables.later, "ran");
    await prompt.dispose();
  });

  it("a first listener that throws, or whose promise rejects, after calling next() leaves the rest running", async () => {
    const failure = new Error("first listener failed");
    const answers = [
      (): never => {
        throw failure;
      },
      async (): Promise<never> => {
        await Promise.resolve();
        throw failure;
      },
    ];
    for (const answer of answers) {
      const { prompt, rest } = unwaitedRest(answer);
      await assert.rejects(prompt.assemble(), (error) => error === failure);
      assert.equal((await rest())?.variables.later, "ran");
      await prompt.dispose();
    }
  });

  it("leaves no abort listener on the caller's signal once an assembly settles", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble(async (_assembly, _context, next) => {
      await macrotask();
      return next();
    });
    const caller = foreignSignal();
    for (let step = 0; step < 3; step++) {
      await prompt.assemble({ signal: caller.signal });
    }
    prompt.onAssemble(() => Promise.reject(new Error("listener failed")));
    await assert.rejects(prompt.assemble({ signal: caller.signal }));
    assert.equal(caller.listeners.size, 0);
    await prompt.dispose();
  });

  it("rejects INVALID_LISTENER_RESULT for an Observable that completes empty", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble(() => EMPTY);
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_LISTENER_RESULT", "listener #1", "without a value"),
    );
  });
});

describe("waterfall$", () => {
  it("emits the first stage's answer and completes", () => {
    const assembly: PromptAssembly = { sections: [], tools: [], variables: {} };
    const events: string[] = [];
    waterfall$([(given) => given], assembly, {
      context: {},
      signal: undefined,
    }).subscribe({
      next: (value) => events.push(value === assembly ? "value" : "other"),
      complete: () => events.push("complete"),
    });
    assert.deepEqual(events, ["value", "complete"]);
  });
});
