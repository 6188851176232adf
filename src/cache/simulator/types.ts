/**
 * The types of the cache simulation (SPEC 8.8): what `simulateCache` and
 * `bestLayoutTokens` take and return.
 *
 * @module
 */

/**
 * Counts the tokens of a text: a non-negative integer. Any tokenizer will
 * do; the figures are as good as it is.
 *
 * @example
 * ```ts
 * import type { CountTokens } from "@rxprompt/system-prompt/cache";
 *
 * const roughly: CountTokens = (text) => Math.ceil(text.length / 4);
 * ```
 */
export type CountTokens = (text: string) => number;

/**
 * One request of a simulated session.
 *
 * @example
 * ```ts
 * import type { CacheRequest } from "@rxprompt/system-prompt/cache";
 *
 * const request: CacheRequest = {
 *   body: { system: "You are terse.", messages: [{ role: "user", content: "Hi." }] },
 *   time: 60_000,
 *   thread: "main",
 * };
 * ```
 */
export interface CacheRequest {
  /**
   * The request body the harness sends: for `anthropic`, a Messages body
   * `{ tools?, system?, messages }`; for the OpenAI rules, a Chat
   * Completions body `{ tools?, messages, prompt_cache_options? }` or a
   * Responses body `{ tools?, instructions?, input, prompt_cache_options? }`.
   * Other fields (`model`, `max_tokens`, …) are ignored.
   */
  body: unknown;
  /**
   * When it is sent, in milliseconds (any origin); not before the previous
   * request's time. Default: one second after the previous request (0 for
   * the first).
   */
  time?: number;
  /**
   * The conversation it belongs to (default: one thread). Caches are shared
   * between threads; only `bestLayoutTokens` reads it.
   */
  thread?: string;
}

/** The simulator's options (`SimulateCacheOptions`, its provider an id). */
export interface SimulateOptions {
  /** Whose rules apply: a rules id. */
  provider: string;
  countTokens: CountTokens;
  minPrefixTokens?: number;
}

/**
 * The first block of a request that the cache did not serve, and why.
 *
 * @example
 * ```ts
 * import type { CacheMiss } from "@rxprompt/system-prompt/cache";
 *
 * const miss: CacheMiss = {
 *   block: "tool:read_file",
 *   reason: "tool:read_file differs from every earlier request after the same prefix",
 * };
 * ```
 */
export interface CacheMiss {
  /** `tool:NAME`, `system:I` or `message:I.J` (0-based indexes). */
  block: string;
  /** Why: a change, a lapsed lifetime, a prefix under the minimum, … */
  reason: string;
}

/**
 * The simulated outcome of one request, in tokens.
 *
 * @example
 * ```ts
 * import type { CacheRequestResult } from "@rxprompt/system-prompt/cache";
 *
 * const result: CacheRequestResult = {
 *   inputTokens: 3000,
 *   cachedTokens: 2048,
 *   writtenTokens: 952,
 *   promptTokens: 2000,
 *   cost: 1395.8,
 * };
 * ```
 */
export interface CacheRequestResult {
  /** Every block's tokens (framing tokens are not counted). */
  inputTokens: number;
  /** Tokens read from the cache. */
  cachedTokens: number;
  /** Tokens written to the cache (billed as writes; 0 for `openai`). */
  writtenTokens: number;
  /** The tokens of the tools and the system prompt (the request's head). */
  promptTokens: number;
  /**
   * The price in uncached input tokens: uncached input 1, cache reads 0.1,
   * writes 1.25 (Anthropic 5-minute and OpenAI explicit entries) or 2
   * (Anthropic 1-hour entries).
   */
  cost: number;
  /** The first block not served from cache; absent when all was. */
  firstMiss?: CacheMiss;
}

/**
 * Sums over the requests.
 *
 * @example
 * ```ts
 * import type { CacheTotals } from "@rxprompt/system-prompt/cache";
 *
 * const totals: CacheTotals = {
 *   inputTokens: 6000,
 *   cachedTokens: 4000,
 *   writtenTokens: 1900,
 *   promptTokens: 4000,
 *   cost: 2775,
 * };
 * ```
 */
export interface CacheTotals {
  /** The requests' input tokens. */
  inputTokens: number;
  /** The requests' cached tokens. */
  cachedTokens: number;
  /** The requests' written tokens. */
  writtenTokens: number;
  /** The requests' tools and system prompt tokens. */
  promptTokens: number;
  /** The requests' cost (see {@linkcode CacheRequestResult.cost}). */
  cost: number;
}

/**
 * What `simulateCache` returns: one result per request, in order, and the
 * totals.
 *
 * @example
 * ```ts
 * import type { CacheSimulation } from "@rxprompt/system-prompt/cache";
 *
 * function efficiency(simulation: CacheSimulation): number {
 *   const { cachedTokens, inputTokens } = simulation.totals;
 *   return inputTokens === 0 ? 0 : cachedTokens / inputTokens;
 * }
 * ```
 */
export interface CacheSimulation {
  /** Per request, in the order given. */
  requests: CacheRequestResult[];
  /** The sums. */
  totals: CacheTotals;
}

/**
 * The best-layout bound of one request, in tokens.
 *
 * @example
 * ```ts
 * import type { BestLayoutRequest } from "@rxprompt/system-prompt/cache";
 *
 * const bound: BestLayoutRequest = {
 *   inputTokens: 3000,
 *   boundTokens: 2700,
 *   promptTokens: 2000,
 *   promptBoundTokens: 2000,
 * };
 * ```
 */
export interface BestLayoutRequest {
  /** Every unit's tokens. */
  inputTokens: number;
  /** The tokens of the units unchanged since the thread's last request. */
  boundTokens: number;
  /** The tokens of the tools and system prompt units. */
  promptTokens: number;
  /** Of those, the tokens unchanged since the thread's last request. */
  promptBoundTokens: number;
}

/**
 * What `bestLayoutTokens` returns: one bound per request and the sums.
 *
 * @example
 * ```ts
 * import type { BestLayout } from "@rxprompt/system-prompt/cache";
 *
 * function bound(layout: BestLayout): number {
 *   return layout.totals.boundTokens;
 * }
 * ```
 */
export interface BestLayout {
  /** Per request, in the order given. */
  requests: BestLayoutRequest[];
  /** The sums. */
  totals: BestLayoutRequest;
}
