import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembleContext, SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";

describe("variables", () => {
  it("resolves global then scope variables, the scope shadowing the global", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    prompt.variable("model", () => "global-model");
    prompt.variable("cwd", () => "/global");
    const scoped = prompt.scope(key);
    scoped.variable("model", () => "scoped-model");
    scoped.variable("agent_name", () => "ada");
    prompt.scope("other").variable("other_only", () => "x");

    assert.deepEqual((await prompt.assemble()).variables, {
      model: "global-model",
      cwd: "/global",
    });
    const scopedAssembly = await prompt.assemble({ scope: key });
    assert.deepEqual(scopedAssembly.variables, {
      model: "scoped-model",
      cwd: "/global",
      agent_name: "ada",
    });
    // Keys in code-unit order, whatever the layer or registration order.
    assert.deepEqual(Object.keys(scopedAssembly.variables), [
      "agent_name",
      "cwd",
      "model",
    ]);
  });

  it("calls each provider once per assembly, with the context", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const key = "agent";
    const calls: Record<string, unknown[]> = { g: [], s: [] };
    prompt.variable("g", (context) => {
      calls.g.push(context.extra);
      return "g";
    });
    prompt.scope(key).variable("s", (context) => {
      calls.s.push(context.extra);
      return "s";
    });
    await prompt.assemble({ scope: key, extra: 1 });
    assert.deepEqual(calls, { g: [1], s: [1] });
    await prompt.assemble({ extra: 2 });
    assert.deepEqual(calls, { g: [1, 2], s: [1] });
    await prompt.assemble({ scope: key, extra: 3 });
    assert.deepEqual(calls, { g: [1, 2, 3], s: [1, 3] });
  });

  it("keeps a key whose provider returned undefined", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("cwd", () => undefined);
    prompt.variable("model", () => "m");
    const { variables } = await prompt.assemble();
    assert.ok(Object.hasOwn(variables, "cwd"));
    assert.equal(variables.cwd, undefined);
    assert.deepEqual(Object.keys(variables).sort(), ["cwd", "model"]);
  });

  it("a scope variable returning undefined still shadows the global value", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("cwd", () => "/global");
    prompt.scope("agent").variable("cwd", () => undefined);
    const { variables } = await prompt.assemble({ scope: "agent" });
    assert.ok(Object.hasOwn(variables, "cwd"));
    assert.equal(variables.cwd, undefined);
  });

  it("rejects PROVIDER_FAILED when a provider returns a non-string", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("model", () => 42 as unknown as string);
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", /model/),
    );
  });
});
