import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { hashOf, NameTable } from "../../src/store/name_table.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** Fixed so that a failure replays: fast-check prints it with the path. */
const SEED = 20261202;

interface Item {
  readonly name: string;
  readonly id: number;
}

/** Two different names with the same hash in this process. */
function collidingNames(): [string, string] {
  const seen = new Map<number, string>();
  for (let index = 0;; index++) {
    const name = `n${index}`;
    const other = seen.get(hashOf(name));
    if (other !== undefined) return [other, name];
    seen.set(hashOf(name), name);
  }
}

/** A name whose home slot in a new table (8 slots) is `slot`, not in `taken`. */
function nameAt(slot: number, taken: string[] = []): string {
  for (let index = 0;; index++) {
    const name = `s${slot}:${index}`;
    if ((hashOf(name) & 7) === slot && !taken.includes(name)) return name;
  }
}

describe("NameTable", () => {
  it("answers has() by name, and remove() by identity", () => {
    const table = new NameTable<Item>();
    const first = { name: "a", id: 1 };
    table.add(first);
    assert.equal(table.has("a"), true);
    assert.equal(table.has("b"), false);
    assert.equal(table.remove({ name: "a", id: 2 }), false, "another record");
    assert.equal(table.has("a"), true);
    assert.equal(table.remove(first), true);
    assert.equal(table.has("a"), false);
    assert.equal(table.remove(first), false, "already removed");
    assert.equal(table.size, 0);
  });

  it("tells apart names whose hashes are equal", () => {
    const [one, two] = collidingNames();
    assert.equal(hashOf(one), hashOf(two));
    const table = new NameTable<Item>();
    const first = { name: one, id: 1 };
    table.add(first);
    assert.equal(table.has(two), false);
    const second = { name: two, id: 2 };
    table.add(second);
    assert.equal(table.remove({ name: two, id: 3 }), false);
    assert.equal(table.remove(first), true);
    assert.equal(table.has(one), false);
    assert.equal(table.has(two), true, "found after the shift");
    assert.equal(table.remove(second), true);
    assert.equal(table.size, 0);
  });

  it("a removal at the end of the slots keeps what wrapped around in reach", () => {
    // 7: a (home 7), 0: b (home 7, wrapped), 1: c (home 0), 2: d (home 2).
    const a = nameAt(7);
    const b = nameAt(7, [a]);
    const c = nameAt(0);
    const d = nameAt(2);
    const table = new NameTable<Item>();
    const items = [a, b, c, d].map((name, id) => ({ name, id }));
    for (const item of items) table.add(item);
    assert.equal(table.remove(items[0]), true);
    for (const name of [b, c, d]) assert.equal(table.has(name), true, name);
    assert.equal(table.remove(items[1]), true);
    for (const name of [c, d]) assert.equal(table.has(name), true, name);
    assert.equal(table.has(a), false);
    assert.equal(table.has(b), false);
  });

  it("a removal at the end of the slots leaves an entry at its home", () => {
    // 7: a (home 7), 0: b (home 0): b must stay where a lookup starts.
    const a = nameAt(7);
    const b = nameAt(0);
    const table = new NameTable<Item>();
    const first = { name: a, id: 1 };
    table.add(first);
    table.add({ name: b, id: 2 });
    assert.equal(table.remove(first), true);
    assert.equal(table.has(b), true);
  });

  it("grows and shrinks through 10,000 names, losing none", () => {
    const table = new NameTable<Item>();
    const items = Array.from({ length: 10_000 }, (_, id) => ({
      name: `rule:${id}`,
      id,
    }));
    for (const item of items) table.add(item);
    assert.equal(table.size, items.length);
    for (const item of items) assert.equal(table.has(item.name), true);
    for (const item of items.slice(0, 9_990)) {
      assert.equal(table.remove(item), true);
    }
    assert.equal(table.size, 10);
    for (const item of items) {
      assert.equal(table.has(item.name), item.id >= 9_990, item.name);
    }
  });

  it("agrees with a Map under any sequence of adds and removes", () => {
    // A small pool of names and small tables: runs wrap around the end of
    // the slots, and removals shift entries across the wrap.
    const operation = fc.record({
      add: fc.boolean(),
      name: fc.integer({ min: 0, max: 40 }).map((n) => `name ${n}`),
    });
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
        const table = new NameTable<Item>();
        const model = new Map<string, Item>();
        let id = 0;
        for (const { add, name } of operations) {
          const held = model.get(name);
          if (add && held === undefined) {
            const item = { name, id: id++ };
            table.add(item);
            model.set(name, item);
          } else if (!add) {
            const item = held ?? { name, id: id++ };
            assert.equal(table.remove(item), held !== undefined);
            model.delete(name);
          }
          assert.equal(table.size, model.size);
          for (let n = 0; n <= 40; n++) {
            assert.equal(table.has(`name ${n}`), model.has(`name ${n}`));
          }
        }
      }),
      { seed: SEED, numRuns: fuzzRuns(200) },
    );
  });
});
