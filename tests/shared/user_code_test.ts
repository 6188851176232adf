/**
 * What user code throws (a section's text function, a variable or tool
 * provider, a gate) becomes PROVIDER_FAILED naming it, with the cause.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

describe("user code failures (PROVIDER_FAILED)", () => {
  it("a section text function that throws rejects PROVIDER_FAILED naming the section, with the cause", async () => {
    const prompt = new SystemPrompt();
    const boom = new RangeError("text failed");
    prompt.section({
      name: "tools:shell",
      order: 110,
      text: () => {
        throw boom;
      },
    });
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("PROVIDER_FAILED", /tools:shell/)(error);
      assert.equal((error as Error).cause, boom);
      return true;
    });
  });

  it("a variable provider that throws rejects PROVIDER_FAILED naming the variable, with the cause", async () => {
    const prompt = new SystemPrompt();
    const boom = { not: "an Error" };
    prompt.scope("agent").variable("working_dir", () => {
      throw boom;
    });
    await assert.rejects(prompt.assemble({ scope: "agent" }), (error) => {
      rejects("PROVIDER_FAILED", /working_dir/)(error);
      assert.equal((error as Error).cause, boom);
      return true;
    });
    // Other scopes are unaffected.
    await prompt.assemble();
  });

  it("a tool provider that throws rejects PROVIDER_FAILED, with the cause", async () => {
    const prompt = new SystemPrompt();
    const boom = new Error("tools failed");
    prompt.tools(() => {
      throw boom;
    });
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("PROVIDER_FAILED", /tool/)(error);
      assert.equal((error as Error).cause, boom);
      return true;
    });
  });

  const uncopyable: [string, () => Record<string, unknown>][] = [
    ["a function", () => ({ type: "object", default: () => 1 })],
    ["a cycle", () => {
      const parameters: Record<string, unknown> = { type: "object" };
      parameters.self = { nested: parameters };
      return parameters;
    }],
  ];
  const uncopyableByNotes: [string, () => Record<string, unknown>][] = [
    ["a symbol", () => ({ type: "object", tag: Symbol("x") })],
    ["a bigint", () => ({ type: "object", max: 10n })],
    ["a Date", () => ({ type: "object", when: new Date(0) })],
    ["a Map", () => ({ type: "object", map: new Map() })],
    [
      "a class instance",
      () => ({ type: "object", item: new (class Item {})() }),
    ],
  ];
  for (const [label, make] of [...uncopyable, ...uncopyableByNotes]) {
    it(`parameters containing ${label} reject PROVIDER_FAILED naming the tool`, async () => {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({
        schemas: [tool("fine"), tool("weird_tool", "d", make())],
      }));
      await assert.rejects(prompt.assemble(), (error) => {
        rejects("PROVIDER_FAILED", /weird_tool/)(error);
        assert.notEqual((error as Error).cause, undefined);
        return true;
      });
    });
  }

  it("copies JSON-like parameters with arrays, nulls, booleans and nested objects", async () => {
    const prompt = new SystemPrompt();
    const parameters = {
      type: "object",
      properties: {
        list: { type: "array", items: [{ a: null }, true, 1.5, "s"] },
      },
      additionalProperties: false,
      shared: [1],
    };
    // A shared (non-cyclic) reference is not a cycle.
    (parameters as Record<string, unknown>).again = parameters.shared;
    prompt.tools(() => ({ schemas: [tool("t", "d", parameters)] }));
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools[0].parameters, parameters);
  });
});
