/**
 * A `Map` keyed by whole texts that stays fast on long ones. V8 hashes a
 * string of 16,384 code units or more by its length alone, so a `Map`
 * holding many long texts of one length keeps them in one chain and every
 * lookup compares against each: an agent's 16 KiB tool results or sections
 * would make the simulator and the memos quadratic.
 *
 * A short text is its own key. A long text is keyed by its digest: the
 * numbers of its fixed-size chunks (each shorter than V8's limit, so hashed
 * by content) in a private table, written into a short string. The digest
 * is exact, since equal chunk numbers mean equal chunks, and it costs one
 * native hash of each chunk: linear in the text, as hashing it is.
 * Internal: not exported from `mod.ts`.
 *
 * @module
 */

/** The shortest text V8 hashes by its length only. */
export const LONG_TEXT = 16_384;

/** The chunk a long text is numbered by: hashed by content. */
const CHUNK = 16_000;

/** Chunks the table may hold beyond the live ones before it is rebuilt. */
const SLACK = 1_024;

/** What reading a {@linkcode TextMap} offers (a `ReadonlyMap`'s core). */
export interface ReadonlyTextMap<V> extends Iterable<[string, V]> {
  readonly size: number;
  get(text: string): V | undefined;
  has(text: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<V>;
  entries(): IterableIterator<[string, V]>;
}

interface LongEntry<V> {
  readonly text: string;
  value: V;
  /** The chunks its digest numbered (all levels). */
  readonly chunks: number;
}

/**
 * A map from texts to values with `Map`'s cost per operation whatever the
 * texts' lengths. Deleting keeps the chunk table within twice the live
 * chunks (it is rebuilt from the live texts past that).
 */
export class TextMap<V> implements ReadonlyTextMap<V> {
  readonly #short = new Map<string, V>();
  #long = new Map<string, LongEntry<V>>();
  #chunks = new Map<string, number>();
  #liveChunks = 0;

  /** The number of texts held. */
  get size(): number {
    return this.#short.size + this.#long.size;
  }

  /** The value of `text`, if held. */
  get(text: string): V | undefined {
    if (text.length < LONG_TEXT) return this.#short.get(text);
    const digest = this.#digest(text, false);
    return digest === undefined ? undefined : this.#long.get(digest.key)?.value;
  }

  /** Whether `text` is held. */
  has(text: string): boolean {
    if (text.length < LONG_TEXT) return this.#short.has(text);
    const digest = this.#digest(text, false);
    return digest !== undefined && this.#long.has(digest.key);
  }

  /** Sets the value of `text`. */
  set(text: string, value: V): this {
    if (text.length < LONG_TEXT) {
      this.#short.set(text, value);
      return this;
    }
    const { key, chunks } = this.#digest(text, true)!;
    const entry = this.#long.get(key);
    if (entry !== undefined) {
      entry.value = value;
      return this;
    }
    this.#long.set(key, { text, value, chunks });
    this.#liveChunks += chunks;
    return this;
  }

  /** Forgets `text`; whether it was held. */
  delete(text: string): boolean {
    if (text.length < LONG_TEXT) return this.#short.delete(text);
    const digest = this.#digest(text, false);
    if (digest === undefined) return false;
    const entry = this.#long.get(digest.key);
    if (entry === undefined) return false;
    this.#long.delete(digest.key);
    this.#liveChunks -= entry.chunks;
    if (this.#chunks.size > 2 * this.#liveChunks + SLACK) this.#rebuild();
    return true;
  }

  /** Forgets every text. */
  clear(): void {
    this.#short.clear();
    this.#long = new Map();
    this.#chunks = new Map();
    this.#liveChunks = 0;
  }

  /** The texts held: the short ones first, each in insertion order. */
  *keys(): IterableIterator<string> {
    yield* this.#short.keys();
    for (const entry of this.#long.values()) yield entry.text;
  }

  /** The values held, in the order of {@linkcode TextMap.keys}. */
  *values(): IterableIterator<V> {
    yield* this.#short.values();
    for (const entry of this.#long.values()) yield entry.value;
  }

  /** The texts and values held, in the order of {@linkcode TextMap.keys}. */
  *entries(): IterableIterator<[string, V]> {
    yield* this.#short.entries();
    for (const { text, value } of this.#long.values()) yield [text, value];
  }

  /** Same as {@linkcode TextMap.entries}. */
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /**
   * The digest of a long text: a level (so a digest that is itself long
   * and digested again cannot meet a text's own digest), then two code
   * units per chunk number. `undefined` when a chunk was never numbered
   * and `number` is false: no held text has it.
   */
  #digest(
    text: string,
    number: boolean,
  ): { key: string; chunks: number } | undefined {
    let key = text;
    let level = 0;
    let chunks = 0;
    do {
      let next = String.fromCharCode(++level);
      for (let at = 0; at < key.length; at += CHUNK) {
        const chunk = key.slice(at, at + CHUNK);
        let id = this.#chunks.get(chunk);
        if (id === undefined) {
          if (!number) return undefined;
          id = this.#chunks.size;
          this.#chunks.set(chunk, id);
        }
        next += String.fromCharCode(id & 0xffff, id >>> 16);
        chunks++;
      }
      key = next;
    } while (key.length >= LONG_TEXT);
    return { key, chunks };
  }

  /** Numbers the live texts' chunks afresh: the dead ones are dropped. */
  #rebuild(): void {
    const entries = [...this.#long.values()];
    this.#long = new Map();
    this.#chunks = new Map();
    this.#liveChunks = 0;
    for (const { text, value } of entries) this.set(text, value);
  }
}
