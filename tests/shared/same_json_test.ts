/**
 * The one "same JSON" check (issue 45): `writesSameJson` answers exactly
 * what comparing the two `JSON.stringify` strings answers, on both of its
 * paths (the walked plan, and the plan compiled after 16 comparisons), for
 * JSON data and for the values JSON writes otherwise than it holds; the
 * list form does the same for a whole list (a budget's steady tools, where
 * a listener's change deep inside a tool is counted).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  keepJson,
  writesSameJson,
  writesSameJsonList,
} from "../../src/shared/same_json.ts";

/** Fixed so that a failure replays. */
const SEED = 8_009;

/** The first comparisons walk the plan, the later ones run it compiled. */
const USES = 20;

/** `writesSameJson` on every path agrees with `JSON.stringify`. */
function agrees(kept: unknown, value: unknown): void {
  const held = keepJson(kept);
  const expected = JSON.stringify(value) === JSON.stringify(kept);
  for (let use = 0; use < USES; use++) {
    assert.equal(
      writesSameJson(value, held),
      expected,
      `${JSON.stringify(kept)} vs ${JSON.stringify(value)}, use ${use}`,
    );
  }
}

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

const TOOL = {
  name: "read_file",
  description: "Read a file.",
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, lines: { type: "integer" } },
    required: ["path"],
  },
};

describe("writesSameJson", () => {
  it("finds the same definition the same, a changed one different", () => {
    agrees(TOOL, structuredClone(TOOL));
    assert.equal(writesSameJson(structuredClone(TOOL), keepJson(TOOL)), true);
    const changed = structuredClone(TOOL);
    changed.parameters.required.push("lines");
    agrees(TOOL, changed);
    assert.equal(writesSameJson(changed, keepJson(TOOL)), false);
    const renamed = { ...TOOL, name: "read" };
    agrees(TOOL, renamed);
    assert.equal(writesSameJson(renamed, keepJson(TOOL)), false);
  });

  it("tells fields in another order apart (other bytes)", () => {
    const { name, description, parameters } = TOOL;
    agrees(TOOL, { description, name, parameters });
  });

  it("agrees with JSON on values it writes otherwise than it holds", () => {
    const hidden = { a: 1, b: { c: [1, "x"] } };
    Object.defineProperty(hidden.b, "toJSON", { value: () => "other" });
    const unlisted = { a: 1, b: { c: [1, "x"] } };
    Object.defineProperty(unlisted, "b", { enumerable: false });
    const inherited = Object.create({ toJSON: () => 1 });
    Object.assign(inherited, { a: 1, b: { c: [1, "x"] } });
    const cases: [unknown, unknown][] = [
      [{ a: 1 }, { a: 1, b: undefined }],
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
      [{ a: 1, b: { c: [1, "x"] } }, hidden],
      [{ a: 1, b: { c: [1, "x"] } }, unlisted],
      [{ a: 1, b: { c: [1, "x"] } }, inherited],
      [
        { a: [1, "x"] },
        { a: Object.assign([1, "x"], { toJSON: () => [] }) },
      ],
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
      { seed: SEED, numRuns: fuzzRuns(200) },
    );
  });

  it("agrees with JSON on small values that often write alike", () => {
    let same = 0;
    fc.assert(
      fc.property(smallValue, smallValue, (kept, value) => {
        if (JSON.stringify(kept) === undefined) return;
        agrees(kept, value);
        if (JSON.stringify(kept) === JSON.stringify(value)) same++;
      }),
      { seed: SEED, numRuns: fuzzRuns(1_000) },
    );
    // The property means something only if the two were sometimes equal.
    assert.ok(same > 0);
  });

  it("throws what JSON.stringify throws when reading the value throws", () => {
    const throwing = {
      get a(): number {
        throw new Error("no");
      },
    };
    assert.throws(() => writesSameJson(throwing, keepJson({ a: 1 })), /no/);
    const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
    assert.equal(writesSameJson(proxy, keepJson({ a: 1 })), true);
    revoke();
    assert.throws(() => writesSameJson(proxy, keepJson({ a: 1 })), TypeError);
  });

  it("compares with the value as it was kept, not as it became", () => {
    const kept = structuredClone(TOOL);
    const held = keepJson(kept);
    kept.description = "Changed after it was kept.";
    for (let use = 0; use < USES; use++) {
      assert.equal(writesSameJson(structuredClone(TOOL), held), true);
      assert.equal(writesSameJson(kept, held), false);
    }
  });

  it("walks a value too large or too deep to compile, and agrees", () => {
    const kept = { items: Array.from({ length: 1500 }, (_, i) => ({ i })) };
    agrees(kept, structuredClone(kept));
    const changed = structuredClone(kept);
    changed.items[1400].i = -1;
    agrees(kept, changed);
    const reordered = structuredClone(kept) as { items: object[] };
    reordered.items[3] = { j: 1, i: 3 };
    agrees(kept, reordered);
    let deep: unknown = { leaf: true };
    for (let depth = 0; depth < 80; depth++) deep = [deep];
    agrees(deep, structuredClone(deep));
    agrees(deep, [[[1]]]);
  });
});

describe("writesSameJsonList", () => {
  it("is true only for a list writing the same JSON, element by element", () => {
    const kept = [TOOL, { name: "shell" }].map(keepJson);
    for (let use = 0; use < USES; use++) {
      assert.equal(
        writesSameJsonList(structuredClone([TOOL, { name: "shell" }]), kept),
        true,
      );
      assert.equal(writesSameJsonList([TOOL], kept), false);
      assert.equal(writesSameJsonList([{ name: "shell" }, TOOL], kept), false);
      assert.equal(writesSameJsonList({ 0: TOOL, 1: {} }, kept), false);
      const listed = Object.assign([TOOL, { name: "shell" }], {
        toJSON: () => [],
      });
      assert.equal(writesSameJsonList(listed, kept), false);
    }
  });
});

describe("writesSameJson with a polluted Object.prototype", () => {
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
    // Steady past the compiled path's threshold, then changed.
    for (let step = 0; step < USES; step++) {
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
// for the rest of the process (later comparisons walk, which changes no
// answer).
describe("A host that forbids compiling", () => {
  it("gets the walk, and any other compile error is thrown", () => {
    const original = globalThis.Function;
    const value = { a: [1, "x"], b: { c: null } };
    try {
      globalThis.Function = function () {
        throw new SyntaxError("not this one");
      } as unknown as FunctionConstructor;
      const first = keepJson(value);
      assert.throws(() => {
        for (let use = 0; use < USES; use++) writesSameJson(value, first);
      }, SyntaxError);
      globalThis.Function = function () {
        throw new EvalError("Code generation from strings disallowed");
      } as unknown as FunctionConstructor;
      const kept = keepJson({ ...value, d: 1 });
      for (let use = 0; use < USES; use++) {
        assert.equal(writesSameJson({ ...value, d: 1 }, kept), true);
        assert.equal(writesSameJson({ ...value, d: 2 }, kept), false);
      }
      globalThis.Function = original;
      assert.equal(writesSameJson({ ...value, d: 1 }, kept), true);
    } finally {
      globalThis.Function = original;
    }
  });
});
