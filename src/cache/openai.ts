/**
 * Automatic prefix caching: OpenAI's (SPEC 8.8) and Gemini's implicit one
 * (SPEC 10.5), with the facts of `rules.ts`. OpenAI's: a request reads the
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

import { Entries, firstMiss } from "./miss.ts";
import {
  parentOf,
  type PrefixIndex,
  type Prepared,
  ROOT,
  tokensThrough,
} from "./prefixes.ts";
import { type AutomaticFacts, OPENAI_AUTOMATIC } from "./rules.ts";
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

/** The automatic prefix cache over a session. */
export class AutomaticCache {
  readonly entries: Entries = new Entries();
  /** After each prefix, the latest distinct blocks sent (latest last). */
  readonly #next = new Map<number, Next[]>();
  readonly #count: CountTokens;
  readonly #minimum: number;
  readonly #facts: AutomaticFacts;

  constructor(
    count: CountTokens,
    minimum: number,
    facts: AutomaticFacts = OPENAI_AUTOMATIC,
  ) {
    this.#count = count;
    this.#minimum = minimum;
    this.#facts = facts;
  }

  /** What the automatic rule serves `request`. */
  read(request: Prepared): AutomaticRead {
    const { nodes, blocks, time } = request;
    let at = -1;
    while (at + 1 < nodes.length && this.entries.live(nodes[at + 1], time)) {
      at += 1;
    }
    let matched = tokensThrough(request, at);
    const following = at + 1;
    if (following < blocks.length) {
      let partial = 0;
      for (
        const earlier of this.#next.get(parentOf(request, following)) ?? []
      ) {
        if (earlier.time + earlier.ttl <= time) continue;
        partial = Math.max(partial, this.#partial(earlier, blocks[following]));
      }
      const own = tokensThrough(request, following) - matched;
      matched += Math.min(partial, Math.max(0, own - 1));
    }
    const { step } = this.#facts;
    const cached = matched < this.#minimum
      ? 0
      : Math.floor(matched / step) * step;
    return { matched, cached };
  }

  /** Makes every prefix of `request` an entry (after it is served). */
  write(request: Prepared): void {
    const { nodes, blocks, time } = request;
    const ttl = request.automaticTtl ?? this.#facts.ttl;
    let parent = ROOT;
    nodes.forEach((node, at) => {
      this.entries.touch(node, time, ttl);
      this.#remember(parent, { node, block: blocks[at] }, time, ttl);
      parent = node;
    });
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
      return `cached in steps of ${this.#facts.step} tokens: ` +
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
    const b = earlier.text;
    let same = 0;
    const limit = Math.min(a.length, b.length);
    while (same < limit && a.charCodeAt(same) === b.charCodeAt(same)) same++;
    return same === 0 ? 0 : this.#count(a.slice(0, same));
  }
}

/** Automatic caching (OpenAI's, Gemini's) over a session. */
export class AutomaticPrefixCache {
  readonly #cache: AutomaticCache;
  readonly #index: PrefixIndex;

  constructor(
    index: PrefixIndex,
    { count, minimum, facts }: {
      count: CountTokens;
      minimum: number;
      facts: AutomaticFacts;
    },
  ) {
    this.#index = index;
    this.#cache = new AutomaticCache(count, minimum, facts);
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
      cost: request.inputTokens - cachedTokens + cachedTokens * 0.1,
      ...(miss === undefined ? {} : { firstMiss: miss }),
    };
  }
}
