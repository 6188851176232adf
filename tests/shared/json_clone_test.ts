/**
 * `jsonClone` is `JSON.parse(JSON.stringify(x))` (the answer's copy at
 * every step, issue 49): the same data, key order and prototypes for any
 * value, JSON data or not, no object shared with the source, and the same
 * error where JSON throws.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import {
  frozenJsonClone,
  isFrozenClone,
  jsonClone,
  MAX_CLONE_DEPTH,
} from "../../src/shared/json_clone.ts";

/** Fixed so that a failure replays. */
const SEED = 4_217;

/** The clone equals JSON's round trip: data, key order, prototypes. */
function agrees(value: unknown): void {
  const expected = JSON.parse(JSON.stringify(value) ?? "null");
  const cloned = JSON.stringify(value) === undefined ? null : jsonClone(value);
  assert.deepStrictEqual(cloned, expected);
  assert.equal(JSON.stringify(cloned), JSON.stringify(expected));
  assert.deepEqual(keyOrders(cloned), keyOrders(expected));
}

/** Every object's keys in order, depth first. */
function keyOrders(value: unknown, out: string[][] = []): string[][] {
  if (typeof value !== "object" || value === null) return out;
  out.push(Object.keys(value));
  for (const inner of Object.values(value)) keyOrders(inner, out);
  return out;
}

/** Whether `copy` holds any object `source` holds. */
function shares(source: unknown, copy: unknown): boolean {
  const held = new Set<unknown>();
  const walk = (value: unknown, into: (object: unknown) => void) => {
    if (typeof value !== "object" || value === null) return;
    into(value);
    for (const inner of Object.values(value)) walk(inner, into);
  };
  walk(source, (object) => held.add(object));
  let shared = false;
  walk(copy, (object) => shared ||= held.has(object));
  return shared;
}

class Point {
  constructor(readonly x: number, readonly y: number) {}
}

describe("jsonClone", () => {
  it("copies JSON data as JSON's round trip does, sharing no object", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        agrees(value);
        assert.equal(shares(value, jsonClone(value)), false);
      }),
      { seed: SEED, numRuns: fuzzRuns(300) },
    );
  });

  it("copies what JSON writes otherwise than it holds as JSON does", () => {
    const odd = fc.oneof(
      fc.constant(undefined),
      fc.constant(-0),
      fc.constant(Number.NaN),
      fc.constant(Number.POSITIVE_INFINITY),
      fc.constant(() => 1),
      fc.constant(new Date(0)),
      fc.constant(new Point(1, 2)),
      fc.constant({ toJSON: () => ({ replaced: true }) }),
      fc.constant(Object.create(null, { a: { value: 1, enumerable: true } })),
      fc.constant(JSON.parse('{"__proto__": {"polluted": 1}, "b": 2}')),
      fc.constant([1, , 3]), // a hole is written null
      fc.constant({ 2: "b", 1: "a", z: 0, y: 1 }),
      fc.constant(Object.defineProperty({ a: 1 }, "hidden", { value: 2 })),
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        odd,
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), {
          maxKeys: 4,
        }),
      ),
    })).node;
    fc.assert(fc.property(tree, agrees), {
      seed: SEED,
      numRuns: fuzzRuns(500),
    });
  });

  it("copies a nesting deeper than its walk through JSON", () => {
    let deep: unknown = { leaf: "x" };
    for (let level = 0; level < 300; level++) deep = { inner: [deep] };
    agrees(deep);
  });

  it("throws what JSON throws: a cycle, a BigInt, a throwing getter", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    assert.throws(() => jsonClone(cycle), TypeError);
    assert.throws(() => jsonClone({ n: 1n }), TypeError);
    const thrown = new Error("getter");
    const getter = {
      get x() {
        throw thrown;
      },
    };
    assert.throws(() => jsonClone(getter), (error) => error === thrown);
  });

  it("answers through JSON while Object.prototype has a toJSON", () => {
    const prototype = Object.prototype as { toJSON?: unknown };
    prototype.toJSON = () => "written";
    try {
      assert.equal(jsonClone({ a: 1 }), "written");
    } finally {
      delete prototype.toJSON;
    }
    assert.deepEqual(jsonClone({ a: 1 }), { a: 1 });
  });

  it("freezes a walked copy all the way down and says it is one", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = frozenJsonClone(value);
        assert.deepStrictEqual(copy, JSON.parse(JSON.stringify(value)));
        const frozen = (inner: unknown): boolean =>
          typeof inner !== "object" || inner === null ||
          (Object.isFrozen(inner) && Object.values(inner).every(frozen));
        assert.equal(frozen(copy), true);
        assert.equal(
          isFrozenClone(copy),
          typeof copy === "object" && copy !== null,
        );
      }),
      { seed: SEED, numRuns: fuzzRuns(200) },
    );
    // Copied through JSON (a Date, a deep nesting): not frozen, not one.
    let deep: unknown = { leaf: new Date(0) };
    for (let level = 0; level < MAX_CLONE_DEPTH; level++) deep = [deep];
    const copy = frozenJsonClone(deep);
    assert.deepStrictEqual(copy, JSON.parse(JSON.stringify(deep)));
    assert.equal(Object.isFrozen(copy), false);
    assert.equal(isFrozenClone(copy), false);
    assert.equal(isFrozenClone(jsonClone({ a: 1 })), false);
  });
});
