import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { bestLayoutTokens } from "../../../adapters/cache/mod.ts";
import { SystemPromptError } from "../../../mod.ts";
import fc from "fast-check";

const count = (text: string): number => text.length;

describe("bestLayoutTokens", () => {
  it("counts the units unchanged since the previous request, wherever they are", () => {
    const { requests, totals } = bestLayoutTokens([
      {
        body: {
          tools: [{ name: "a", input_schema: {} }],
          system: [{ type: "text", text: "Rules.\n\nMonday." }],
          messages: [{ role: "user", content: "q1" }],
        },
      },
      {
        body: {
          tools: [{
            name: "a",
            input_schema: {},
            cache_control: { type: "ephemeral" },
          }],
          system: [{ type: "text", text: "Rules.\n\nTuesday." }],
          messages: [
            { role: "user", content: "context" },
            { role: "user", content: "q1" },
            { role: "assistant", content: "a1" },
          ],
        },
      },
    ], count);
    const tool = JSON.stringify({ name: "a", input_schema: {} }).length;
    assert.deepEqual(requests[0], {
      inputTokens: tool + 15 + 2,
      boundTokens: 0,
      promptTokens: tool + 15,
      promptBoundTokens: 0,
    });
    // The tool (its marker is not content), "Rules.\n\n" and "q1".
    assert.equal(requests[1].boundTokens, tool + 8 + 2);
    assert.equal(requests[1].promptBoundTokens, tool + 8);
    assert.equal(requests[1].inputTokens, tool + 16 + 7 + 2 + 2);
    assert.equal(totals.boundTokens, tool + 10);
  });

  it("compares a thread with its own last request, and a new thread with the previous request", () => {
    const body = (content: string) => ({
      messages: [{ role: "user", content }],
    });
    const { requests } = bestLayoutTokens([
      { body: body("main one"), thread: "main" },
      { body: body("main one"), thread: "helper" },
      { body: body("helper"), thread: "helper" },
      { body: body("main one"), thread: "main" },
    ], count);
    assert.deepEqual(requests.map((r) => r.boundTokens), [0, 8, 0, 8]);
  });

  it("reads Chat Completions and Responses bodies", () => {
    const chat = {
      messages: [{ role: "system", content: "A.\n\nB." }, {
        role: "user",
        content: "q",
      }],
    };
    const responses = { instructions: "A.\n\nB.", input: "q" };
    for (const body of [chat, responses]) {
      const { requests } = bestLayoutTokens([{ body }, { body }], count);
      assert.equal(requests[1].boundTokens, 7);
      assert.equal(requests[1].promptBoundTokens, 6);
    }
  });

  it("names the request that cannot be read", () => {
    assert.throws(
      () =>
        bestLayoutTokens([{ body: { messages: [] } }, { body: null }], count),
      (error) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
        /^request 1: the body is null/.test(error.message),
    );
    assert.throws(
      () =>
        bestLayoutTokens([{ body: { messages: [] }, time: 3 }, {
          body: { messages: [] },
          time: 1,
        }], count),
      (error) =>
        error instanceof SystemPromptError &&
        /^request 1: time 1/.test(error.message),
    );
    assert.throws(
      () => bestLayoutTokens([{ body: { input: "x" } }], () => 0.5),
      (error) =>
        error instanceof SystemPromptError &&
        /^request 0: countTokens returned 0.5/.test(error.message),
    );
  });

  it("bounds a repeated request by its whole input, and any request by its input (seeded)", () => {
    const textArb = fc.constantFrom("a", "bb\n\ncc", "ddd", "");
    const bodyArb = fc.record({
      system: textArb,
      messages: fc.array(
        fc.record({
          role: fc.constantFrom("user", "assistant"),
          content: textArb,
        }),
        { maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ body: bodyArb, thread: fc.constantFrom("a", "b") }),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        (requests) => {
          const last = requests[requests.length - 1];
          const all = [...requests, { ...last }];
          const { requests: bounds } = bestLayoutTokens(all, count);
          for (const bound of bounds) {
            assert.ok(bound.boundTokens <= bound.inputTokens);
            assert.ok(bound.promptBoundTokens <= bound.promptTokens);
          }
          const repeated = bounds[bounds.length - 1];
          assert.equal(repeated.boundTokens, repeated.inputTokens);
        },
      ),
      { seed: 8_082_026, numRuns: 300 },
    );
  });
});
