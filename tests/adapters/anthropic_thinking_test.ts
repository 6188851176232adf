/**
 * Extended thinking as an option of the Anthropic conversation: the
 * body's top-level `thinking` on every request (the summarizing one
 * included), kept in the recording, checked.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  type AnthropicConversationOptions,
  type AnthropicThinking,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { SystemPromptError } from "../../mod.ts";
import { agent, message, toolUse } from "../conversation/helpers.ts";

const THINKING: AnthropicThinking = {
  type: "enabled",
  budget_tokens: 2048,
  display: "summarized",
};
const OPTIONS = {
  model: "claude-sonnet-4-5",
  max_tokens: 4096,
  thinking: THINKING,
};

function thought(text: string): Record<string, unknown> {
  return { type: "thinking", thinking: text, signature: `sig-${text}` };
}

function invalidConfig(pattern: RegExp) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
    pattern.test(error.message);
}

/** A conversation with thinking on, a tool round trip answered. */
async function session(options: AnthropicConversationOptions) {
  const a = agent();
  const conv = anthropicConversation(a.prompt, options);
  conv.user("Fix the failing test.");
  const first = await conv.request();
  for (
    const call of conv.record(
      message([thought("Read it first."), toolUse("t1", "read_file")]),
    )
  ) conv.toolResult(call.id, "export {};");
  const second = await conv.request();
  conv.record(message([thought("Done."), { type: "text", text: "Fixed." }]));
  return { a, conv, first, second };
}

describe("anthropicConversation's thinking", () => {
  it("is the body's top-level thinking from the first request on", async () => {
    const { first, second } = await session(OPTIONS);
    assert.deepEqual(first.thinking, THINKING);
    assert.deepEqual(second.thinking, THINKING);
    // The head's: after max_tokens, before the system prompt.
    assert.deepEqual(Object.keys(first).slice(0, 4), [
      "model",
      "max_tokens",
      "thinking",
      "system",
    ]);
  });

  it("is absent from the body when the option is", async () => {
    const { first } = await session({ model: "m", max_tokens: 1024 });
    assert.equal("thinking" in first, false);
  });

  it("is a copy: changing the given object later changes no body", async () => {
    const given = { type: "enabled" as const, budget_tokens: 1024 };
    const a = agent();
    const conv = anthropicConversation(a.prompt, {
      ...OPTIONS,
      thinking: given,
    });
    given.budget_tokens = 4000;
    conv.user("Go.");
    assert.deepEqual((await conv.request()).thinking, {
      type: "enabled",
      budget_tokens: 1024,
    });
  });

  it("is kept in the recording: a resume sends the same bytes", async () => {
    const { a, conv } = await session(OPTIONS);
    const saved = conv.save();
    assert.match(saved.split("\n")[0], /"thinking":\{"type":"enabled"/);
    const resumed = resumeAnthropicConversation(a.prompt, saved);
    for (const c of [conv, resumed]) c.user("Now run the tests.");
    const body = await conv.request();
    assert.deepEqual(body.thinking, THINKING);
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(body),
    );
  });

  it("is carried into compact()'s summarizing request, and the one after", async () => {
    const { conv } = await session(OPTIONS);
    const compaction = await conv.compact();
    const body = compaction.body as unknown as Record<string, unknown>;
    assert.deepEqual(body.compaction, { type: "summarize" });
    assert.deepEqual(body.thinking, THINKING);
    compaction.record({
      type: "message",
      role: "assistant",
      content: [{ type: "compaction", content: "The work so far." }],
      stop_reason: "compaction",
      usage: { input_tokens: 20, output_tokens: 5 },
    } as never);
    conv.user("Go on.");
    assert.deepEqual((await conv.request()).thinking, THINKING);
  });

  it("asks the block-binding beta with block_binding", async () => {
    const thinking: AnthropicThinking = {
      type: "adaptive",
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    };
    const { first } = await session({ ...OPTIONS, thinking });
    assert.deepEqual(first.thinking, thinking);
    assert.deepEqual(first.betas, ["thinking-binding-controls-2026-08-01"]);
  });

  it("takes every shape of the API", async () => {
    const shapes: AnthropicThinking[] = [
      { type: "disabled" },
      { type: "between_tools" },
      { type: "adaptive" },
      { type: "adaptive", display: "omitted", block_binding: null },
      {
        type: "enabled",
        budget_tokens: 4095,
        display: null,
        block_binding: { prefix_mismatch_behavior: "error" },
      },
    ];
    for (const thinking of shapes) {
      const conv = anthropicConversation(agent().prompt, {
        ...OPTIONS,
        thinking,
      });
      conv.user("Go.");
      assert.deepEqual((await conv.request()).thinking, thinking);
    }
  });

  it("refuses another shape or a budget out of range: INVALID_CONFIG", () => {
    const bad: [unknown, RegExp][] = [
      ["enabled", /thinking is "enabled"; it must be/],
      [{ type: "on" }, /thinking\.type is "on"; it must be/],
      [{ type: "enabled" }, /budget_tokens is undefined; .*at least 1024/],
      [{ type: "enabled", budget_tokens: 1023 }, /at least 1024/],
      [{ type: "enabled", budget_tokens: 4096 }, /below max_tokens \(4096\)/],
      [{ type: "enabled", budget_tokens: 2048.5 }, /an integer/],
      [{ type: "adaptive", budget_tokens: 2048 }, /budget_tokens/],
      [{ type: "disabled", display: "omitted" }, /thinking\.display/],
      [{ type: "adaptive", display: "full" }, /display is "full"/],
      [
        { type: "adaptive", block_binding: { prefix_mismatch_behavior: "x" } },
        /prefix_mismatch_behavior is "x"/,
      ],
      [{ type: "adaptive", block_binding: { other: 1 } }, /block_binding/],
      [{ type: "enabled", budget_tokens: 2048, effort: "high" }, /effort/],
    ];
    for (const [thinking, pattern] of bad) {
      assert.throws(
        () =>
          anthropicConversation(agent().prompt, {
            ...OPTIONS,
            thinking,
          } as never),
        invalidConfig(pattern),
        JSON.stringify(thinking),
      );
    }
  });
});
