import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  firstValueFrom,
  lastValueFrom,
  map,
  Observable,
  of,
  toArray,
} from "rxjs";
import {
  type AssembleContext,
  type AssembleOptions,
  type PromptAssembly,
  SystemPrompt,
} from "../../mod.ts";
import { macrotask, rejects } from "../assertions.ts";
import { deferred, ownSections, tool, toolNames } from "../fixtures.ts";
import { unhandledDuring } from "./unhandled.ts";

function assembleSafely(
  prompt: SystemPrompt,
  context?: AssembleContext,
): Promise<PromptAssembly> {
  let result: Promise<PromptAssembly> | undefined;
  assert.doesNotThrow(() => {
    result = prompt.assemble(context);
  });
  assert.ok(result instanceof Promise);
  return result;
}

describe("assemble() is always a promise", () => {
  it("resolves for a bare call, with an empty context object", async () => {
    const prompt = new SystemPrompt();
    let seen: unknown;
    prompt.variable("probe", (context) => {
      seen = context;
      return "x";
    });
    const assembly = await assembleSafely(prompt);
    assert.deepEqual(assembly.variables, { probe: "x" });
    assert.equal(typeof seen, "object");
    assert.notEqual(seen, null);
  });

  it("rejects, never throws, on a disposed registry", async () => {
    const prompt = new SystemPrompt();
    await prompt.dispose();
    await assert.rejects(assembleSafely(prompt), rejects("DISPOSED"));
  });

  it("rejects, never throws, when a provider or listener throws synchronously", async () => {
    const failures: [string, (prompt: SystemPrompt, error: Error) => void][] = [
      ["section text", (p, e) =>
        p.section({
          name: "s",
          order: 1,
          text: () => {
            throw e;
          },
        })],
      ["variable", (p, e) =>
        p.variable("v", () => {
          throw e;
        })],
      ["tools", (p, e) =>
        p.tools(() => {
          throw e;
        })],
      ["listener", (p, e) =>
        p.onAssemble(() => {
          throw e;
        })],
    ];
    for (const [label, register] of failures) {
      const prompt = new SystemPrompt();
      const boom = new Error(label);
      register(prompt, boom);
      await assert.rejects(assembleSafely(prompt), (error) => {
        assert.ok(
          error === boom || (error as Error).cause === boom,
          `${label}: ${String(error)}`,
        );
        return true;
      });
    }
  });

  it("rejects, never throws, with an already-aborted signal", async () => {
    const prompt = new SystemPrompt();
    const reason = new Error("aborted before");
    await assert.rejects(
      assembleSafely(prompt, { signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
  });
});

describe("snapshot at the start", () => {
  it("registrations and disposals made by a provider affect only later assemblies", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const disposeSection = prompt.section({
      name: "doomed",
      order: 5,
      text: "doomed",
    });
    const disposeTools = prompt.tools(() => ({ schemas: [tool("doomed")] }));
    const disposeListener = prompt.onAssemble((_assembly, _context, next) => {
      log.push("doomed listener");
      return next();
    });
    let first = true;
    prompt.variable("trigger", () => {
      if (first) {
        first = false;
        prompt.section({ name: "added", order: 6, text: "added" });
        prompt.tools(() => ({ schemas: [tool("added")] }));
        prompt.variable("added", () => "added");
        prompt.onAssemble((_assembly, _context, next) => {
          log.push("added listener");
          return next();
        });
        void disposeSection();
        void disposeTools();
        void disposeListener();
      }
      return "t";
    });

    const current = await prompt.assemble();
    assert.deepEqual(ownSections(current), ["doomed"]);
    assert.deepEqual(toolNames(current), ["doomed"]);
    assert.deepEqual(current.variables, { trigger: "t" });
    assert.deepEqual(log, ["doomed listener"]);

    log.length = 0;
    const next = await prompt.assemble();
    assert.deepEqual(ownSections(next), ["added"]);
    assert.deepEqual(toolNames(next), ["added"]);
    assert.deepEqual(next.variables, { trigger: "t", added: "added" });
    assert.deepEqual(log, ["added listener"]);
  });

  it("registrations and disposals made by a listener affect only later assemblies", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const key = { id: "agent" };
    const scoped = prompt.scope(key);
    const disposeSecond = scoped.onAssemble((_assembly, _context, next) => {
      log.push("second");
      return next();
    });
    let first = true;
    prompt.onAssemble((_assembly, _context, next) => {
      log.push("first");
      if (first) {
        first = false;
        void disposeSecond();
        scoped.onAssemble((_assembly, _context, next) => {
          log.push("added");
          return next();
        });
        scoped.section({ name: "added", order: 1, text: "" });
      }
      return next();
    });
    // Compare sorted logs: this test is about the snapshot, not the order.
    const current = await prompt.assemble({ scope: key });
    assert.deepEqual(log.slice().sort(), ["first", "second"]);
    assert.deepEqual(ownSections(current), []);
    log.length = 0;
    const next = await prompt.assemble({ scope: key });
    assert.deepEqual(log.slice().sort(), ["added", "first"]);
    assert.deepEqual(ownSections(next), ["added"]);
  });

  it("a registration made between calls is seen by the next call", async () => {
    const prompt = new SystemPrompt();
    const before = prompt.assemble();
    prompt.section({ name: "later", order: 1, text: "" });
    const after = prompt.assemble();
    // The snapshot of `before` was read when it was called.
    assert.deepEqual(ownSections(await before), []);
    assert.deepEqual(ownSections(await after), ["later"]);
  });
});

describe("AbortSignal", () => {
  it("an already-aborted signal rejects at once with its reason, calling no provider", async () => {
    const prompt = new SystemPrompt();
    let calls = 0;
    prompt.variable("v", () => {
      calls++;
      return "v";
    });
    prompt.onAssemble((assembly) => {
      calls++;
      return assembly;
    });
    const reason = { custom: "reason" };
    await assert.rejects(
      prompt.assemble({ signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      prompt.assemble({ signal: controller.signal }),
      (error) => error === controller.signal.reason,
    );
    assert.equal(calls, 0);
  });

  it("an abort while a slow listener runs rejects with the reason", async () => {
    const prompt = new SystemPrompt();
    const gate = deferred();
    let listenerStarted = false;
    prompt.onAssemble(async (_assembly, _context, next) => {
      listenerStarted = true;
      await gate.promise;
      return next();
    });
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const result = prompt.assemble({ signal: controller.signal });
    const settled = result.then(
      () => "resolved",
      (error) => error,
    );
    await macrotask();
    assert.equal(listenerStarted, true);
    controller.abort(reason);
    const outcome = await Promise.race([
      settled,
      new Promise((resolve) =>
        setTimeout(() => resolve("still pending"), 1000)
      ),
    ]);
    gate.resolve();
    assert.equal(outcome, reason);
    await macrotask();
    assert.equal(await settled, reason);
  });

  it("an abort raised by a listener stops the later listeners and rejects with the reason", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const reason = new Error("listener aborted");
    const ran: string[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      ran.push("first");
      controller.abort(reason);
      return next().catch(() => assembly);
    });
    prompt.onAssemble((assembly) => {
      ran.push("second");
      return assembly;
    });
    await assert.rejects(
      prompt.assemble({ signal: controller.signal }),
      (error) => error === reason,
    );
    assert.deepEqual(ran, ["first"]);
  });

  it("an abort raised by a provider is noticed: no listener runs and the assembly rejects with the reason", async () => {
    for (const register of ["variable", "section", "tools"] as const) {
      const prompt = new SystemPrompt();
      const controller = new AbortController();
      const reason = new Error(`aborted by a ${register}`);
      const later: string[] = [];
      const abort = (): void => controller.abort(reason);
      if (register === "variable") {
        prompt.variable("v", () => (abort(), "v"));
      } else if (register === "section") {
        prompt.section({ name: "s", order: 1, text: () => (abort(), "s") });
      } else prompt.tools(() => (abort(), { schemas: [] }));
      prompt.tools(() => {
        later.push(`tools after the ${register}`);
        return { schemas: [] };
      });
      prompt.onAssemble((assembly) => {
        later.push("listener");
        return assembly;
      });
      await assert.rejects(
        prompt.assemble({ signal: controller.signal }),
        (error) => error === reason,
      );
      assert.ok(!later.includes("listener"), register);
      if (register !== "tools") assert.deepEqual(later, [], register);
    }
  });

  it("a listener that calls next() after an abort and drops its promise leaves no unhandled rejection", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const reason = new Error("aborted first");
    let nextResult: Promise<unknown> | undefined;
    prompt.onAssemble((assembly, _context, next) => {
      controller.abort(reason);
      nextResult = next();
      return assembly;
    });
    prompt.onAssemble((assembly) => assembly);
    const unhandled: unknown[] = [];
    const onUnhandled = (event: unknown) => unhandled.push(event);
    process.on("unhandledRejection", onUnhandled);
    try {
      await assert.rejects(
        prompt.assemble({ signal: controller.signal }),
        (error) => error === reason,
      );
      await macrotask();
      await macrotask();
      assert.deepEqual(unhandled, []);
      await assert.rejects(nextResult!, (error) => error === reason);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a listener that aborts and returns next() rejects with the reason, and nothing else rejects unhandled", async () => {
    // Issue 21, defect 1: the abort dropped the waterfall's own promise,
    // which rejected too, and the process died of it.
    for (const entry of ["assemble", "explain"] as const) {
      const prompt = new SystemPrompt();
      const controller = new AbortController();
      const reason = new Error(`aborted in a listener (${entry})`);
      prompt.onAssemble((_assembly, _context, next) => {
        controller.abort(reason);
        return next();
      });
      const unhandled = await unhandledDuring(() =>
        assert.rejects(
          prompt[entry]({ signal: controller.signal }),
          (error) => error === reason,
        )
      );
      assert.deepEqual(unhandled, [], entry);
      await prompt.dispose();
    }
  });

  it("an abort raised by an async listener before it resolves rejects with the reason", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const reason = new Error("late abort");
    prompt.onAssemble(async (assembly) => {
      await Promise.resolve();
      controller.abort(reason);
      return assembly;
    });
    await assert.rejects(
      prompt.assemble({ signal: controller.signal }),
      (error) => error === reason,
    );
  });

  it("an abort after the assembly resolved changes nothing", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const assembly = await prompt.assemble({ signal: controller.signal });
    controller.abort(new Error("late"));
    assert.equal(assembly.sections.length, 2);
  });
});

describe("isolation", () => {
  it("mutating every part of a returned assembly never changes a later one", async () => {
    const prompt = new SystemPrompt({ persona: "persona" });
    const parameters = {
      type: "object",
      properties: { x: { type: "string" } },
    };
    prompt.section({ name: "s", order: 1, text: "section" });
    prompt.section({ name: "f", order: 2, text: () => "function" });
    prompt.variable("model", () => "m");
    prompt.tools(() => ({ schemas: [tool("t", "d", parameters)] }));
    const pristine = await prompt.assemble();
    const snapshot = structuredClone(pristine);

    const mutated = await prompt.assemble();
    assert.notEqual(mutated, pristine);
    assert.notEqual(mutated.sections, pristine.sections);
    assert.notEqual(mutated.sections[0], pristine.sections[0]);
    assert.notEqual(mutated.tools, pristine.tools);
    assert.notEqual(mutated.tools[0], pristine.tools[0]);
    assert.notEqual(mutated.tools[0].parameters, pristine.tools[0].parameters);
    assert.notEqual(mutated.variables, pristine.variables);

    for (const section of mutated.sections) {
      section.text = "mutated";
      section.order = 99;
      section.name = "mutated";
    }
    mutated.sections.reverse();
    mutated.sections.push({ name: "pushed", order: 0, text: "" });
    const properties = mutated.tools[0].parameters.properties as Record<
      string,
      Record<string, unknown>
    >;
    properties.x.type = "number";
    properties.y = { type: "boolean" };
    mutated.tools[0].name = "renamed";
    mutated.tools.push(tool("pushed"));
    mutated.variables.model = "mutated";
    mutated.variables.extra = "extra";
    delete mutated.variables.model;

    assert.deepEqual(await prompt.assemble(), snapshot);
    assert.deepEqual(pristine, snapshot);
    assert.deepEqual(parameters, {
      type: "object",
      properties: { x: { type: "string" } },
    });
  });

  it("a listener's mutations do not leak into the registry", async () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "s", order: 1, text: "original" });
    prompt.tools(() => ({ schemas: [tool("t", "d", { nested: { v: 1 } })] }));
    prompt.variable("model", () => "m");
    const pristine = await prompt.assemble();
    const dispose = prompt.onAssemble((assembly, _context, next) => {
      assembly.sections[2].text = "listener";
      (assembly.tools[0].parameters.nested as { v: number }).v = 2;
      assembly.variables.model = "listener";
      return next();
    });
    await prompt.assemble();
    await dispose();
    assert.deepEqual(await prompt.assemble(), pristine);
  });
});

describe("assemble$", () => {
  it("is cold: nothing runs before subscription, and each subscription reads the latest layers", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let calls = 0;
    prompt.variable("n", () => String(++calls));
    const assembly$ = prompt.assemble$();
    assert.equal(calls, 0);
    const first = await firstValueFrom(assembly$);
    prompt.section({ name: "later", order: 1, text: "" });
    const second = await firstValueFrom(assembly$);
    assert.equal(calls, 2);
    assert.deepEqual(first.variables, { n: "1" });
    assert.deepEqual(ownSections(first), []);
    assert.deepEqual(ownSections(second), ["later"]);
    await prompt.dispose();
  });

  it("emits one value, the assembly assemble() gives, then completes", async () => {
    const prompt = new SystemPrompt({ persona: "p" });
    prompt.variable("model", () => "m");
    prompt.tools(() => ({ schemas: [tool("b"), tool("a")] }));
    prompt.onAssemble(async (_assembly, _context, next) => {
      await macrotask();
      return next();
    });
    const values = await lastValueFrom(prompt.assemble$().pipe(toArray()));
    assert.equal(values.length, 1);
    assert.deepEqual(values[0], await prompt.assemble());
    await prompt.dispose();
  });

  it("answers during subscribe when every listener answers synchronously", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble((assembly) => assembly);
    prompt.onAssemble((assembly) => {
      assembly.variables.sync = "yes";
      return of(assembly).pipe(map((same) => same));
    });
    const seen: PromptAssembly[] = [];
    let completed = false;
    prompt.assemble$().subscribe({
      next: (assembly) => seen.push(assembly),
      complete: () => completed = true,
    });
    assert.equal(seen.length, 1);
    assert.equal(completed, true);
    await prompt.dispose();
  });

  it("fails, never throws, for an invalid context, a disposed registry or a listener's error", async () => {
    const prompt = new SystemPrompt();
    const boom = new Error("listener failed");
    prompt.onAssemble(() => {
      throw boom;
    });
    await assert.rejects(
      firstValueFrom(prompt.assemble$(null as never)),
      rejects("INVALID_CONTEXT"),
    );
    await assert.rejects(
      firstValueFrom(prompt.assemble$()),
      (error) => error === boom,
    );
    await prompt.dispose();
    await assert.rejects(
      firstValueFrom(prompt.assemble$()),
      rejects("DISPOSED"),
    );
  });

  it("fails with the signal's reason when the context's signal aborts", async () => {
    const prompt = new SystemPrompt();
    const gate = deferred();
    prompt.onAssemble(async (_assembly, _context, next) => {
      await gate.promise;
      return next();
    });
    const controller = new AbortController();
    const reason = new Error("stop");
    const result = firstValueFrom(
      prompt.assemble$({ signal: controller.signal }),
    );
    controller.abort(reason);
    await assert.rejects(result, (error) => error === reason);
    gate.resolve();
    await prompt.dispose();
  });

  it("unsubscribing stops the waterfall: no later listener starts, next() rejects with an AbortError", async () => {
    const prompt = new SystemPrompt();
    const gate = deferred();
    let later = 0;
    let nextError: unknown;
    prompt.onAssemble(async (assembly, _context, next) => {
      await gate.promise;
      try {
        return await next();
      } catch (error) {
        nextError = error;
        return assembly;
      }
    });
    prompt.onAssemble((assembly) => {
      later++;
      return assembly;
    });
    const values: unknown[] = [];
    const subscription = prompt.assemble$().subscribe((assembly) =>
      values.push(assembly)
    );
    await macrotask();
    subscription.unsubscribe();
    const unhandled = await unhandledDuring(async () => {
      gate.resolve();
      await macrotask();
    });
    assert.deepEqual(unhandled, []);
    assert.equal(later, 0);
    assert.deepEqual(values, []);
    assert.ok(nextError instanceof DOMException);
    assert.equal(nextError.name, "AbortError");
    await prompt.dispose();
  });

  it("unsubscribing tears down an Observable a listener returned", async () => {
    const prompt = new SystemPrompt();
    let tornDown = false;
    prompt.onAssemble(() =>
      new Observable<PromptAssembly>(() => () => tornDown = true)
    );
    const subscription = prompt.assemble$().subscribe();
    assert.equal(tornDown, false);
    subscription.unsubscribe();
    assert.equal(tornDown, true);
    await prompt.dispose();
  });

  it("an abort raised while a later stage starts tears down what that stage started", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const reason = new Error("stop");
    let tornDown = false;
    prompt.onAssemble(async (_assembly, _context, next) => {
      await macrotask();
      return next();
    });
    prompt.onAssemble(() => {
      controller.abort(reason);
      return new Observable<PromptAssembly>(() => () => tornDown = true);
    });
    await assert.rejects(
      prompt.assemble({ signal: controller.signal }),
      (error) => error === reason,
    );
    assert.equal(tornDown, true);
    await prompt.dispose();
  });

  it("takes assemble()'s options: a budget prunes alike, unreadable options are its error", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "a", order: 1, text: "aaaa", priority: 1 });
    prompt.section({ name: "b", order: 2, text: "bbbb" });
    const options: AssembleOptions = {
      budget: { maxTokens: 4, countTokens: (text) => text.length },
    };
    const assembly$ = prompt.assemble$({}, options);
    const pruned = await firstValueFrom(assembly$);
    assert.deepEqual(pruned, await prompt.assemble({}, options));
    assert.deepEqual(ownSections(pruned), ["a"]);
    const hostile = {
      get budget(): never {
        throw new Error("hostile options");
      },
    };
    let failed$: Observable<PromptAssembly> | undefined;
    assert.doesNotThrow(() => failed$ = prompt.assemble$({}, hostile));
    await assert.rejects(firstValueFrom(failed$!), rejects("INVALID_CONFIG"));
    await prompt.dispose();
  });
});
