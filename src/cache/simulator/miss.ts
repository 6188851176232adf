/**
 * Cache entries with a lifetime, and the first-miss explanation every rule
 * shares: the first block not served, and why (a rule's own reason first,
 * then a lapsed entry, then a block that was sent before but never written,
 * then a change or new content).
 *
 * @module
 */

import {
  firstBlockBeyond,
  parentOf,
  type PrefixIndex,
  type Prepared,
} from "./prefixes.ts";
import type { CacheMiss } from "./types.ts";

/** A written prefix. */
export interface Entry {
  /** When it lapses (ms). */
  expires: number;
  /** Its lifetime (ms), renewed on use. */
  ttl: number;
  /** When it was last written or read. */
  used: number;
}

/** What the first-miss explanation reads of a rule's entries. */
export interface EntryTable {
  /** Whether the entry of `node` is alive at `now`. */
  live(node: number, now: number): boolean;
  /** The entry of `node`, alive or lapsed. */
  any(node: number): Entry | undefined;
}

/**
 * Written prefixes by prefix number. Lapsed entries stay, for reasons.
 * Kept in arrays of numbers indexed by the dense prefix numbers: a long
 * session holds many entries, and numbers in arrays cost the garbage
 * collector nothing to trace.
 */
export class Entries implements EntryTable {
  readonly #expires: number[] = [];
  readonly #ttl: number[] = [];
  readonly #used: number[] = [];

  /** Whether the entry of `node` is alive at `now`. */
  live(node: number, now: number): boolean {
    const expires = this.#expires[node];
    return expires !== undefined && expires > now;
  }

  /** The entry of `node`, alive or lapsed. */
  any(node: number): Entry | undefined {
    const expires = this.#expires[node];
    if (expires === undefined || expires === Number.NEGATIVE_INFINITY) {
      return undefined;
    }
    return { expires, ttl: this.#ttl[node], used: this.#used[node] };
  }

  /**
   * Reads or writes `node` at `now`: it lives `ttl` from now (or its own
   * longer lifetime). True when it was written (absent or lapsed before).
   */
  touch(node: number, now: number, ttl: number): boolean {
    if (this.live(node, now)) {
      const longest = Math.max(this.#ttl[node], ttl);
      this.#ttl[node] = longest;
      this.#expires[node] = now + longest;
      this.#used[node] = now;
      return false;
    }
    this.#ensure(node);
    this.#expires[node] = now + ttl;
    this.#ttl[node] = ttl;
    this.#used[node] = now;
    return true;
  }

  /** Fills the arrays up to `node`, so they stay packed (no holes). */
  #ensure(node: number): void {
    while (this.#expires.length <= node) {
      this.#expires.push(Number.NEGATIVE_INFINITY);
      this.#ttl.push(0);
      this.#used.push(0);
    }
  }
}

/** What a rule knows about a request's miss. */
export interface MissContext {
  readonly request: Prepared;
  readonly index: PrefixIndex;
  readonly cachedTokens: number;
  /** The rule's entries (alive means it could have been read). */
  readonly entries: readonly EntryTable[];
  /** The rule's own reason for block `block`, if it has one. */
  readonly ruleReason?: (block: number) => string | undefined;
}

/** The first block not served from cache, and why; undefined if none. */
export function firstMiss(context: MissContext): CacheMiss | undefined {
  const { request, index, cachedTokens, entries } = context;
  const block = firstBlockBeyond(request, cachedTokens);
  if (block < 0) return undefined;
  const id = request.block(block).id;
  const own = context.ruleReason?.(block);
  if (own !== undefined) return { block: id, reason: own };
  const node = request.node(block);
  const lapsed = longestLapsed(request, block, entries);
  if (lapsed !== undefined) {
    const { at, entry } = lapsed;
    return {
      block: id,
      reason: `the entry written through ${request.block(at).id} lapsed: ` +
        `lifetime ${minutes(entry.ttl)}, last used ${
          seconds(request.time - entry.used)
        } before`,
    };
  }
  if (index.requests === 0) {
    return { block: id, reason: "the first request: nothing is written yet" };
  }
  if (index.seen(node)) {
    const differs = firstUnseen(request, index, block + 1);
    const where = differs < request.length
      ? `; the request first differs from every earlier one at ${
        request.block(differs).id
      }`
      : "";
    return {
      block: id,
      reason: `no written prefix reaches ${id}${where}`,
    };
  }
  if (index.extended(parentOf(request, block))) {
    return {
      block: id,
      reason: `${id} differs from every earlier request after the same prefix`,
    };
  }
  return {
    block: id,
    reason: `${id} is new: no earlier request reached this point`,
  };
}

/**
 * The first block from `from` whose prefix no earlier request sent, or
 * the request's length. A prefix some request sent was sent with every
 * shorter prefix of it, so the sent ones come first: a binary search.
 */
function firstUnseen(
  request: Prepared,
  index: PrefixIndex,
  from: number,
): number {
  let low = from;
  let high = request.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (index.seen(request.node(middle))) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The longest lapsed entry through `block` or beyond. */
function longestLapsed(
  request: Prepared,
  block: number,
  entries: readonly EntryTable[],
): { at: number; entry: Entry } | undefined {
  for (let at = request.length - 1; at >= block; at--) {
    const node = request.node(at);
    for (const table of entries) {
      const entry = table.any(node);
      if (entry !== undefined && entry.expires <= request.time) {
        return { at, entry };
      }
    }
  }
  return undefined;
}

/** The longest alive entry of a request at or after `from`, or -1. */
export function longestLive(
  request: Prepared,
  entries: EntryTable,
  from = 0,
): number {
  for (let at = request.length - 1; at >= from; at--) {
    if (entries.live(request.node(at), request.time)) return at;
  }
  return -1;
}

function minutes(ms: number): string {
  return ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
