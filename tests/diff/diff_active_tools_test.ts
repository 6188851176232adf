import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  diffAssemblies,
  type PromptAssembly,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

function tool(name: string): ToolSchema {
  return { name, description: name, parameters: { type: "object" } };
}

function step(activeTools?: string[], names = ["a", "b", "c"]): PromptAssembly {
  return {
    sections: [{ name: "rules", order: 0, text: "Be brief." }],
    tools: names.map(tool),
    variables: {},
    ...(activeTools === undefined ? {} : { activeTools }),
  };
}

describe("diffAssemblies: activeTools", () => {
  it("a gate change: added and removed in code-unit order; identical false; cache untouched", () => {
    const diff = diffAssemblies(step(["c", "a"]), step(["b", "a"]));
    assert.deepEqual(diff.activeTools, { added: ["b"], removed: ["c"] });
    assert.equal(diff.identical, false);
    assert.deepEqual(diff.cache, {
      toolsStable: true,
      promptStablePrefix: "Be brief.".length,
    });
    assert.deepEqual(diff.tools, {
      added: [],
      removed: [],
      changed: [],
      reordered: false,
    });
  });

  it("absent activeTools means every tool is active", () => {
    assert.deepEqual(diffAssemblies(step(), step(["a"])).activeTools, {
      added: [],
      removed: ["b", "c"],
    });
    assert.deepEqual(diffAssemblies(step(["b"]), step()).activeTools, {
      added: ["a", "c"],
      removed: [],
    });
    const same = diffAssemblies(step(), step(["a", "b", "c"]));
    assert.deepEqual(same.activeTools, { added: [], removed: [] });
    assert.equal(same.identical, true);
    assert.equal(diffAssemblies(step([]), step([])).identical, true);
  });

  it("a new ungated tool is newly active", () => {
    const diff = diffAssemblies(step(), step(undefined, ["a", "b", "c", "d"]));
    assert.deepEqual(diff.activeTools, { added: ["d"], removed: [] });
  });

  it("two steps of a registry whose gate changed", async () => {
    const prompt = new SystemPrompt<{ mode?: string; scope?: string }>();
    prompt.tools(() => ({ schemas: [tool("read"), tool("write")] }));
    prompt.toolGate((context) =>
      context.mode === "review" ? ["read"] : undefined
    );
    const diff = diffAssemblies(
      await prompt.assemble({}),
      await prompt.assemble({ mode: "review" }),
    );
    assert.deepEqual(diff.activeTools, { added: [], removed: ["write"] });
    assert.equal(diff.identical, false);
    assert.equal(diff.cache.brokenBy, undefined);
    await prompt.dispose();
  });

  it("bad activeTools is INVALID_ASSEMBLY naming the side and path", () => {
    assert.throws(
      () => diffAssemblies(step(), { ...step(), activeTools: "a" as never }),
      rejects("INVALID_ASSEMBLY", "after.activeTools"),
    );
    assert.throws(
      () => diffAssemblies({ ...step(), activeTools: [1] as never }, step()),
      rejects("INVALID_ASSEMBLY", "before.activeTools[0]"),
    );
  });
});
