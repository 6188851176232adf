/**
 * SPEC 9.1, 9.8: for random sessions (runtime-context, gate and tool-list
 * changes, parallel tool calls, person pauses), no earlier message is ever
 * modified: every request's messages, marks removed, start with the
 * previous request's bytes, and keep the shape they were first sent in;
 * the tools listed first stay byte-identical; every body stays within four
 * markers.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { continues, markCount, unmarked } from "./helpers.ts";
import { sessionArbitrary } from "./session.ts";
import { FORMS } from "./forms.ts";
import { runSession } from "./run_session.ts";

type Item = { content?: unknown; output?: unknown };
type Body = {
  messages?: Item[];
  input?: Item[];
  contents?: Item[];
  tools?: unknown;
  toolConfig?: { tools: unknown[] };
  config?: { tools?: unknown[] };
};

/**
 * The body's tools as a list (the AI SDK's are keyed by name; Bedrock's in
 * `toolConfig`, Gemini's in `config`).
 */
function toolsOf(body: Body): unknown[] {
  const gemini = body.config?.tools?.flatMap((tool) =>
    (tool as { functionDeclarations: unknown[] }).functionDeclarations
  );
  const tools = unmarked(
    body.tools ?? body.toolConfig?.tools ?? gemini ?? [],
  );
  return Array.isArray(tools) ? tools : Object.entries(tools as object);
}

/** The body's history: `messages`, the Responses `input`, Gemini's `contents`. */
function itemsOf(body: Body): Item[] {
  return body.messages ?? body.input ?? body.contents ?? [];
}

describe("conversation bodies (property)", () => {
  for (const form of FORMS) {
    it(`${form.name}: never modify an earlier message, keep the listed tools, stay within four markers`, async () => {
      await fc.assert(
        fc.asyncProperty(sessionArbitrary, async (steps) => {
          const bodies = await runSession(form, steps, {
            resume: false,
          }) as Body[];
          for (let index = 0; index < bodies.length; index++) {
            const body = bodies[index];
            assert.ok(markCount(body) <= 4, `step ${index + 1}: marks`);
            if (index === 0) continue;
            const before = bodies[index - 1];
            assert.ok(
              continues(itemsOf(before), itemsOf(body)),
              `step ${index + 1} rewrote an earlier message`,
            );
            itemsOf(before).forEach((message, at) => {
              const now = itemsOf(body)[at];
              assert.equal(
                Array.isArray(message.content),
                Array.isArray(now.content),
              );
              assert.equal(
                Array.isArray(message.output),
                Array.isArray(now.output),
              );
            });
            // The tools of the first request stay listed, byte for byte (a
            // rebuild only inserts).
            const listed = JSON.stringify(toolsOf(body));
            for (const tool of toolsOf(bodies[0])) {
              assert.ok(listed.includes(JSON.stringify(tool)));
            }
          }
        }),
        { seed: 33, numRuns: fuzzRuns(40) },
      );
    });
  }
});
