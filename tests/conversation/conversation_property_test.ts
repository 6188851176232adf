/**
 * SPEC 9.1, 9.8: for random sessions (runtime-context, gate and tool-list
 * changes, parallel tool calls, person pauses), no earlier message is ever
 * modified: every request's messages, marks removed, start with the
 * previous request's bytes; the tools listed first stay byte-identical;
 * every body stays within four markers.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  anthropicConversation,
  type AnthropicConversationBody,
} from "../../adapters/anthropic.ts";
import { fuzzRuns } from "../fuzz_runs.ts";
import { agent, continues, markCount, message, unmarked } from "./helpers.ts";
import { applyStep, sessionArbitrary, type SessionStep } from "./session.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

/** Runs a session; returns every request body. */
async function run(
  steps: readonly SessionStep[],
): Promise<AnthropicConversationBody[]> {
  const a = agent();
  const conv = anthropicConversation(a.prompt, OPTIONS);
  const bodies: AnthropicConversationBody[] = [];
  conv.user("Start.");
  let n = 0;
  for (const step of steps) {
    applyStep(a, step);
    if (step.say !== undefined) conv.user(step.say);
    const body = await conv.request(undefined, { awaiting: step.awaiting });
    bodies.push(body);
    const calls = conv.record(
      message(
        step.calls.length === 0
          ? [{ type: "text", text: "Done." }]
          : step.calls.map((name) => ({
            type: "tool_use",
            id: `call_${n++}`,
            name,
            input: {},
          })),
      ),
    );
    const ordered = step.reverse ? calls.toReversed() : calls;
    for (const call of ordered) conv.toolResult(call.id, `ran ${call.name}`);
    if (calls.length === 0 && step.calls.length === 0) conv.user("Next.");
  }
  await a.prompt.dispose();
  return bodies;
}

describe("conversation bodies (property)", () => {
  it("never modify an earlier message, keep the listed tools and stay within four markers", async () => {
    await fc.assert(
      fc.asyncProperty(sessionArbitrary, async (steps) => {
        const bodies = await run(steps);
        for (let index = 0; index < bodies.length; index++) {
          const body = bodies[index];
          assert.ok(markCount(body) <= 4, `step ${index + 1}: too many marks`);
          if (index === 0) continue;
          const before = bodies[index - 1];
          assert.ok(
            continues(before.messages, body.messages),
            `step ${index + 1} rewrote an earlier message`,
          );
          // The tools of the first request stay listed, byte for byte and in
          // their order (a rebuild only inserts).
          const listed = JSON.stringify(unmarked(body.tools ?? []));
          for (const tool of unmarked(bodies[0].tools ?? []) as unknown[]) {
            assert.ok(listed.includes(JSON.stringify(tool)));
          }
          for (const message of body.messages) {
            assert.ok(Array.isArray(message.content));
          }
        }
      }),
      { seed: 33, numRuns: fuzzRuns(60) },
    );
  });
});
