/**
 * The Anthropic Messages conversation's types (SPEC 9.1): its bodies,
 * answer and options.
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../src/conversation/types.ts";
import type { MessagesToolSearchTool } from "./deferred.ts";
import type { MessagesTextBlock, MessagesTool } from "./messages.ts";
import type {
  MessagesInputBlock,
  MessagesMessage,
  MessagesReminderMessage,
  MessagesSystemMessage,
  MessagesToolChangeMessage,
} from "./message_types.ts";

/**
 * The body of a conversation with `toolChanges: "inline"`: for
 * `client.beta.messages.create(body)`, with the betas for mid-conversation
 * tool changes.
 *
 * @example
 * ```ts
 * import type { AnthropicInlineConversationBody } from "@rxprompt/system-prompt/anthropic";
 *
 * const body: AnthropicInlineConversationBody = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   system: [],
 *   messages: [],
 *   betas: ["mid-conversation-tool-changes-2026-07-01", "inline-tools-2026-09-15"],
 * };
 * ```
 */
export interface AnthropicInlineConversationBody {
  /** The model, from the options. */
  model: string;
  /** The output limit, from the options. */
  max_tokens: number;
  /** Extended thinking, from the options (every request's). */
  thinking?: AnthropicThinking;
  /** One text block per prompt block (`toMessages`). */
  system: MessagesTextBlock[];
  /**
   * The first request's tools, never rebuilt; absent when there are none.
   * With deferred tools: the tool search tool, the listed tools, then the
   * deferred ones (`defer_loading: true`).
   */
  tools?: (MessagesTool | MessagesToolSearchTool)[];
  /** The first request's effort (`request({}, { output })`). */
  output_config?: { effort: "low" | "medium" | "high" | "xhigh" | "max" };
  /**
   * The history, tool changes and turn reminders included, and this step's
   * new messages.
   */
  messages: (
    | MessagesMessage
    | MessagesToolChangeMessage
    | MessagesReminderMessage
  )[];
  /**
   * The betas of mid-conversation tool changes and of a reminder's
   * `clear_at` (and compaction's), from the first request that needs one.
   */
  betas: string[];
  /** A summarizing request's (`compact()`, `compactAt`). */
  compaction?: { type: "summarize"; instructions?: string };
  /** `serverCompaction`'s edit. */
  context_management?: { edits: AnthropicCompactEdit[] };
  /**
   * With the `diagnostics` option: the previous answer's id (`null` on
   * the first request), for the provider's `cache_miss_reason`.
   */
  diagnostics?: { previous_message_id: string | null };
}

/**
 * The whole body of one conversation request: pass it to
 * `client.messages.create(body)` (or `.stream(body)`).
 *
 * @example
 * ```ts
 * import type { AnthropicConversationBody } from "@rxprompt/system-prompt/anthropic";
 *
 * const body: AnthropicConversationBody = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   system: [{ type: "text", text: "You are terse." }],
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
 * };
 * ```
 */
export interface AnthropicConversationBody {
  /** The model, from the options. */
  model: string;
  /** The output limit, from the options. */
  max_tokens: number;
  /**
   * Extended thinking, from the options (every request's). Typed as the
   * generally available API takes it: `display: "updates"` and
   * `block_binding` are the beta API's (`client.beta.messages.create`).
   */
  thinking?: AnthropicThinking & {
    display?: "summarized" | "omitted" | null;
  };
  /** One text block per prompt block (`toMessages`). */
  system: MessagesTextBlock[];
  /**
   * Every listed tool; absent when there are none. With deferred tools: the
   * tool search tool, the listed tools, then the deferred ones
   * (`defer_loading: true`).
   */
  tools?: (MessagesTool | MessagesToolSearchTool)[];
  /** The effort (`request({}, { output })`). */
  output_config?: { effort: "low" | "medium" | "high" | "xhigh" | "max" };
  /**
   * The history and this step's new messages, the last block marked: a
   * section changed after the first request is told in a `role: "system"`
   * message (`changes`).
   */
  messages: (MessagesMessage | MessagesSystemMessage)[];
  /**
   * The betas of `serverCompaction` or a summarizing request (`compact()`,
   * `compactAt`): send such a body with `client.beta.messages.create`.
   */
  betas?: string[];
  /** A summarizing request's (`compact()`, `compactAt`). */
  compaction?: { type: "summarize"; instructions?: string };
  /** `serverCompaction`'s edit. */
  context_management?: { edits: AnthropicCompactEdit[] };
  /**
   * With the `diagnostics` option: the previous answer's id (`null` on
   * the first request), for the provider's `cache_miss_reason`
   * (generally available: no beta header).
   */
  diagnostics?: { previous_message_id: string | null };
}

/**
 * What `record()` takes: the SDK's `Message` (`messages.create`, or a
 * stream's `finalMessage()`).
 *
 * @example
 * ```ts
 * import type { MessagesAnswer } from "@rxprompt/system-prompt/anthropic";
 *
 * const answer: MessagesAnswer = {
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "text", text: "Done." }],
 * };
 * ```
 */
export interface MessagesAnswer {
  /** `"message"`. */
  readonly type?: string;
  /** Always `"assistant"`. */
  readonly role: "assistant";
  /** The blocks, kept verbatim in the history. */
  readonly content: readonly MessagesAnswerBlock[];
  /** The answer's id (`msg_...`): what the next diagnosis compares with. */
  readonly id?: string;
  /** The reported usage. */
  readonly usage?: unknown;
  /** With `diagnostics`: the provider's `cache_miss_reason`. */
  readonly diagnostics?: unknown;
}

/**
 * One block of a model answer, as the SDK returns it (the fields named
 * are those of the common blocks; every field is kept).
 *
 * @example
 * ```ts
 * import type { MessagesAnswerBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesAnswerBlock = { type: "tool_use", id: "t1", name: "shell", input: {} };
 * ```
 */
export interface MessagesAnswerBlock {
  /** The block's type: `"text"`, `"thinking"`, `"tool_use"`, ... */
  readonly type: string;
  /** A text block's text. */
  readonly text?: string;
  /** A thinking block's thinking. */
  readonly thinking?: string;
  /**
   * A thinking block's signature (the beta API's compaction block may have
   * `null`).
   */
  readonly signature?: string | null;
  /** A tool call's id. */
  readonly id?: string;
  /** A tool call's tool name. */
  readonly name?: string;
  /** A tool call's arguments. */
  readonly input?: unknown;
}

/**
 * Options of {@linkcode anthropicConversation}.
 *
 * @example
 * ```ts
 * import type { AnthropicConversationOptions } from "@rxprompt/system-prompt/anthropic";
 *
 * const options: AnthropicConversationOptions = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   awaiting: "person",
 * };
 * ```
 */
export interface AnthropicConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_tokens` of every request. */
  max_tokens: number;
  /**
   * Extended thinking: the body's top-level `thinking` on every request of
   * the conversation (the summarizing one of `compact()` and `compactAt`
   * included), kept in the recording. `{ type: "enabled", budget_tokens }`
   * takes a budget of at least 1024 and below `max_tokens`;
   * `block_binding` adds the beta `thinking-binding-controls-2026-08-01`
   * (send with `client.beta.messages.create`). Another shape is
   * `INVALID_CONFIG`.
   *
   * @example
   * ```ts
   * import { SystemPrompt } from "@rxprompt/system-prompt";
   * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
   *
   * const conv = anthropicConversation(new SystemPrompt(), {
   *   model: "claude-sonnet-4-5",
   *   max_tokens: 4096,
   *   thinking: { type: "enabled", budget_tokens: 2048 },
   * });
   * conv.user("Why is the test failing?");
   * console.log((await conv.request()).thinking);
   * // { type: "enabled", budget_tokens: 2048 }
   * ```
   */
  thinking?: AnthropicThinking;
  /** `toMessages`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /**
   * At most this many markers on the tools and system (default 3; the
   * conversation keeps the total within the API's four).
   */
  maxCacheBreakpoints?: number;
  /**
   * 0.4's name for `changes.tools` (its alias). What a change of the tool
   * set after the first request does: `"rebuild"` rebuilds the tools block
   * once (a dropped tool stays listed and inactive); `"inline"` keeps the tools block and tells
   * the model in the conversation (`tool_removal` / `tool_addition` in a
   * `role: "system"` message), with the betas
   * `mid-conversation-tool-changes-2026-07-01` and `inline-tools-2026-09-15`:
   * send such bodies with `client.beta.messages.create`.
   */
  toolChanges?: "rebuild" | "inline";
  /**
   * The tool search tool listed when the assembly has deferred tools
   * (SPEC §10.3): `"bm25"` (default, `tool_search_tool_bm25_20251119`: the
   * model searches by words) or `"regex"` (`tool_search_tool_regex_20251119`);
   * `"pair"`: no tool search tool and no `defer_loading` tool, but the fixed
   * `find_tools` / `call_tool` pair after the listed tools, answered by the
   * conversation as on Chat Completions.
   */
  toolSearch?: "bm25" | "regex" | "pair";
  /**
   * Threshold compaction by the API inside a step (the `compact_20260112`
   * edit, beta `compact-2026-01-12`: send with `client.beta.messages.create`):
   * past `trigger` input tokens (the API's default 150,000) the answer
   * starts with a `compaction` block and the conversation's history starts
   * there; `pauseAfter` stops the turn at the block (`continues`).
   */
  serverCompaction?: {
    trigger?: number;
    pauseAfter?: boolean;
    instructions?: string;
  };
}

/**
 * An Anthropic Messages conversation: {@linkcode Conversation} with the
 * SDK's shapes. Its body is the generally available one or, once a tool
 * change, a turn reminder or an effort goes inline, the beta one
 * (`client.beta.messages.create` takes both).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type AnthropicConversation,
 *   anthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const conv: AnthropicConversation = anthropicConversation(new SystemPrompt(), {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 * });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type AnthropicConversation<
  C extends AssembleContext = AssembleContext,
  Body = AnthropicConversationBody | AnthropicInlineConversationBody,
> = Conversation<
  Body,
  MessagesAnswer,
  string | MessagesInputBlock[],
  string | MessagesInputBlock[],
  MessagesMessage,
  C
>;

/**
 * The threshold compaction edit of `serverCompaction`, as the beta API
 * takes it (`BetaCompact20260112Edit`).
 *
 * @example
 * ```ts
 * import type { AnthropicCompactEdit } from "@rxprompt/system-prompt/anthropic";
 *
 * const edit: AnthropicCompactEdit = {
 *   type: "compact_20260112",
 *   trigger: { type: "input_tokens", value: 150000 },
 * };
 * ```
 */
export interface AnthropicCompactEdit {
  /** Always `"compact_20260112"`. */
  type: "compact_20260112";
  /** Compact past this many input tokens. */
  trigger?: { type: "input_tokens"; value: number };
  /** Stop the turn at the compaction block (`stop_reason: "compaction"`). */
  pause_after_compaction?: boolean;
  /** Replaces the summarizing prompt. */
  instructions?: string;
}

/**
 * Extended thinking's configuration, as the API takes it
 * (`@anthropic-ai/sdk`'s `BetaThinkingConfigParam`): `"enabled"` with a
 * budget (at least 1024 tokens, below `max_tokens`), `"adaptive"` (the
 * model decides), `"disabled"`, or `"between_tools"`.
 *
 * @example
 * ```ts
 * import type { AnthropicThinking } from "@rxprompt/system-prompt/anthropic";
 *
 * const thinking: AnthropicThinking = {
 *   type: "enabled",
 *   budget_tokens: 2048,
 *   display: "summarized",
 * };
 * ```
 */
export type AnthropicThinking =
  | {
    type: "enabled";
    /** The thinking budget: at least 1024, below `max_tokens`. */
    budget_tokens: number;
    /** What a thinking block on another prefix does (beta). */
    block_binding?: AnthropicThinkingBinding | null;
    /** How thinking appears in the answer. */
    display?: "summarized" | "omitted" | "updates" | null;
  }
  | {
    type: "adaptive";
    /** What a thinking block on another prefix does (beta). */
    block_binding?: AnthropicThinkingBinding | null;
    /** How thinking appears in the answer. */
    display?: "summarized" | "omitted" | "updates" | null;
  }
  | { type: "disabled" }
  | { type: "between_tools" };

/**
 * `thinking.block_binding` (`BetaThinkingBlockBinding`, beta
 * `thinking-binding-controls-2026-08-01`): what happens when a thinking
 * block sent back fails the API's check of its prefix, `"error"` (the
 * default: a 400) or `"drop_block"` (left out, listed in
 * `input_transformations`).
 *
 * @example
 * ```ts
 * import type { AnthropicThinkingBinding } from "@rxprompt/system-prompt/anthropic";
 *
 * const binding: AnthropicThinkingBinding = {
 *   prefix_mismatch_behavior: "drop_block",
 * };
 * ```
 */
export interface AnthropicThinkingBinding {
  /** `"error"` (the default) or `"drop_block"`. */
  prefix_mismatch_behavior?: "error" | "drop_block" | null;
}
