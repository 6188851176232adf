/**
 * The Responses conversation's types (SPEC 9.1): its items, body, answer
 * and options.
 *
 * @module
 */

import type { AssembleContext } from "../../../mod.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../../src/conversation/types.ts";
import type {
  ResponsesDeferredToolChoice,
  ResponsesNamespaceTool,
  ResponsesToolSearchTool,
} from "./deferred.ts";
import type {
  ResponsesTextPart,
  ResponsesTool,
  ResponsesToolChoice,
} from "./responses.ts";

/**
 * One item of a Responses conversation's input history. The model's
 * output items are kept verbatim (every field the SDK returned); the items
 * the conversation writes always have content parts, so a mark can come
 * and go without changing their shape (but `additional_tools`, with
 * `toolChanges: "inline"`: its mark goes on the item before).
 *
 * @example
 * ```ts
 * import type { ResponsesConversationItem } from "@rxprompt/system-prompt/openai";
 *
 * const item: ResponsesConversationItem = {
 *   type: "function_call_output",
 *   call_id: "call_1",
 *   output: [{ type: "input_text", text: "42 lines" }],
 * };
 * ```
 */
export type ResponsesConversationItem =
  | { role: "user"; content: ResponsesTextPart[] }
  /** A section changed after the first request (`changes`). */
  | { role: "developer"; content: ResponsesTextPart[] }
  /** A new effort after the first request (`RequestOptions.output`). */
  | {
    type: "configuration_update";
    reasoning: { effort: "low" | "medium" | "high" | "xhigh" | "max" };
  }
  | {
    type: "function_call_output";
    call_id: string;
    output: ResponsesTextPart[];
  }
  | {
    type: "function_call";
    call_id: string;
    name: string;
    arguments: string;
    id?: string;
    /** A deferred function's namespace. */
    namespace?: string;
  }
  | {
    type: "tool_search_call";
    id?: string;
    call_id: string | null;
    execution: "server" | "client";
    status?: "in_progress" | "completed" | "incomplete";
    arguments: unknown;
  }
  | {
    type: "tool_search_output";
    id?: string;
    call_id: string | null;
    execution: "server" | "client";
    status?: "in_progress" | "completed" | "incomplete";
    tools: (ResponsesTool | ResponsesNamespaceTool)[];
  }
  | {
    type: "message";
    id: string;
    role: "assistant";
    status: "in_progress" | "completed" | "incomplete";
    content: { type: "output_text"; text: string; annotations: never[] }[];
  }
  | {
    type: "additional_tools";
    role: "developer";
    tools: ResponsesTool[];
  }
  | {
    type: "reasoning";
    id: string;
    summary: { type: "summary_text"; text: string }[];
    encrypted_content?: string | null;
  }
  | { type: "compaction"; id?: string; encrypted_content: string }
  | { type: "compaction_trigger" };

/**
 * The whole body of one Responses conversation request, stateless (the
 * whole input every time, the system message first): pass it to
 * `client.responses.create(body)`.
 *
 * @example
 * ```ts
 * import type { ResponsesConversationBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ResponsesConversationBody = {
 *   model: "gpt-5.6",
 *   input: [{ role: "system", content: "You are terse." }],
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface ResponsesConversationBody {
  /** The model, from the options. */
  model: string;
  /** The system message, then the history and this step's new items. */
  input: (
    | { role: "system"; content: string | ResponsesTextPart[] }
    | ResponsesConversationItem
  )[];
  /**
   * Every listed tool; absent when there are none. With deferred tools:
   * the `tool_search` tool, the listed functions, then one namespace per
   * tool source.
   */
  tools?: (ResponsesTool | ResponsesToolSearchTool | ResponsesNamespaceTool)[];
  /**
   * The allowed tools, when gates (or a dropped tool) limit them; with
   * active deferred tools, `tool_search` and those functions by namespace.
   */
  tool_choice?: ResponsesToolChoice | ResponsesDeferredToolChoice;
  /** Fixed at the first request: one session per conversation. */
  prompt_cache_key: string;
  /**
   * `ttl: "12h"` when a person answers next; with the `diagnostics`
   * option, `comparison_response_id`: the previous answer's id (`null` on
   * the first request), for the provider's `prompt_cache_diagnostics`.
   */
  prompt_cache_options?: {
    ttl?: "12h";
    comparison_response_id?: string | null;
  };
  /** From the options, when given. */
  max_output_tokens?: number;
  /** The first request's effort (`RequestOptions.output`). */
  reasoning?: { effort: "low" | "medium" | "high" | "xhigh" | "max" };
  /**
   * The `promptCacheRetention` option, on a request that waits for a
   * person.
   */
  prompt_cache_retention?: "24h";
  /** `serverCompaction`: compaction past `compact_threshold` input tokens. */
  context_management?: { type: "compaction"; compact_threshold?: number }[];
}

/**
 * What `record()` takes: the SDK's `Response` (`responses.create()`, or a
 * stream's `finalResponse()`).
 *
 * @example
 * ```ts
 * import type { ResponsesAnswer } from "@rxprompt/system-prompt/openai";
 *
 * const answer: ResponsesAnswer = {
 *   object: "response",
 *   output: [{ type: "function_call", call_id: "c1", name: "track", arguments: "{}" }],
 * };
 * ```
 */
export interface ResponsesAnswer {
  /** `"response"`. */
  readonly object?: string;
  /** The output items, kept verbatim in the history. */
  readonly output: readonly {
    readonly type: string;
    readonly call_id?: string | null;
    readonly name?: string | null;
    readonly arguments?: unknown;
  }[];
  /** The answer's id (`resp_...`): what the next diagnosis compares with. */
  readonly id?: string;
  /** The reported usage. */
  readonly usage?: unknown;
  /** With `diagnostics`: the provider's `prompt_cache_diagnostics`. */
  readonly prompt_cache_diagnostics?: unknown;
}

/**
 * Options of {@linkcode responsesConversation}.
 *
 * @example
 * ```ts
 * import type { ResponsesConversationOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: ResponsesConversationOptions = { model: "gpt-5.6", cache: true };
 * ```
 */
export interface ResponsesConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_output_tokens` of every request, when given. */
  max_output_tokens?: number;
  /** As {@linkcode ChatConversationOptions}' `cache`. */
  cache?: boolean | { ttl: "30m" | "12h" };
  /** `toResponses`' `maxCacheBreakpoints` (default 2). */
  maxCacheBreakpoints?: number;
  /** `toResponses`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /** `toResponses`' `toolChoiceMode` (default `"auto"`). */
  toolChoiceMode?: "auto" | "required";
  /** `toResponses`' `strict`. */
  strict?: boolean;
  /** The `prompt_cache_key` (default: `promptCacheKey` with the session). */
  promptCacheKey?: string;
  /**
   * OpenAI automatic caching (no `cache`; models before explicit
   * breakpoints): `prompt_cache_retention` sent on each request that waits
   * for a person (`awaiting: "person"`), so a pause longer than the
   * in-memory lifetime keeps the prefix. Sent only when given: the `openai`
   * types mark the field deprecated in favour of explicit caching's
   * lifetimes (`cache`, and `prompt_cache_options.ttl`, 12 hours while a person is awaited).
   */
  promptCacheRetention?: "24h";
  /**
   * How a change of the registry's tools goes to the model: `"rebuild"`
   * (the default) rebuilds the tools block once (a dropped tool stays
   * listed and inactive); `"inline"` keeps the first request's tools block
   * and sends an added tool in an `additional_tools` input item after the
   * tool outputs (a dropped tool stays listed and leaves `allowed_tools`;
   * a changed definition still rebuilds the tools block: the API takes no
   * second definition under one name). A recording made inline is resumed
   * with this option again.
   */
  toolChanges?: "rebuild" | "inline";
  /**
   * Who runs the `tool_search` listed when the assembly has deferred tools
   * (SPEC §10.3): `"server"` (default, OpenAI's search) or `"client"` (the
   * conversation answers each search at the next request with
   * `searchTools` over the active deferred tools: the same query finds the
   * same tools); `"pair"`: no `tool_search` and no namespace, but the fixed
   * `find_tools` / `call_tool` pair after the listed functions, answered by
   * the conversation as on Chat Completions.
   */
  toolSearch?: "server" | "client" | "pair";
  /**
   * Server-side compaction inside a step (`context_management`): past
   * `threshold` input tokens the answer holds a compaction item and the
   * conversation's history starts there.
   */
  serverCompaction?: { threshold: number };
}

/**
 * A Responses conversation: {@linkcode Conversation} with the `openai`
 * SDK's shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type ResponsesConversation,
 *   responsesConversation,
 * } from "@rxprompt/system-prompt/openai";
 *
 * const conv: ResponsesConversation = responsesConversation(new SystemPrompt(), {
 *   model: "gpt-5.6",
 * });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type ResponsesConversation<
  C extends AssembleContext = AssembleContext,
> = Conversation<
  ResponsesConversationBody,
  ResponsesAnswer,
  string | ResponsesTextPart[],
  string | ResponsesTextPart[],
  ResponsesConversationItem,
  C
>;
