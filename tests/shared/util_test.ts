import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compareCodeUnits,
  isPromiseLike,
  mergeSorted,
} from "../../src/shared/util.ts";

function byNumber(a: number, b: number): number {
  return a - b;
}

describe("isPromiseLike", () => {
  it("accepts thenable objects and functions, nothing else", () => {
    const callable = Object.assign(() => 1, { then: () => {} });
    assert.equal(isPromiseLike(Promise.resolve()), true);
    assert.equal(isPromiseLike({ then: () => {} }), true);
    assert.equal(isPromiseLike(callable), true);
    for (const value of [null, undefined, 1, "then", { then: 1 }, () => 1]) {
      assert.equal(isPromiseLike(value), false, String(value));
    }
  });
});

describe("compareCodeUnits", () => {
  it("orders by UTF-16 code unit, not by locale", () => {
    const names = ["é", "b", "B", "a", "_", "Z"];
    assert.deepEqual(names.toSorted(compareCodeUnits), [
      "B",
      "Z",
      "_",
      "a",
      "b",
      "é",
    ]);
    assert.equal(compareCodeUnits("a", "a"), 0);
  });
});

describe("mergeSorted", () => {
  it("equals sorting the concatenation, stably (earlier lists first on ties)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.nat({ max: 9 })).map((list) => list.sort(byNumber)),
        ),
        (lists) => {
          const tagged = lists.map((list, index) =>
            list.map((value) => ({ value, list: index }))
          );
          const merged = mergeSorted(tagged, (a, b) => a.value - b.value);
          const expected = tagged.flat().sort((a, b) =>
            a.value - b.value || a.list - b.list
          );
          assert.deepEqual(merged, expected);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it("returns a lone non-empty list itself, without copying", () => {
    const list = [{ value: 1 }, { value: 2 }];
    const compare = (a: { value: number }, b: { value: number }) =>
      a.value - b.value;
    assert.equal(mergeSorted([[], list, []], compare), list);
    assert.deepEqual(mergeSorted([], compare), []);
  });

  it("with shadowByName, drops from farther lists the names a nearer list holds", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), {
            maxLength: 6,
          }).map((names) => names.sort()),
          { maxLength: 4 },
        ),
        (lists) => {
          const layers = lists.map((names, layer) =>
            names.map((name) => ({ name, layer }))
          );
          const merged = mergeSorted(
            layers,
            (a, b) => compareCodeUnits(a.name, b.name),
            { shadowByName: true },
          );
          // Reference: the nearest layer holding each name wins.
          const nearest = new Map<string, number>();
          layers.flat().forEach((item) => nearest.set(item.name, item.layer));
          const expected = [...nearest].sort(([a], [b]) =>
            compareCodeUnits(a, b)
          )
            .map(([name, layer]) => ({ name, layer }));
          assert.deepEqual(merged, expected);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  it("computes the merge of the same immutable lists once, and again when one changes", () => {
    const compare = (a: { name: string }, b: { name: string }) =>
      compareCodeUnits(a.name, b.name);
    const global = [{ name: "a" }, { name: "c" }];
    const scoped = [{ name: "b" }];
    const first = mergeSorted([global, scoped], compare);
    assert.equal(mergeSorted([global, scoped], compare), first);
    assert.notEqual(
      mergeSorted([global, scoped], compare, { shadowByName: true }),
      first,
      "another option is another merge",
    );
    const changed = [{ name: "a" }, { name: "d" }];
    const second = mergeSorted([changed, scoped], compare);
    assert.notEqual(second, first);
    assert.deepEqual(second.map((item) => item.name), ["a", "b", "d"]);
  });
});
