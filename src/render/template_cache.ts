/**
 * The parsed-template cache: a least-recently-used map from section text to
 * its {@linkcode Template}, bounded by an estimate of the bytes it retains.
 * Internal: not exported from `mod.ts`.
 *
 * Prompts repeat from step to step, so the same texts come back and a hit
 * skips the scan. Eviction removes one entry at a time, least recently used
 * first, so a working set larger than the bound costs one parse per miss,
 * never a rebuild of the whole cache.
 *
 * @module
 */

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

/** A cached template, itself the node of the recency list. */
class Entry implements Template {
  readonly literals: readonly string[];
  readonly names: readonly string[];
  readonly failure: Template["failure"];
  older: Entry | undefined;
  newer: Entry | undefined = undefined;

  constructor(
    readonly text: string,
    template: Template,
    readonly bytes: number,
    older: Entry | undefined,
  ) {
    this.literals = template.literals;
    this.names = template.names;
    this.failure = template.failure;
    this.older = older;
  }
}

/**
 * A byte-bounded LRU cache of parsed templates. Entries form a doubly
 * linked list from oldest to newest, so a hit moves its entry to the newest
 * end with a few pointer writes and no re-hashing.
 */
export class TemplateCache {
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  private readonly entries = new Map<string, Entry>();
  private oldest: Entry | undefined = undefined;
  private newest: Entry | undefined = undefined;
  private bytes = 0;

  constructor(options: TemplateCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? TEMPLATE_CACHE_MAX_BYTES;
    this.maxEntryBytes = options.maxEntryBytes ?? this.maxBytes / 4;
  }

  /** The template of `text`, parsed on a miss and cached when it fits. */
  templateOf(text: string): Template {
    const entry = this.entries.get(text);
    if (entry !== undefined) {
      if (entry !== this.newest) this.refresh(entry);
      return entry;
    }
    const template = parseTemplate(text);
    const bytes = ENTRY_BYTES + 2 * text.length +
      PIECE_BYTES * (template.literals.length + template.names.length);
    return bytes <= this.maxEntryBytes
      ? this.add(text, template, bytes)
      : template;
  }

  /** The cached texts, least recently used first. */
  texts(): string[] {
    const texts: string[] = [];
    for (let entry = this.oldest; entry !== undefined; entry = entry.newer) {
      texts.push(entry.text);
    }
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
    this.oldest = this.newest = undefined;
    this.bytes = 0;
  }

  private add(text: string, template: Template, bytes: number): Entry {
    while (this.bytes + bytes > this.maxBytes && this.oldest !== undefined) {
      this.evict(this.oldest);
    }
    const entry = new Entry(text, template, bytes, this.newest);
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
    this.entries.set(text, entry);
    this.bytes += bytes;
    return entry;
  }

  private evict(entry: Entry): void {
    this.unlink(entry);
    this.entries.delete(entry.text);
    this.bytes -= entry.bytes;
  }

  /** Moves a hit to the newest end; `entry` is not the newest already. */
  private refresh(entry: Entry): void {
    const older = entry.older;
    const newer = entry.newer!;
    newer.older = older;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    const newest = this.newest!;
    newest.newer = entry;
    entry.older = newest;
    entry.newer = undefined;
    this.newest = entry;
  }

  private unlink(entry: Entry): void {
    const { older, newer } = entry;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
  }
}

const templates = new TemplateCache();

/** The template of `text`, through the module's cache. */
export function templateOf(text: string): Template {
  return templates.templateOf(text);
}

/** The module cache's size and bound (for tests and diagnostics). */
export function templateCacheStats(): TemplateCacheStats {
  return templates.stats();
}

/** Empties the module's cache (for tests that time the parse itself). */
export function clearTemplateCache(): void {
  templates.clear();
}
