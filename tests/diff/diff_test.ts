import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  diffAssemblies,
  type PromptAssembly,
  type PromptDiff,
  renderPrompt,
  SystemPrompt,
  SystemPromptError,
  type ToolSchema,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

type Assembly = PromptAssembly & { runtimeContext?: AssembledSection[] };

function section(name: string, text: string, order = 0): AssembledSection {
  return { name, order, text };
}

function tool(name: string, description = `The ${name} tool.`): ToolSchema {
  return { name, description, parameters: { type: "object" } };
}

function assembly(parts: Partial<Assembly> = {}): Assembly {
  return { sections: [], tools: [], variables: {}, ...parts };
}

/** Fields that must be absent, not merely undefined. */
function assertAbsent(object: object, key: string): void {
  assert.ok(!Object.hasOwn(object, key), `${key} should be absent`);
}

const base: Assembly = assembly({
  sections: [
    section("identity", "You are an agent.", -100),
    section("persona", "You work on {{model}}.", 0),
    section("tools:shell", "Prefer short commands.", 110),
  ],
  tools: [tool("read_file"), tool("shell")],
  variables: { model: "m1", cwd: "/work" },
});

describe("diffAssemblies: equal assemblies", () => {
  it("reports an assembly against itself, and against a copy, as identical", () => {
    for (const other of [base, structuredClone(base)]) {
      const diff = diffAssemblies(base, other);
      const length = renderPrompt(base).length;
      const expected: PromptDiff = {
        identical: true,
        tools: { added: [], removed: [], changed: [], reordered: false },
        activeTools: { added: [], removed: [] },
        sections: { added: [], removed: [], changed: [] },
        variables: { added: [], removed: [], changed: [] },
        runtimeContext: { added: [], removed: [], changed: [] },
        prompt: { stablePrefix: length },
        cache: { toolsStable: true, promptStablePrefix: length },
      };
      assert.deepEqual(diff, expected);
      assertAbsent(diff.prompt, "firstChangedOffset");
      assertAbsent(diff.cache, "brokenBy");
      assertAbsent(diff.tools, "firstChanged");
      assertAbsent(diff.sections, "firstChanged");
    }
  });

  it("compares two assemblies of one registry for one step as identical", async () => {
    const prompt = new SystemPrompt({ persona: "Work in {{cwd}}." });
    prompt.variable("cwd", () => "/work/app");
    prompt.tools(() => ({ schemas: [tool("shell")] }));
    const diff = diffAssemblies(
      await prompt.assemble(),
      await prompt.assemble(),
    );
    assert.equal(diff.identical, true);
    await prompt.dispose();
  });
});

describe("diffAssemblies: tools", () => {
  it("lists added, removed and changed tools in code-unit order", () => {
    const before = assembly({
      tools: [tool("b"), tool("é"), tool("a"), tool("keep"), tool("x")],
    });
    const after = assembly({
      tools: [
        tool("B"),
        tool("keep"),
        tool("b", "new description"),
        tool("é", "changed too"),
        tool("Z"),
      ],
    });
    const diff = diffAssemblies(before, after);
    // Code units: "B" (0x42) < "Z" (0x5a) < "a" < "b" < "é"; a locale
    // comparison would put "B" after "a".
    assert.deepEqual(diff.tools.added, ["B", "Z"]);
    assert.deepEqual(diff.tools.removed, ["a", "x"]);
    assert.deepEqual(diff.tools.changed, ["b", "é"]);
    assert.equal(diff.identical, false);
  });

  it("counts a tool as changed when its JSON differs, key order included", () => {
    const before = assembly({
      tools: [{ name: "t", description: "d", parameters: { a: 1, b: 2 } }],
    });
    const reordered = assembly({
      tools: [{ name: "t", description: "d", parameters: { b: 2, a: 1 } }],
    });
    const copied = assembly({
      tools: [{ name: "t", description: "d", parameters: { a: 1, b: 2 } }],
    });
    assert.deepEqual(diffAssemblies(before, reordered).tools.changed, ["t"]);
    assert.deepEqual(diffAssemblies(before, copied).tools.changed, []);
    assert.equal(diffAssemblies(before, copied).identical, true);
  });

  it("reports a position change alone as reordered, not changed", () => {
    const before = assembly({ tools: [tool("a"), tool("b"), tool("c")] });
    const after = assembly({ tools: [tool("a"), tool("c"), tool("b")] });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.tools, {
      added: [],
      removed: [],
      changed: [],
      reordered: true,
      firstChanged: 1,
    });
    assert.equal(diff.cache.brokenBy, "tool:c");
  });

  it("does not call an insertion or a removal a reorder", () => {
    const before = assembly({ tools: [tool("b"), tool("c")] });
    const inserted = diffAssemblies(
      before,
      assembly({ tools: [tool("a"), tool("b"), tool("c")] }),
    );
    assert.equal(inserted.tools.reordered, false);
    assert.equal(inserted.tools.firstChanged, 0);
    const removed = diffAssemblies(before, assembly({ tools: [tool("c")] }));
    assert.equal(removed.tools.reordered, false);
    assert.equal(removed.tools.firstChanged, 0);
  });

  it("gives the first differing index, also when one list extends the other", () => {
    const three = [tool("a"), tool("b"), tool("c")];
    const changedLast = [tool("a"), tool("b"), tool("c", "new")];
    const cases: [ToolSchema[], ToolSchema[], number][] = [
      [three, changedLast, 2],
      [three.slice(0, 2), three, 2], // appended
      [three, three.slice(0, 1), 1], // truncated
      [[], three, 0],
    ];
    for (const [before, after, index] of cases) {
      const diff = diffAssemblies(
        assembly({ tools: before }),
        assembly({ tools: after }),
      );
      assert.equal(diff.tools.firstChanged, index);
      assert.equal(diff.cache.toolsStable, false);
    }
  });
});

describe("diffAssemblies: sections", () => {
  it("lists added, removed and changed sections in code-unit order", () => {
    const before = assembly({
      sections: [section("keep", "k"), section("b", "1"), section("x", "x")],
    });
    const after = assembly({
      sections: [
        section("keep", "k"),
        section("b", "2"),
        section("Z", "z"),
        section("A", "a"),
      ],
    });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.added, ["A", "Z"]);
    assert.deepEqual(diff.sections.removed, ["x"]);
    assert.deepEqual(diff.sections.changed, ["b"]);
  });

  it("compares rendered text: a variable's new value changes the section", () => {
    const before = assembly({
      sections: [section("persona", "On {{model}}."), section("rules", "R")],
      variables: { model: "m1" },
    });
    const after = { ...before, variables: { model: "m2" } };
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.changed, ["persona"]);
    assert.deepEqual(diff.variables.changed, ["model"]);
    assert.equal(diff.cache.brokenBy, "section:persona");
  });

  it("does not count a template rewrite that renders the same bytes", () => {
    const before = assembly({
      sections: [section("persona", "On {{model}}.")],
      variables: { model: "m1" },
    });
    const after = assembly({
      sections: [section("persona", "On m1.")],
      variables: { model: "m1" },
    });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.changed, []);
    assert.equal(diff.identical, true);
  });

  it("counts an order change as a change", () => {
    const before = assembly({ sections: [section("a", "A", 1)] });
    const after = assembly({ sections: [section("a", "A", 2)] });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.changed, ["a"]);
    assert.equal(diff.sections.firstChanged, "a");
    // The bytes are the same: the prompt, and so the cache, is unaffected.
    assert.equal(diff.identical, true);
    assertAbsent(diff.cache, "brokenBy");
  });

  it("names the first position where the lists differ", () => {
    const abc = [section("a", "A"), section("b", "B"), section("c", "C")];
    const cases: [AssembledSection[], AssembledSection[], string][] = [
      [abc, [abc[0], abc[2]], "b"], // removed in the middle: the removed one
      [[abc[0], abc[2]], abc, "b"], // inserted: the inserted one
      [abc, [abc[0], section("b", "B2"), abc[2]], "b"], // changed
      [abc, [abc[0], abc[1], abc[2], section("d", "D")], "d"], // appended
      [abc, [abc[0], abc[1]], "c"], // truncated
      [abc, [abc[0], abc[2], abc[1]], "c"], // moved: the one now there
      [abc, [abc[0], section("x", "X"), abc[2]], "b"], // replaced: the removed one
    ];
    for (const [before, after, name] of cases) {
      const diff = diffAssemblies(
        assembly({ sections: before }),
        assembly({ sections: after }),
      );
      assert.equal(diff.sections.firstChanged, name);
      assert.equal(diff.cache.brokenBy, `section:${name}`);
    }
  });

  it("lists an added empty section without breaking the cache", () => {
    const before = assembly({ sections: [section("a", "A")] });
    const after = assembly({
      sections: [section("empty", "", -1), section("a", "A")],
    });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.sections.added, ["empty"]);
    assert.equal(diff.sections.firstChanged, "empty");
    assert.equal(diff.identical, true);
    assertAbsent(diff.cache, "brokenBy");
  });

  it("blames the first section whose bytes changed, skipping empty ones", () => {
    const before = assembly({
      sections: [section("a", "A"), section("b", "B")],
    });
    const after = assembly({
      sections: [section("a", "A"), section("empty", ""), section("b", "B2")],
    });
    const diff = diffAssemblies(before, after);
    assert.equal(diff.sections.firstChanged, "empty");
    assert.equal(diff.cache.brokenBy, "section:b");
  });
});

describe("diffAssemblies: variables", () => {
  it("lists added, removed and changed variables, undefined included", () => {
    const before = assembly({
      variables: { same: "s", gone: "g", set: undefined, unset: "u", b: "1" },
    });
    const after = assembly({
      variables: { same: "s", set: "now", unset: undefined, b: "2", a: "n" },
    });
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.variables, {
      added: ["a"],
      removed: ["gone"],
      changed: ["b", "set", "unset"],
    });
    // No section references them: the request bytes are the same.
    assert.equal(diff.identical, true);
  });

  it("reads own keys only, whatever the prototype", () => {
    const bare: Record<string, string | undefined> = Object.create(null);
    bare.model = "m";
    const diff = diffAssemblies(
      assembly({ variables: bare }),
      assembly({ variables: { model: "m" } }),
    );
    assert.deepEqual(diff.variables, { added: [], removed: [], changed: [] });
  });
});

describe("diffAssemblies: prompt offsets", () => {
  it("gives the first changed UTF-16 offset and the stable prefix", () => {
    const before = assembly({
      sections: [section("a", "héllo"), section("b", "wörld 😀")],
    });
    const after = assembly({
      sections: [section("a", "héllo"), section("b", "wörld 😃")],
    });
    const diff = diffAssemblies(before, after);
    // "héllo\n\nwörld " is 13 code units; the two emoji share their high
    // surrogate, so the first differing code unit is at 14.
    assert.deepEqual(diff.prompt, { firstChangedOffset: 14, stablePrefix: 14 });
    assert.equal(diff.cache.promptStablePrefix, 14);
  });

  it("reports a pure extension at the end of the shorter prompt", () => {
    const before = assembly({ sections: [section("a", "A")] });
    const after = assembly({
      sections: [section("a", "A"), section("b", "B")],
    });
    assert.deepEqual(diffAssemblies(before, after).prompt, {
      firstChangedOffset: 1,
      stablePrefix: 1,
    });
    assert.deepEqual(diffAssemblies(after, before).prompt, {
      firstChangedOffset: 1,
      stablePrefix: 1,
    });
  });

  it("offsets match renderPrompt's output for a registry's assemblies", async () => {
    const prompt = new SystemPrompt({ persona: "Model {{model}}." });
    let model = "first";
    prompt.variable("model", () => model);
    prompt.section({ name: "rules", order: 10, text: "Be brief." });
    const before = await prompt.assemble();
    model = "second";
    const after = await prompt.assemble();
    const diff = diffAssemblies(before, after);
    const offset = renderPrompt(before).indexOf("first");
    assert.equal(diff.prompt.firstChangedOffset, offset);
    assert.equal(renderPrompt(after).indexOf("second"), offset);
    assert.equal(diff.cache.brokenBy, "section:deployment:persona");
    await prompt.dispose();
  });
});

describe("diffAssemblies: runtime context", () => {
  const withContext = (text: string): Assembly => ({
    ...base,
    runtimeContext: [section("date", text)],
  });

  it("counts the runtime context in identical, not in the cache", () => {
    const diff = diffAssemblies(withContext("Monday"), withContext("Tuesday"));
    assert.equal(diff.identical, false);
    assert.equal(diff.cache.toolsStable, true);
    assert.equal(diff.cache.promptStablePrefix, renderPrompt(base).length);
    assertAbsent(diff.cache, "brokenBy");
    assertAbsent(diff.prompt, "firstChangedOffset");
  });

  it("lists the runtime context's entries added, removed and changed", () => {
    const before: Assembly = {
      ...base,
      runtimeContext: [
        section("date", "Monday"),
        section("branch", "main"),
        section("model", "{{model}}"),
        section("same", "x"),
      ],
    };
    const after: Assembly = {
      ...base,
      variables: { ...base.variables, model: "m2" },
      runtimeContext: [
        section("date", "Tuesday"),
        section("same", "x"),
        section("user", "Ada"),
        section("model", "{{model}}"),
      ],
    };
    const diff = diffAssemblies(before, after);
    assert.deepEqual(diff.runtimeContext, {
      added: ["user"],
      removed: ["branch"],
      changed: ["date", "model"],
    });
    assert.deepEqual(
      diffAssemblies(base, withContext("Monday")).runtimeContext,
      { added: ["date"], removed: [], changed: [] },
    );
    assert.deepEqual(diffAssemblies(base, base).runtimeContext, {
      added: [],
      removed: [],
      changed: [],
    });
    const moved = {
      ...base,
      runtimeContext: [{ name: "date", order: 5, text: "Monday" }],
    };
    assert.deepEqual(
      diffAssemblies(withContext("Monday"), moved).runtimeContext.changed,
      ["date"],
      "an order change is a change",
    );
  });

  it("reads entries that share a name as one", () => {
    const twice: Assembly = {
      ...base,
      runtimeContext: [section("note", "a"), section("note", "b")],
    };
    const other: Assembly = {
      ...base,
      runtimeContext: [section("note", "a"), section("note", "c")],
    };
    const diff = diffAssemblies(twice, other);
    assert.deepEqual(diff.runtimeContext.changed, ["note"]);
    assert.equal(diff.identical, false);
    assert.deepEqual(diffAssemblies(twice, twice).runtimeContext.changed, []);
  });

  it("reads an absent runtime context as []", () => {
    const empty: Assembly = { ...base, runtimeContext: [] };
    const blank: Assembly = { ...base, runtimeContext: [section("e", "")] };
    assert.equal(
      diffAssemblies(base, empty).identical,
      true,
    );
    assert.equal(
      diffAssemblies(base, blank)
        .identical,
      true,
    );
    assert.equal(diffAssemblies(base, withContext("Monday")).identical, false);
  });

  it("renders the runtime context with the assembly's variables", () => {
    const before = { ...base, runtimeContext: [section("m", "{{model}}")] };
    const after = {
      ...before,
      variables: { ...base.variables, cwd: "/elsewhere" },
    };
    assert.equal(diffAssemblies(before, after).identical, true);
    const other = { ...before, variables: { ...base.variables, model: "m2" } };
    assert.equal(diffAssemblies(before, other).identical, false);
  });
});

describe("diffAssemblies: cache", () => {
  it("puts tools first: a tool change zeroes the prompt prefix and is blamed", () => {
    const after: Assembly = {
      ...base,
      sections: [base.sections[0], section("persona", "changed", 0)],
      tools: [tool("read_file"), tool("shell", "changed")],
    };
    const diff = diffAssemblies(base, after);
    assert.deepEqual(diff.cache, {
      toolsStable: false,
      promptStablePrefix: 0,
      brokenBy: "tool:shell",
    });
    assert.ok(diff.prompt.stablePrefix > 0);
  });

  it("blames a removed tool by its name", () => {
    const diff = diffAssemblies(base, { ...base, tools: [tool("shell")] });
    assert.equal(diff.cache.brokenBy, "tool:read_file");
  });

  it("keeps the prompt prefix when only sections changed", () => {
    const after: Assembly = {
      ...base,
      sections: [...base.sections, section("late", "Late.", 500)],
    };
    const diff = diffAssemblies(base, after);
    const length = renderPrompt(base).length;
    assert.deepEqual(diff.cache, {
      toolsStable: true,
      promptStablePrefix: length,
      brokenBy: "section:late",
    });
  });
});

describe("diffAssemblies: an assembly that cannot be rendered", () => {
  const broken = assembly({ sections: [section("persona", "On {{modle}}.")] });
  const fine = assembly({ sections: [section("persona", "On m.")] });

  it("throws the render error's code, naming the side, with the cause", () => {
    for (
      const [before, after, side] of [[broken, fine, "before"], [
        fine,
        broken,
        "after",
      ]] as const
    ) {
      assert.throws(
        () => diffAssemblies(before, after),
        (error: unknown) => {
          rejects(
            "UNKNOWN_VARIABLE",
            `diffAssemblies: the ${side} assembly's prompt cannot be rendered`,
            `"persona"`,
            "{{modle}}",
          )(error);
          const cause = (error as Error).cause;
          assert.ok(cause instanceof SystemPromptError);
          assert.equal(cause.code, "UNKNOWN_VARIABLE");
          return true;
        },
      );
    }
  });

  it("keeps each render code: malformed, without value", () => {
    const malformed = assembly({ sections: [section("s", "{{ model }}")] });
    assert.throws(
      () => diffAssemblies(fine, malformed),
      rejects("MALFORMED_REFERENCE", "the after assembly"),
    );
    const noValue = assembly({
      sections: [section("s", "{{model}}")],
      variables: { model: undefined },
    });
    assert.throws(
      () => diffAssemblies(noValue, fine),
      rejects("VARIABLE_WITHOUT_VALUE", "the before assembly"),
    );
  });

  it("names the runtime context when it is what fails", () => {
    const after = { ...fine, runtimeContext: [section("date", "{{today}}")] };
    assert.throws(
      () => diffAssemblies(fine, after),
      rejects(
        "UNKNOWN_VARIABLE",
        "the after assembly's runtime context cannot be rendered",
        `"date"`,
      ),
    );
  });
});

describe("diffAssemblies: malformed input", () => {
  function check(
    bad: unknown,
    code: string,
    ...parts: string[]
  ): void {
    assert.throws(
      () => diffAssemblies(base, bad as PromptAssembly),
      rejects(code, "diffAssemblies:", ...parts),
    );
    assert.throws(
      () => diffAssemblies(bad as PromptAssembly, base),
      rejects(
        code,
        "diffAssemblies:",
        ...parts.map((p) => p.replace("after", "before")),
      ),
    );
  }

  it("rejects a value that is not an assembly", () => {
    check(null, "INVALID_ASSEMBLY", "after is null");
    check(42, "INVALID_ASSEMBLY", "after is number");
    check(
      { tools: [], variables: {} },
      "INVALID_ASSEMBLY",
      "after.sections is undefined",
    );
    check(
      { sections: {}, tools: [], variables: {} },
      "INVALID_ASSEMBLY",
      "after.sections is an object",
    );
    check(
      { sections: [], variables: {} },
      "INVALID_ASSEMBLY",
      "after.tools is undefined",
    );
    check(
      { sections: [section("a", "A")], tools: "t", variables: { a: "1" } },
      "INVALID_ASSEMBLY",
      "after.tools is string",
    );
    check(
      { sections: [], tools: [] },
      "INVALID_ASSEMBLY",
      "after.variables is undefined",
    );
    check(
      { sections: [], tools: [], variables: null },
      "INVALID_ASSEMBLY",
      "after.variables is null",
    );
    check(
      { sections: [], tools: [], variables: [] },
      "INVALID_ASSEMBLY",
      "after.variables is an array",
    );
    check(
      { sections: [], tools: [], variables: {}, runtimeContext: "x" },
      "INVALID_ASSEMBLY",
      "after.runtimeContext is string",
    );
  });

  it("rejects a bad section, naming its path and name", () => {
    const bad = (entry: unknown) => ({
      sections: [entry],
      tools: [],
      variables: {},
    });
    check(bad(null), "INVALID_SECTION", "after.sections[0] is null");
    check(
      bad({ name: 1, order: 0, text: "" }),
      "INVALID_SECTION",
      "after.sections[0] has a name of type number",
    );
    check(
      bad({ name: "s", order: NaN, text: "" }),
      "INVALID_SECTION",
      `after.sections[0] ("s") has order NaN`,
    );
    check(
      bad({ name: "s", order: "1", text: "" }),
      "INVALID_SECTION",
      `has order "1"`,
    );
    check(
      bad({ name: "s", order: 0, text: 5 }),
      "INVALID_SECTION",
      "has text of type number",
    );
    check(
      {
        sections: [],
        tools: [],
        variables: {},
        runtimeContext: [{ name: "d", order: 0 }],
      },
      "INVALID_SECTION",
      `after.runtimeContext[0] ("d") has text of type undefined`,
    );
  });

  it("carries the serialization error as the cause, and no cause otherwise", () => {
    const big = { name: "big", description: "d", parameters: { max: 1n } };
    assert.throws(
      () => diffAssemblies(base, { ...base, tools: [big as ToolSchema] }),
      (error: unknown) => {
        rejects("INVALID_TOOL_SCHEMA", "(see cause)")(error);
        assert.ok((error as Error).cause instanceof TypeError);
        return true;
      },
    );
    const nameless = { description: "d", parameters: {} };
    assert.throws(
      () => diffAssemblies(base, { ...base, tools: [nameless as ToolSchema] }),
      (error: unknown) => {
        rejects("INVALID_TOOL_SCHEMA")(error);
        assert.ok(!Object.hasOwn(error as Error, "cause"));
        return true;
      },
    );
  });

  it("rejects a bad tool, naming its path", () => {
    const bad = (entry: unknown) => ({
      sections: [],
      tools: [entry],
      variables: {},
    });
    check(bad("shell"), "INVALID_TOOL_SCHEMA", "after.tools[0] is string");
    check(bad([]), "INVALID_TOOL_SCHEMA", "after.tools[0] is an array");
    check(
      bad({ description: "d" }),
      "INVALID_TOOL_SCHEMA",
      "has a name of type undefined",
    );
    check(
      bad({ name: "big", description: "d", parameters: { max: 1n } }),
      "INVALID_TOOL_SCHEMA",
      `after.tools[0] ("big") cannot be serialized to JSON`,
    );
    const cyclic: Record<string, unknown> = { name: "loop", description: "d" };
    cyclic.parameters = cyclic;
    check(bad(cyclic), "INVALID_TOOL_SCHEMA", `("loop") cannot be serialized`);
    check(
      bad({ name: "gone", toJSON: () => undefined }),
      "INVALID_TOOL_SCHEMA",
      `("gone") serializes to no JSON`,
    );
  });

  it("rejects a variable value that is not a string or undefined", () => {
    check(
      { sections: [], tools: [], variables: { n: 5 } },
      "INVALID_VARIABLE_VALUE",
      `variable "n" of the after assembly is number`,
    );
  });

  it("rejects duplicate section and tool names", () => {
    check(
      {
        sections: [section("a", "1"), section("a", "2")],
        tools: [],
        variables: {},
      },
      "DUPLICATE_SECTION",
      `the after assembly has two sections named "a"`,
    );
    check(
      { sections: [], tools: [tool("t"), tool("u"), tool("t")], variables: {} },
      "DUPLICATE_TOOL",
      `the after assembly lists tool "t" twice (tools[0] and tools[2])`,
    );
  });

  it("reports a throwing getter or a revoked proxy with its path and cause", () => {
    const failure = new Error("getter failed");
    const getter = {
      sections: [
        section("ok", "fine"),
        Object.defineProperty({ name: "s", order: 0 }, "text", {
          get() {
            throw failure;
          },
        }),
      ],
      tools: [],
      variables: { model: "m" },
    };
    assert.throws(
      () => diffAssemblies(base, getter as unknown as PromptAssembly),
      (error: unknown) => {
        // The path is exactly the entry: no variable or index left over.
        rejects("INVALID_ASSEMBLY", /reading after\.sections\[1\] threw/)(
          error,
        );
        assert.equal((error as Error).cause, failure);
        return true;
      },
    );
    const variables = {
      sections: [],
      tools: [],
      variables: Object.defineProperty({}, "model", {
        enumerable: true,
        get() {
          throw failure;
        },
      }),
    };
    check(variables, "INVALID_ASSEMBLY", "reading after.variables.model threw");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    check(proxy, "INVALID_ASSEMBLY", "reading after.variables threw");
    check(
      { sections: proxy, tools: [], variables: {} },
      "INVALID_ASSEMBLY",
      "reading after.sections threw",
    );
  });
});

describe("diffAssemblies: purity", () => {
  it("reads each field once per side and changes neither input", () => {
    let reads = 0;
    const counted = {
      name: "s",
      order: 0,
      get text() {
        reads++;
        return "{{model}}";
      },
    };
    const before = Object.freeze(assembly({
      sections: [counted],
      tools: [Object.freeze(tool("t"))],
      variables: Object.freeze({ model: "m" }),
    }));
    const snapshot = JSON.stringify(before);
    reads = 0;
    diffAssemblies(before, before);
    assert.equal(reads, 2); // once for each side
    assert.equal(JSON.stringify(before), snapshot);
  });
});
