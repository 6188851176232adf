/**
 * A persistent sorted list kept in chunks, and the chunks in pages: adding
 * or removing an item copies one chunk, one page and the list of pages,
 * never the whole list, so a layer with 100,000 registrations takes one
 * about as fast as a layer with 1,000. The flat array that an assembly reads
 * is built once per list, on first read.
 *
 * @module
 */

/** The largest chunk: an add or removal copies at most this many items. */
const MAX_CHUNK = 512;

/** Below this, a shrunk chunk joins a neighbour when both fit in one. */
const MIN_CHUNK = MAX_CHUNK >>> 2;

/**
 * The most chunks in a page. Without pages, the list of chunks is copied on
 * every change: 260 pointers at 100,000 items, which cost more than the
 * chunk itself once the memory it churns leaves the caches.
 */
const MAX_PAGE = 64;

/** Below this, a shrunk page joins a neighbour when both fit in one. */
const MIN_PAGE = MAX_PAGE >>> 2;

type Chunk<T> = readonly T[];
type Page<T> = readonly Chunk<T>[];

/** An immutable list of items sorted by a comparison given to each change. */
export class SortedChunks<T> {
  /** The list with no items. */
  static empty<T>(): SortedChunks<T> {
    return EMPTY as SortedChunks<T>;
  }

  /** The list of `items`, which must already be sorted. */
  static from<T>(items: readonly T[]): SortedChunks<T> {
    const chunks = slices(items, MAX_CHUNK >>> 1);
    return new SortedChunks(slices(chunks, MAX_PAGE >>> 1), items.length);
  }

  readonly #pages: readonly Page<T>[];
  /** The number of items. */
  readonly size: number;
  #array: readonly T[] | undefined;

  private constructor(pages: readonly Page<T>[], size: number) {
    this.#pages = pages;
    this.size = size;
  }

  /**
   * The number of items in each chunk, page by page: what bounds the cost of
   * a change (read by tests).
   */
  get layout(): number[][] {
    return this.#pages.map((page) => page.map((chunk) => chunk.length));
  }

  /** The items in order, as one array (built on first read, then shared). */
  get array(): readonly T[] {
    return this.#array ??= flatten(this.#pages, this.size);
  }

  /** This list with `item` added after every item that sorts before or equal to it. */
  insert(item: T, compare: (a: T, b: T) => number): SortedChunks<T> {
    const pages = this.#pages;
    if (pages.length === 0) return new SortedChunks([[[item]]], 1);
    // The first page, then chunk, whose last item sorts after `item`, or
    // the last one.
    const last = pages.length - 1;
    const at = Math.min(upperBound(pages, item, compare, lastOfPage), last);
    const page = pages[at];
    const index = Math.min(
      upperBound(page, item, compare, lastOfChunk),
      page.length - 1,
    );
    const chunk = page[index];
    const position = upperBound(chunk, item, compare, itself);
    const grown = chunk.toSpliced(position, 0, item);
    const grownPage = grown.length <= MAX_CHUNK
      ? page.with(index, grown)
      : page.toSpliced(index, 1, ...halves(grown));
    return new SortedChunks(
      grownPage.length <= MAX_PAGE
        ? pages.with(at, grownPage)
        : pages.toSpliced(at, 1, ...halves(grownPage)),
      this.size + 1,
    );
  }

  /** This list without `item` (compared by identity); itself if absent. */
  remove(item: T, compare: (a: T, b: T) => number): SortedChunks<T> {
    const pages = this.#pages;
    // The first page, then chunk, whose last item sorts at or after `item`.
    let at = lowerBound(pages, item, compare, lastOfPage);
    if (at === pages.length) return this;
    let index = lowerBound(pages[at], item, compare, lastOfChunk);
    let start = lowerBound(pages[at][index], item, compare, itself);
    // Items that compare equal may span chunks and pages: scan them for
    // identity.
    for (; at < pages.length; at++, index = 0) {
      const page = pages[at];
      for (; index < page.length; index++, start = 0) {
        const chunk = page[index];
        for (let position = start; position < chunk.length; position++) {
          if (chunk[position] === item) {
            return this.#without(at, index, position);
          }
          if (compare(chunk[position], item) > 0) return this;
        }
      }
    }
    return this;
  }

  #without(at: number, index: number, position: number): SortedChunks<T> {
    const page = this.#pages[at];
    const chunk = page[index].toSpliced(position, 1);
    const shrunk = withShrunk(page, index, chunk, MIN_CHUNK, MAX_CHUNK);
    return new SortedChunks(
      withShrunk(this.#pages, at, shrunk, MIN_PAGE, MAX_PAGE),
      this.size - 1,
    );
  }
}

const EMPTY: SortedChunks<unknown> = SortedChunks.from([]);

/**
 * `groups` with the one at `at` replaced by `shrunk`: left out if empty, and
 * joined with a neighbour if it holds fewer than `min` and both fit in
 * `max`, so churn leaves no run of tiny chunks or pages.
 */
function withShrunk<E>(
  groups: readonly (readonly E[])[],
  at: number,
  shrunk: readonly E[],
  min: number,
  max: number,
): readonly (readonly E[])[] {
  if (shrunk.length === 0) return groups.toSpliced(at, 1);
  if (shrunk.length < min) {
    const before = groups[at - 1];
    if (before !== undefined && before.length + shrunk.length <= max) {
      return groups.toSpliced(at - 1, 2, before.concat(shrunk));
    }
    const after = groups[at + 1];
    if (after !== undefined && after.length + shrunk.length <= max) {
      return groups.toSpliced(at, 2, shrunk.concat(after));
    }
  }
  return groups.with(at, shrunk);
}

function lastOfChunk<T>(chunk: Chunk<T>): T {
  return chunk[chunk.length - 1];
}

function lastOfPage<T>(page: Page<T>): T {
  const chunk = page[page.length - 1];
  return chunk[chunk.length - 1];
}

function itself<T>(item: T): T {
  return item;
}

/** The first of `entries` whose key sorts after `item`; their length if none. */
function upperBound<E, T>(
  entries: readonly E[],
  item: T,
  compare: (a: T, b: T) => number,
  keyOf: (entry: E) => T,
): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(keyOf(entries[middle]), item) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The first of `entries` whose key sorts at or after `item`. */
function lowerBound<E, T>(
  entries: readonly E[],
  item: T,
  compare: (a: T, b: T) => number,
  keyOf: (entry: E) => T,
): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(keyOf(entries[middle]), item) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function halves<E>(items: readonly E[]): [readonly E[], readonly E[]] {
  const half = items.length >>> 1;
  return [items.slice(0, half), items.slice(half)];
}

function slices<E>(items: readonly E[], length: number): (readonly E[])[] {
  const slices: (readonly E[])[] = [];
  for (let start = 0; start < items.length; start += length) {
    slices.push(items.slice(start, start + length));
  }
  return slices;
}

function flatten<T>(pages: readonly Page<T>[], size: number): readonly T[] {
  if (pages.length === 1 && pages[0].length === 1) return pages[0][0];
  const array: T[] = new Array(size);
  let at = 0;
  for (const page of pages) {
    for (const chunk of page) {
      for (let index = 0; index < chunk.length; index++) {
        array[at++] = chunk[index];
      }
    }
  }
  return array;
}
