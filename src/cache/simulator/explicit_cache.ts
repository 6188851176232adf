/**
 * OpenAI's explicit cache breakpoints (gpt-5.6 and later; SPEC 8.8): a
 * text part with `prompt_cache_breakpoint: { mode: "explicit", ttl? }`
 * marks the prefix through it. A request reads at any of its latest 80
 * marks. In the default mode it writes its latest three marked prefixes
 * plus one implicit breakpoint (the automatic rule), and is served the
 * larger of its explicit read and the automatic rule; with
 * `prompt_cache_options.mode: "explicit"` it writes its latest four marks
 * and nothing else (no marks, nothing cached). Marked entries live 30
 * minutes (12 hours with `ttl: "12h"`), renewed on use, and need the
 * minimum (1024 tokens).
 *
 * @module
 */

import { Entries, firstMiss } from "./miss.ts";
import { AutomaticCache } from "./automatic_cache.ts";
import { type PrefixIndex, type Prepared, tokensThrough } from "./prefixes.ts";
import type { ProviderRules } from "./rules.ts";
import type { CacheRequestResult, CountTokens } from "./types.ts";

/** Explicit marks read with an automatic cache beside them, over a session. */
export class ExplicitCache {
  readonly #entries = new Entries();
  readonly #automatic: AutomaticCache;
  readonly #index: PrefixIndex;
  readonly #minimum: number;
  readonly #rules: ProviderRules;

  constructor(
    index: PrefixIndex,
    count: CountTokens,
    { minimum, rules }: { minimum: number; rules: ProviderRules },
  ) {
    this.#index = index;
    this.#minimum = minimum;
    this.#rules = rules;
    this.#automatic = new AutomaticCache(index, count, {
      minimum,
      facts: rules.automatic!,
    });
  }

  /** Simulates one request. */
  step(request: Prepared): CacheRequestResult {
    const marks = request.marks;
    const now = request.time;
    const explicit = this.#rules.marks!.explicit!;
    let read = -1;
    for (const mark of marks.slice(-explicit.read)) {
      if (mark > read && this.#entries.live(request.node(mark), now)) {
        read = mark;
      }
    }
    const explicitTokens = tokensThrough(request, read);
    const automatic = request.explicitMode
      ? undefined
      : this.#automatic.read(request);
    const cachedTokens = Math.max(explicitTokens, automatic?.cached ?? 0);
    const miss = firstMiss({
      request,
      index: this.#index,
      cachedTokens,
      entries: request.explicitMode
        ? [this.#entries]
        : [this.#entries, this.#automatic.entries],
      ruleReason: (block) => {
        if (request.explicitMode && marks.length === 0) {
          return `prompt_cache_options.mode is "explicit" and no part has a ` +
            `prompt_cache_breakpoint: nothing is cached`;
        }
        return automatic === undefined || automatic.cached < explicitTokens
          ? undefined
          : this.#automatic.reason(request, automatic, block);
      },
    });
    if (read >= 0) this.#entries.touch(request.node(read), now, 0);
    const writes = marks.slice(
      -(request.explicitMode ? explicit.writeExplicitMode : explicit.write),
    );
    let writtenTokens = 0;
    let writeCost = 0;
    let end = cachedTokens;
    for (const mark of writes) {
      const through = tokensThrough(request, mark);
      if (through < this.#minimum) continue;
      const { ttl, writePrice } = request.marker(mark)!;
      const written = this.#entries.touch(request.node(mark), now, ttl);
      if (written && through > end) {
        writtenTokens += through - end;
        writeCost += (through - end) * writePrice;
        end = through;
      }
    }
    if (automatic !== undefined) this.#automatic.write(request);
    const uncached = request.inputTokens - cachedTokens - writtenTokens;
    return {
      inputTokens: request.inputTokens,
      cachedTokens,
      writtenTokens,
      promptTokens: request.promptTokens,
      cost: uncached + writeCost + cachedTokens * this.#rules.readPrice,
      ...(miss === undefined ? {} : { firstMiss: miss }),
    };
  }
}
