/**
 * A resumed conversation's first compaction sends the last request's
 * prefix again, as the conversation that was not resumed does, even when
 * the registry changed since that request (a tool came): the summarizing
 * request reads the prefix the last request wrote.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";

interface Compacting {
  user(text: string): void;
  request(): Promise<unknown>;
  record(answer: never): unknown;
  compact(): Promise<{ body: unknown }>;
  save(): string;
}

interface Form {
  readonly name: string;
  start(prompt: SystemPrompt): Compacting;
  resume(prompt: SystemPrompt, saved: string): Compacting;
  readonly answer: unknown;
}

const FORMS: readonly Form[] = [
  {
    name: "Chat Completions",
    start: (prompt) => chatConversation(prompt, { model: "gpt-5.6" }) as never,
    resume: (prompt, saved) => resumeChatConversation(prompt, saved) as never,
    answer: {
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "Done." } }],
    },
  },
  {
    name: "Anthropic",
    start: (prompt) =>
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
      }) as never,
    resume: (prompt, saved) =>
      resumeAnthropicConversation(prompt, saved) as never,
    answer: { role: "assistant", content: [{ type: "text", text: "Done." }] },
  },
  {
    name: "AI SDK",
    start: (prompt) => aiSdkConversation(prompt, {}) as never,
    resume: (prompt, saved) => resumeAiSdkConversation(prompt, saved) as never,
    answer: {
      response: {
        messages: [{
          role: "assistant",
          content: [{ type: "text", text: "Done." }],
        }],
      },
    },
  },
];

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: { path: { type: "string" } } },
  };
}

for (const form of FORMS) {
  describe(`a resumed ${form.name} conversation's first compaction`, () => {
    it("sends the last request's prefix, not the registry's new one", async () => {
      const tools = [tool("read_file")];
      const prompt = new SystemPrompt({ persona: "You are a coding agent." });
      prompt.tools(() => ({ schemas: tools }));
      try {
        const conv = form.start(prompt);
        conv.user("Fix the build.");
        await conv.request();
        conv.record(structuredClone(form.answer) as never);
        tools.push(tool("grep")); // after the last request
        const resumed = form.resume(prompt, conv.save());
        const live = JSON.stringify((await conv.compact()).body);
        assert.ok(!live.includes('"grep"'), "the last request had no grep");
        assert.equal(JSON.stringify((await resumed.compact()).body), live);
      } finally {
        await prompt.dispose();
      }
    });
  });
}
