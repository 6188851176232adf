/**
 * The types of what a provider reported (SPEC 9.3): the usage of one
 * response and the provider's cache diagnosis, in one shape for every API.
 *
 * @module
 */

/**
 * A cache entry's lifetime as the providers name it: Anthropic's and
 * Bedrock's `5m` and `1h`, OpenAI's `30m` and `12h`.
 *
 * @example
 * ```ts
 * import type { CacheLifetime } from "@rxprompt/system-prompt/cache";
 *
 * const lifetime: CacheLifetime = "1h";
 * ```
 */
export type CacheLifetime = "5m" | "1h" | "30m" | "12h";

/**
 * A reason a provider gives for a cache miss, exactly as its API spells it:
 * Anthropic's `cache_miss_reason.type` (`model_changed`, `system_changed`,
 * `tools_changed`, `messages_changed`) and OpenAI Responses'
 * `prompt_cache_diagnostics.reason` (the others; OpenAI has no system
 * region: a changed system prompt reads `input_changed`).
 *
 * @example
 * ```ts
 * import type { ProviderMissReason } from "@rxprompt/system-prompt/cache";
 *
 * const reason: ProviderMissReason = "tools_changed";
 * ```
 */
export type ProviderMissReason =
  | "model_changed"
  | "system_changed"
  | "tools_changed"
  | "messages_changed"
  | "prompt_cache_key_changed"
  | "text_format_changed"
  | "reasoning_effort_changed"
  | "verbosity_changed"
  | "context_compacted"
  | "input_changed"
  | "service_tier_changed";

/**
 * The provider's cache diagnosis of one response, when it was asked for
 * one (Anthropic `diagnostics.previous_message_id`, OpenAI Responses
 * `prompt_cache_options.comparison_response_id`).
 *
 * - `none`: no diagnosis (not asked, Chat Completions and the AI SDK have
 *   none, or Anthropic's `cache_miss_reason: null`, which means the
 *   comparison was still pending: not a hit);
 * - `hit`: OpenAI's `cache_hit`;
 * - `miss`: a reason, with the tokens the provider says it missed;
 * - `not_found`: the compared response is unknown to the provider
 *   (`previous_message_not_found`, `comparison_response_not_found`);
 * - `unavailable`: the provider could not compare (Anthropic also says so
 *   when only `thinking` or `tool_choice` changed);
 * - `unknown`: a shape or reason no installed SDK names; `raw` keeps it.
 *
 * @example
 * ```ts
 * import type { ProviderDiagnosis } from "@rxprompt/system-prompt/cache";
 *
 * const diagnosis: ProviderDiagnosis = {
 *   status: "miss",
 *   reason: "system_changed",
 *   missedTokens: 4096,
 *   raw: { type: "system_changed", cache_missed_input_tokens: 4096 },
 * };
 * ```
 */
export interface ProviderDiagnosis {
  /** What kind of answer it is. */
  status: "none" | "hit" | "miss" | "not_found" | "unavailable" | "unknown";
  /** For `miss`: the provider's reason. */
  reason?: ProviderMissReason;
  /**
   * For `miss`: the tokens the provider estimates it could not reuse
   * (Anthropic `cache_missed_input_tokens`, OpenAI `cache_missed_tokens`).
   */
  missedTokens?: number;
  /** OpenAI's `comparison_reusable_tokens`: the compared prefix's tokens. */
  reusableTokens?: number;
  /** The diagnosis object as the provider sent it. */
  raw?: unknown;
}

/**
 * What a provider reported for one response, normalised: every count is a
 * non-negative integer, or `undefined` when the provider did not report it
 * or reported something unreadable (then listed in `malformed`).
 *
 * `inputTokens` counts every input token, cache reads and writes included,
 * on every provider (Anthropic's own `input_tokens` and Bedrock's
 * `inputTokens` leave them out; the reader adds them back, as the
 * OpenTelemetry GenAI conventions ask).
 *
 * @example
 * ```ts
 * import type { ReportedUsage } from "@rxprompt/system-prompt/cache";
 *
 * const usage: ReportedUsage = {
 *   source: "anthropic-messages",
 *   inputTokens: 5000,
 *   cacheReadTokens: 4096,
 *   cacheWriteTokens: 800,
 *   cacheWrites: { "5m": 800 },
 *   outputTokens: 150,
 *   diagnosis: { status: "none" },
 * };
 * ```
 */
export interface ReportedUsage {
  /**
   * The form it came from: a `FormId` of `./cache` (`"anthropic-messages"`,
   * `"openai-chat"`, ...).
   */
  source: string;
  /** The response's id (`msg_…`, `chatcmpl-…`, `resp_…`). */
  responseId?: string;
  /** The model that answered. */
  responseModel?: string;
  /** Every input token, cache reads and writes included. */
  inputTokens?: number;
  /** Input tokens read from the cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the cache (0 when the provider wrote none). */
  cacheWriteTokens?: number;
  /**
   * The writes by lifetime, when the provider broke them down (Anthropic
   * `cache_creation`, OpenAI `cache_write_tokens_details`); lifetimes with
   * no tokens are left out.
   */
  cacheWrites?: Partial<Record<CacheLifetime, number>>;
  /** Output tokens. */
  outputTokens?: number;
  /**
   * A compaction the provider ran inside the request, reported apart from
   * the figures above (Anthropic `usage.iterations` entries of type
   * `compaction` beside the `message` one): its input (reads and writes
   * included), reads, writes and output.
   */
  compaction?: {
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
  };
  /** The provider's cache diagnosis. */
  diagnosis: ProviderDiagnosis;
  /**
   * The fields that could not be read, by their path in the response
   * (`usage.input_tokens`), with the value found there; absent when
   * everything read.
   */
  malformed?: { field: string; raw: unknown }[];
}
