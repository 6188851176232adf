/**
 * Runtime contexts (SPEC 7.5): registration and its errors, ordering and
 * shadowing, `assembly.runtimeContext`, `includeRuntimeContext`, and
 * `suppressRuntimeContext()` in the global layer and along a scope chain.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type PromptAssembly,
  type PromptRuntimeContext,
  renderPrompt,
  renderRuntimeContext,
  SystemPrompt,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { recordChanges } from "../fixtures.ts";

function registry(includeRuntimeContext?: boolean): SystemPrompt {
  return new SystemPrompt({
    includeHarnessIdentity: false,
    ...(includeRuntimeContext === undefined ? {} : { includeRuntimeContext }),
  });
}

function names(assembly: PromptAssembly): string[] {
  return (assembly.runtimeContext ?? []).map((entry) => entry.name);
}

describe("runtimeContext()", () => {
  it("sets runtimeContext to [] when there is none", async () => {
    const prompt = registry();
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.runtimeContext, []);
    await prompt.dispose();
  });

  it("sorts entries by order then code-unit name, keeps them out of the system prompt", async () => {
    const prompt = registry();
    prompt.variable("date", () => "2026-12-02");
    prompt.runtimeContext({ name: "git", order: 10, text: "On main." });
    prompt.runtimeContext({ name: "b", order: 0, text: "Today is {{date}}." });
    prompt.runtimeContext({ name: "a", order: 0, text: () => "" });
    prompt.section({ name: "rules", order: 1, text: "Be brief." });
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.runtimeContext, [
      { name: "a", order: 0, text: "" },
      { name: "b", order: 0, text: "Today is {{date}}." },
      { name: "git", order: 10, text: "On main." },
    ]);
    assert.equal(renderPrompt(assembly), "Be brief.");
    assert.equal(
      renderRuntimeContext(assembly),
      "Today is 2026-12-02.\n\nOn main.",
    );
    await prompt.dispose();
  });

  it("calls a text function with the context, once per assembly", async () => {
    const prompt = new SystemPrompt<{ scope?: string; cwd?: string }>();
    const seen: unknown[] = [];
    const context = { cwd: "/repo" };
    prompt.runtimeContext({
      name: "cwd",
      order: 0,
      text: (given) => {
        seen.push(given);
        return `In ${given.cwd}.`;
      },
    });
    const assembly = await prompt.assemble(context);
    assert.deepEqual(seen, [context]);
    assert.equal(seen[0], context);
    assert.equal(renderRuntimeContext(assembly), "In /repo.");
    await prompt.dispose();
  });

  it("a scope's entry shadows a global one of the same name, for that scope only", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "date", order: 0, text: "global" });
    prompt.scope("agent").runtimeContext({
      name: "date",
      order: 5,
      text: "scoped",
    });
    assert.deepEqual(
      (await prompt.assemble({ scope: "agent" })).runtimeContext,
      [{ name: "date", order: 5, text: "scoped" }],
    );
    assert.equal(renderRuntimeContext(await prompt.assemble()), "global");
    await prompt.dispose();
  });

  it("DUPLICATE_RUNTIME_CONTEXT within one layer, naming it; other layers may reuse the name", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "date", order: 0, text: "a" });
    const recording = recordChanges(prompt);
    assert.throws(
      () => prompt.runtimeContext({ name: "date", order: 1, text: "b" }),
      rejects("DUPLICATE_RUNTIME_CONTEXT", '"date"', "global layer"),
    );
    assert.deepEqual(recording.changes, []);
    prompt.scope("agent").runtimeContext({ name: "date", order: 0, text: "c" });
    assert.throws(
      () =>
        prompt.scope("agent").runtimeContext({
          name: "date",
          order: 0,
          text: "d",
        }),
      rejects("DUPLICATE_RUNTIME_CONTEXT", 'scope "agent"'),
    );
    await prompt.dispose();
  });

  it("validates its input with INVALID_SECTION naming the entry", async () => {
    const prompt = registry();
    const bad: [unknown, string][] = [
      [null, "object"],
      [{ name: "", order: 0, text: "" }, "name"],
      [{ name: "x", order: Infinity, text: "" }, '"x"'],
      [{ name: "x", order: 0, text: 3 }, '"x"'],
    ];
    for (const [input, part] of bad) {
      assert.throws(
        () => prompt.runtimeContext(input as PromptRuntimeContext),
        rejects("INVALID_SECTION", part),
      );
    }
    await prompt.dispose();
  });

  it("a text function that throws rejects PROVIDER_FAILED naming the entry, with the cause", async () => {
    const prompt = registry();
    const cause = new Error("git missing");
    prompt.runtimeContext({
      name: "git",
      order: 0,
      text: () => {
        throw cause;
      },
    });
    await assert.rejects(prompt.assemble(), (error: unknown) => {
      rejects("PROVIDER_FAILED", 'runtime context "git"')(error);
      assert.equal((error as Error).cause, cause);
      return true;
    });
    await prompt.dispose();
  });

  it("a text function that returns a non-string rejects PROVIDER_FAILED naming the entry and how to leave it out", async () => {
    const prompt = registry();
    prompt.runtimeContext({
      name: "git",
      order: 0,
      text: () => 42 as unknown as string,
    });
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "PROVIDER_FAILED",
        'text function of runtime context "git"',
        "returned number",
        '("" to leave it out)',
      ),
    );
    await prompt.dispose();
  });

  it("emits register and unregister changes of kind runtimeContext", async () => {
    const prompt = registry();
    const recording = recordChanges(prompt);
    const dispose = prompt.scope("a").runtimeContext({
      name: "d",
      order: 0,
      text: "",
    });
    await dispose();
    assert.deepEqual(recording.changes, [
      { type: "register", kind: "runtimeContext", name: "d", scope: "a" },
      { type: "unregister", kind: "runtimeContext", name: "d", scope: "a" },
    ]);
    await prompt.dispose();
  });

  it("listeners may edit it; one returning a 0.1-shaped assembly reads as []", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "a", order: 0, text: "a" });
    prompt.onAssemble((assembly) => {
      assembly.runtimeContext?.push({ name: "z", order: 9, text: "z" });
      return assembly;
    });
    assert.deepEqual(names(await prompt.assemble()), ["a", "z"]);
    const legacy = registry();
    legacy.onAssemble(() => ({ sections: [], tools: [], variables: {} }));
    assert.deepEqual((await legacy.assemble()).runtimeContext, []);
    await prompt.dispose();
    await legacy.dispose();
  });

  it("a listener result whose runtimeContext is not an array rejects INVALID_LISTENER_RESULT", async () => {
    const prompt = registry();
    prompt.onAssemble((assembly) =>
      ({ ...assembly, runtimeContext: "today" }) as unknown as PromptAssembly
    );
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_LISTENER_RESULT", "runtimeContext"),
    );
    await prompt.dispose();
  });
});

describe("includeRuntimeContext: false", () => {
  it("calls no provider, gives listeners [] and empties runtimeContext after the waterfall", async () => {
    const prompt = registry(false);
    let called = false;
    prompt.runtimeContext({
      name: "a",
      order: 0,
      text: () => {
        called = true;
        return "a";
      },
    });
    let seen: unknown;
    prompt.onAssemble((assembly) => {
      seen = structuredClone(assembly.runtimeContext);
      assembly.runtimeContext?.push({ name: "late", order: 0, text: "x" });
      return assembly;
    });
    const assembly = await prompt.assemble();
    assert.equal(called, false);
    assert.deepEqual(seen, []);
    assert.deepEqual(assembly.runtimeContext, []);
    await prompt.dispose();
  });

  it("is validated by the constructor", () => {
    assert.throws(
      () =>
        new SystemPrompt({ includeRuntimeContext: "no" as unknown as boolean }),
      rejects("INVALID_CONFIG", "includeRuntimeContext"),
    );
  });
});

describe("suppressRuntimeContext()", () => {
  it("in the global layer: off for every assembly until its disposer runs", async () => {
    const prompt = registry();
    let calls = 0;
    prompt.runtimeContext({ name: "a", order: 0, text: () => `a${++calls}` });
    const recording = recordChanges(prompt);
    const restore = prompt.suppressRuntimeContext();
    assert.deepEqual((await prompt.assemble()).runtimeContext, []);
    assert.deepEqual(
      (await prompt.assemble({ scope: "x" })).runtimeContext,
      [],
    );
    assert.equal(calls, 0);
    await restore();
    assert.deepEqual(names(await prompt.assemble()), ["a"]);
    assert.deepEqual(recording.changes, [
      { type: "register", kind: "suppressor" },
      { type: "unregister", kind: "suppressor" },
    ]);
    await prompt.dispose();
  });

  it("in a scope: off for that scope and the scopes whose chain holds it, only", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "a", order: 0, text: "a" });
    const restore = prompt.scope("preset").suppressRuntimeContext();
    prompt.bindScope("sub", "preset");
    assert.deepEqual(
      (await prompt.assemble({ scope: "preset" })).runtimeContext,
      [],
    );
    assert.deepEqual(
      (await prompt.assemble({ scope: "sub" })).runtimeContext,
      [],
    );
    assert.deepEqual(names(await prompt.assemble({ scope: "other" })), ["a"]);
    assert.deepEqual(names(await prompt.assemble()), ["a"]);
    await restore();
    assert.deepEqual(names(await prompt.assemble({ scope: "sub" })), ["a"]);
    await prompt.dispose();
  });

  it("two suppressors: off until both are gone; listener additions are discarded", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "a", order: 0, text: "a" });
    prompt.onAssemble((assembly) => ({
      ...assembly,
      runtimeContext: [{ name: "late", order: 0, text: "late" }],
    }));
    const first = prompt.suppressRuntimeContext();
    const second = prompt.fork().suppressRuntimeContext();
    await first();
    assert.deepEqual((await prompt.assemble()).runtimeContext, []);
    await second();
    assert.deepEqual(names(await prompt.assemble()), ["late"]);
    await prompt.dispose();
  });

  it("DISPOSED through a disposed registrar", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    await plugin.dispose();
    assert.throws(() => plugin.suppressRuntimeContext(), rejects("DISPOSED"));
    assert.throws(
      () => plugin.runtimeContext({ name: "a", order: 0, text: "" }),
      rejects("DISPOSED", 'register runtime context "a"'),
    );
    assert.throws(
      () => plugin.runtimeContext(null as unknown as PromptRuntimeContext),
      rejects("DISPOSED", "register a runtime context"),
    );
    await prompt.dispose();
  });
});
