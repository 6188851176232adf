import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { TOOL_ORDER_REST, type ToolSchema } from "../../mod.ts";
import {
  compileToolOrder,
  restByStability,
} from "../../src/kinds/tool_order.ts";
import { orderTools } from "../fixtures.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** Fixed so that a failure replays: fast-check prints it with the path. */
const SEED = 20261202;
const OPTIONS = { seed: SEED, numRuns: fuzzRuns(1000) };

// Names whose code-unit, code-point and locale orders disagree.
const POOL = [
  "a",
  "B",
  "b",
  "Z",
  "_",
  "_x",
  "a_b",
  "aa",
  "é",
  "z",
  "10",
  "9",
  "shell",
  "\u{1F600}",
  "\uFB00",
];
const KNOWN = new Set(POOL);

/** UTF-16 code-unit comparison, written out by hand. */
function compareCodeUnits(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = a.charCodeAt(i) - b.charCodeAt(i);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

/**
 * The reference model of SPEC 4.6: walk the order; a listed name contributes
 * its tools in collection order, the rest entry contributes every unlisted
 * name in code-unit order, each with its tools in collection order.
 */
function referenceOrder(
  tools: readonly ToolSchema[],
  toolOrder: readonly string[] = [TOOL_ORDER_REST],
): ToolSchema[] {
  const withName = (name: string) => tools.filter((t) => t.name === name);
  const unlisted = [...new Set(tools.map((t) => t.name))]
    .filter((name) => !toolOrder.includes(name))
    .sort(compareCodeUnits);
  return toolOrder.flatMap((entry) =>
    entry === TOOL_ORDER_REST ? unlisted.flatMap(withName) : withName(entry)
  );
}

let serial = 0;
function makeTool(name: string): ToolSchema {
  serial += 1;
  return { name, description: `#${serial}`, parameters: { serial } };
}

/** Tools with distinct names, in two independent random orders. */
const uniqueToolsArb = fc.uniqueArray(fc.constantFrom(...POOL)).chain(
  (names) => {
    const tools = names.map(makeTool);
    return fc.tuple(
      fc.constant(tools),
      fc.shuffledSubarray(tools, {
        minLength: tools.length,
        maxLength: tools.length,
      }),
    );
  },
);

/** Tools where names repeat (and one object may appear twice). */
const duplicateToolsArb = fc.array(fc.constantFrom(...POOL.slice(0, 5)), {
  maxLength: 12,
}).chain((names) => {
  const tools = names.map(makeTool);
  return fc.array(fc.nat(), { maxLength: 2 }).map((picks) => [
    ...tools,
    ...(tools.length === 0 ? [] : picks.map((p) => tools[p % tools.length])),
  ]);
});

/** A valid toolOrder: known names (present or not) plus the rest, anywhere. */
const toolOrderArb = fc.tuple(fc.subarray(POOL), fc.nat()).chain((
  [listed, at],
) =>
  fc.shuffledSubarray(listed, {
    minLength: listed.length,
    maxLength: listed.length,
  }).map((shuffled) => {
    const order = [...shuffled];
    order.splice(at % (order.length + 1), 0, TOOL_ORDER_REST);
    return order;
  })
);

/** Tools with unique names (shuffled) or with shared names. */
const anyToolsArb = fc.oneof(
  uniqueToolsArb.map(([, shuffled]) => shuffled),
  duplicateToolsArb,
);

const maybeToolOrderArb = fc.option(toolOrderArb, { nil: undefined });

function run(
  tools: readonly ToolSchema[],
  toolOrder: readonly string[] | undefined,
): ToolSchema[] {
  return toolOrder === undefined ? orderTools(tools) : orderTools(tools, {
    plan: compileToolOrder(toolOrder),
    knownNames: KNOWN,
  });
}

function countBy<T>(items: readonly T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

describe(`orderTools: property (seed ${SEED})`, () => {
  it("gives the same order under every permutation of the input", () => {
    fc.assert(
      fc.property(
        uniqueToolsArb,
        maybeToolOrderArb,
        ([tools, shuffled], order) => {
          assert.deepEqual(run(shuffled, order), run(tools, order));
        },
      ),
      OPTIONS,
    );
  });

  it("gives the same name sequence under permutation when names repeat", () => {
    fc.assert(
      fc.property(
        duplicateToolsArb.chain((tools) =>
          fc.tuple(
            fc.constant(tools),
            fc.shuffledSubarray(tools, {
              minLength: tools.length,
              maxLength: tools.length,
            }),
          )
        ),
        maybeToolOrderArb,
        ([tools, shuffled], order) => {
          const names = (list: ToolSchema[]) => list.map((t) => t.name);
          assert.deepEqual(
            names(run(shuffled, order)),
            names(run(tools, order)),
          );
        },
      ),
      OPTIONS,
    );
  });

  it("agrees with the reference model, duplicates in collection order", () => {
    fc.assert(
      fc.property(
        anyToolsArb,
        maybeToolOrderArb,
        (tools, order) => {
          const actual = run(tools, order);
          const expected = referenceOrder(tools, order);
          assert.equal(actual.length, expected.length);
          actual.forEach((tool, i) =>
            assert.equal(tool, expected[i], `at ${i}`)
          );
        },
      ),
      OPTIONS,
    );
  });

  it("returns a permutation of the input (nothing dropped or added), input untouched", () => {
    fc.assert(
      fc.property(
        anyToolsArb,
        maybeToolOrderArb,
        (tools, order) => {
          const before = [...tools];
          const result = run(tools, order);
          assert.notEqual(result, tools);
          assert.deepEqual(countBy(result), countBy(tools));
          assert.equal(tools.length, before.length);
          tools.forEach((tool, i) => assert.equal(tool, before[i]));
        },
      ),
      OPTIONS,
    );
  });
});

/**
 * The reference model of SPEC 8.2: walk the order; a listed name contributes
 * its tool, the rest entry every unlisted tool by stability, then code-unit
 * name.
 */
function referenceStabilityOrder(
  tools: readonly ToolSchema[],
  rankOf: ReadonlyMap<string, number>,
  toolOrder: readonly string[] = [TOOL_ORDER_REST],
): ToolSchema[] {
  const unlisted = tools.filter((t) => !toolOrder.includes(t.name)).sort(
    (a, b) =>
      rankOf.get(a.name)! - rankOf.get(b.name)! ||
      compareCodeUnits(a.name, b.name),
  );
  return toolOrder.flatMap((entry) =>
    entry === TOOL_ORDER_REST ? unlisted : tools.filter((t) => t.name === entry)
  );
}

describe(`restByStability: property (seed ${SEED})`, () => {
  it("agrees with the reference model of SPEC 8.2 under every input order", () => {
    fc.assert(
      fc.property(
        uniqueToolsArb,
        maybeToolOrderArb,
        fc.array(fc.constantFrom(0, 1, 2), {
          minLength: POOL.length,
          maxLength: POOL.length,
        }),
        ([tools, shuffled], order, ranks) => {
          const rankOf = new Map(POOL.map((name, i) => [name, ranks[i]]));
          const expected = referenceStabilityOrder(tools, rankOf, order);
          for (const input of [tools, shuffled]) {
            const ordered = run(input, order);
            const placed = restByStability(ordered, {
              ranks: ordered.map((t) => rankOf.get(t.name)!),
              plan: order === undefined ? undefined : compileToolOrder(order),
            });
            assert.deepEqual(placed, expected);
          }
        },
      ),
      OPTIONS,
    );
  });
});
