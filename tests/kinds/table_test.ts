import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KIND_NAMES, KINDS } from "../../src/kinds/table.ts";
import { emptyLayer } from "../../src/store/layers.ts";
import { buildAssembly } from "../../src/assemble/build.ts";

describe("the kinds table", () => {
  it("lists the kinds in build order: variables, sections, runtime contexts, tools, tool gates, then listeners and suppressors", () => {
    assert.deepEqual(KIND_NAMES, [
      "variable",
      "section",
      "runtimeContext",
      "tools",
      "toolGate",
      "listener",
      "suppressor",
    ]);
  });

  it("gives every kind its change name, and an empty list in a layer", () => {
    for (const name of KIND_NAMES) {
      assert.equal(KINDS[name].change, name);
      assert.deepEqual(emptyLayer()[name], []);
    }
  });

  it("builds variables before sections and sections before tools", () => {
    const calls: string[] = [];
    const provenance = { label: "test", sequence: 1 };
    const state = {
      ...emptyLayer(),
      variable: [KINDS.variable.record({
        name: "v",
        provider: () => (calls.push("variable"), "v"),
      }, provenance)],
      section: [KINDS.section.record({
        name: "s",
        order: 0,
        text: () => (calls.push("section"), "s"),
      }, provenance)],
      tools: [KINDS.tools.record({
        provider: () => (calls.push("tools"), { schemas: [] }),
      }, provenance)],
    };
    const assembly = buildAssembly([{ state, scope: undefined }], {});
    assert.deepEqual(calls, ["variable", "section", "tools"]);
    assert.deepEqual(
      JSON.stringify(assembly),
      JSON.stringify({
        sections: [{ name: "s", order: 0, text: "s" }],
        tools: [],
        variables: { v: "v" },
        runtimeContext: [],
      }),
    );
  });
});
