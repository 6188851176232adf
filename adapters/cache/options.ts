/**
 * The options of the cache report's functions that take a provider's id
 * (`@rxprompt/system-prompt/cache`).
 *
 * @module
 */

import type { CountTokens } from "../../src/cache/simulator/types.ts";
import type {
  CacheEstimates,
  CachePrices,
} from "../../src/cache/report/types.ts";
import type { CacheProvider } from "../forms.ts";

/**
 * Options of `simulateCache`.
 *
 * @example
 * ```ts
 * import type { SimulateCacheOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: SimulateCacheOptions = {
 *   provider: "anthropic",
 *   countTokens: (text) => Math.ceil(text.length / 4),
 *   minPrefixTokens: 2048, // Claude Haiku's minimum
 * };
 * ```
 */
export interface SimulateCacheOptions {
  /** Whose rules apply. */
  provider: CacheProvider;
  /** Counts a block's tokens; called once per distinct text. */
  countTokens: CountTokens;
  /**
   * The shortest prefix that is cached, in tokens (default 1024: Anthropic's
   * minimum for most models, OpenAI's for all).
   */
  minPrefixTokens?: number;
}

/**
 * Options of `judgeRequest` and `cacheReport`.
 *
 * @example
 * ```ts
 * import type { CacheReportOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: CacheReportOptions = {
 *   provider: "anthropic",
 *   countTokens: (text) => Math.ceil(text.length / 4),
 * };
 * ```
 */
export interface CacheReportOptions {
  /** Whose caching rules the bodies follow. */
  provider: CacheProvider;
  /** Counts tokens, for the estimate and a diverging prefix's share. */
  countTokens: CountTokens;
  /** The shortest cached prefix (default 1024). */
  minPrefixTokens?: number;
  /** Prices (see {@linkcode CachePrices}). */
  prices?: CachePrices;
}

/**
 * Options of `judgeRequest`: the report's, and the simulator's estimates
 * when the caller has them (else the two requests are simulated alone).
 *
 * @example
 * ```ts
 * import type { JudgeRequestOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: JudgeRequestOptions = {
 *   provider: "openai",
 *   countTokens: (text) => Math.ceil(text.length / 4),
 * };
 * ```
 */
export interface JudgeRequestOptions extends CacheReportOptions {
  /** The simulator's estimates of the two requests. */
  estimates?: CacheEstimates;
}

/**
 * Options of `sharedPrefix`.
 *
 * @example
 * ```ts
 * import type { SharedPrefixOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: SharedPrefixOptions = {
 *   provider: "anthropic",
 *   countTokens: (text) => Math.ceil(text.length / 4),
 * };
 * ```
 */
export interface SharedPrefixOptions {
  /** Whose caching rules decide where a shared prefix may end. */
  provider: CacheProvider;
  /** Counts a text's tokens. */
  countTokens: CountTokens;
  /** The shortest prefix a provider caches (default 1024, as `simulateCache`). */
  minPrefixTokens?: number;
}
