/**
 * Anthropic's prompt-caching rules (SPEC 8.8): prefix order tools, system,
 * messages; at most four `cache_control` markers, 1-hour ones before
 * 5-minute ones; a marker writes the prefix through its block when it
 * holds at least the minimum; a request reads the longest written prefix
 * found at one of its markers or up to 20 blocks before it; entries live
 * 5 minutes (or 1 hour), renewed on use. No marker, nothing cached.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { Entries, firstMiss, longestLive } from "./miss.ts";
import { type PrefixIndex, type Prepared, tokensThrough } from "./prefixes.ts";
import type { CacheRequestResult } from "./types.ts";

/** Blocks before a marker that a lookup also checks. */
export const LOOKBACK = 20;
/** The API's limit on `cache_control` markers per request. */
export const MAX_MARKERS = 4;

/** Anthropic's cache over a session. */
export class AnthropicCache {
  readonly #entries = new Entries();
  readonly #index: PrefixIndex;
  readonly #minimum: number;

  constructor(index: PrefixIndex, minimum: number) {
    this.#index = index;
    this.#minimum = minimum;
  }

  /** Simulates one request. */
  step(request: Prepared): CacheRequestResult {
    const markers = markersOf(request);
    const now = request.time;
    let best = -1;
    for (const marker of markers) {
      const floor = Math.max(0, marker - LOOKBACK);
      for (let at = marker; at > best && at >= floor; at--) {
        if (this.#entries.live(request.node(at), now)) {
          best = at;
          break;
        }
      }
    }
    const cachedTokens = tokensThrough(request, best);
    // Explained before this request's own writes change the entries.
    const miss = firstMiss({
      request,
      index: this.#index,
      cachedTokens,
      entries: [this.#entries],
      ruleReason: (block) => this.#reason(request, markers, block),
    });
    if (best >= 0) {
      this.#entries.touch(request.node(best), now, 0);
    }
    let writtenTokens = 0;
    let writeCost = 0;
    let end = cachedTokens;
    for (const marker of markers) {
      const through = tokensThrough(request, marker);
      if (through < this.#minimum) continue;
      const { ttl, writePrice } = request.marker(marker)!;
      const written = this.#entries.touch(request.node(marker), now, ttl);
      if (written && through > end) {
        writtenTokens += through - end;
        writeCost += (through - end) * writePrice;
        end = through;
      }
    }
    const uncached = request.inputTokens - cachedTokens - writtenTokens;
    return {
      inputTokens: request.inputTokens,
      cachedTokens,
      writtenTokens,
      promptTokens: request.promptTokens,
      cost: uncached + writeCost + cachedTokens * 0.1,
      ...(miss === undefined ? {} : { firstMiss: miss }),
    };
  }

  #reason(
    request: Prepared,
    markers: readonly number[],
    block: number,
  ): string | undefined {
    if (markers.length === 0) {
      return "the request has no cache_control marker: nothing is cached";
    }
    const live = longestLive(request, this.#entries, block);
    if (live >= 0) {
      return `a prefix through ${request.block(live).id} is written, but ` +
        `no marker is at it or within ${LOOKBACK} blocks after it`;
    }
    const last = markers[markers.length - 1];
    const through = tokensThrough(request, last);
    if (through < this.#minimum) {
      return `the prefix at every marker is under the minimum ` +
        `(${through} < ${this.#minimum} tokens)`;
    }
    return undefined;
  }
}

/**
 * The marked blocks of a request, checked as the API checks them.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` with the API's complaint
 */
function markersOf(request: Prepared): readonly number[] {
  const markers = request.marks;
  let shortSeen: string | undefined;
  for (const at of markers) {
    const id = request.block(at).id;
    if (request.marker(at)!.label === "5m") shortSeen ??= id;
    else if (shortSeen !== undefined) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `a cache_control with ttl "1h" (${id}) comes after one with ` +
          `ttl "5m" (${shortSeen}); the API requires longer ttls first ` +
          `(tools, then system, then messages)`,
      );
    }
  }
  if (markers.length > MAX_MARKERS) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `A maximum of ${MAX_MARKERS} blocks with cache_control may be ` +
        `provided. Found ${markers.length} (${
          markers.map((at) => request.block(at).id).join(", ")
        }).`,
    );
  }
  return markers;
}
