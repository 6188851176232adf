/**
 * A person's message given before a compaction is recorded goes in the
 * step after it; the compaction's line keeps it (`held`), so a resume right
 * after the compaction sends it, as the conversation that was not resumed
 * does (nothing given before the last `record()` is lost).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";

/** The recording's last line, parsed. */
function lastLine(saved: string): { kind?: string; held?: unknown } {
  return JSON.parse(saved.trim().split("\n").at(-1)!);
}

function chatAnswer(text: string, promptTokens: number): unknown {
  return {
    object: "chat.completion",
    choices: [{ message: { role: "assistant", content: text } }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 5 },
  };
}

function registry(): SystemPrompt {
  return new SystemPrompt({ persona: "You are a coding agent." });
}

/**
 * A Chat conversation past one step and its `compactAt` compaction,
 * recorded; `before`, a person's message given before the summarizing
 * request.
 */
async function compactedChat(
  prompt: SystemPrompt,
  { before }: { before?: string },
): Promise<ReturnType<typeof chatConversation>> {
  const conv = chatConversation(prompt, {
    model: "gpt-5.6",
    compactAt: { inputTokens: 100 },
  });
  conv.user("Fix the build.");
  await conv.request();
  conv.record(chatAnswer("Fixed.", 500) as never);
  if (before !== undefined) conv.user(before);
  await conv.request();
  assert.equal(conv.summarizing, true);
  conv.record(chatAnswer("Summary: the build is fixed.", 500) as never);
  return conv;
}

describe("a compaction keeps the person's message given before it", () => {
  it("compactAt: the message given before the summarizing request", async () => {
    const prompt = registry();
    try {
      const conv = await compactedChat(prompt, {
        before: "Now run the tests.",
      });
      const saved = conv.save();
      const line = lastLine(saved);
      assert.equal(line.kind, "compaction");
      assert.equal(
        JSON.stringify(line.held),
        JSON.stringify([{
          type: "text",
          text: "Now run the tests.",
        }]),
      );
      const resumed = resumeChatConversation(prompt, saved);
      const body = await resumed.request();
      assert.match(JSON.stringify(body), /Now run the tests\./);
      assert.equal(JSON.stringify(body), JSON.stringify(await conv.request()));
    } finally {
      await prompt.dispose();
    }
  });

  it("compact() in the background: the message given before its record()", async () => {
    const prompt = registry();
    try {
      const conv = anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
      });
      conv.user("Fix the build.");
      await conv.request();
      conv.record({
        role: "assistant",
        content: [{ type: "text", text: "Fixed." }],
      } as never);
      const compaction = await conv.compact();
      conv.user("Now run the tests.");
      compaction.record({
        role: "assistant",
        stop_reason: "compaction",
        content: [{ type: "compaction", content: "The build is fixed." }],
      } as never);
      const resumed = resumeAnthropicConversation(prompt, conv.save());
      const body = await resumed.request();
      assert.match(JSON.stringify(body.messages), /Now run the tests\./);
      assert.equal(JSON.stringify(body), JSON.stringify(await conv.request()));
    } finally {
      await prompt.dispose();
    }
  });

  it("a message given after the compaction's record() is not in its line", async () => {
    const prompt = registry();
    try {
      const conv = await compactedChat(prompt, {});
      conv.user("Now run the tests.");
      const line = lastLine(conv.save());
      assert.equal(line.kind, "compaction");
      assert.equal(line.held, undefined);
    } finally {
      await prompt.dispose();
    }
  });
});
