import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SortedChunks } from "../src/sorted_chunks.ts";
import { fuzzRuns } from "./fuzz_runs.ts";

const SEED = 20261202;

interface Item {
  readonly key: number;
  readonly id: number;
}

function compare(a: Item, b: Item): number {
  return a.key - b.key;
}

/** The reference: insert after every item that sorts before or equal. */
function insertReference(items: Item[], item: Item): void {
  let index = items.length;
  while (index > 0 && compare(items[index - 1], item) > 0) index--;
  items.splice(index, 0, item);
}

describe(`SortedChunks (seed ${SEED})`, () => {
  it("agrees with a sorted array under any sequence of inserts and removals by identity, never changing an earlier list", () => {
    // Few distinct keys: long runs of equal items spanning chunks.
    const insert = fc.record({ insert: fc.integer({ min: 0, max: 20 }) });
    const remove = fc.record({ remove: fc.nat() });
    // Enough inserts to split chunks, then mostly removals, to join them.
    const operations = fc.tuple(
      fc.array(insert, { minLength: 500, maxLength: 2500 }),
      fc.array(
        fc.oneof({ arbitrary: insert, weight: 1 }, {
          arbitrary: remove,
          weight: 3,
        }),
        { minLength: 500, maxLength: 4000 },
      ),
    ).map(([grow, churn]) => [...grow, ...churn]);
    fc.assert(
      fc.property(
        operations,
        (operations) => {
          let list = SortedChunks.empty<Item>();
          const reference: Item[] = [];
          const history: [SortedChunks<Item>, Item[]][] = [];
          let id = 0;
          for (const step of operations) {
            if ("insert" in step) {
              const item = { key: step.insert, id: id++ };
              list = list.insert(item, compare);
              insertReference(reference, item);
            } else if (reference.length > 0) {
              const item = reference[step.remove % reference.length];
              list = list.remove(item, compare);
              reference.splice(reference.indexOf(item), 1);
            }
            if (id % 97 === 0) history.push([list, [...reference]]);
          }
          assert.equal(list.size, reference.length);
          assert.deepEqual(list.array, reference);
          for (const [earlier, expected] of history) {
            assert.deepEqual(earlier.array, expected);
          }
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(40) },
    );
  });

  it("removing an absent item returns the same list", () => {
    const a = { key: 1, id: 1 };
    const list = SortedChunks.empty<Item>().insert(a, compare);
    assert.equal(list.remove({ key: 1, id: 2 }, compare), list);
    assert.equal(list.remove({ key: 0, id: 3 }, compare), list);
    const empty = SortedChunks.empty<Item>();
    assert.equal(empty.remove(a, compare), empty);
  });

  it("a list emptied by removals behaves as the empty list", () => {
    const a = { key: 1, id: 1 };
    const b = { key: 2, id: 2 };
    const emptied = SortedChunks.empty<Item>().insert(a, compare).remove(
      a,
      compare,
    );
    assert.equal(emptied.size, 0);
    assert.deepEqual(emptied.array, []);
    assert.equal(emptied.remove(b, compare), emptied);
    const refilled = emptied.insert(b, compare);
    assert.deepEqual(refilled.array, [b]);
    assert.deepEqual(refilled.remove(b, compare).array, []);
  });

  it("reads as one array, built once and shared", () => {
    let list = SortedChunks.empty<Item>();
    for (let id = 0; id < 2000; id++) {
      list = list.insert({ key: (id * 7919) % 2000, id }, compare);
    }
    const array = list.array;
    assert.equal(list.array, array);
    assert.deepEqual(
      array.map((item) => item.key),
      Array.from({ length: 2000 }, (_, key) => key),
    );
  });
});

/** The reference list's position for `item`: after every equal item. */
function upperIndex(items: readonly Item[], item: Item): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(items[middle], item) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Deterministic pseudo-random integers below `bound` (a xorshift). */
function numbers(seed: number): (bound: number) => number {
  let state = seed;
  return (bound) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % bound;
  };
}

describe("SortedChunks at scale: chunks in many pages", () => {
  it("agrees with a sorted array through 60,000 inserts and the removal of nearly all, never changing an earlier list", () => {
    const next = numbers(SEED);
    let list = SortedChunks.empty<Item>();
    const reference: Item[] = [];
    const history: [SortedChunks<Item>, Item[]][] = [];
    const check = () => {
      assert.equal(list.size, reference.length);
      assert.deepEqual(list.array, reference);
      history.push([list, [...reference]]);
    };
    // Three keys: runs of equal items span many chunks and pages.
    for (let id = 0; id < 60_000; id++) {
      const item = { key: next(3), id };
      list = list.insert(item, compare);
      reference.splice(upperIndex(reference, item), 0, item);
    }
    check();
    while (reference.length > 500) {
      const [item] = reference.splice(next(reference.length), 1);
      list = list.remove(item, compare);
      if (reference.length % 10_000 === 0) check();
    }
    check();
    for (let id = 60_000; id < 70_000; id++) {
      const item = { key: next(3), id };
      list = list.insert(item, compare);
      reference.splice(upperIndex(reference, item), 0, item);
    }
    check();
    assert.equal(list.remove({ key: 1, id: -1 }, compare), list, "absent");
    for (const [earlier, expected] of history) {
      assert.deepEqual(earlier.array, expected);
    }
  });

  it("reads a list built from a sorted array of many pages as that array", () => {
    const items = Array.from({ length: 50_000 }, (_, id) => ({
      key: id >> 4,
      id,
    }));
    const list = SortedChunks.from(items);
    assert.deepEqual(list.array, items);
    const extra = { key: 100, id: -1 };
    const grown = list.insert(extra, compare).remove(items[7], compare);
    const expected = items.filter((item) => item !== items[7]);
    expected.splice(upperIndex(expected, extra), 0, extra);
    assert.deepEqual(grown.array, expected);
  });
});
