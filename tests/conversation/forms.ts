/**
 * The provider forms of the conversation, driven the same way by the
 * property tests: start, resume, and a model answer in the SDK's shape.
 */
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import {
  converseConversation,
  resumeConverseConversation,
} from "../../adapters/bedrock/mod.ts";
import {
  geminiConversation,
  resumeGeminiConversation,
} from "../../adapters/gemini/mod.ts";
import type { ConversationOptions, SystemPrompt, ToolCall } from "../../mod.ts";
import { completion, message, responsesAnswer, toolUse } from "./helpers.ts";

/** What the property tests need of a conversation. */
export interface AnyConversation {
  readonly openCalls: readonly ToolCall[];
  readonly messages: readonly unknown[];
  user(input: string): void;
  toolResult(id: string, content: string): void;
  request(
    context?: undefined,
    options?: { awaiting?: "person" | "agent" },
  ): Promise<{ messages?: unknown[]; input?: unknown[]; tools?: unknown }>;
  record(answer: never): ToolCall[];
  save(): string;
}

/** Options every form's start passes on to its conversation. */

/** One provider form. */
export interface Form {
  readonly name: string;
  /** A new conversation; `options` adds to (or replaces) the form's own. */
  start(prompt: SystemPrompt, options?: ConversationOptions): AnyConversation;
  /** `options` adds to the form's own, as `start`'s. */
  resume(
    prompt: SystemPrompt,
    recording: string,
    options?: ConversationOptions,
  ): AnyConversation;
  /** The model answer calling these tools (none: a text answer). */
  answer(calls: { id: string; name: string }[]): never;
}

/** The model's Anthropic answer: the calls asked for, or "Done.". */
function anthropicAnswer(calls: readonly { id: string; name: string }[]) {
  return message(
    calls.length === 0
      ? [{ type: "text", text: "Done." }]
      : calls.map(({ id, name }) => toolUse(id, name)),
  );
}

export const FORMS: readonly Form[] = [
  {
    name: "anthropic",
    start: (prompt, options) =>
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeAnthropicConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) => anthropicAnswer(calls) as never,
  },
  {
    name: "anthropic-inline",
    start: (prompt, options) =>
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        session: "s-1",
        toolChanges: "inline",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeAnthropicConversation(prompt, recording, {
        toolChanges: "inline",
        ...options,
      }) as unknown as AnyConversation,
    answer: (calls) => anthropicAnswer(calls) as never,
  },
  {
    name: "openai-chat",
    start: (prompt, options) =>
      chatConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeChatConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) => completion(calls) as never,
  },
  {
    name: "openai-responses",
    start: (prompt, options) =>
      responsesConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeResponsesConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) => responsesAnswer(calls) as never,
  },
  {
    name: "openai-responses-inline",
    start: (prompt, options) =>
      responsesConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        session: "s-1",
        toolChanges: "inline",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeResponsesConversation(prompt, recording, {
        toolChanges: "inline",
        ...options,
      }) as unknown as AnyConversation,
    answer: (calls) => responsesAnswer(calls) as never,
  },
  {
    name: "bedrock-converse",
    start: (prompt, options) =>
      converseConversation(prompt, {
        modelId: "anthropic.claude-sonnet-4-5",
        maxTokens: 1024,
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeConverseConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) =>
      ({
        output: {
          message: {
            role: "assistant",
            content: calls.length === 0
              ? [{ text: "Done." }]
              : calls.map(({ id, name }) => ({
                toolUse: { toolUseId: id, name, input: { path: "a.ts" } },
              })),
          },
        },
        stopReason: calls.length === 0 ? "end_turn" : "tool_use",
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      }) as never,
  },
  {
    name: "gemini",
    start: (prompt, options) =>
      geminiConversation(prompt, {
        model: "gemini-3-flash",
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeGeminiConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) =>
      ({
        candidates: [{
          content: {
            role: "model",
            parts: calls.length === 0
              ? [{ text: "Done." }]
              : calls.map(({ id, name }) => ({
                functionCall: { id, name, args: { path: "a.ts" } },
              })),
          },
          finishReason: "STOP",
        }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
      }) as never,
  },
  {
    name: "ai-sdk",
    start: (prompt, options) =>
      aiSdkConversation(prompt, {
        session: "s-1",
        ...options,
      }) as unknown as AnyConversation,
    resume: (prompt, recording, options) =>
      resumeAiSdkConversation(
        prompt,
        recording,
        options,
      ) as unknown as AnyConversation,
    answer: (calls) =>
      ({
        response: {
          messages: [{
            role: "assistant",
            content: calls.length === 0
              ? [{ type: "text", text: "Done." }]
              : calls.map(({ id, name }) => ({
                type: "tool-call",
                toolCallId: id,
                toolName: name,
                input: { path: "a.ts" },
              })),
          }],
        },
        usage: { inputTokens: 10, outputTokens: 5 },
      }) as never,
  },
];
