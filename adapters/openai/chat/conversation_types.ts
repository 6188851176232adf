/**
 * The Chat Completions conversation's types (SPEC 9.1): its messages,
 * bodies, answer and options.
 *
 * @module
 */

import type { AssembleContext } from "../../../mod.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../../src/conversation/types.ts";
import type {
  ChatCompletionsTool,
  ChatTextPart,
  ChatToolChoice,
} from "./chat.ts";
import type { PromptCacheBreakpoint } from "../options.ts";

/**
 * A part of a person's message in a Chat Completions conversation: text
 * or an image.
 *
 * @example
 * ```ts
 * import type { ChatUserPart } from "@rxprompt/system-prompt/openai";
 *
 * const part: ChatUserPart = { type: "text", text: "Where is my parcel?" };
 * ```
 */
export type ChatUserPart = ChatTextPart | {
  /** Always `"image_url"`. */
  type: "image_url";
  /** The image. */
  image_url: { url: string; detail?: "auto" | "low" | "high" };
  /** A cache mark (placed by the conversation only). */
  prompt_cache_breakpoint?: PromptCacheBreakpoint;
};

/**
 * One message of a Chat Completions conversation's history. The model's
 * messages are kept verbatim (every field the SDK returned); the ones the
 * conversation writes always have content parts, so a mark can come and
 * go without changing their shape.
 *
 * @example
 * ```ts
 * import type { ChatConversationMessage } from "@rxprompt/system-prompt/openai";
 *
 * const message: ChatConversationMessage = {
 *   role: "tool",
 *   tool_call_id: "call_1",
 *   content: [{ type: "text", text: "42 lines" }],
 * };
 * ```
 */
export type ChatConversationMessage =
  | { role: "user"; content: ChatUserPart[] }
  | { role: "tool"; tool_call_id: string; content: ChatTextPart[] }
  /** A section changed after the first request (`changes`). */
  | { role: "developer"; content: ChatTextPart[] }
  | {
    role: "assistant";
    content?: string | null;
    refusal?: string | null;
    tool_calls?: {
      id: string;
      type: "function";
      function: { name: string; arguments: string };
    }[];
  };

/**
 * The whole body of one Chat Completions conversation request: pass it to
 * `client.chat.completions.create(body)`.
 *
 * @example
 * ```ts
 * import type { ChatConversationBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ChatConversationBody = {
 *   model: "gpt-5.6",
 *   messages: [{ role: "system", content: [{ type: "text", text: "You are terse." }] }],
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface ChatConversationBody {
  /** The model, from the options. */
  model: string;
  /** The system message, then the history and this step's new messages. */
  messages: (
    | { role: "system"; content: string | ChatTextPart[] }
    | ChatConversationMessage
  )[];
  /** Every listed tool; absent when there are none. */
  tools?: ChatCompletionsTool[];
  /** The effort (`RequestOptions.output`; top-level only on this API). */
  reasoning_effort?: "low" | "medium" | "high" | "xhigh" | "max";
  /** The allowed tools, when gates (or a dropped tool) limit them. */
  tool_choice?: ChatToolChoice;
  /** Fixed at the first request: one session per conversation. */
  prompt_cache_key: string;
  /** From the options, when given. */
  max_completion_tokens?: number;
  /**
   * The `promptCacheRetention` option, on a request that waits for a
   * person.
   */
  prompt_cache_retention?: "24h";
}

/**
 * {@linkcode ChatConversationBody} for `stream: true`: it asks for the
 * usage in the stream's last chunk.
 *
 * @example
 * ```ts
 * import type { ChatConversationStreamingBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ChatConversationStreamingBody = {
 *   model: "gpt-5.6",
 *   messages: [],
 *   prompt_cache_key: "0123456789abcdef",
 *   stream: true,
 *   stream_options: { include_usage: true },
 * };
 * ```
 */
export interface ChatConversationStreamingBody extends ChatConversationBody {
  /** Always `true`. */
  stream: true;
  /** The usage comes with the stream's last chunk. */
  stream_options: { include_usage: true };
}

/**
 * What `record()` takes: the SDK's `ChatCompletion` (`create()`, or a
 * stream's `finalChatCompletion()`).
 *
 * @example
 * ```ts
 * import type { ChatAnswer } from "@rxprompt/system-prompt/openai";
 *
 * const answer: ChatAnswer = {
 *   object: "chat.completion",
 *   choices: [{ message: { role: "assistant", content: "Done." } }],
 * };
 * ```
 */
export interface ChatAnswer {
  /** `"chat.completion"`. */
  readonly object?: string;
  /** The first choice's message is the answer. */
  readonly choices: readonly {
    readonly message: {
      readonly role: "assistant";
      readonly content?: string | null;
      readonly refusal?: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: string;
        readonly function?: {
          readonly name: string;
          readonly arguments: string;
        };
      }[];
    };
    readonly index?: number;
    readonly finish_reason?: string | null;
  }[];
  /** The reported usage. */
  readonly usage?: unknown;
}

/**
 * Options of {@linkcode chatConversation}.
 *
 * @example
 * ```ts
 * import type { ChatConversationOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: ChatConversationOptions = { model: "gpt-5.6", cache: true };
 * ```
 */
export interface ChatConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_completion_tokens` of every request, when given. */
  max_completion_tokens?: number;
  /**
   * Explicit cache breakpoints (gpt-5.6 and later), as `toChatCompletions`'
   * `cache`: the system prompt's marks, and the conversation's on its last
   * item and on the end of the previous request. Absent: automatic caching.
   */
  cache?: boolean | { ttl: "30m" | "12h" };
  /** `toChatCompletions`' `maxCacheBreakpoints` (default 2). */
  maxCacheBreakpoints?: number;
  /** `toChatCompletions`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /** `toChatCompletions`' `toolChoiceMode` (default `"auto"`). */
  toolChoiceMode?: "auto" | "required";
  /** `toChatCompletions`' `strict`. */
  strict?: boolean;
  /** The `prompt_cache_key` (default: `promptCacheKey` with the session). */
  promptCacheKey?: string;
  /** Streaming bodies, with `stream_options.include_usage`. */
  stream?: boolean;
  /**
   * OpenAI automatic caching (no `cache`; models before explicit
   * breakpoints): `prompt_cache_retention` sent on each request that waits
   * for a person (`awaiting: "person"`), so a pause longer than the
   * in-memory lifetime keeps the prefix. Sent only when given: the `openai`
   * types mark the field deprecated in favour of explicit caching's
   * lifetimes (`cache`, 12 hours while a person is awaited).
   */
  promptCacheRetention?: "24h";
}

/**
 * A Chat Completions conversation: {@linkcode Conversation} with the
 * `openai` SDK's shapes; the context first, then the body, as the other
 * forms' (`ChatConversation<C, ChatConversationStreamingBody>` with
 * `stream: true`).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type ChatConversation, chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv: ChatConversation = chatConversation(new SystemPrompt(), { model: "gpt-5.6" });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type ChatConversation<
  C extends AssembleContext = AssembleContext,
  Body = ChatConversationBody,
> = Conversation<
  Body,
  ChatAnswer,
  string | ChatUserPart[],
  string | ChatTextPart[],
  ChatConversationMessage,
  C
>;
