/**
 * TextMap: a Map keyed by whole texts that keys a long text (16,384 code
 * units or more, which V8 hashes by length alone) by a fingerprint, and
 * tells apart the texts that share one by comparing them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LONG_TEXT, MAX_CHAIN, TextMap } from "../../src/shared/text_map.ts";
import { diffAssemblies } from "../../mod.ts";

/** A long text, equal to the others of its length but for its end. */
function long(index: number, length = 16_400): string {
  return "x".repeat(length - 6) + String(index).padStart(6, "0");
}

describe("TextMap", () => {
  it("holds short and long texts apart, like a Map", () => {
    const map = new TextMap<number>();
    const texts = ["", "a", "x".repeat(LONG_TEXT - 1), long(1), long(2)];
    texts.push(long(3, 40_000), long(3, 40_001));
    texts.forEach((text, index) => map.set(text, index));
    assert.equal(map.size, texts.length);
    texts.forEach((text, index) => {
      assert.equal(map.get(text), index);
      // An equal text that is another string object is found too.
      assert.equal(map.has(text.slice(0, 1) + text.slice(1)), true);
    });
    assert.equal(map.get(long(4)), undefined);
    assert.equal(map.has(long(4)), false);
    map.set(long(1), 10);
    assert.equal(map.get(long(1)), 10);
    assert.equal(map.size, texts.length);
    assert.deepEqual([...map.keys()].sort(), [...texts].sort());
    assert.deepEqual(
      [...map.entries()].map(([text, value]) => map.get(text) === value),
      texts.map(() => true),
    );
    assert.equal([...map.values()].length, texts.length);
    assert.equal(map.delete(long(2)), true);
    assert.equal(map.delete(long(2)), false);
    assert.equal(map.get(long(2)), undefined);
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.get(long(1)), undefined);
  });

  it("tells apart long texts that differ only between its samples", () => {
    // Equal in their ends and in every 128th code unit: one sampled
    // fingerprint, until the map hashes them whole.
    const alike = (index: number) =>
      "x".repeat(60) + String(index).padStart(6, "0") + "x".repeat(16_334);
    const map = new TextMap<number>();
    const count = 3 * MAX_CHAIN;
    for (let index = 0; index < count; index++) {
      map.set(alike(index), index);
      // The texts set so far are found, and no other one.
      assert.equal(map.get(alike(index)), index);
      assert.equal(map.get(alike(0)), 0);
      assert.equal(map.has(alike(index + 1)), false);
    }
    assert.equal(map.size, count);
    map.set(alike(3), 30);
    assert.equal(map.get(alike(3)), 30);
    assert.equal(map.delete(alike(4)), true);
    assert.equal(map.delete(alike(4)), false);
    assert.equal(map.size, count - 1);
    assert.deepEqual(
      [...map.values()],
      Array.from({ length: count }, (_, index) => index === 3 ? 30 : index)
        .filter((index) => index !== 4),
    );
    for (let index = 0; index < count; index++) {
      if (index === 4) continue;
      assert.equal(map.get(alike(index)), index === 3 ? 30 : index);
    }
  });

  it("tells apart texts that share a chain before it is hashed whole", () => {
    const alike = (index: number) =>
      "x".repeat(60) + String(index).padStart(6, "0") + "x".repeat(16_334);
    const map = new TextMap<string>();
    // Fewer than a full chain: the sampled fingerprints stay.
    for (let index = 0; index < MAX_CHAIN - 2; index++) {
      map.set(alike(index), `v${index}`);
    }
    assert.equal(map.delete(alike(0)), true);
    assert.equal(map.delete(alike(MAX_CHAIN - 3)), true);
    assert.equal(map.delete(alike(2)), true);
    assert.equal(map.get(alike(0)), undefined);
    assert.equal(map.get(alike(1)), "v1");
    assert.equal(map.get(alike(3)), "v3");
    assert.deepEqual([...map.keys()], [1, 3, 4].map(alike));
  });

  it("stays right across many sets and deletes", () => {
    const map = new TextMap<number>();
    for (let index = 0; index < 3_000; index++) {
      map.set(long(index), index);
      if (index >= 10) assert.equal(map.delete(long(index - 10)), true);
    }
    assert.equal(map.size, 10);
    for (let index = 2_990; index < 3_000; index++) {
      assert.equal(map.get(long(index)), index);
    }
    assert.equal(map.get(long(100)), undefined);
  });
});

describe("diffAssemblies with long names", () => {
  it("compares sections and tools named by long texts of one length", () => {
    const section = (index: number, text: string) => ({
      name: long(index),
      order: index,
      text,
    });
    const tool = (index: number) => ({
      name: long(index),
      description: "d",
      parameters: {},
    });
    const before = {
      sections: [section(1, "a"), section(2, "b"), section(3, "c")],
      tools: [tool(1), tool(2)],
      variables: {},
    };
    const after = {
      sections: [section(1, "a"), section(2, "B"), section(4, "d")],
      tools: [tool(2), tool(3)],
      variables: {},
    };
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.changed, [long(2)]);
    assert.deepEqual(diff.sections.removed, [long(3)]);
    assert.deepEqual(diff.sections.added, [long(4)]);
    assert.deepEqual(diff.tools.removed, [long(1)]);
    assert.deepEqual(diff.tools.added, [long(3)]);
    assert.deepEqual(diff.activeTools, {
      added: [long(3)],
      removed: [long(1)],
    });
  });
});
