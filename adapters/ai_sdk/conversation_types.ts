/**
 * The AI SDK conversation's types (SPEC 9.1): its messages, body, answer
 * and options.
 *
 * @module
 */

import type {
  AssistantModelMessage,
  SystemModelMessage,
  ToolModelMessage,
  ToolSet,
  UserModelMessage,
} from "ai";
import type { AssembleContext } from "../../mod.ts";
import type { AISDKServerCompactionOptions } from "./compaction.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../src/conversation/types.ts";

/**
 * One message of an AI SDK conversation's history: the SDK's own
 * `ModelMessage` shapes (the model's messages kept verbatim).
 *
 * @example
 * ```ts
 * import type { AISDKConversationMessage } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const message: AISDKConversationMessage = {
 *   role: "user",
 *   content: [{ type: "text", text: "Fix the test." }],
 * };
 * ```
 */
export type AISDKConversationMessage =
  | UserModelMessage
  | AssistantModelMessage
  | ToolModelMessage
  /** A section changed after the first request (`changes`). */
  | SystemModelMessage;

/**
 * The `generateText` / `streamText` options of one conversation request:
 * spread them with the model, `generateText({ model, ...body })`, one call
 * per request (the AI SDK's own multi-step loop would bypass the marks).
 *
 * @example
 * ```ts
 * import type { AISDKConversationBody } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const body: AISDKConversationBody = {
 *   system: "You are terse.",
 *   tools: {},
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
 * };
 * ```
 */
export interface AISDKConversationBody {
  /** The system prompt (one system message per block with `cache`). */
  system: string | SystemModelMessage[];
  /** Every listed tool, without `execute`: the conversation returns the calls. */
  tools: ToolSet;
  /** The history and this step's new messages. */
  messages: AISDKConversationMessage[];
  /**
   * Present (`true`) once the history holds a system message telling a
   * section's change: `generateText` refuses system messages in
   * `messages` without it.
   */
  allowSystemInMessages?: true;
  /**
   * With `serverCompaction`: `@ai-sdk/openai`'s `contextManagement`. Merge
   * your own provider options into it (a spread after the body replaces it).
   */
  providerOptions?: AISDKServerCompactionOptions;
}

/**
 * What `record()` takes: `generateText`'s result as it is returned (a step
 * that ended in tool calls too), `{ response: await result.response, usage:
 * await result.usage }` of a `streamText` result once its stream has
 * finished, or the response's `messages` alone (no usage recorded). Only
 * `response` (its `messages`) and `usage` are read.
 *
 * @example
 * ```ts
 * import type { AISDKAnswer } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const answer: AISDKAnswer = {
 *   response: { messages: [{ role: "assistant", content: "Done." }] },
 * };
 * ```
 */
export type AISDKAnswer =
  | {
    /** The result's response. */
    readonly response: {
      readonly messages: readonly (AssistantModelMessage | ToolModelMessage)[];
    };
    /** The reported usage. */
    readonly usage?: unknown;
  }
  | {
    /** The response's messages. */
    readonly messages: readonly (AssistantModelMessage | ToolModelMessage)[];
  };

/**
 * Options of {@linkcode aiSdkConversation}.
 *
 * @example
 * ```ts
 * import type { AISDKConversationOptions } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const options: AISDKConversationOptions = { cache: true, awaiting: "person" };
 * ```
 */
export interface AISDKConversationOptions extends ConversationOptions {
  /**
   * Anthropic cache markers (`cacheControl` provider options), as `toAISDK`'s
   * `cache`: on the system and tools, and the conversation's on its last part
   * (and the previous request's end when a step adds more than 20 parts).
   * `awaiting: "person"` makes them 1-hour. Default `true`; `false` for none.
   */
  cache?: boolean;
  /** `toAISDK`'s `maxCacheBreakpoints` (default 3). */
  maxCacheBreakpoints?: number;
  /** `toAISDK`'s `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /**
   * OpenAI Responses' server-side compaction through `@ai-sdk/openai`: each
   * body's `providerOptions.openai.contextManagement` (past `threshold`
   * input tokens the answer holds a compaction item, and the history starts
   * at its message). Anthropic's cannot go through `@ai-sdk/anthropic` (it
   * drops the block's `encrypted_content` and `tool_changes`).
   */
  serverCompaction?: { threshold: number };
}

/**
 * An AI SDK conversation: {@linkcode Conversation} with the `ai` package's
 * shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type AISDKConversation, aiSdkConversation } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const conv: AISDKConversation = aiSdkConversation(new SystemPrompt());
 * console.log(conv.messages.length); // 0
 * ```
 */
export type AISDKConversation<C extends AssembleContext = AssembleContext> =
  Conversation<
    AISDKConversationBody,
    AISDKAnswer,
    string | UserModelMessage["content"],
    string,
    AISDKConversationMessage,
    C
  >;
