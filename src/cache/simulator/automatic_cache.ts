/**
 * Automatic prefix caching: OpenAI's (SPEC 8.8) and Gemini's implicit one
 * (SPEC 10.5), with the facts of the provider's rules (`automatic`). OpenAI's: a request reads the
 * longest exact common prefix with an earlier request, rounded down to a
 * multiple of 128 tokens, nothing below the minimum (1024). Order tools, system,
 * messages (OpenAI does not document how it serialises tools: an
 * assumption). Entries live 5 minutes after their last use (an assumption:
 * OpenAI says 5 to 10 minutes of inactivity, up to an hour off-peak), or
 * 24 hours when the body asks for `prompt_cache_retention: "24h"` (extended
 * retention, "up to a maximum of 24 hours": modelled as its maximum).
 *
 * The match is exact at block boundaries; inside the first differing block
 * it is the common leading text of that block and the earlier request's,
 * counted with the same tokenizer (an estimate). Gemini's: the same with
 * its own minimum (4,096 on Gemini 3) and no rounding (see `rules.ts`).
 *
 * @module
 */

import { commonBlocks } from "./body_view.ts";
import { Entries, type EntryTable, firstMiss } from "./miss.ts";
import {
  holds,
  parentOf,
  type PrefixIndex,
  type Prepared,
  ROOT,
  tokensThrough,
} from "./prefixes.ts";
import type { AutomaticRules, ProviderRules } from "./rules.ts";
import type { CacheRequestResult, CountTokens } from "./types.ts";
/** The distinct blocks remembered after a prefix, for partial matches. */
const NEXT_KEPT = 4;

/** The automatic rule's reading of one request. */
export interface AutomaticRead {
  /** The common prefix before rounding. */
  readonly matched: number;
  /** What is served: rounded down, 0 under the minimum. */
  readonly cached: number;
}

interface Next {
  /** The prefix through it: the same block after the same prefix. */
  readonly node: number;
  readonly key: string;
  readonly text: string;
  time: number;
  ttl: number;
}

/**
 * The automatic prefix cache over a session. Every request writes every
 * prefix of it; a session's requests repeat the one before and add a few
 * blocks, so writing each prefix again would cost the whole history per
 * request. Instead the last request written is kept aside (`pending`) and
 * read as written: while every request asks for one lifetime, a prefix's
 * entry after a write is the same whatever it was before (written now,
 * living that lifetime), so the next request, which repeats most of it,
 * takes its place, and only the blocks where it leaves the kept request
 * are written out. A request asking for another lifetime writes the kept
 * one out and every later request is written prefix by prefix (an entry
 * alive then keeps the longer of two lifetimes).
 */
export class AutomaticCache {
  /** The entries, the kept request's prefixes read as written. */
  readonly entries: EntryTable;
  /** The entries written out. */
  readonly #written = new Entries();
  /** After each prefix, the latest distinct blocks sent (latest last). */
  readonly #next = new Map<number, Next[]>();
  readonly #index: PrefixIndex;
  readonly #count: CountTokens;
  readonly #minimum: number;
  /** The last request written, kept aside, and its lifetime. */
  #pending: { request: Prepared; ttl: number } | undefined;
  /** The lifetime every request asked for, `null` once two differ. */
  #ttl: number | null | undefined;

  readonly #facts: AutomaticRules;

  constructor(
    index: PrefixIndex,
    count: CountTokens,
    { minimum, facts }: { minimum: number; facts: AutomaticRules },
  ) {
    this.#index = index;
    this.#count = count;
    this.#minimum = minimum;
    this.#facts = facts;
    this.entries = {
      live: (node, now) => {
        const kept = this.#kept(node);
        return kept === undefined
          ? this.#written.live(node, now)
          : kept.request.time + kept.ttl > now;
      },
      any: (node) => {
        const kept = this.#kept(node);
        if (kept === undefined) return this.#written.any(node);
        const used = kept.request.time;
        return { expires: used + kept.ttl, ttl: kept.ttl, used };
      },
    };
  }

  /** What the automatic rule serves `request`. */
  read(request: Prepared): AutomaticRead {
    const { time } = request;
    // Every prefix of a written one was written with it, so a prefix's
    // entry lives at least as long as a longer one's: the live prefixes
    // come first, and the longest is found by a binary search.
    let low = 0;
    let high = request.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entries.live(request.node(middle), time)) low = middle + 1;
      else high = middle;
    }
    const at = low - 1;
    let matched = tokensThrough(request, at);
    const following = at + 1;
    if (following < request.length) {
      let partial = 0;
      const block = request.block(following);
      for (const earlier of this.#nextAfter(parentOf(request, following))) {
        if (earlier.time + earlier.ttl <= time) continue;
        partial = Math.max(partial, this.#partial(earlier, block));
      }
      const own = tokensThrough(request, following) - matched;
      matched += Math.min(partial, Math.max(0, own - 1));
    }
    const step = this.#facts.stepTokens;
    const cached = matched < this.#minimum
      ? 0
      : Math.floor(matched / step) * step;
    return { matched, cached };
  }

  /** Makes every prefix of `request` an entry (after it is served). */
  write(request: Prepared): void {
    const ttl = request.automaticTtl ?? this.#facts.ttlMs;
    if (this.#ttl !== null && this.#ttl !== undefined && this.#ttl !== ttl) {
      this.#ttl = null;
      const kept = this.#pending;
      if (kept !== undefined) this.#writeOut(kept, 0, kept.request.length);
      this.#pending = undefined;
    }
    if (this.#ttl === null) {
      this.#writeOut({ request, ttl }, 0, request.length);
      return;
    }
    this.#ttl = ttl;
    const kept = this.#pending;
    if (kept !== undefined) {
      this.#writeOut(
        kept,
        commonBlocks(kept.request, request),
        kept.request.length,
      );
    }
    this.#pending = { request, ttl };
  }

  /** The kept request when it holds prefix `node`. */
  #kept(node: number): { request: Prepared; ttl: number } | undefined {
    const kept = this.#pending;
    return kept !== undefined && holds(kept.request, this.#index, node)
      ? kept
      : undefined;
  }

  /** Writes out the prefixes through blocks `from..to` of a written request. */
  #writeOut(
    written: { request: Prepared; ttl: number },
    from: number,
    to: number,
  ): void {
    const { request, ttl } = written;
    const { time } = request;
    for (let at = from; at < to; at++) {
      const node = request.node(at);
      this.#written.touch(node, time, ttl);
      this.#remember(
        parentOf(request, at),
        { node, block: request.block(at) },
        time,
        ttl,
      );
    }
  }

  /** The blocks remembered after `parent`, the kept request's among them. */
  #nextAfter(parent: number): readonly Next[] {
    const kept = this.#next.get(parent) ?? [];
    const pending = this.#pending;
    if (pending === undefined) return kept;
    const { request, ttl } = pending;
    const at = parent === ROOT
      ? 0
      : holds(request, this.#index, parent)
      ? this.#index.depth(parent) + 1
      : request.length;
    if (at >= request.length) return kept;
    const node = request.node(at);
    const block = request.block(at);
    const next: Next = {
      node,
      key: block.key,
      text: block.text,
      time: request.time,
      ttl,
    };
    // As #remember would have it.
    const latest = kept.at(-1);
    if (latest?.node === node) {
      return [...kept.slice(0, -1), {
        ...next,
        ttl: Math.max(latest.ttl, ttl),
      }];
    }
    return [...kept.filter((earlier) => earlier.node !== node), next]
      .slice(-NEXT_KEPT);
  }

  /**
   * Remembers `block` as sent after `parent` at `time`; `node` is the
   * prefix through it, so blocks compare by number, not by their texts.
   */
  #remember(
    parent: number,
    { node, block }: { node: number; block: { key: string; text: string } },
    time: number,
    ttl: number,
  ): void {
    const kept = this.#next.get(parent);
    const next = (): Next => ({
      node,
      key: block.key,
      text: block.text,
      time,
      ttl,
    });
    if (kept === undefined) {
      this.#next.set(parent, [next()]);
      return;
    }
    const latest = kept[kept.length - 1];
    // The usual case: the same block again; no allocation.
    if (latest.node === node) {
      latest.time = time;
      latest.ttl = Math.max(latest.ttl, ttl);
      return;
    }
    const others = kept.filter((earlier) => earlier.node !== node);
    others.push(next());
    this.#next.set(parent, others.slice(-NEXT_KEPT));
  }

  /** A reason for a miss inside what the automatic rule matched. */
  reason(
    request: Prepared,
    read: AutomaticRead,
    block: number,
  ): string | undefined {
    if (read.matched <= read.cached) return undefined;
    if (read.matched < this.#minimum) {
      return `the common prefix with earlier requests (${read.matched} ` +
        `tokens) is under the minimum of ${this.#minimum}`;
    }
    if (read.matched >= tokensThrough(request, block)) {
      return `cached in steps of ${this.#facts.stepTokens} tokens: ` +
        `${read.matched} matched, ` +
        `${read.cached} served`;
    }
    return undefined;
  }

  #partial(earlier: Next, block: { key: string; text: string }): number {
    const head = block.key.length - block.text.length;
    if (
      head < 0 || earlier.key.length - earlier.text.length !== head ||
      !block.key.endsWith(block.text) || !earlier.key.endsWith(earlier.text) ||
      block.key.slice(0, head) !== earlier.key.slice(0, head)
    ) {
      return 0;
    }
    const a = block.text;
    const same = commonLength(a, earlier.text);
    if (same === 0) return 0;
    // The whole text when it is all in common (a marked copy of the item
    // sent before): counted already, where a slice is a new text to hash
    // and count.
    return this.#count(same === a.length ? a : a.slice(0, same));
  }
}

/**
 * The length of the text `a` and `b` start with: found by halves, each
 * half compared by the engine (a tool output and its marked copy share a
 * thousand characters or more, compared one by one in a loop before).
 */
export function commonLength(a: string, b: string): number {
  // `a[0, same)` is `b[0, same)`; `a[0, differs)` is not `b[0, differs)`.
  let same = 0;
  let differs = Math.min(a.length, b.length) + 1;
  while (differs - same > 1) {
    const middle = (same + differs) >>> 1;
    if (b.startsWith(a.slice(same, middle), same)) same = middle;
    else differs = middle;
  }
  return same;
}

/** Automatic caching (OpenAI's, Gemini's) over a session. */
export class AutomaticPrefixCache {
  readonly #cache: AutomaticCache;
  readonly #index: PrefixIndex;
  readonly #readPrice: number;

  constructor(
    index: PrefixIndex,
    { count, minimum, rules }: {
      count: CountTokens;
      minimum: number;
      rules: ProviderRules;
    },
  ) {
    this.#index = index;
    this.#readPrice = rules.readPrice;
    this.#cache = new AutomaticCache(index, count, {
      minimum,
      facts: rules.automatic!,
    });
  }

  /** Simulates one request. */
  step(request: Prepared): CacheRequestResult {
    const read = this.#cache.read(request);
    const cachedTokens = read.cached;
    const miss = firstMiss({
      request,
      index: this.#index,
      cachedTokens,
      entries: [this.#cache.entries],
      ruleReason: (block) => this.#cache.reason(request, read, block),
    });
    this.#cache.write(request);
    return {
      inputTokens: request.inputTokens,
      cachedTokens,
      writtenTokens: 0,
      promptTokens: request.promptTokens,
      cost: request.inputTokens - cachedTokens + cachedTokens * this.#readPrice,
      ...(miss === undefined ? {} : { firstMiss: miss }),
    };
  }
}
