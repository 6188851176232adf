/**
 * A step's plan is made again only when what it is made from changed
 * (issue 49): the same assembly data in fresh objects, with the same
 * committed tools and sections, gives the last plan (its effort read
 * again); any change of the assembly or of what the conversation
 * committed makes a new one. `holdsSameData`, which tells them, compares
 * data as JSON would hold it and is never sure of anything else.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { stepPlan } from "../../src/conversation/step_changes.ts";
import { SystemPromptError } from "../../src/errors.ts";
import { holdsSameData } from "../../src/conversation/same_data.ts";
import { type Committed, EMPTY_STATE } from "../../src/conversation/state.ts";
import type { PromptAssembly } from "../../src/types.ts";

function assembly(
  {
    text = "You help.",
    tool = "shell",
    description = "Run it.",
    runtime = "It is Monday.",
  } = {},
): PromptAssembly {
  return {
    sections: [{ name: "persona", order: 0, text }],
    tools: [{ name: tool, description, parameters: {} }],
    variables: {},
    runtimeContext: [{ name: "date", order: 0, text: runtime }],
  };
}

const builder = {
  changes: { sections: "inline", tools: "rebuild", output: "inline" },
  redefine: "inline",
  turnReminders: false,
} as const;

/** The committed state after a request planned with `plan`. */
function after(
  committed: Committed<unknown>,
  plan: ReturnType<typeof stepPlan>,
): Committed<unknown> {
  return {
    ...committed,
    steps: committed.steps + 1,
    listed: plan.step.tools.listed,
    ...(plan.sections.told === undefined ? {} : { told: plan.sections.told }),
    lastPlan: plan,
  };
}

describe("stepPlan", () => {
  it("gives the last plan for the same data, its effort read again", () => {
    const first = stepPlan(EMPTY_STATE, assembly(), builder, undefined);
    const committed = after(EMPTY_STATE, first);
    const second = stepPlan(committed, assembly(), builder, undefined);
    const third = stepPlan(
      after(committed, second),
      assembly(),
      builder,
      "high",
    );
    assert.equal(third.step, second.step);
    assert.equal(third.sections, second.sections);
    assert.deepEqual(third.effort, { told: "high", change: "high" });
  });

  it("makes a new plan when the assembly or the committed state changed", () => {
    const first = stepPlan(EMPTY_STATE, assembly(), builder, undefined);
    const committed = after(EMPTY_STATE, first);
    const steady = stepPlan(committed, assembly(), builder, undefined);
    const base = after(committed, steady);
    const changes: [string, Committed<unknown>, PromptAssembly][] = [
      ["a section's text", base, assembly({ text: "You help well." })],
      ["a tool", base, assembly({ tool: "grep" })],
      ["a tool's description", base, assembly({ description: "Run." })],
      ["the runtime context", base, assembly({ runtime: "It is Tuesday." })],
      ["a bound block in the history", { ...base, bound: true }, assembly()],
      ["a compaction", { ...base, compacted: true }, assembly()],
    ];
    for (const [what, state, next] of changes) {
      const plan = stepPlan(state, next, builder, undefined);
      assert.notEqual(plan.step, steady.step, what);
    }
    assert.deepEqual(
      stepPlan(base, assembly({ text: "You help well." }), builder, undefined)
        .sections.changes,
      [{ kind: "changed", name: "persona", text: "You help well." }],
    );
    const tuesday = stepPlan(
      base,
      assembly({ runtime: "It is Tuesday." }),
      builder,
      undefined,
    );
    assert.equal(tuesday.runtimeText.includes("Tuesday"), true);
    // The tools' JSON is kept, not written again, when only they stayed.
    assert.equal(tuesday.tools, steady.tools);
    assert.notEqual(
      stepPlan(base, assembly({ tool: "grep" }), builder, undefined).tools,
      steady.tools,
    );
  });

  it("refuses a tool JSON cannot write, naming it, first step or later", () => {
    const odd = (): PromptAssembly => {
      const made = assembly();
      return {
        ...made,
        tools: [{ ...made.tools[0], parameters: { size: 1n } }],
      } as unknown as PromptAssembly;
    };
    const refused = (error: unknown) =>
      error instanceof SystemPromptError &&
      error.code === "INVALID_ASSEMBLY" && error.message.includes('"shell"');
    assert.throws(
      () => stepPlan(EMPTY_STATE, odd(), builder, undefined),
      refused,
    );
    const first = stepPlan(EMPTY_STATE, assembly(), builder, undefined);
    assert.throws(
      () => stepPlan(after(EMPTY_STATE, first), odd(), builder, undefined),
      refused,
    );
  });
});

describe("holdsSameData", () => {
  it("compares data as JSON holds it, and is unsure of anything else", () => {
    assert.equal(holdsSameData({ a: [1, "x"] }, { a: [1, "x"] }), true);
    assert.equal(holdsSameData({ a: 1, b: 2 }, { b: 2, a: 1 }), false);
    assert.equal(holdsSameData({ a: [1] }, { a: [1, 2] }), false);
    assert.equal(holdsSameData({ a: undefined }, {}), false);
    assert.equal(holdsSameData(Number.NaN, Number.NaN), false);
    assert.equal(holdsSameData(new Date(0), new Date(0)), false);
    assert.equal(holdsSameData(new Map(), new Map()), false);
    const shared = new Map([["a", 1]]);
    assert.equal(holdsSameData({ m: shared }, { m: shared }), true);
    let deep: unknown = "leaf";
    let other: unknown = "leaf";
    for (let level = 0; level < 40; level++) {
      deep = [deep];
      other = [other];
    }
    assert.equal(holdsSameData(deep, other), false);
  });
});
