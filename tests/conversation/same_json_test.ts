/**
 * The comparison of the listed tools with the assembly's: `sameAsPlan`
 * answers exactly what comparing the two `JSON.stringify` strings answers,
 * for JSON data and for the values JSON writes otherwise than it holds.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { planOf, sameAsPlan } from "../../src/conversation/same_json.ts";

/** The first comparisons walk the plan, the later ones run it compiled. */
const USES = 20;

function agrees(kept: unknown, value: unknown): void {
  const plan = planOf(kept);
  const expected = JSON.stringify(value) === JSON.stringify(kept);
  for (let use = 0; use < USES; use++) {
    assert.equal(
      sameAsPlan(value, plan),
      expected,
      `${JSON.stringify(kept)} vs ${JSON.stringify(value)}, use ${use}`,
    );
  }
}

const TOOL = {
  name: "read_file",
  description: "Read a file.",
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, lines: { type: "integer" } },
    required: ["path"],
  },
};

describe("sameAsPlan", () => {
  it("finds the same definition the same, a changed one different", () => {
    agrees(TOOL, structuredClone(TOOL));
    assert.equal(sameAsPlan(structuredClone(TOOL), planOf(TOOL)), true);
    const changed = structuredClone(TOOL);
    changed.parameters.required.push("lines");
    agrees(TOOL, changed);
    assert.equal(sameAsPlan(changed, planOf(TOOL)), false);
    const renamed = { ...TOOL, name: "read" };
    agrees(TOOL, renamed);
    assert.equal(sameAsPlan(renamed, planOf(TOOL)), false);
  });

  it("tells fields in another order apart (other bytes)", () => {
    const { name, description, parameters } = TOOL;
    agrees(TOOL, { description, name, parameters });
  });

  it("agrees with JSON on values it writes otherwise than it holds", () => {
    const cases: [unknown, unknown][] = [
      [{ a: 1 }, { a: 1, b: undefined }],
      [{ a: 1, b: undefined }, { a: 1 }],
      [[null], [undefined]],
      [[null], [() => 1]],
      [{ a: null }, { a: Number.NaN }],
      [{ a: null }, { a: Infinity }],
      [{ a: 0 }, { a: -0 }],
      [{ a: "x" }, { a: { toJSON: () => "x" } }],
      [{ a: "2026-01-01T00:00:00.000Z" }, { a: new Date(Date.UTC(2026, 0)) }],
      [{ a: 1 }, Object.assign(Object.create(null), { a: 1 })],
      [{ a: [1, 2] }, { a: [1, 2, 3] }],
      [{ a: {} }, { a: [] }],
      [{ a: "1" }, { a: 1 }],
      [{ a: 1 }, { a: Symbol("x") }],
      [[1, 2], { 0: 1, 1: 2 }],
      [{ a: new Date(0) }, { a: "1970-01-01T00:00:00.000Z" }],
    ];
    for (const [kept, value] of cases) {
      agrees(kept, value);
      agrees(value, kept);
    }
  });

  it("agrees with JSON on random JSON data and its variations", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        agrees(a, b);
        agrees(a, JSON.parse(JSON.stringify(a)));
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});

describe("sameAsPlan with a polluted Object.prototype", () => {
  it("still agrees with JSON (an enumerable key, a toJSON)", () => {
    const prototype = Object.prototype as Record<string, unknown>;
    try {
      prototype.extra = 1;
      agrees(TOOL, structuredClone(TOOL));
      delete prototype.extra;
      Object.defineProperty(prototype, "toJSON", {
        value(this: Record<string, unknown>) {
          return Object.keys(this).length;
        },
        configurable: true,
        writable: true,
      });
      agrees({ a: 1 }, { b: 2 });
      agrees({ a: 1 }, { a: 2 });
    } finally {
      delete prototype.extra;
      delete prototype.toJSON;
    }
  });
});

describe("sameAsPlan compiled", () => {
  it("compares with the value as it was planned, not as it became", () => {
    const kept = structuredClone(TOOL);
    const plan = planOf(kept);
    kept.description = "Changed after it was planned.";
    for (let use = 0; use < USES; use++) {
      assert.equal(sameAsPlan(structuredClone(TOOL), plan), true);
      assert.equal(sameAsPlan(kept, plan), false);
    }
  });
});

describe("sameAsPlan on a value too large to compile", () => {
  it("walks the plan and agrees with JSON", () => {
    const kept = { items: Array.from({ length: 1500 }, (_, i) => ({ i })) };
    agrees(kept, structuredClone(kept));
    const changed = structuredClone(kept);
    changed.items[1400].i = -1;
    agrees(kept, changed);
    const reordered = structuredClone(kept) as { items: object[] };
    reordered.items[3] = { j: 1, i: 3 };
    agrees(kept, reordered);
    const date = structuredClone(kept) as { items: unknown[] };
    date.items[7] = new Date(0);
    agrees(kept, date);
  });
});
