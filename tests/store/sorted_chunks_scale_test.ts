/** SortedChunks at scale (`deno task test:slow`): many chunks in many pages. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SortedChunks } from "../../src/store/sorted_chunks.ts";
import { compare, type Item, numbers, SEED } from "./chunk_items.ts";

describe("SortedChunks at scale: chunks in many pages", () => {
  it("agrees with a sorted array through 60,000 inserts and the removal of nearly all, never changing an earlier list", () => {
    const next = numbers(SEED);
    let list = SortedChunks.empty<Item>();
    // The reference: one array per key (0, 1 or 2), each in insertion order.
    // Three keys make runs of equal items that span many chunks and pages.
    const byKey: Item[][] = [[], [], []];
    const history: [SortedChunks<Item>, Item[]][] = [];
    const check = () => {
      const reference = byKey.flat();
      assert.equal(list.size, reference.length);
      assert.deepEqual(list.array, reference);
      history.push([list, reference]);
    };
    const insert = (id: number) => {
      const item = { key: next(3), id };
      list = list.insert(item, compare);
      byKey[item.key].push(item);
    };
    for (let id = 0; id < 60_000; id++) insert(id);
    check();
    for (let removed = 1; removed <= 59_500; removed++) {
      const bucket = byKey[next(3)];
      if (bucket.length === 0) continue;
      const [item] = bucket.splice(next(bucket.length), 1);
      list = list.remove(item, compare);
      if (removed % 10_000 === 0) check();
    }
    check();
    for (let id = 60_000; id < 70_000; id++) insert(id);
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
    // After every item of key 100, before the first of key 101.
    expected.splice(expected.findIndex((item) => item.key > 100), 0, extra);
    assert.deepEqual(grown.array, expected);
  });
});
