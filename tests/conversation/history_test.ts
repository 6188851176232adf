/**
 * Issue 49 (SPEC 10.4): the committed history is an append-only store
 * shared by a conversation's states. Each state reads its own length
 * whatever a later one appended; appending to an older state leaves the
 * later one's items as they were; a body's list is its own copy, the
 * marked items in it, the store unchanged; `messages` is one frozen copy
 * per step.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { History } from "../../src/conversation/history.ts";
import { FORMS } from "./forms.ts";
import { agent } from "./helpers.ts";

describe("History", () => {
  it("each state keeps its own items while later states append", () => {
    const one = History.empty<string>().append(["a"], ["b"]);
    const two = one.append(["c"]);
    assert.equal(one.length, 2);
    assert.deepEqual([...one], ["a", "b"]);
    assert.equal(one.at(2), undefined);
    assert.deepEqual([...two], ["a", "b", "c"]);
    // An older state appended to copies its items: the later state's stay.
    const other = one.append(["x"]);
    assert.deepEqual([...other], ["a", "b", "x"]);
    assert.deepEqual([...two], ["a", "b", "c"]);
    assert.equal(two.at(2), "c");
    // Read as an array is: relative to the state's own length.
    assert.equal(one.at(-1), "b");
    assert.equal(one.at(-3), undefined);
    assert.deepEqual(one.slice(), ["a", "b"]);
    assert.deepEqual(one.slice(-1), ["b"]);
    assert.deepEqual(two.slice(1, -1), ["b"]);
    assert.deepEqual(one.slice(0, 9), ["a", "b"]);
    // The empty state never keeps a conversation's items.
    assert.equal(History.empty<string>().append(["y"]).at(0), "y");
    const empty = History.empty<string>();
    empty.append(["z"]);
    assert.deepEqual([...empty.append(["w"])], ["w"]);
  });

  it("a body's list: leading items, the history, the tail, the placements; the store unchanged", () => {
    const history = History.empty<string>().append(["a", "b", "c"]);
    const list = history.sendList(["system"], ["d"], [
      { at: 1, item: "B*" },
      { at: 3, item: "D*" },
    ]);
    assert.deepEqual(list, ["system", "a", "B*", "c", "D*"]);
    assert.deepEqual(history.sendList([], [], []), ["a", "b", "c"]);
    assert.notEqual(history.sendList([], [], []), history.sendList([], [], []));
    assert.deepEqual([...history], ["a", "b", "c"]);
    assert.deepEqual([...history.append(["e"])], ["a", "b", "c", "e"]);
  });

  it("holds: each state answers for its own items, each item read once per test", () => {
    const read: string[] = [];
    const isUpper = (item: string) => {
      read.push(item);
      return item === item.toUpperCase();
    };
    const one = History.empty<string>().append(["a", "b"]);
    assert.equal(one.holds(isUpper), false);
    const two = one.append(["C", "d"]);
    assert.equal(two.holds(isUpper), true);
    // The older state still holds none; nothing is read again.
    assert.equal(one.holds(isUpper), false);
    const three = two.append(["e"]);
    assert.equal(three.holds(isUpper), true);
    assert.deepEqual(read, ["a", "b", "C"]);
    // Another test reads the items for itself.
    const isD = (item: string) => item === "d";
    assert.equal(one.holds(isD), false);
    assert.equal(two.holds(isD), true);
    // An older state appended to reads its own copy.
    const other = one.append(["x"]);
    assert.equal(other.holds(isUpper), false);
    assert.equal(other.append(["Y"]).holds(isUpper), true);
    assert.equal(other.holds(isUpper), false);
  });

  it("snapshot: frozen, the same array for a state, another for the next", () => {
    const one = History.empty<string>().append(["a"]);
    const snapshot = one.snapshot();
    assert.ok(Object.isFrozen(snapshot));
    assert.equal(one.snapshot(), snapshot);
    const two = one.append(["b"]);
    assert.deepEqual(two.snapshot(), ["a", "b"]);
    assert.deepEqual(snapshot, ["a"]);
  });
});

describe("a conversation's messages (issue 49)", () => {
  for (const form of FORMS) {
    it(`${form.name}: read twice between steps, the same frozen array; a new one after a step`, async () => {
      const a = agent();
      const conv = form.start(a.prompt);
      conv.user("Hi.");
      await conv.request();
      conv.record(form.answer([]));
      const first = conv.messages;
      assert.equal(conv.messages, first);
      assert.ok(Object.isFrozen(first));
      const length = first.length;
      conv.user("Again.");
      await conv.request();
      assert.equal(conv.messages, first);
      conv.record(form.answer([]));
      assert.notEqual(conv.messages, first);
      assert.equal(first.length, length);
      assert.ok(conv.messages.length > length);
      assert.deepEqual(conv.messages.slice(0, length), first);
      await a.prompt.dispose();
    });
  }
});
