/**
 * Issue 44, item 15: the four conversation types take the context first,
 * then the body (`ChatConversation<C, Body>` as `AnthropicConversation<C,
 * Body>`), and a `toolChanges` (or `stream`) known only at run time has
 * an overload on starting and resuming alike. The proof is the type check
 * of this file (`deno test` checks it first); the calls then run.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembleContext, SystemPrompt } from "../../mod.ts";
import {
  type AnthropicConversation,
  anthropicConversation,
  type AnthropicConversationBody,
  type AnthropicInlineConversationBody,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  type ChatConversation,
  chatConversation,
  type ChatConversationBody,
  type ChatConversationStreamingBody,
  type ResponsesConversation,
  responsesConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import {
  type AISDKConversation,
  aiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";

interface Step extends AssembleContext {
  cwd: string;
}

/** A value known only at run time. */
function either<T>(first: T, second: T): T {
  return Math.random() < 2 ? first : second;
}

describe("conversation type parameters", () => {
  it("take the context first, then the body, on every form", async () => {
    const prompt = new SystemPrompt<Step>();
    const chat: ChatConversation<Step> = chatConversation(prompt, {
      model: "gpt-5.6",
    });
    const streaming: ChatConversation<Step, ChatConversationStreamingBody> =
      chatConversation(prompt, { model: "gpt-5.6", stream: true });
    const anthropic: AnthropicConversation<
      Step,
      AnthropicConversationBody | AnthropicInlineConversationBody
    > = anthropicConversation(
      prompt,
      { model: "claude-sonnet-4-5", max_tokens: 64 },
    );
    const responses: ResponsesConversation<Step> = responsesConversation(
      prompt,
      { model: "gpt-5.6" },
    );
    const ai: AISDKConversation<Step> = aiSdkConversation(prompt);
    for (const conv of [chat, streaming, anthropic, responses, ai]) {
      conv.user("Hi.");
    }
    const body: ChatConversationBody = await chat.request({ cwd: "/" });
    assert.equal(body.model, "gpt-5.6");
    assert.equal((await streaming.request({ cwd: "/" })).stream, true);
    await prompt.dispose();
  });

  it("resume with a toolChanges or stream known only at run time, as they start", async () => {
    const prompt = new SystemPrompt<Step>();
    const toolChanges = either<"inline" | "rebuild">("rebuild", "inline");
    const started: AnthropicConversation<
      Step,
      AnthropicConversationBody | AnthropicInlineConversationBody
    > = anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      toolChanges,
    });
    const resumed: AnthropicConversation<
      Step,
      AnthropicConversationBody | AnthropicInlineConversationBody
    > = resumeAnthropicConversation(prompt, started.save(), { toolChanges });
    assert.equal(resumed.session, started.session);
    const stream = either(false, true);
    const chat: ChatConversation<
      Step,
      ChatConversationBody | ChatConversationStreamingBody
    > = chatConversation(prompt, { model: "gpt-5.6", stream });
    const again: ChatConversation<
      Step,
      ChatConversationBody | ChatConversationStreamingBody
    > = resumeChatConversation(prompt, chat.save(), { stream });
    assert.equal(again.session, chat.session);
    await prompt.dispose();
  });
});
