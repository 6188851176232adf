/**
 * A persistent sorted list kept in chunks: adding or removing an item copies
 * one chunk and the list of chunks, never the whole list, so a layer with
 * 100,000 registrations takes one as fast as a layer with 1,000. The flat
 * array that an assembly reads is built once per list, on first read.
 *
 * @module
 */

/**
 * The largest chunk. An add or removal copies at most this many items plus
 * one pointer per chunk: about 700 words at 100,000 items.
 */
const MAX_CHUNK = 512;

/** Below this, a shrunk chunk joins a neighbour when both fit in one. */
const MIN_CHUNK = MAX_CHUNK >>> 2;

/** An immutable list of items sorted by a comparison given to each change. */
export class SortedChunks<T> {
  /** The list with no items. */
  static empty<T>(): SortedChunks<T> {
    return EMPTY as SortedChunks<T>;
  }

  /** The list of `items`, which must already be sorted. */
  static from<T>(items: readonly T[]): SortedChunks<T> {
    const chunks: (readonly T[])[] = [];
    for (let start = 0; start < items.length; start += MAX_CHUNK >>> 1) {
      chunks.push(items.slice(start, start + (MAX_CHUNK >>> 1)));
    }
    return new SortedChunks(chunks, items.length);
  }

  readonly #chunks: readonly (readonly T[])[];
  /** The number of items. */
  readonly size: number;
  #array: readonly T[] | undefined;

  private constructor(chunks: readonly (readonly T[])[], size: number) {
    this.#chunks = chunks;
    this.size = size;
  }

  /** The items in order, as one array (built on first read, then shared). */
  get array(): readonly T[] {
    return this.#array ??= flatten(this.#chunks, this.size);
  }

  /** This list with `item` added after every item that sorts before or equal to it. */
  insert(item: T, compare: (a: T, b: T) => number): SortedChunks<T> {
    const chunks = this.#chunks;
    if (chunks.length === 0) return new SortedChunks([[item]], 1);
    // The first chunk whose last item sorts after `item`, or the last one.
    let low = 0;
    let high = chunks.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = chunks[middle];
      if (compare(chunk[chunk.length - 1], item) > 0) high = middle;
      else low = middle + 1;
    }
    const chunk = chunks[low];
    const grown = chunk.toSpliced(upperBound(chunk, item, compare), 0, item);
    const replacement = grown.length > MAX_CHUNK
      ? [grown.slice(0, grown.length >>> 1), grown.slice(grown.length >>> 1)]
      : [grown];
    return new SortedChunks(
      chunks.toSpliced(low, 1, ...replacement),
      this.size + 1,
    );
  }

  /** This list without `item` (compared by identity); itself if absent. */
  remove(item: T, compare: (a: T, b: T) => number): SortedChunks<T> {
    const chunks = this.#chunks;
    // The first chunk whose last item sorts at or after `item`.
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = chunks[middle];
      if (compare(chunk[chunk.length - 1], item) < 0) low = middle + 1;
      else high = middle;
    }
    // Items that compare equal may span chunks: scan them for identity.
    for (let at = low; at < chunks.length; at++) {
      const chunk = chunks[at];
      let index = at === low ? lowerBound(chunk, item, compare) : 0;
      for (; index < chunk.length; index++) {
        if (chunk[index] === item) return this.#without(at, index);
        if (compare(chunk[index], item) > 0) return this;
      }
    }
    return this;
  }

  #without(at: number, index: number): SortedChunks<T> {
    const chunks = this.#chunks;
    const shrunk = chunks[at].toSpliced(index, 1);
    if (shrunk.length === 0) {
      return new SortedChunks(chunks.toSpliced(at, 1), this.size - 1);
    }
    if (shrunk.length < MIN_CHUNK) {
      // Churn must not leave many tiny chunks: join a neighbour that fits.
      const before = chunks[at - 1];
      if (before !== undefined && before.length + shrunk.length <= MAX_CHUNK) {
        return new SortedChunks(
          chunks.toSpliced(at - 1, 2, before.concat(shrunk)),
          this.size - 1,
        );
      }
      const after = chunks[at + 1];
      if (after !== undefined && after.length + shrunk.length <= MAX_CHUNK) {
        return new SortedChunks(
          chunks.toSpliced(at, 2, shrunk.concat(after)),
          this.size - 1,
        );
      }
    }
    return new SortedChunks(chunks.toSpliced(at, 1, shrunk), this.size - 1);
  }
}

const EMPTY: SortedChunks<unknown> = SortedChunks.from([]);

/** The first index whose item sorts after `item`. */
function upperBound<T>(
  items: readonly T[],
  item: T,
  compare: (a: T, b: T) => number,
): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(items[middle], item) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The first index whose item sorts at or after `item`. */
function lowerBound<T>(
  items: readonly T[],
  item: T,
  compare: (a: T, b: T) => number,
): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(items[middle], item) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function flatten<T>(
  chunks: readonly (readonly T[])[],
  size: number,
): readonly T[] {
  if (chunks.length === 1) return chunks[0];
  const array: T[] = new Array(size);
  let at = 0;
  for (const chunk of chunks) {
    for (let index = 0; index < chunk.length; index++) {
      array[at++] = chunk[index];
    }
  }
  return array;
}
