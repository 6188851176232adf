/**
 * The conversation's one mark policy (issue 45, src/conversation/marks.ts),
 * on a toy form: the ends marked, the lookback's edge, an item deferring to
 * the one before, the budgets, and a fork's shared mark within its limit.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  markBudget,
  markHistoryEnds,
  markSharedPrefix,
  type MarkSites,
  type PrefixSites,
} from "../../src/conversation/marks.ts";

/** A toy item: its parts, or a note that defers its mark to the item before. */
type Item = { parts: { n: number; mark?: unknown }[] } | { note: true };

const SITES: MarkSites<Item> = {
  leadingItems: 1,
  partCount: (item) => "parts" in item ? item.parts.length : 0,
  site: (item) =>
    "parts" in item ? { field: "parts", parts: item.parts } : "before",
  setMark: (parts, index, mark) =>
    parts.map((part, at) => at === index ? { ...part as object, mark } : part),
};

function items(...counts: number[]): Item[] {
  return counts.map((count) => ({
    parts: Array.from({ length: count }, (_, n) => ({ n })),
  }));
}

describe("markHistoryEnds", () => {
  it("marks the last item, and the previous end past the lookback only", () => {
    const within = markHistoryEnds(items(3, 10, 10), 1, { t: 1 }, 20, SITES);
    assert.deepEqual(within.marks, [{ message: 3, block: 9, mark: { t: 1 } }]);
    const history = items(3, 10, 11);
    const first = history[0];
    const past = markHistoryEnds(history, 1, { t: 1 }, 20, SITES);
    assert.deepEqual(past.marks.map((mark) => mark.message), [1, 3]);
    assert.deepEqual(past.items[0], {
      parts: [{ n: 0 }, { n: 1 }, { n: 2, mark: { t: 1 } }],
    });
    // A marked item is a copy in the list; the item itself is not changed,
    // and each place has its own mark.
    assert.equal(past.items, history);
    assert.equal("mark" in (first as { parts: object[] }).parts[2], false);
    assert.notEqual(past.marks[0].mark, past.marks[1].mark);
  });

  it("with no lookback marks the previous end whenever the step added one", () => {
    const { marks } = markHistoryEnds(items(1, 1), 1, "m", 0, SITES);
    assert.deepEqual(marks.map((mark) => mark.message), [1, 2]);
    assert.deepEqual(
      markHistoryEnds(items(1), 1, "m", 0, SITES).marks.length,
      1,
    );
  });

  it("walks back from a deferring item, and marks one item once", () => {
    const history: Item[] = [...items(2), { note: true }];
    const { marks } = markHistoryEnds(history, 1, "m", 0, SITES);
    assert.deepEqual(marks, [{ message: 1, block: 1, mark: "m" }]);
  });

  it("places nothing without a mark, nor on an item without parts", () => {
    assert.deepEqual(
      markHistoryEnds(items(2), 0, undefined, 20, SITES).marks,
      [],
    );
    assert.deepEqual(markHistoryEnds(items(0), 0, "m", 20, SITES).marks, []);
  });
});

describe("markBudget", () => {
  it("leaves the limit's rest to the prefix and the fork", () => {
    assert.deepEqual(markBudget(4, 2, 3), { prefix: 2, fork: 2 });
    assert.deepEqual(markBudget(4, 1, 2), { prefix: 2, fork: 3 });
    assert.deepEqual(markBudget(undefined, 2, 2), { prefix: 2, fork: 2 });
  });
});

describe("markSharedPrefix", () => {
  type Head = { items: { v: string; mark?: unknown }[] };
  const PREFIX: PrefixSites<Head> = {
    of: (head) => {
      const list = (head.items ?? []) as { v: string; mark?: unknown }[];
      return {
        json: list.map((item) => item.v),
        markable: list.map((item) => item.v !== "fixed"),
        marked: list.map((item) => item.mark !== undefined),
      };
    },
    withMarks: (head, marked, mark) => ({
      items: head.items.map((item, index) =>
        marked.has(index)
          ? { v: item.v, mark: item.mark ?? mark }
          : { v: item.v }
      ),
    }),
  };
  const head = (...values: string[]): Head => ({
    items: values.map((v) =>
      v.endsWith("*") ? { v: v.slice(0, -1), mark: 1 } : { v }
    ),
  });
  const marks = (result: Head) =>
    result.items.map((item) => item.mark === undefined ? "." : "m").join("");
  const shared = (own: Head, parent: Head, limit: number) =>
    markSharedPrefix(own, own, parent, { mark: 2, limit }, PREFIX);

  it("marks the end of the shared run; within the limit the mark before gives way", () => {
    const own = head("a*", "b*", "c", "d*");
    assert.equal(marks(shared(own, head("a", "b", "c"), 4)), "mmmm");
    assert.equal(marks(shared(own, head("a", "b", "c"), 3)), "m.mm");
    // Nothing before the end: the next after it gives way.
    assert.equal(marks(shared(head("a", "b*", "c*"), head("a"), 2)), "m.m");
  });

  it("changes nothing at an unmarkable or marked end, or none shared", () => {
    const own = head("fixed", "b*");
    assert.equal(shared(own, head("fixed"), 4), own);
    assert.equal(shared(head("a*"), head("a"), 4).items[0].mark, 1);
    const apart = head("x", "y*");
    assert.equal(shared(apart, head("a"), 4), apart);
  });
});
