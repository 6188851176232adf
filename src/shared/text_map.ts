/**
 * A `Map` keyed by whole texts that stays fast on long ones. V8 hashes a
 * string of 16,384 code units or more by its length alone, so a `Map`
 * holding many long texts of one length keeps them in one chain and every
 * lookup compares against each: an agent's 16 KiB tool results or sections
 * would make the simulator and the memos quadratic.
 *
 * A short text is its own key. A long text is keyed by a fingerprint, a
 * number; texts that share one are chained and told apart by comparing
 * them, so the map is exact and a shared fingerprint costs comparisons,
 * never a wrong answer. The fingerprint first reads a sample of the text
 * (its length, its ends and code units spread evenly through it): a few
 * hundred code units, so a lookup costs less than the engine's own hash of
 * a shorter text. Texts that differ only between the sampled units share
 * it; once a chain holds {@linkcode MAX_CHAIN} texts, the map keys its long
 * texts by a hash of their whole content instead (seeded at random per
 * process, so that no text can be made to collide on purpose), which costs
 * about what the engine's hash of a text does.
 *
 * No key is the whole text: the cost of every operation is bounded by a
 * fixed number of passes over the text, whatever else the map holds.
 * Internal: not exported from `mod.ts`.
 *
 * @module
 */

/** The shortest text V8 hashes by its length only. */
export const LONG_TEXT = 16_384;

/** The longest chain of sampled fingerprints before whole texts are hashed. */
export const MAX_CHAIN = 8;

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
  /** The next entry with the same fingerprint. */
  next: LongEntry<V> | undefined;
}

/**
 * A map from texts to values with `Map`'s cost per operation whatever the
 * texts' lengths.
 */
export class TextMap<V> implements ReadonlyTextMap<V> {
  readonly #short = new Map<string, V>();
  /** The first entry of each fingerprint's chain. */
  #long = new Map<number, LongEntry<V>>();
  /** The long entries in insertion order. */
  #order = new Set<LongEntry<V>>();
  /** `sampled` until a chain grows to `MAX_CHAIN`, then `recentWhole`. */
  #fingerprint: (text: string) => number = sampled;

  /** The number of texts held. */
  get size(): number {
    return this.#short.size + this.#order.size;
  }

  /** The value of `text`, if held. */
  get(text: string): V | undefined {
    if (text.length < LONG_TEXT) return this.#short.get(text);
    return this.#find(text, this.#fingerprint(text))?.value;
  }

  /** Whether `text` is held. */
  has(text: string): boolean {
    if (text.length < LONG_TEXT) return this.#short.has(text);
    return this.#find(text, this.#fingerprint(text)) !== undefined;
  }

  /** Sets the value of `text`. */
  set(text: string, value: V): this {
    if (text.length < LONG_TEXT) {
      this.#short.set(text, value);
      return this;
    }
    const print = this.#fingerprint(text);
    let chain = 0;
    const first = this.#long.get(print);
    for (let entry = first; entry !== undefined; entry = entry.next) {
      if (entry.text === text) {
        entry.value = value;
        return this;
      }
      chain++;
    }
    const entry = { text, value, next: first };
    this.#long.set(print, entry);
    this.#order.add(entry);
    if (chain + 1 >= MAX_CHAIN && this.#fingerprint === sampled) {
      this.#hashWhole();
    }
    return this;
  }

  /** Forgets `text`; whether it was held. */
  delete(text: string): boolean {
    if (text.length < LONG_TEXT) return this.#short.delete(text);
    const print = this.#fingerprint(text);
    let previous: LongEntry<V> | undefined;
    let entry = this.#long.get(print);
    while (entry !== undefined && entry.text !== text) {
      previous = entry;
      entry = entry.next;
    }
    if (entry === undefined) return false;
    if (previous !== undefined) previous.next = entry.next;
    else if (entry.next !== undefined) this.#long.set(print, entry.next);
    else this.#long.delete(print);
    this.#order.delete(entry);
    return true;
  }

  /** Forgets every text. */
  clear(): void {
    this.#short.clear();
    this.#long = new Map();
    this.#order = new Set();
  }

  /** The texts held: the short ones first, each in insertion order. */
  *keys(): IterableIterator<string> {
    yield* this.#short.keys();
    for (const entry of this.#order) yield entry.text;
  }

  /** The values held, in the order of {@linkcode TextMap.keys}. */
  *values(): IterableIterator<V> {
    yield* this.#short.values();
    for (const entry of this.#order) yield entry.value;
  }

  /** The texts and values held, in the order of {@linkcode TextMap.keys}. */
  *entries(): IterableIterator<[string, V]> {
    yield* this.#short.entries();
    for (const { text, value } of this.#order) yield [text, value];
  }

  /** Same as {@linkcode TextMap.entries}. */
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /**
   * Keys the long texts by the hash of their whole content from now on:
   * their samples were alike. Costs one pass over each, once.
   */
  #hashWhole(): void {
    this.#fingerprint = recentWhole;
    const entries = [...this.#order];
    this.#long = new Map();
    this.#order = new Set();
    for (const { text, value } of entries) {
      const print = recentWhole(text);
      const entry = { text, value, next: this.#long.get(print) };
      this.#long.set(print, entry);
      this.#order.add(entry);
    }
  }

  /** The entry of `text` in the chain of its fingerprint `print`. */
  #find(text: string, print: number): LongEntry<V> | undefined {
    let entry = this.#long.get(print);
    // Equal texts that are one string compare at once.
    while (entry !== undefined && entry.text !== text) entry = entry.next;
    return entry;
  }
}

/** The number of code units a sample reads spread through a text. */
const SPREAD = 128;
/** The number of code units a sample reads at each end. */
const END = 48;

/**
 * The fingerprint of a sample of `text`: its length, its first and last
 * `END` code units and `SPREAD` more spread evenly through it.
 */
function sampled(text: string): number {
  const length = text.length;
  let a = SEED_A ^ length;
  let b = SEED_B;
  for (let index = 0; index < END; index++) {
    a = Math.imul(a ^ text.charCodeAt(index), MULTIPLIER_A) ^ (a >>> 16);
    b = Math.imul(b ^ text.charCodeAt(length - 1 - index), MULTIPLIER_B) ^
      (b >>> 13);
  }
  const step = length / SPREAD;
  for (let index = 0; index < SPREAD; index += 2) {
    a = Math.imul(a ^ text.charCodeAt((index * step) | 0), MULTIPLIER_A) ^
      (a >>> 16);
    b = Math.imul(b ^ text.charCodeAt(((index + 1) * step) | 0), MULTIPLIER_B) ^
      (b >>> 13);
  }
  return finish(a, b, ~a, ~b);
}

// The two texts hashed whole last, most recent first.
let recentText = "";
let recentPrint = 0;
let olderText = "";
let olderPrint = 0;

/**
 * The hash of `text`'s whole content, remembered for the two texts hashed
 * last: a text usually goes through several maps in a row (a memo's
 * generations, the template cache), and is read once, not once per map.
 * The two texts stay referenced until two others are hashed.
 */
function recentWhole(text: string): number {
  if (same(text, recentText)) return recentPrint;
  const print = same(text, olderText) ? olderPrint : whole(text);
  olderText = recentText;
  olderPrint = recentPrint;
  recentText = text;
  recentPrint = print;
  return print;
}

/**
 * Whether two long texts are equal: at once when their lengths or their
 * last or middle code units differ (texts of one length mostly differ at
 * their end: a counter, a log's last line) or when they are one string;
 * otherwise by comparing them, up to their first difference.
 */
function same(text: string, other: string): boolean {
  // `===` would compare texts of one length first: it cannot tell one
  // string from two equal ones without reading them.
  const length = text.length;
  return length === other.length &&
    text.charCodeAt(length - 1) === other.charCodeAt(length - 1) &&
    text.charCodeAt(length >>> 1) === other.charCodeAt(length >>> 1) &&
    text === other;
}

// Random per process: which texts share a fingerprint cannot be foreseen.
const SEED_A = (Math.random() * 0x1_0000_0000) | 0;
const SEED_B = (Math.random() * 0x1_0000_0000) | 0;
const MULTIPLIER_A = 0x9e3779b1 | 0;
const MULTIPLIER_B = 0x85ebca77 | 0;

/** The bytes a text is encoded into, a piece at a time, read as words. */
const BYTES = new Uint8Array(3 * LONG_TEXT);
const WORDS = new Int32Array(BYTES.buffer);
const encoder = new TextEncoder();

const isWellFormed = (String.prototype as {
  isWellFormed?: (this: string) => boolean;
}).isWellFormed;

/**
 * The seeded 53-bit hash of `text`: of its UTF-8 bytes, which the engine
 * writes natively and the hash reads as words in four independent lanes
 * (so the processor runs them side by side), when it is well formed (UTF-8
 * is then exact); of its code units otherwise.
 */
function whole(text: string): number {
  let a = SEED_A ^ text.length;
  let b = SEED_B;
  let c = ~SEED_A;
  let d = ~SEED_B;
  if (isWellFormed !== undefined && isWellFormed.call(text)) {
    let rest = text;
    for (;;) {
      // Stops between code points, so every piece is encoded exactly.
      const { read, written } = encoder.encodeInto(rest, BYTES);
      const words = written >>> 2;
      let index = 0;
      for (; index + 3 < words; index += 4) {
        a = Math.imul(a ^ WORDS[index], MULTIPLIER_A) ^ (a >>> 16);
        b = Math.imul(b ^ WORDS[index + 1], MULTIPLIER_B) ^ (b >>> 13);
        c = Math.imul(c ^ WORDS[index + 2], MULTIPLIER_A) ^ (c >>> 15);
        d = Math.imul(d ^ WORDS[index + 3], MULTIPLIER_B) ^ (d >>> 14);
      }
      for (; index < words; index++) {
        a = Math.imul(a ^ WORDS[index], MULTIPLIER_A) ^ (a >>> 16);
      }
      for (let at = words << 2; at < written; at++) {
        b = Math.imul(b ^ BYTES[at], MULTIPLIER_B) ^ (b >>> 13);
      }
      c = Math.imul(c ^ written, MULTIPLIER_A) ^ (c >>> 15);
      if (read >= rest.length) break;
      rest = rest.slice(read);
    }
  } else {
    let index = 0;
    for (; index + 3 < text.length; index += 4) {
      a = Math.imul(a ^ text.charCodeAt(index), MULTIPLIER_A) ^ (a >>> 16);
      b = Math.imul(b ^ text.charCodeAt(index + 1), MULTIPLIER_B) ^ (b >>> 13);
      c = Math.imul(c ^ text.charCodeAt(index + 2), MULTIPLIER_A) ^ (c >>> 15);
      d = Math.imul(d ^ text.charCodeAt(index + 3), MULTIPLIER_B) ^ (d >>> 14);
    }
    for (; index < text.length; index++) {
      a = Math.imul(a ^ text.charCodeAt(index), MULTIPLIER_A) ^ (a >>> 16);
    }
  }
  return finish(a, b, c, d);
}

/** Four lanes of a hash as one 53-bit integer. */
function finish(a: number, b: number, c: number, d: number): number {
  const high = mix(a ^ mix(c));
  const low = mix(b ^ mix(d ^ high));
  return (high >>> 0) * 0x20_0000 + (low >>> 11);
}

/** Murmur3's finaliser: every bit of `h` reaches every bit of the result. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
