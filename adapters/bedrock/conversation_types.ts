/**
 * The Bedrock Converse conversation's types (SPEC 10.5): its messages,
 * bodies, answers and options. Structural: they need no SDK, and the body
 * type-checks against `@aws-sdk/client-bedrock-runtime`'s
 * `ConverseCommandInput` (and `ConverseStreamCommandInput`) without a cast.
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../src/conversation/types.ts";
import type {
  ConverseCachePoint,
  ConverseJson,
  ConverseSystemBlock,
  ConverseTool,
} from "./converse.ts";

/**
 * One content block of a Converse conversation's message: text, a tool
 * use or result, the model's reasoning, or a cache point (placed by the
 * conversation only).
 *
 * @example
 * ```ts
 * import type { ConverseBlock } from "@rxprompt/system-prompt/bedrock";
 *
 * const block: ConverseBlock = {
 *   toolResult: { toolUseId: "t1", content: [{ text: "42 lines" }] },
 * };
 * ```
 */
export type ConverseBlock =
  | { text: string }
  | {
    toolUse: { toolUseId: string; name: string; input: ConverseJson };
  }
  | {
    toolResult: {
      toolUseId: string;
      content: ConverseResultContent[];
      status?: "success" | "error";
    };
  }
  | {
    reasoningContent: {
      reasoningText: { text: string; signature?: string };
    };
  }
  | { cachePoint: ConverseCachePoint };

/**
 * One content block of a tool result: text or JSON.
 *
 * @example
 * ```ts
 * import type { ConverseResultContent } from "@rxprompt/system-prompt/bedrock";
 *
 * const content: ConverseResultContent[] = [{ text: "ok" }, { json: { lines: 42 } }];
 * ```
 */
export type ConverseResultContent = { text: string } | { json: ConverseJson };

/**
 * One message of a Converse conversation's history. The model's messages
 * are kept as the SDK returned them.
 *
 * @example
 * ```ts
 * import type { ConverseMessage } from "@rxprompt/system-prompt/bedrock";
 *
 * const message: ConverseMessage = { role: "user", content: [{ text: "Hi." }] };
 * ```
 */
export interface ConverseMessage {
  /** `"user"` (the person, tool results, the runtime context) or `"assistant"`. */
  role: "user" | "assistant";
  /** The message's blocks. */
  content: ConverseBlock[];
}

/**
 * The whole body of one Converse conversation request: pass it to
 * `client.send(new ConverseCommand(body))` (or `ConverseStreamCommand`).
 *
 * @example
 * ```ts
 * import type { ConverseConversationBody } from "@rxprompt/system-prompt/bedrock";
 *
 * const body: ConverseConversationBody = {
 *   modelId: "anthropic.claude-sonnet-4-5",
 *   system: [{ text: "You are terse." }],
 *   messages: [{ role: "user", content: [{ text: "Hi." }] }],
 * };
 * ```
 */
export interface ConverseConversationBody {
  /** The model, from the options. */
  modelId: string;
  /** One text block per prompt block, cache points after some (`toConverse`). */
  system: ConverseSystemBlock[];
  /** The first request's tools, stable; absent when there are none. */
  toolConfig?: { tools: ConverseTool[] };
  /** `maxTokens`, when given. */
  inferenceConfig?: { maxTokens: number };
  /** The history and this step's new messages. */
  messages: ConverseMessage[];
}

/**
 * What `record()` takes of `ConverseCommand`: the `ConverseResponse`
 * (`output.message`, `stopReason`, `usage`).
 *
 * @example
 * ```ts
 * import type { ConverseAnswer } from "@rxprompt/system-prompt/bedrock";
 *
 * const answer: ConverseAnswer = {
 *   output: { message: { role: "assistant", content: [{ text: "Done." }] } },
 *   stopReason: "end_turn",
 *   usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
 * };
 * ```
 */
export interface ConverseAnswer {
  /** The model's message. */
  readonly output?: {
    readonly message?: {
      readonly role?: string;
      readonly content?: readonly unknown[];
    };
  };
  /** Why the model stopped. */
  readonly stopReason?: string;
  /** The reported usage (`cacheReadInputTokens`, `cacheWriteInputTokens`). */
  readonly usage?: unknown;
}

/**
 * One event of `ConverseStreamCommand`'s `stream`, as the SDK yields it:
 * `record()` takes them all, in order (the message is put together from
 * their blocks, the usage is the `metadata` event's).
 *
 * @example
 * ```ts
 * import type { ConverseStreamEvent } from "@rxprompt/system-prompt/bedrock";
 *
 * const events: ConverseStreamEvent[] = [
 *   { messageStart: { role: "assistant" } },
 *   { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Done." } } },
 *   { messageStop: { stopReason: "end_turn" } },
 * ];
 * ```
 */
export interface ConverseStreamEvent {
  /** The message begins. */
  readonly messageStart?: { readonly role?: string };
  /** A tool use block begins (its id and name). */
  readonly contentBlockStart?: {
    readonly contentBlockIndex?: number;
    readonly start?: unknown;
  };
  /** A piece of a block: text, a tool's input JSON, reasoning. */
  readonly contentBlockDelta?: {
    readonly contentBlockIndex?: number;
    readonly delta?: unknown;
  };
  /** A block ends. */
  readonly contentBlockStop?: { readonly contentBlockIndex?: number };
  /** The message ends. */
  readonly messageStop?: { readonly stopReason?: string };
  /** The usage and metrics. */
  readonly metadata?: { readonly usage?: unknown };
}

/**
 * Options of {@linkcode converseConversation}.
 *
 * @example
 * ```ts
 * import type { ConverseConversationOptions } from "@rxprompt/system-prompt/bedrock";
 *
 * const options: ConverseConversationOptions = {
 *   modelId: "anthropic.claude-sonnet-4-5",
 *   maxTokens: 1024,
 * };
 * ```
 */
export interface ConverseConversationOptions extends ConversationOptions {
  /** The model of every request (`modelId`). */
  modelId: string;
  /** `inferenceConfig.maxTokens` of every request, when given. */
  maxTokens?: number;
  /** `toConverse`'s `maxCacheBreakpoints` (default 3, within Bedrock's 4). */
  maxCacheBreakpoints?: number;
}

/**
 * A Bedrock Converse conversation: {@linkcode Conversation} with the
 * Converse shapes. `record()` takes a `ConverseResponse` or the events of
 * a `ConverseStreamCommand`'s stream.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type ConverseConversation, converseConversation } from "@rxprompt/system-prompt/bedrock";
 *
 * const conv: ConverseConversation = converseConversation(new SystemPrompt(), {
 *   modelId: "anthropic.claude-sonnet-4-5",
 * });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type ConverseConversation<C extends AssembleContext = AssembleContext> =
  Conversation<
    ConverseConversationBody,
    ConverseAnswer | readonly ConverseStreamEvent[],
    string | ConverseBlock[],
    string | ConverseResultContent[],
    ConverseMessage,
    C
  >;
