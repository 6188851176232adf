/**
 * The parsed-template cache: a least-recently-used map from section text to
 * its {@linkcode Template}, bounded by an estimate of the bytes it retains.
 * Internal: not exported from `mod.ts`.
 *
 * Prompts repeat from step to step, so the same texts come back and a hit
 * skips the scan. Eviction removes one entry at a time, least recently used
 * first, so a working set larger than the bound never empties the cache.
 *
 * Once full, the cache admits one miss in `admitOneIn` (default 16). Texts
 * cycling through a working set larger than the bound would otherwise each
 * be cached and then evicted before their next use: an entry that lives
 * that long is promoted out of the young generation, and promoting and then
 * collecting it costs more than the parse it never saves (measured: twice
 * the time of no cache at all for 100k distinct sections). A text that
 * keeps coming back is still admitted within about `admitOneIn` misses.
 *
 * An entry also keeps its text's last render (`Template.last`), only when
 * that render is at most about twice the text: the bytes retained stay
 * within a small factor of the estimate the bound counts.
 *
 * @module
 */

import { TextMap } from "../shared/text_map.ts";
import { parseTemplate, type Template } from "./template.ts";

/** The default bound of the module's cache: 8 MiB. */
export const TEMPLATE_CACHE_MAX_BYTES: number = 8 * 1024 * 1024;

// The estimate of what an entry retains: two bytes per code unit of text
// (the widest string representation), a fixed cost per entry (map slot,
// entry, template, arrays) and per literal or name (slot and string header).
const ENTRY_BYTES = 160;
const PIECE_BYTES = 48;

/** Options of a {@linkcode TemplateCache}. */
export interface TemplateCacheOptions {
  /** The bound on the estimated bytes retained (default 8 MiB). */
  maxBytes?: number;
  /**
   * The largest entry admitted, in estimated bytes (default a quarter of
   * `maxBytes`): one huge text must not flush the whole working set.
   */
  maxEntryBytes?: number;
  /** When full, admit one miss in this many (default 16; 1 is plain LRU). */
  admitOneIn?: number;
}

/** What a {@linkcode TemplateCache} holds, for tests and diagnostics. */
export interface TemplateCacheStats {
  /** Cached texts. */
  entries: number;
  /** Estimated bytes retained by the entries. */
  bytes: number;
  /** The bound on `bytes`. */
  maxBytes: number;
}

/**
 * A cached template, itself a node of the recency ring: `newer` and `older`
 * are never undefined once the entry is linked (a lone entry links to
 * itself).
 */
class Entry implements Template {
  readonly literals: readonly string[];
  readonly names: readonly string[];
  readonly failure: Template["failure"];
  last: Template["last"] = undefined;
  older: Entry = this;
  newer: Entry = this;

  constructor(
    readonly text: string,
    template: Template,
    readonly bytes: number,
  ) {
    this.literals = template.literals;
    this.names = template.names;
    this.failure = template.failure;
  }
}

/**
 * A byte-bounded LRU cache of parsed templates. Entries form a circular
 * doubly linked list; `oldest` marks the least recently used, and the
 * entry just before it is the most recent. A prompt renders its sections
 * in the same order at every step, so a hit is almost always on the oldest
 * entry, and making it the most recent is then a single pointer move:
 * `oldest` advances and the ring stays as it is.
 */
export class TemplateCache {
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  // A TextMap: V8 hashes a long string by its length alone.
  private readonly entries = new TextMap<Entry>();
  private oldest: Entry | undefined = undefined;
  readonly admitOneIn: number;
  private bytes = 0;
  private missesWhileFull = 0;

  constructor(options: TemplateCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? TEMPLATE_CACHE_MAX_BYTES;
    this.maxEntryBytes = options.maxEntryBytes ?? this.maxBytes / 4;
    this.admitOneIn = options.admitOneIn ?? 16;
  }

  /** The template of `text`, parsed on a miss and cached when it fits. */
  templateOf(text: string): Template {
    return this.cachedTemplateOf(text) ?? parseTemplate(text);
  }

  /**
   * The template of `text` when it is cached or admitted now, parsed on
   * admission; `undefined` for a miss the cache does not keep, which the
   * caller renders straight from the text: building a template only to drop
   * it costs more than the render itself.
   */
  cachedTemplateOf(text: string): Template | undefined {
    const entry = this.entries.get(text);
    if (entry !== undefined) {
      if (entry === this.oldest) this.oldest = entry.newer;
      else if (entry !== this.oldest!.older) this.refresh(entry);
      return entry;
    }
    // The least an entry of `text` costs: one literal, no name.
    if (!this.admits(ENTRY_BYTES + 2 * text.length + PIECE_BYTES)) {
      return undefined;
    }
    const template = parseTemplate(text);
    const bytes = ENTRY_BYTES + 2 * text.length +
      PIECE_BYTES * (template.literals.length + template.names.length);
    return bytes > this.maxEntryBytes
      ? template
      : this.add(text, template, bytes);
  }

  /** The cached texts, least recently used first. */
  texts(): string[] {
    const texts: string[] = [];
    const oldest = this.oldest;
    if (oldest === undefined) return texts;
    let entry = oldest;
    do {
      texts.push(entry.text);
      entry = entry.newer;
    } while (entry !== oldest);
    return texts;
  }

  /** How many entries and estimated bytes the cache holds. */
  stats(): TemplateCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
    };
  }

  /** Empties the cache. */
  clear(): void {
    this.entries.clear();
    this.oldest = undefined;
    this.bytes = 0;
    this.missesWhileFull = 0;
  }

  private admits(bytes: number): boolean {
    if (bytes > this.maxEntryBytes) return false;
    if (this.bytes + bytes <= this.maxBytes) return true;
    return ++this.missesWhileFull % this.admitOneIn === 0;
  }

  private add(text: string, template: Template, bytes: number): Entry {
    while (this.bytes + bytes > this.maxBytes && this.oldest !== undefined) {
      this.evictOldest(this.oldest);
    }
    const entry = new Entry(text, template, bytes);
    if (this.oldest === undefined) this.oldest = entry;
    else this.linkNewest(entry, this.oldest);
    this.entries.set(text, entry);
    this.bytes += bytes;
    return entry;
  }

  private evictOldest(oldest: Entry): void {
    if (oldest.newer === oldest) this.oldest = undefined;
    else {
      this.oldest = oldest.newer;
      this.unlink(oldest);
    }
    this.entries.delete(oldest.text);
    this.bytes -= oldest.bytes;
  }

  /** Moves a hit that is neither the oldest nor the newest to the newest. */
  private refresh(entry: Entry): void {
    this.unlink(entry);
    this.linkNewest(entry, this.oldest!);
  }

  /** Links `entry` just before `oldest`: the newest place in the ring. */
  private linkNewest(entry: Entry, oldest: Entry): void {
    const newest = oldest.older;
    newest.newer = entry;
    entry.older = newest;
    entry.newer = oldest;
    oldest.older = entry;
  }

  private unlink(entry: Entry): void {
    entry.older.newer = entry.newer;
    entry.newer.older = entry.older;
  }
}

const templates = new TemplateCache();

/**
 * The template of `text` through the module's cache, or `undefined` for a
 * miss it does not keep (see {@linkcode TemplateCache.cachedTemplateOf}).
 */
export function cachedTemplateOf(text: string): Template | undefined {
  return templates.cachedTemplateOf(text);
}

/** The module cache's size and bound (for tests and diagnostics). */
export function templateCacheStats(): TemplateCacheStats {
  return templates.stats();
}

/** Empties the module's cache (for tests that time the parse itself). */
export function clearTemplateCache(): void {
  templates.clear();
}
