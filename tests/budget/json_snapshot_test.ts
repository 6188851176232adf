/**
 * The tool list's JSON snapshot: the walk says "same JSON" only when
 * `JSON.stringify` would write the same text, and a budget sees a
 * listener's change deep inside a tool of a steady list.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  jsonSnapshot,
  writesSnapshot,
} from "../../src/budget/json_snapshot.ts";

/** Fixed so that a failure replays. */
const SEED = 8_009;

/** Small values from few keys and leaves, so that two of them often agree. */
const { value: smallValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(0, -0, 1, NaN, Infinity, "x", "", true, false, null),
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "1", "toJSON"), tie("value"), {
      maxKeys: 3,
    }),
  ),
}));

/** Data this deep is checked by the generic walk, not compiled. */
function nested(value: unknown, depth = 40): unknown {
  return depth === 0 ? value : [nested(value, depth - 1)];
}

const FORMS: [string, (value: unknown) => unknown][] = [
  ["compiled", (value) => value],
  ["walked", (value) => nested(value)],
];

for (const [form, wrap] of FORMS) {
  describe(`writesSnapshot (${form})`, () => {
    function snapshotOf(value: unknown) {
      return jsonSnapshot(JSON.stringify(wrap(value)));
    }
    function writes(live: unknown, snapshot: ReturnType<typeof snapshotOf>) {
      return writesSnapshot(wrap(live), snapshot);
    }

    it("answers true for a copy of the data the snapshot came from", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const copy = JSON.parse(JSON.stringify(value));
          assert.equal(writes(copy, snapshotOf(value)), true);
        }),
        { seed: SEED, numRuns: fuzzRuns(300) },
      );
    });

    it("answers true only when JSON.stringify writes the same text", () => {
      let agreed = 0;
      fc.assert(
        fc.property(smallValue, smallValue, (live, other) => {
          const json = JSON.stringify(wrap(other));
          if (JSON.stringify(other) === undefined) return;
          if (writes(live, jsonSnapshot(json))) {
            agreed++;
            assert.equal(JSON.stringify(wrap(live)), json);
          }
        }),
        { seed: SEED, numRuns: fuzzRuns(2_000) },
      );
      // The property means something only if the walk said yes sometimes.
      assert.ok(agreed > 0);
    });

    it("answers false for what JSON writes differently", () => {
      const snapshot = snapshotOf({ a: 1, b: { c: [1, "x"] } });
      assert.equal(writes({ a: 1, b: { c: [1, "x"] } }, snapshot), true);
      assert.equal(writes({ b: { c: [1, "x"] }, a: 1 }, snapshot), false);
      assert.equal(writes({ a: 1, b: { c: [1, "y"] } }, snapshot), false);
      assert.equal(writes({ a: 1, b: { c: [1] } }, snapshot), false);
      assert.equal(writes({ a: 1, b: { c: [1, "x", 2] } }, snapshot), false);
      const listed = Object.assign([1, "x"], { toJSON: () => [] });
      assert.equal(writes({ a: 1, b: { c: listed } }, snapshot), false);
      assert.equal(
        writes({ a: 1, b: { c: [1, "x"] }, d: undefined }, snapshot),
        false,
      );
      assert.equal(
        writes({ a: 1, b: { c: { 0: 1, 1: "x" } } }, snapshot),
        false,
      );
      const hidden = { a: 1, b: { c: [1, "x"] } };
      Object.defineProperty(hidden.b, "toJSON", { value: () => "other" });
      assert.equal(writes(hidden, snapshot), false);
      // JSON leaves out a key that is not enumerable, though it reads the same.
      const unlisted = { a: 1, b: { c: [1, "x"] } };
      Object.defineProperty(unlisted, "b", { enumerable: false });
      assert.equal(writes(unlisted, snapshot), false);
      const inherited = Object.create({ toJSON: () => 1 });
      Object.assign(inherited, { a: 1, b: { c: [1, "x"] } });
      assert.equal(writes(inherited, snapshot), false);
    });

    it("answers false when reading the value throws", () => {
      const snapshot = snapshotOf({ a: 1 });
      const throwing = {
        get a(): number {
          throw new Error("no");
        },
      };
      assert.equal(writes(throwing, snapshot), false);
      const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
      assert.equal(writes(proxy, snapshot), true);
      revoke();
      assert.equal(writes(proxy, snapshot), false);
    });
  });
}

describe("A budget on a steady tool list", () => {
  it("counts a listener's change deep inside a tool", async () => {
    const tool: ToolSchema = {
      name: "read",
      description: "Read.",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "A path." } },
      },
    };
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      budget: { maxTokens: 330, countTokens: (text) => text.length },
    });
    prompt.section({ name: "rules", order: 1, text: "Be brief." });
    prompt.tools(() => ({ schemas: [tool] }));
    let grow = false;
    prompt.onAssemble((assembly, _context, next) => {
      if (grow) {
        const parameters = assembly.tools[0].parameters as {
          properties: { path: { description: string } };
        };
        parameters.properties.path.description = "p".repeat(200);
      }
      return next();
    });
    // Steady: the snapshot is taken and then used.
    for (let step = 0; step < 3; step++) {
      assert.equal((await prompt.assemble()).pruned, undefined);
    }
    grow = true;
    const grown = await prompt.assemble();
    assert.deepEqual(grown.pruned, [{ name: "rules", tokens: 9 }]);
    grow = false;
    assert.equal((await prompt.assemble()).pruned, undefined);
    await prompt.dispose();
  });
});

// Last in the file: once a host forbade compiling, the module stops trying
// for the rest of the process (other files' snapshots are then walked,
// which changes no answer).
describe("A host that forbids compiling", () => {
  it("gets the walk, and any other compile error is thrown", () => {
    const original = globalThis.Function;
    const json = JSON.stringify({ a: [1, "x"], b: { c: null } });
    try {
      globalThis.Function = function () {
        throw new SyntaxError("not this one");
      } as unknown as FunctionConstructor;
      assert.throws(() => jsonSnapshot(json), SyntaxError);
      globalThis.Function = function () {
        throw new EvalError("Code generation from strings disallowed");
      } as unknown as FunctionConstructor;
      const snapshot = jsonSnapshot(json);
      globalThis.Function = original;
      assert.equal(writesSnapshot(JSON.parse(json), snapshot), true);
      assert.equal(
        writesSnapshot({ a: [1, "y"], b: { c: null } }, snapshot),
        false,
      );
    } finally {
      globalThis.Function = original;
    }
  });
});
