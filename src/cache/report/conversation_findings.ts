/**
 * What a conversation's report finds beside the cache's figures: the
 * changes a request told inline, what storing the cache's entries cost,
 * what deferring tools saved. Types only.
 *
 * @module
 */

/**
 * A change a conversation's request told the model inline, after the
 * history (SPEC 10.1), so that no earlier byte changed: a section of the
 * system prompt changed, added or removed; a tool added or removed; the
 * effort changed. `restated` marks one told again after a compaction (the
 * summary replaced the messages that told it).
 *
 * @example
 * ```ts
 * import type { InlineChange } from "@rxprompt/system-prompt/cache";
 *
 * const told: InlineChange[] = [
 *   { kind: "section", name: "git", change: "changed" },
 *   { kind: "tool", name: "browse", change: "added" },
 *   { kind: "effort", name: "high", change: "changed" },
 * ];
 * ```
 */
export interface InlineChange {
  /** What changed: a section, a tool, or the effort. */
  kind: "section" | "tool" | "effort";
  /** The section's or tool's name, or the new effort. */
  name: string;
  /** How (`"changed"` for an effort). */
  change: "added" | "changed" | "removed";
  /** Told again after a compaction. */
  restated?: true;
}

/**
 * What storing a conversation's cache entries cost: each entry the
 * requests named, from its creation until it was deleted or expired (a
 * recording knows an entry's end only when a later entry replaced it; the
 * last is counted until it expires).
 *
 * @example
 * ```ts
 * import type { CacheStorageReport } from "@rxprompt/system-prompt/cache";
 *
 * function stored(storage: CacheStorageReport): string {
 *   return `${storage.entries} entries, ${storage.tokenHours} token-hours, ` +
 *     `cost ${storage.storageCost}`;
 * }
 * ```
 */
export interface CacheStorageReport {
  /** The distinct entries the requests named. */
  entries: number;
  /** The tokens each entry was created with, summed (billed as input). */
  writtenTokens: number;
  /** Tokens × hours stored, each entry until deleted or expired. */
  tokenHours: number;
  /** `tokenHours` × the storage price, in input-token prices. */
  storageCost: number;
}

/**
 * What deferring tools saved a conversation (SPEC §10.3): the deferred
 * tools its requests sent unloaded (`defer_loading`, as Anthropic's tools
 * and OpenAI Responses' namespaced functions carry it), those the model
 * found, and the tokens of the definitions left out of the prompt.
 *
 * @example
 * ```ts
 * import type { DeferredToolsReport } from "@rxprompt/system-prompt/cache";
 *
 * function saved(deferred: DeferredToolsReport): string {
 *   return `${deferred.found} of ${deferred.tools} deferred tools found; ` +
 *     `${deferred.tokensNotSent} tokens not sent`;
 * }
 * ```
 */
export interface DeferredToolsReport {
  /** The distinct deferred tools the requests carried. */
  tools: number;
  /** The distinct deferred tools the model found (loaded by a search). */
  found: number;
  /**
   * Per request, the tokens (the report's `countTokens` of each definition's
   * JSON) of the deferred definitions not loaded yet, summed over requests.
   */
  tokensNotSent: number;
}
