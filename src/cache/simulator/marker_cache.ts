/**
 * Marker caches (SPEC 8.8, 10.5): Anthropic's `cache_control` and Bedrock's
 * `cachePoint`, with the facts of `rules.ts`. Prefix order tools, system,
 * messages; at most four markers, longer lifetimes first; a marker writes
 * the prefix through its block when it holds at least the minimum (the
 * whole prefix on Anthropic, its own span since the previous written
 * checkpoint on Bedrock); a request reads the longest written prefix found
 * at one of its markers or up to 20 blocks before it; entries live 5
 * minutes (or 1 hour), renewed on use. No marker, nothing cached.
 *
 * @module
 */

import { SystemPromptError } from "../../errors.ts";
import { Entries, firstMiss, longestLive } from "./miss.ts";
import { type PrefixIndex, type Prepared, tokensThrough } from "./prefixes.ts";
import type { MarkRules, ProviderRules } from "./rules.ts";
import type { CacheRequestResult } from "./types.ts";

/** A marker cache over a session. */
export class MarkerCache {
  readonly #entries = new Entries();
  readonly #index: PrefixIndex;
  readonly #minimum: number;
  readonly #facts: MarkRules;
  readonly #readPrice: number;

  constructor(index: PrefixIndex, minimum: number, rules: ProviderRules) {
    this.#index = index;
    this.#minimum = minimum;
    this.#facts = rules.marks!;
    this.#readPrice = rules.readPrice;
  }

  /** Simulates one request. */
  step(request: Prepared): CacheRequestResult {
    const markers = markersOf(request, this.#facts);
    const now = request.time;
    let best = -1;
    for (const marker of markers) {
      const floor = Math.max(0, marker - this.#facts.lookbackBlocks);
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
    let checkpoint = 0;
    for (const marker of markers) {
      const through = tokensThrough(request, marker);
      if (!this.#holdsMinimum(through, checkpoint)) continue;
      checkpoint = through;
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
      cost: uncached + writeCost + cachedTokens * this.#readPrice,
      ...(miss === undefined ? {} : { firstMiss: miss }),
    };
  }

  /**
   * Whether a marker through `through` tokens holds the minimum, the last
   * written checkpoint ending at `checkpoint` tokens.
   */
  #holdsMinimum(through: number, checkpoint: number): boolean {
    const span = this.#facts.minimumOf === "prefix"
      ? through
      : through - checkpoint;
    return span >= this.#minimum;
  }

  #reason(
    request: Prepared,
    markers: readonly number[],
    block: number,
  ): string | undefined {
    const { name: marker, lookbackBlocks: lookback, minimumOf } = this.#facts;
    if (markers.length === 0) {
      return `the request has no ${marker} marker: nothing is cached`;
    }
    const live = longestLive(request, this.#entries, block);
    if (live >= 0) {
      return `a prefix through ${request.block(live).id} is written, but ` +
        `no marker is at it or within ${lookback} blocks after it`;
    }
    const last = markers[markers.length - 1];
    const through = tokensThrough(request, last);
    if (minimumOf === "prefix" && through < this.#minimum) {
      return `the prefix at every marker is under the minimum ` +
        `(${through} < ${this.#minimum} tokens)`;
    }
    let checkpoint = 0;
    for (const at of markers) {
      const end = tokensThrough(request, at);
      if (this.#holdsMinimum(end, checkpoint)) checkpoint = end;
    }
    if (minimumOf === "checkpoint" && checkpoint === 0) {
      return `no ${marker} holds the minimum since the one before it ` +
        `(${this.#minimum} tokens each)`;
    }
    return undefined;
  }
}

/**
 * The marked blocks of a request, checked as the API checks them.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` with the API's complaint
 */
function markersOf(request: Prepared, facts: MarkRules): readonly number[] {
  const { name: marker, limit, order } = facts;
  const markers = request.marks;
  if (facts.ttlsNonIncreasing) {
    const seen: { id: string; ttl: number; label: string }[] = [];
    for (const at of markers) {
      const id = request.block(at).id;
      const { ttl, label } = request.marker(at)!;
      const shorter = seen.find((earlier) => earlier.ttl < ttl);
      if (shorter !== undefined) {
        throw new SystemPromptError(
          "INVALID_CONFIG",
          `a ${marker} with ttl "${label}" (${id}) comes after one with ` +
            `ttl "${shorter.label}" (${shorter.id}); the API requires ` +
            `longer ttls first ` + order,
        );
      }
      seen.push({ id, ttl, label });
    }
  }
  if (limit !== undefined && markers.length > limit) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `A maximum of ${limit} blocks with ${marker} may be ` +
        `provided. Found ${markers.length} (${
          markers.map((at) => request.block(at).id).join(", ")
        }).`,
    );
  }
  return markers;
}
