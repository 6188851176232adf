/**
 * What a conversation tells its observers (SPEC 9.1, 10.5): the committed
 * request `onRequest` gets, the observers whose errors go to
 * `onObserverError`, and the options of `report()`.
 *
 * @module
 */

import type { PromptExplanation } from "../explain/explanation.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type { CachePrices } from "../cache/report/types.ts";
import type { CountTokens } from "../cache/simulator/types.ts";

/**
 * The conversation's observers whose errors go to `onObserverError`.
 *
 * @example
 * ```ts
 * import type { ConversationObserver } from "@rxprompt/system-prompt";
 *
 * const observer: ConversationObserver = "onRecord";
 * ```
 */
export type ConversationObserver = "onRecord" | "onRequest";

/**
 * One committed request of a conversation, as `onRequest` gets it.
 *
 * @example
 * ```ts
 * import type { ConversationRequest } from "@rxprompt/system-prompt";
 *
 * const request: ConversationRequest = {
 *   session: "5f0c2b1e-7d1a-4c55-9a57-3b1f0e9d2c11",
 *   step: 1,
 *   form: "anthropic-messages",
 *   cacheProvider: "anthropic",
 *   body: { model: "claude-sonnet-4-5", system: [], messages: [] },
 *   usage: { source: "anthropic-messages", diagnosis: { status: "none" } },
 *   sentAt: 0,
 *   time: 900,
 * };
 * ```
 */
export interface ConversationRequest {
  /** The conversation's session id. */
  readonly session: string;
  /** 1 for the first request, then one more per step. */
  readonly step: number;
  /** The form: `"anthropic-messages"`, `"openai-chat"`, ... (a `FormId`). */
  readonly form: string;
  /**
   * The cache rules its body follows, for `cacheReport` (a `CacheProvider`;
   * none for the AI SDK, whose body is call options).
   */
  readonly cacheProvider?: string;
  /** The whole body sent. */
  readonly body: unknown;
  /** What the provider reported (`readReportedUsage` of the answer). */
  readonly usage: ReportedUsage;
  /** When `request()` built the body (ms, the conversation's clock). */
  readonly sentAt: number;
  /** When the answer was recorded (ms). */
  readonly time: number;
  /** With `diagnostics`: `explain()` of the step's assembly. */
  readonly explanation?: PromptExplanation;
  /** The request before it in this conversation (this process's). */
  readonly previous?: {
    readonly body: unknown;
    readonly usage: ReportedUsage;
    readonly time: number;
    readonly explanation?: PromptExplanation;
  };
}

/**
 * Options of a conversation's `report()`: those of `cacheReport`
 * (`countTokens`, `prices`, `minPrefixTokens`); the provider is the
 * conversation's own.
 *
 * @example
 * ```ts
 * import type { ConversationReportOptions } from "@rxprompt/system-prompt";
 *
 * const options: ConversationReportOptions = {
 *   countTokens: (text) => Math.ceil(text.length / 4),
 * };
 * ```
 */
export interface ConversationReportOptions {
  /** Counts tokens, for the estimate and a diverging prefix's share. */
  countTokens: CountTokens;
  /** The shortest cached prefix (default: the rules'). */
  minPrefixTokens?: number;
  /** Prices (see `CachePrices` of `./cache`). */
  prices?: CachePrices;
  /**
   * Whose caching rules apply, a `CacheProvider` of `./cache` (default:
   * the rules of the conversation's form and options).
   */
  provider?: string;
}
