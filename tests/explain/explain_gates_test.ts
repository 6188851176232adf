import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";

function tool(name: string): ToolSchema {
  return { name, description: name, parameters: { type: "object" } };
}

describe("explain: tool gates", () => {
  it("names the gate that made each inactive tool inactive; active tools have no inactiveBy", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.tools(() => ({
      schemas: [tool("read"), tool("write"), tool("deploy")],
    }));
    prompt.fork({ label: "safety" }).toolGate(function noDeploy() {
      return ["read", "write"];
    });
    prompt.scope("reviewer", { label: "review" }).toolGate(
      () => ["read", "deploy"],
    );
    const global = await prompt.explain();
    assert.deepEqual(
      global.tools.map(({ name, inactiveBy }) => [name, inactiveBy]),
      [
        [
          "deploy",
          'tool gate noDeploy (#1) of registrar "registry/safety" (the global layer)',
        ],
        ["read", undefined],
        ["write", undefined],
      ],
    );
    const scoped = await prompt.explain({ scope: "reviewer" });
    assert.deepEqual(
      scoped.tools.map(({ name, inactiveBy }) => [name, inactiveBy]),
      [
        [
          "deploy",
          'tool gate noDeploy (#1) of registrar "registry/safety" (the global layer)',
        ],
        ["read", undefined],
        [
          "write",
          'tool gate #2 of registrar "registry/review" (scope "reviewer")',
        ],
      ],
    );
    await prompt.dispose();
  });

  it("a tool a listener left out of activeTools is inactive by a listener; no gate, no key", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.tools(() => ({ schemas: [tool("read"), tool("write")] }));
    assert.equal(
      (await prompt.explain()).tools.some((origin) => "inactiveBy" in origin),
      false,
    );
    prompt.onAssemble((assembly) => ({ ...assembly, activeTools: ["read"] }));
    const explanation = await prompt.explain();
    assert.deepEqual(
      explanation.tools.map(({ name, inactiveBy }) => [name, inactiveBy]),
      [["read", undefined], ["write", "an assembly listener"]],
    );
    await prompt.dispose();
  });
});
