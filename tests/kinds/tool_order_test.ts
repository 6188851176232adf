import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TOOL_ORDER_REST, type ToolSchema } from "../../mod.ts";
import {
  compileToolOrder,
  TOOL_ORDER_REST as INTERNAL_REST,
} from "../../src/kinds/tool_order.ts";
import { rejects } from "../assertions.ts";
import { orderTools, tool, tools } from "../fixtures.ts";

const REST = TOOL_ORDER_REST;

function names(list: readonly ToolSchema[]): string[] {
  return list.map((t) => t.name);
}

/** Orders `list` with `toolOrder` compiled, every listed name known. */
function ordered(list: ToolSchema[], toolOrder?: readonly string[]): string[] {
  if (toolOrder === undefined) return names(orderTools(list));
  const knownNames = new Set([
    ...names(list),
    ...toolOrder.filter((n) => n !== REST),
  ]);
  return names(
    orderTools(list, { plan: compileToolOrder(toolOrder), knownNames }),
  );
}

describe("TOOL_ORDER_REST", () => {
  it("is the documented reserved name, exported from mod.ts", () => {
    assert.equal(TOOL_ORDER_REST, "<unlisted-tools>");
    assert.equal(INTERNAL_REST, TOOL_ORDER_REST);
  });
});

describe("compileToolOrder: shape", () => {
  for (
    const [label, value, part] of [
      ["undefined", undefined, "undefined"],
      ["null", null, "null"],
      ["a string", "shell", '"shell"'],
      ["an object", { 0: REST, length: 1 }, "an object"],
      ["a number", 3, "3"],
    ] as const
  ) {
    it(`rejects ${label} (not an array)`, () => {
      assert.throws(
        () => compileToolOrder(value),
        rejects("INVALID_TOOL_ORDER", part, /array/, `"${REST}"`),
      );
    });
  }

  for (
    const [label, value, part] of [
      ["a number entry", ["a", REST, 42], /toolOrder\[2\] is 42\b/],
      ["a null entry", [REST, null], /toolOrder\[1\] is null\b/],
      ["an undefined entry", ["a", undefined, REST], /toolOrder\[1\]/],
      ["an object entry", [{ name: "a" }, REST], /toolOrder\[0\] is an object/],
      ["an empty entry", ["a", "", REST], /toolOrder\[1\] is ""/],
      ["a hole", [, REST], /toolOrder\[0\] is undefined/],
    ] as const
  ) {
    it(`rejects ${label}, naming its index and value`, () => {
      assert.throws(
        () => compileToolOrder(value),
        rejects("INVALID_TOOL_ORDER", part, /non-empty/),
      );
    });
  }

  it("rejects a duplicate name, naming it and both positions", () => {
    assert.throws(
      () => compileToolOrder(["shell", REST, "read", "shell"]),
      rejects("INVALID_TOOL_ORDER", '"shell"', /twice/, /\b0\b/, /\b3\b/),
    );
  });

  it("rejects a missing rest entry, naming TOOL_ORDER_REST", () => {
    for (const value of [[], ["shell", "read"]]) {
      assert.throws(
        () => compileToolOrder(value),
        rejects("INVALID_TOOL_ORDER", `"${REST}"`, /exactly once/),
      );
    }
  });

  it("rejects the rest entry twice, naming it", () => {
    assert.throws(
      () => compileToolOrder([REST, "shell", REST]),
      rejects("INVALID_TOOL_ORDER", `"${REST}"`, /twice/),
    );
  });

  it("accepts the rest entry alone, and frozen arrays, without mutating them", () => {
    const value = Object.freeze(["b", REST, "a"]);
    const plan = compileToolOrder(value);
    assert.deepEqual(value, ["b", REST, "a"]);
    assert.deepEqual(
      names(
        orderTools(tools("x", "a", "b"), {
          plan,
          knownNames: new Set(["a", "b"]),
        }),
      ),
      ["b", "x", "a"],
    );
    assert.deepEqual(
      names(orderTools(tools("b", "a"), { plan: compileToolOrder([REST]) })),
      ["a", "b"],
    );
  });
});

describe("orderTools: without a toolOrder", () => {
  it("sorts by UTF-16 code unit, not by locale or code point", () => {
    const input = tools(
      "é",
      "b",
      "\uFB00", // U+FB00: after U+D83D as a code unit, before U+1F600 as a code point
      "Z",
      "a_b",
      "aa",
      "\u{1F600}", // surrogate pair U+D83D U+DE00
      "_",
      "B",
      "10",
      "a",
      "z",
      "9",
      "ab",
    );
    const expected = [
      "10",
      "9",
      "B",
      "Z",
      "_",
      "a",
      "a_b",
      "aa",
      "ab",
      "b",
      "z",
      "é",
      "\u{1F600}",
      "\uFB00",
    ];
    assert.deepEqual(ordered(input), expected);
    // The fixture discriminates: a locale order would differ.
    assert.notDeepEqual(
      [...expected].sort((x, y) => x.localeCompare(y)),
      expected,
    );
  });

  it("is stable: names that repeat (the registry never passes any) keep their input order", () => {
    const input = [
      tool("x", "first x"),
      tool("b"),
      tool("x", "second x"),
      tool("a"),
      tool("x", "third x"),
    ];
    assert.deepEqual(
      orderTools(input).map((t) => t.description),
      ["a", "b", "first x", "second x", "third x"],
    );
  });

  it("returns a new array and leaves the input untouched", () => {
    const input = Object.freeze(tools("c", "a", "b"));
    const before = structuredClone(input);
    const result = orderTools(input);
    assert.notEqual(result, input);
    assert.deepEqual(input, before);
    assert.deepEqual(names(result), ["a", "b", "c"]);
    result.pop();
    assert.equal(input.length, 3);
  });

  it("handles no tools", () => {
    assert.deepEqual(orderTools([]), []);
  });
});

describe("orderTools: with a toolOrder", () => {
  it("puts listed tools at their listed position and the rest at the rest entry", () => {
    assert.deepEqual(
      ordered(tools("finish", "grep", "shell", "edit", "read"), [
        "shell",
        "read",
        REST,
        "finish",
      ]),
      ["shell", "read", "edit", "grep", "finish"],
    );
  });

  it("uses the listed order, not name order, for listed tools", () => {
    assert.deepEqual(
      ordered(tools("a", "m", "z"), ["z", "a", "m", REST]),
      ["z", "a", "m"],
    );
  });

  it("places the rest at the start, in the middle or at the end", () => {
    const input = tools("q", "last", "b", "first", "a");
    assert.deepEqual(ordered(input, [REST, "first", "last"]), [
      "a",
      "b",
      "q",
      "first",
      "last",
    ]);
    assert.deepEqual(ordered(input, ["first", REST, "last"]), [
      "first",
      "a",
      "b",
      "q",
      "last",
    ]);
    assert.deepEqual(ordered(input, ["first", "last", REST]), [
      "first",
      "last",
      "a",
      "b",
      "q",
    ]);
  });

  it("orders the rest by code unit", () => {
    assert.deepEqual(
      ordered(tools("é", "a", "z", "_", "B", "shell"), ["shell", REST]),
      ["shell", "B", "_", "a", "z", "é"],
    );
  });

  it("treats a listed, known tool that is not collected as a normal absence", () => {
    const result = orderTools(tools("b", "a"), {
      plan: compileToolOrder(["restricted", REST, "b"]),
      knownNames: new Set(["a", "b", "restricted"]),
    });
    assert.deepEqual(names(result), ["a", "b"]);
  });

  it("keeps the collection order of duplicates, listed or in the rest", () => {
    const input = [
      tool("r", "r1"),
      tool("x", "x1"),
      tool("r", "r2"),
      tool("x", "x2"),
      tool("a", "a1"),
    ];
    const result = orderTools(input, {
      plan: compileToolOrder(["x", REST]),
      knownNames: new Set(["x", "r", "a"]),
    });
    assert.deepEqual(result.map((t) => t.description), [
      "x1",
      "x2",
      "a1",
      "r1",
      "r2",
    ]);
  });

  it("never drops a tool, and does not mutate the input", () => {
    const input = Object.freeze([
      tool("b"),
      tool("a"),
      tool("b", "again"),
      tool("c"),
    ]);
    const result = orderTools(input, {
      plan: compileToolOrder(["c", REST]),
      knownNames: new Set(["a", "b", "c"]),
    });
    assert.equal(result.length, input.length);
    for (const t of input) assert.ok(result.includes(t));
    assert.deepEqual(names(input), ["b", "a", "b", "c"]);
  });
});

describe("orderTools: unknown listed names", () => {
  it("names every unknown entry and lists known tools in code-unit order", () => {
    assert.throws(
      () =>
        orderTools(tools("shell"), {
          plan: compileToolOrder(["nope", "shell", REST, "zzz"]),
          knownNames: new Set(["shell", "b", "é", "A", "_x"]),
        }),
      (error) =>
        rejects(
          "UNKNOWN_TOOL_IN_ORDER",
          '"nope"',
          '"zzz"',
          "known tools: A, _x, b, shell, é.",
        )(error) &&
        // "shell" is known: it must not be reported as unknown.
        !/"shell"/.test((error as Error).message),
    );
  });

  it("says that no tool is known when the universe is empty", () => {
    for (const knownNames of [new Set<string>(), undefined]) {
      assert.throws(
        () =>
          orderTools([], {
            plan: compileToolOrder(["shell", REST]),
            knownNames,
          }),
        rejects(
          "UNKNOWN_TOOL_IN_ORDER",
          '"shell"',
          /no tool provider knows any tool/,
        ),
      );
    }
  });

  it("does not check known names without a plan", () => {
    assert.deepEqual(
      names(orderTools(tools("b", "a"), { knownNames: new Set() })),
      ["a", "b"],
    );
  });
});

describe("orderTools: reserved name", () => {
  it("rejects a tool named TOOL_ORDER_REST without a plan", () => {
    assert.throws(
      () => orderTools(tools("a", REST)),
      rejects("RESERVED_TOOL_NAME", `"${REST}"`),
    );
  });

  it("rejects a tool named TOOL_ORDER_REST with a plan", () => {
    assert.throws(
      () =>
        orderTools(tools(REST, "a"), {
          plan: compileToolOrder(["a", REST]),
          knownNames: new Set(["a", REST]),
        }),
      rejects("RESERVED_TOOL_NAME", `"${REST}"`),
    );
  });
});
