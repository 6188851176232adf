/**
 * SPEC 10.1 (issue 46): runtime context that holds for one turn. On
 * Anthropic it is the last item, a system message with
 * `clear_at: "next_user_message"` and its beta, never marked (the mark goes
 * on the block before), sent again after each tool round while it is
 * registered, kept in the history as sent, and a resumed conversation
 * sends the same bytes; elsewhere it is part of the runtime-context
 * update.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { chatConversation } from "../../adapters/openai/mod.ts";
import { message, toolUse } from "./helpers.ts";

function registry() {
  const state = { reminder: "Plan mode: do not edit files." };
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.tools(() => ({
    schemas: [{ name: "read_file", description: "Read.", parameters: {} }],
  }));
  prompt.runtimeContext({ name: "date", order: 0, text: "It is Monday." });
  prompt.runtimeContext({
    name: "plan",
    order: 1,
    text: () => state.reminder,
    holds: "turn",
  });
  return { prompt, state };
}

const OPTIONS = { model: "claude-fable-5-1", max_tokens: 64 } as const;

describe("turn reminders (issue 46)", () => {
  it("Anthropic: last, unmarked, the mark before it, its beta; again after a tool round; kept; resumed the same", async () => {
    const { prompt, state } = registry();
    const conv = anthropicConversation(prompt, OPTIONS);
    conv.user("Fix the test.");
    const first = await conv.request() as unknown as {
      messages: Record<string, unknown>[];
      betas?: string[];
    };
    const reminder = {
      role: "system",
      clear_at: "next_user_message",
      content: [{ type: "text", text: "Plan mode: do not edit files." }],
    };
    assert.deepEqual(first.messages.at(-1), reminder);
    assert.deepEqual(first.betas, [
      "mid-conversation-system-clear-at-2026-08-21",
    ]);
    // The mark is on the user message before it, the update without it.
    assert.deepEqual(first.messages[0].content, [
      { type: "text", text: "Fix the test." },
      {
        type: "text",
        text: "Runtime context (replaces any earlier runtime context):\n" +
          "It is Monday.",
        cache_control: { type: "ephemeral" },
      },
    ]);
    conv.record(message([toolUse("t1", "read_file")]));
    conv.toolResult("t1", "export {};");
    const second = await conv.request() as unknown as typeof first;
    // A tool result is a user message: it clears the reminder, so the
    // reminder goes again after it; the first copy stays as sent.
    assert.deepEqual(second.messages.slice(0, 3), [
      ...first.messages.slice(0, 1).map((item) => ({
        ...item,
        content: (item.content as Record<string, unknown>[]).map((
          { cache_control: _mark, ...part },
        ) => part),
      })),
      reminder,
      { role: "assistant", content: [toolUse("t1", "read_file")] },
    ]);
    assert.deepEqual(second.messages.at(-1), reminder);
    assert.equal(second.messages.length, 5);
    conv.record(message([{ type: "text", text: "Done." }]));
    const recording = conv.save();
    state.reminder = "";
    conv.user("Thanks.");
    const third = await conv.request() as unknown as typeof first;
    assert.equal(third.messages.at(-1)!.role, "user");
    assert.deepEqual(third.betas, first.betas);
    // Resumed from the recording: the same bytes.
    const resumed = resumeAnthropicConversation(prompt, recording);
    resumed.user("Thanks.");
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(third),
    );
    await prompt.dispose();
  });

  it("Anthropic with the tools rebuilt (the generally available body) and OpenAI: part of the update", async () => {
    const { prompt } = registry();
    const anthropic = anthropicConversation(prompt, {
      ...OPTIONS,
      changes: { tools: "rebuild" },
    });
    const chat = chatConversation(prompt, { model: "gpt-5.6" });
    for (const conv of [anthropic, chat]) conv.user("Fix the test.");
    const bodies = [await anthropic.request(), await chat.request()];
    for (const body of bodies) {
      const text = JSON.stringify(body.messages);
      assert.match(text, /It is Monday\.\\n\\nPlan mode: do not edit files\./);
      assert.doesNotMatch(text, /clear_at/);
    }
    assert.equal("betas" in bodies[0], false);
    await prompt.dispose();
  });

  it("refuses a holds that is neither change nor turn", () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () =>
        prompt.runtimeContext({
          name: "x",
          order: 0,
          text: "x",
          holds: "step" as "turn",
        }),
      (error) =>
        error instanceof SystemPromptError &&
        error.code === "INVALID_SECTION" && /holds "step"/.test(error.message),
    );
  });
});
