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
    const throwing = Object.defineProperty({}, "then", {
      get() {
        throw new Error("no then");
      },
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    assert.equal(isPromiseLike(throwing), false);
    assert.equal(isPromiseLike(proxy), false);
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

  it("many lists of skewed lengths, shadowing by name: equals filtering then sorting the concatenation stably", () => {
    const listArb = fc.oneof(
      {
        weight: 1,
        arbitrary: fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 120 }),
      },
      {
        weight: 4,
        arbitrary: fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 3 }),
      },
    );
    fc.assert(
      fc.property(
        fc.array(listArb, { maxLength: 40 }),
        fc.boolean(),
        (names, shadow) => {
          // Names unique per list; values collide often across lists.
          const lists = names.map((list, index) =>
            list.map((name) => ({
              name: `n${name}`,
              value: name % 7,
              list: index,
            }))
              .sort((a, b) => a.value - b.value)
          );
          const merged = mergeSorted(lists, (a, b) => a.value - b.value, {
            shadowByName: shadow,
          });
          const visible = lists.flatMap((list, index) =>
            list.filter((item) =>
              !shadow ||
              !lists.slice(index + 1).some((later) =>
                later.some((other) => other.name === item.name)
              )
            )
          );
          const expected = visible.toSorted((a, b) =>
            a.value - b.value || a.list - b.list
          );
          assert.deepEqual(merged, expected);
        },
      ),
      { seed: 13, numRuns: 300 },
    );
  });

  it("merges a long list with a short one and two lists of equal length alike", () => {
    const compare = (a: number[], b: number[]) => a[0] - b[0];
    const long = Array.from({ length: 64 }, (_, index) => [index * 2, 0]);
    const short = [[-1, 1], [10, 1], [200, 1]];
    const expected = [...long, ...short].toSorted((a, b) =>
      a[0] - b[0] || a[1] - b[1]
    );
    assert.deepEqual(mergeSorted([long, short], compare), expected);
    assert.deepEqual(
      mergeSorted([short, long], compare),
      [...short, ...long].toSorted((a, b) => a[0] - b[0] || b[1] - a[1]),
    );
    const odd = Array.from({ length: 64 }, (_, index) => [index * 2 + 1, 1]);
    const evens = long.map(([value]) => [value, 0]);
    assert.deepEqual(
      mergeSorted([evens, odd], compare).map(([value]) => value),
      Array.from({ length: 128 }, (_, index) => index),
    );
  });

  it("reads each item's name a bounded number of times, however many lists shadow (issue 21, defect 4)", () => {
    const reads = (count: number) => {
      let total = 0;
      const lists = Array.from({ length: count }, (_, index) => [{
        get name() {
          total++;
          return `n${index % (count / 2)}`;
        },
        order: index % 50,
      }]);
      const merged = mergeSorted(lists, (a, b) => a.order - b.order, {
        shadowByName: true,
      });
      assert.equal(merged.length, count / 2);
      return total / count;
    };
    // Linear: the same reads per item at any size. Merging one list after
    // the other read every farther name once per nearer list (n / 2 each).
    assert.ok(reads(400) <= 3, `${reads(400)} reads per item at 400 lists`);
    assert.ok(reads(4_000) <= 3, `${reads(4_000)} reads per item at 4,000`);
  });

  it("merges a short nearer list into a long one by binary search: few comparisons", () => {
    let comparisons = 0;
    const compare = (a: { value: number }, b: { value: number }) => {
      comparisons++;
      return a.value - b.value;
    };
    const long = Array.from({ length: 1_024 }, (_, index) => ({
      value: index * 2,
    }));
    const merged = mergeSorted([long, [{ value: 1_001 }]], compare);
    assert.equal(merged[501].value, 1_001);
    assert.equal(merged.length, 1_025);
    // log2(1,024) + 1 for the search; a linear pass or a sort compares
    // every item once or more.
    assert.ok(comparisons <= 12, `${comparisons} comparisons`);
  });

  it("a shadowed farther list leaves the nearest list itself, without copying", () => {
    const compare = (a: { name: string }, b: { name: string }) =>
      compareCodeUnits(a.name, b.name);
    const nearest = [{ name: "a" }];
    assert.equal(
      mergeSorted([[{ name: "a" }], nearest], compare, { shadowByName: true }),
      nearest,
    );
  });

  it("the same nearest list under more or fewer farther lists is another merge", () => {
    const compare = (a: { name: string }, b: { name: string }) =>
      compareCodeUnits(a.name, b.name);
    const global = [{ name: "a" }];
    const middle = [{ name: "b" }];
    const nearest = [{ name: "c" }];
    const names = (lists: { name: string }[][]) =>
      mergeSorted(lists, compare).map((item) => item.name);
    assert.deepEqual(names([middle, nearest]), ["b", "c"]);
    assert.deepEqual(names([global, middle, nearest]), ["a", "b", "c"]);
    assert.deepEqual(names([middle, nearest]), ["b", "c"]);
  });

  it("computes the merge of the same immutable lists once, and again when one changes", () => {
    const compare = (a: { name: string }, b: { name: string }) =>
      compareCodeUnits(a.name, b.name);
    const global = [{ name: "a" }, { name: "c" }];
    const scoped = [{ name: "b" }];
    const first = mergeSorted([global, scoped], compare);
    assert.equal(mergeSorted([global, scoped], compare), first);
    assert.equal(
      mergeSorted([global, [], scoped, []], compare),
      first,
      "empty layers in between change nothing",
    );
    assert.notEqual(
      mergeSorted([global, scoped], compare, { shadowByName: true }),
      first,
      "another option is another merge",
    );
    const farther = [{ name: "e" }];
    const other = mergeSorted([farther, scoped], compare);
    assert.deepEqual(other.map((item) => item.name), ["b", "e"]);
    assert.deepEqual(
      mergeSorted([global, scoped], compare).map((item) => item.name),
      ["a", "b", "c"],
      "the same nearest list over another farther one is another merge",
    );
    const changed = [{ name: "a" }, { name: "d" }];
    const second = mergeSorted([changed, scoped], compare);
    assert.notEqual(second, first);
    assert.deepEqual(second.map((item) => item.name), ["a", "b", "d"]);
  });
});
