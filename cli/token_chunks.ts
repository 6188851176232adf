/**
 * The `o200k_base` pre-tokenizer's chunks of an ASCII text, found by
 * reading character codes: what its pattern
 * ({@linkcode O200K_CHUNKS}) matches, without a string per chunk. A
 * recording's report counts millions of chunks (a 10,000-step recording
 * holds about 4 million), and the pattern's matches cost a string each and
 * then a lookup that hashes it: two thirds of the counting. Here a chunk
 * is found and looked up where it lies in its text (`ChunkTable`), and
 * becomes a string only the first time it is seen.
 *
 * On ASCII the pattern's classes are plain: `\p{L}` is `A-Za-z` (`\p{Lu}`
 * upper, `\p{Ll}` lower case; `\p{Lt}`, `\p{Lm}`, `\p{Lo}` and `\p{M}`
 * hold no ASCII), `\p{N}` is `0-9`, `\s` is tab, line feed, vertical tab,
 * form feed, carriage return and space. A text holding any other code
 * unit is left to the pattern.
 *
 * @module
 */

/**
 * The `o200k_base` pre-tokenizer's pattern (gpt-tokenizer 4's
 * `O200K_TOKEN_SPLIT_REGEX`): every match is a chunk the encoder counts on
 * its own.
 */
export const O200K_CHUNKS =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** Matches a code unit outside ASCII. */
const NOT_ASCII = /[\u0080-\uffff]/;

/** Whether `text` is all ASCII (the chunks {@linkcode chunkEnd} finds). */
export function isAscii(text: string): boolean {
  return !NOT_ASCII.test(text);
}

// An ASCII code unit's class, as the pattern sees it.
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** Carriage return, line feed: white space the optional first unit excludes. */
const NEWLINE = 4;
/** The space: white space, and the optional first unit of punctuation. */
const SPACE = 5;
/** Tab, vertical tab, form feed. */
const BLANK = 6;
/** Anything else: `[^\s\p{L}\p{N}]`. */
const OTHER = 7;

const CLASS = new Uint8Array(128).fill(OTHER);
for (let code = 0x41; code <= 0x5a; code++) CLASS[code] = UPPER;
for (let code = 0x61; code <= 0x7a; code++) CLASS[code] = LOWER;
for (let code = 0x30; code <= 0x39; code++) CLASS[code] = DIGIT;
CLASS[0x0a] = NEWLINE;
CLASS[0x0d] = NEWLINE;
CLASS[0x20] = SPACE;
CLASS[0x09] = BLANK;
CLASS[0x0b] = BLANK;
CLASS[0x0c] = BLANK;

/**
 * The end of the chunk of ASCII `text` that starts at `start` (below its
 * length): the pattern's first alternative that matches there, as it
 * matches.
 */
export function chunkEnd(text: string, start: number): number {
  const length = text.length;
  const kind = CLASS[text.charCodeAt(start)];
  if (kind === UPPER || kind === LOWER) return wordEnd(text, start);
  if (kind === DIGIT) {
    // `\p{N}{1,3}`
    let end = start + 1;
    const last = Math.min(start + 3, length);
    while (end < last && CLASS[text.charCodeAt(end)] === DIGIT) end++;
    return end;
  }
  const next = start + 1 < length ? CLASS[text.charCodeAt(start + 1)] : 0;
  // `[^\r\n\p{L}\p{N}]?` before a word.
  if (kind !== NEWLINE && (next === UPPER || next === LOWER)) {
    return wordEnd(text, start + 1);
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  if (kind === OTHER) return punctuationEnd(text, start);
  if (kind === SPACE && next === OTHER) return punctuationEnd(text, start + 1);
  // White space: `\s*[\r\n]+`, then `\s+(?!\S)`, then `\s+`.
  let end = start;
  let lastNewline = -1;
  for (; end < length; end++) {
    const unit = CLASS[text.charCodeAt(end)];
    if (unit === NEWLINE) lastNewline = end;
    else if (unit !== SPACE && unit !== BLANK) break;
  }
  if (lastNewline !== -1) return lastNewline + 1;
  if (end === length || end - start === 1) return end;
  return end - 1;
}

/**
 * `[\p{Lu}…]*[\p{Ll}…]+` or else `[\p{Lu}…]+[\p{Ll}…]*`, then a
 * contraction, from the letter at `start`.
 */
function wordEnd(text: string, start: number): number {
  const length = text.length;
  let end = start;
  while (end < length && CLASS[text.charCodeAt(end)] === UPPER) end++;
  while (end < length && CLASS[text.charCodeAt(end)] === LOWER) end++;
  // `(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`
  if (end + 1 >= length || text.charCodeAt(end) !== 0x27) return end;
  const first = text.charCodeAt(end + 1) | 0x20;
  if (first === 0x73 || first === 0x64 || first === 0x6d || first === 0x74) {
    return end + 2;
  }
  if (end + 2 >= length) return end;
  const second = text.charCodeAt(end + 2) | 0x20;
  if (
    (first === 0x6c && second === 0x6c) ||
    (first === 0x76 && second === 0x65) ||
    (first === 0x72 && second === 0x65)
  ) {
    return end + 3;
  }
  return end;
}

/** `[^\s\p{L}\p{N}]+[\r\n/]*` from the punctuation at `start`. */
function punctuationEnd(text: string, start: number): number {
  const length = text.length;
  let end = start + 1;
  while (end < length && CLASS[text.charCodeAt(end)] === OTHER) end++;
  for (; end < length; end++) {
    const code = text.charCodeAt(end);
    if (code !== 0x0a && code !== 0x0d && code !== 0x2f) break;
  }
  return end;
}

/** The fewest slots a {@linkcode ChunkTable} starts with. */
const FIRST_SLOTS = 1024;

/** The longest chunk held as its code units (7 bits each, 4 a word). */
const SHORT = 12;

/** The third word of a long chunk's key (a short one's holds 1 to 12). */
const LONG = 15 << 28;

/**
 * The counts of chunks, each looked up where it lies in its text, in an
 * open-addressing table keyed by three words: a chunk of up to
 * {@linkcode SHORT} code units is its code units and its length, exactly
 * (most chunks: a word with its space, a number, a run of punctuation);
 * a longer one is its hash and its length, and its slot keeps it to tell
 * a shared hash from the same chunk. No string is made for a chunk seen
 * before.
 */
export class ChunkTable {
  readonly #count: (chunk: string) => number;
  /** Three words a slot. */
  #keys = new Int32Array(3 * FIRST_SLOTS);
  /** A slot's count, -1 when the slot is free. */
  #counts = new Int32Array(FIRST_SLOTS).fill(-1);
  /** A long chunk, by its slot. */
  #long: (string | undefined)[] = [];
  #size = 0;

  /** A table whose chunks `count` counts, each once. */
  constructor(count: (chunk: string) => number) {
    this.#count = count;
  }

  /** The count of ASCII `text`'s chunk `start..end`. */
  count(text: string, start: number, end: number): number {
    const length = end - start;
    let a = 0;
    let b = 0;
    let c = 0;
    if (length <= SHORT) {
      let at = start;
      for (const stop = Math.min(end, start + 4); at < stop; at++) {
        a = (a << 7) | text.charCodeAt(at);
      }
      for (const stop = Math.min(end, start + 8); at < stop; at++) {
        b = (b << 7) | text.charCodeAt(at);
      }
      for (; at < end; at++) c = (c << 7) | text.charCodeAt(at);
      c |= length << 28;
    } else {
      a = 0x811c9dc5 | 0;
      for (let at = start; at < end; at++) {
        a = Math.imul(a ^ text.charCodeAt(at), 0x01000193);
      }
      b = length;
      c = LONG;
    }
    const keys = this.#keys;
    const counts = this.#counts;
    const mask = counts.length - 1;
    let slot = slotOf(a, b, c) & mask;
    for (;;) {
      const counted = counts[slot];
      if (counted === -1) break;
      const key = slot * 3;
      if (
        keys[key] === a && keys[key + 1] === b && keys[key + 2] === c &&
        (length <= SHORT || text.startsWith(this.#long[slot]!, start))
      ) {
        return counted;
      }
      slot = (slot + 1) & mask;
    }
    const chunk = text.slice(start, end);
    const counted = this.#count(chunk);
    const key = slot * 3;
    keys[key] = a;
    keys[key + 1] = b;
    keys[key + 2] = c;
    counts[slot] = counted;
    if (length > SHORT) this.#long[slot] = chunk;
    if (++this.#size * 2 > counts.length) this.#grow();
    return counted;
  }

  /** Twice the slots, every chunk placed again. */
  #grow(): void {
    const keys = this.#keys;
    const counts = this.#counts;
    const long = this.#long;
    const slots = counts.length * 2;
    this.#keys = new Int32Array(3 * slots);
    this.#counts = new Int32Array(slots).fill(-1);
    this.#long = [];
    const mask = slots - 1;
    for (let old = 0; old < counts.length; old++) {
      if (counts[old] === -1) continue;
      const [a, b, c] = keys.subarray(old * 3, old * 3 + 3);
      let slot = slotOf(a, b, c) & mask;
      while (this.#counts[slot] !== -1) slot = (slot + 1) & mask;
      this.#keys.set([a, b, c], slot * 3);
      this.#counts[slot] = counts[old];
      if (long[old] !== undefined) this.#long[slot] = long[old];
    }
  }
}

/** A key's three words mixed into one, for its first slot. */
function slotOf(a: number, b: number, c: number): number {
  let h = a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return h ^ (h >>> 12);
}
