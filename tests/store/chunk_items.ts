/** What the SortedChunks tests store and how they draw it. */

/** The seed of every SortedChunks test, so that a failure replays. */
export const SEED = 20261202;

/** An item: sorted by `key`, told apart by `id`. */
export interface Item {
  readonly key: number;
  readonly id: number;
}

/** The items' order: by key only (equal keys keep insertion order). */
export function compare(a: Item, b: Item): number {
  return a.key - b.key;
}

/** Deterministic pseudo-random integers below `bound` (a xorshift). */
export function numbers(seed: number): (bound: number) => number {
  let state = seed;
  return (bound) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % bound;
  };
}
