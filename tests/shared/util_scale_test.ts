/** mergeSorted at scale (`deno task test:slow`): thousands of lists. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mergeSorted } from "../../src/shared/util.ts";

function byValue(a: { value: number }, b: { value: number }): number {
  return a.value - b.value;
}

describe("mergeSorted at scale", () => {
  it("merges thousands of lists in time about linear in their number, not quadratic", () => {
    // Merging them one after the other copies the growing result once per
    // list: 8 times the lists would take about 64 times as long.
    const time = (count: number): number => {
      let best = Infinity;
      for (let trial = 0; trial < 3; trial++) {
        const sets = Array.from(
          { length: 4 },
          () =>
            Array.from(
              { length: count },
              (_, index) => [{ value: index % 97 }],
            ),
        );
        const started = performance.now();
        for (const lists of sets) mergeSorted(lists, byValue);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    time(2_000); // warm up
    const small = time(2_000);
    const large = time(16_000);
    assert.ok(
      large / small < 30,
      `16,000 lists took ${(large / small).toFixed(1)} times 2,000 lists`,
    );
  });
});
