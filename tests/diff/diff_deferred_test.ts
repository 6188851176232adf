/**
 * `diffAssemblies` with deferred tools (SPEC §10.3): compared apart from the
 * listed tools, outside the cached prefix.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { diffAssemblies, type PromptAssembly } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

function assembly(
  tools: string[],
  deferred?: PromptAssembly["deferredTools"],
): PromptAssembly {
  return {
    sections: [{ name: "rules", order: 10, text: "Be brief." }],
    tools: tools.map((name) => tool(name)),
    variables: {},
    ...(deferred === undefined ? {} : { deferredTools: deferred }),
  };
}

describe("diffAssemblies: deferred tools", () => {
  it("no side with deferred tools: no deferredTools key", () => {
    const diff = diffAssemblies(assembly(["a"]), assembly(["a"]));
    assert.equal("deferredTools" in diff, false);
    assert.equal(diff.identical, true);
  });

  it("lists deferred tools added, removed and changed; identical is false and the cache untouched", () => {
    const diff = diffAssemblies(
      assembly(["a"], [tool("crm_find"), tool("crm_log")]),
      assembly(["a"], [tool("crm_find", "Find."), tool("crm_new")]),
    );
    assert.deepEqual(diff.deferredTools, {
      added: ["crm_new"],
      removed: ["crm_log"],
      changed: ["crm_find"],
    });
    assert.equal(diff.identical, false);
    assert.deepEqual(diff.cache, { toolsStable: true, promptStablePrefix: 9 });
  });

  it("equal deferred tools leave identical true", () => {
    const diff = diffAssemblies(
      assembly(["a"], [tool("crm_find")]),
      assembly(["a"], [tool("crm_find")]),
    );
    assert.deepEqual(diff.deferredTools, {
      added: [],
      removed: [],
      changed: [],
    });
    assert.equal(diff.identical, true);
  });

  it("a tool moved from the deferred ones to the listed ones shows in both, and breaks the cache", () => {
    const diff = diffAssemblies(
      assembly(["a"], [tool("crm_find")]),
      assembly(["a", "crm_find"]),
    );
    assert.deepEqual(diff.tools.added, ["crm_find"]);
    assert.deepEqual(diff.deferredTools?.removed, ["crm_find"]);
    assert.equal(diff.cache.brokenBy, "tool:crm_find");
  });

  it("absent activeTools means every tool, deferred ones included", () => {
    const before = assembly(["a"], [tool("crm_find")]);
    const after = { ...before, activeTools: ["a", "crm_find"] };
    assert.deepEqual(diffAssemblies(before, after).activeTools, {
      added: [],
      removed: [],
    });
  });

  it("a name both listed and deferred is DUPLICATE_TOOL; a malformed list INVALID_ASSEMBLY", () => {
    assert.throws(
      () => diffAssemblies(assembly(["a"]), assembly(["a"], [tool("a")])),
      rejects("DUPLICATE_TOOL", "after", '"a"', "deferredTools[0]"),
    );
    assert.throws(
      () =>
        diffAssemblies(
          { ...assembly(["a"]), deferredTools: "x" as never },
          assembly(["a"]),
        ),
      rejects("INVALID_ASSEMBLY", "before.deferredTools"),
    );
  });
});
