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
