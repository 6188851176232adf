import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SortedChunks } from "../../src/store/sorted_chunks.ts";
import { fuzzRuns } from "../fuzz_runs.ts";
import { compare, type Item, numbers, SEED } from "./chunk_items.ts";

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

/** The page and chunk bounds of `src/store/sorted_chunks.ts`. */
const MAX_CHUNK = 512;
const MIN_CHUNK = 128;
const MAX_PAGE = 64;
const MIN_PAGE = 16;

/**
 * What churn may leave: no chunk or page over its bound, and none under its
 * minimum next to a neighbour it would fit in with.
 */
function assertCompact(list: SortedChunks<Item>): void {
  const pages = list.layout;
  pages.forEach((page, at) => {
    assert.ok(page.length <= MAX_PAGE, `page ${at}: ${page.length} chunks`);
    const neighbours = [pages[at - 1], pages[at + 1]].filter(Boolean);
    if (page.length < MIN_PAGE) {
      for (const other of neighbours) {
        assert.ok(other.length + page.length > MAX_PAGE, `page ${at} fits`);
      }
    }
    page.forEach((size, index) => {
      assert.ok(size > 0 && size <= MAX_CHUNK, `chunk ${at}.${index}: ${size}`);
      if (size >= MIN_CHUNK) return;
      for (const other of [page[index - 1], page[index + 1]]) {
        if (other === undefined) continue;
        assert.ok(other + size > MAX_CHUNK, `chunk ${at}.${index} fits`);
      }
    });
  });
}

describe("SortedChunks: the layout that bounds the cost of a change", () => {
  it("a chunk splits when it would hold more than 512 items, a page when it would hold more than 64 chunks", () => {
    let list = SortedChunks.empty<Item>();
    let largestChunk = 0;
    let largestPage = 0;
    // In ascending order every item goes to the last chunk of the last page.
    for (let id = 0; id < 64 * 300; id++) {
      list = list.insert({ key: id, id }, compare);
      for (const page of list.layout) {
        largestPage = Math.max(largestPage, page.length);
        largestChunk = Math.max(largestChunk, ...page);
      }
    }
    assert.equal(largestChunk, MAX_CHUNK);
    assert.equal(largestPage, MAX_PAGE);
    assert.ok(list.layout.length > 1, "split into pages");
  });

  it("a chunk shrunk below 128 items joins a neighbour it fits in with", () => {
    const items = Array.from({ length: 1024 }, (_, id) => ({ key: id, id }));
    let list = SortedChunks.from(items);
    assert.deepEqual(list.layout, [[256, 256, 256, 256]]);
    // Shrink the second chunk to 128, then to 127: it joins the first.
    for (const item of items.slice(256, 384)) list = list.remove(item, compare);
    assert.deepEqual(list.layout, [[256, 128, 256, 256]]);
    list = list.remove(items[384], compare);
    assert.deepEqual(list.layout, [[383, 256, 256]]);
    // The first chunk (items 0–255 and 385–511) has no neighbour before it:
    // shrunk to 127, it joins the one after.
    for (const item of items.slice(0, 255)) list = list.remove(item, compare);
    assert.deepEqual(list.layout, [[128, 256, 256]]);
    list = list.remove(items[255], compare);
    assert.deepEqual(list.layout, [[127 + 256, 256]]);
  });

  it("a shrunk chunk joins a neighbour when together they hold exactly 512 items", () => {
    for (const grown of [0, 1]) {
      const items = Array.from({ length: 512 }, (_, id) => ({ key: id, id }));
      let list = SortedChunks.from(items);
      // 144 more items in chunk `grown`: 400 there, 256 in the other.
      const key = grown === 0 ? 100.5 : 300.5;
      for (let id = 0; id < 144; id++) {
        list = list.insert({ key, id: 1000 + id }, compare);
      }
      assert.deepEqual(list.layout, [grown === 0 ? [400, 256] : [256, 400]]);
      // Shrink the other chunk to 112: 400 + 112 fit in one chunk.
      const other = grown === 0 ? items.slice(256) : items.slice(0, 256);
      for (const item of other.slice(0, 144)) {
        list = list.remove(item, compare);
      }
      assert.deepEqual(list.layout, [[512]]);
    }
  });

  it("a page shrunk below 16 chunks joins a neighbour it fits in with", () => {
    // Two pages of 32 chunks of 256 items.
    const items = Array.from(
      { length: 64 * 256 },
      (_, id) => ({ key: id, id }),
    );
    let list = SortedChunks.from(items);
    const chunksPerPage = () => list.layout.map((page) => page.length);
    assert.deepEqual(chunksPerPage(), [32, 32]);
    // Emptying a chunk of the first page, item by item, folds it into the
    // chunk before it: one chunk less each time.
    for (let chunk = 1; chunk <= 17; chunk++) {
      for (const item of items.slice(chunk * 256, (chunk + 1) * 256)) {
        list = list.remove(item, compare);
      }
      if (chunk === 1) assert.deepEqual(chunksPerPage(), [31, 32]);
      if (chunk === 16) assert.deepEqual(chunksPerPage(), [16, 32]);
    }
    // At 15 chunks, the first page (no neighbour before it) joins the next.
    assert.deepEqual(chunksPerPage(), [47]);
    assert.deepEqual(list.layout[0], new Array(47).fill(256));
  });

  it("churn leaves no chunk or page under its minimum that fits with a neighbour", () => {
    const next = numbers(SEED + 1);
    const live: Item[] = [];
    let list = SortedChunks.empty<Item>();
    for (let id = 0; id < 40_000; id++) {
      const item = { key: next(1000), id };
      list = list.insert(item, compare);
      live.push(item);
    }
    assertCompact(list);
    for (let round = 0; round < 39_000; round++) {
      const [item] = live.splice(next(live.length), 1);
      list = list.remove(item, compare);
      if (round % 3_000 === 0) assertCompact(list);
    }
    assertCompact(list);
  });
});
