/**
 * SPEC 10.1 (issue 46): for random plugin changes (a section added,
 * changed, removed, a template with literal braces, a variable's new
 * value; tools added and removed; gates, runtime context, tool rounds),
 * every body extends the previous one byte for byte, marks aside: its
 * system prompt and, where tools go inline, its tools are the previous
 * body's, and its history starts with the previous history. The model is
 * told each change, and a conversation resumed from its own save after
 * every step sends the same bodies.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { agent, continues, unmarked } from "./helpers.ts";
import { FORMS } from "./forms.ts";
import { applyStep, sessionArbitrary, type SessionStep } from "./session.ts";
import type { Form } from "./forms.ts";
import type { AnyConversation } from "./forms.ts";

type Body = {
  system?: unknown;
  tools?: unknown;
  messages?: unknown[];
  input?: unknown[];
};

/** One step's plugin changes besides the session's own. */
interface PluginStep {
  /** The plan section's text, or absent. */
  readonly plan: "none" | "short" | "long";
  /** The value of the variable the notes section reads. */
  readonly notes: string;
}

const pluginArbitrary: fc.Arbitrary<PluginStep> = fc.record({
  plan: fc.constantFrom("none" as const, "short" as const, "long" as const),
  notes: fc.constantFrom("{{x}}", "a \\{{b}}", "plain"),
});

async function run(
  form: Form,
  steps: readonly (readonly [SessionStep, PluginStep])[],
  { resume }: { resume: boolean },
): Promise<Body[]> {
  const a = agent();
  const plugin = { plan: "none", notes: "plain" };
  a.prompt.variable("notes", () => plugin.notes);
  a.prompt.section({
    name: "plan",
    order: 20,
    text: () =>
      plugin.plan === "none"
        ? ""
        : plugin.plan === "short"
        ? "Plan: fix {{notes}}."
        : "Plan: fix the test, then \\{{literal}} braces.",
  });
  a.prompt.section({ name: "notes", order: 30, text: "Notes: {{notes}}" });
  let conv: AnyConversation = form.start(a.prompt, { changes: "inline" });
  const bodies: Body[] = [];
  conv.user("Start.");
  let n = 0;
  for (const [step, change] of steps) {
    applyStep(a, step);
    plugin.plan = change.plan;
    plugin.notes = change.notes;
    if (step.say !== undefined) conv.user(step.say);
    bodies.push(await conv.request(undefined, { awaiting: step.awaiting }));
    conv.record(
      form.answer(step.calls.map((name) => ({ id: `call_${n++}`, name }))),
    );
    if (resume) conv = form.resume(a.prompt, conv.save());
    for (const call of conv.openCalls) {
      conv.toolResult(call.id, `ran ${call.name}`);
    }
    if (step.calls.length === 0) conv.user("Next.");
  }
  await a.prompt.dispose();
  return bodies;
}

const sessions = fc.array(fc.tuple(sessionArbitrary, pluginArbitrary), {
  minLength: 1,
  maxLength: 5,
}).map((parts) =>
  parts.flatMap(([session, plugin]) =>
    session.map((step) => [step, plugin] as const)
  )
);

function itemsOf(body: Body): unknown[] {
  return body.messages ?? body.input ?? [];
}

const json = (value: unknown) => JSON.stringify(unmarked(value));

describe("append-only changes (property, issue 46)", () => {
  // Bedrock Converse and Gemini have no inline form yet: they rebuild.
  for (
    const form of FORMS.filter((form) =>
      !form.name.startsWith("bedrock") && !form.name.startsWith("gemini")
    )
  ) {
    // Chat Completions and the AI SDK take no inline tool change: their
    // tools block is rebuilt, their system prompt never.
    const toolsInline = form.name.startsWith("anthropic") ||
      form.name.startsWith("openai-responses");
    it(`${form.name}: every body extends the previous one (marks aside); resumed, the same bodies`, async () => {
      await fc.assert(
        fc.asyncProperty(sessions, async (steps) => {
          const bodies = await run(form, steps, { resume: false });
          for (let index = 1; index < bodies.length; index++) {
            const before = bodies[index - 1];
            const body = bodies[index];
            const step = `step ${index + 1}`;
            assert.equal(json(body.system), json(before.system), step);
            if (toolsInline) {
              assert.equal(json(body.tools), json(before.tools), step);
            }
            assert.ok(
              continues(itemsOf(before), itemsOf(body)),
              `${step} rewrote an earlier item`,
            );
          }
          const resumed = await run(form, steps, { resume: true });
          assert.equal(JSON.stringify(resumed), JSON.stringify(bodies));
        }),
        { seed: 46, numRuns: fuzzRuns(25) },
      );
    });
  }
});
