import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SystemPrompt } from "../../mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** Fixed so that a failure replays: fast-check prints it with the path. */
const SEED = 20261202;

/** A registry with one tool whose parameters are whatever `current` holds. */
function oneTool(current: () => Record<string, unknown>): SystemPrompt {
  const prompt = new SystemPrompt();
  prompt.tools(() => ({
    schemas: [{ name: "t", description: "d", parameters: current() }],
  }));
  return prompt;
}

async function parametersOf(prompt: SystemPrompt): Promise<unknown> {
  return (await prompt.assemble()).tools[0].parameters;
}

/** The keys of `value` and of every object in it, in order, by path. */
function keyOrder(value: unknown, path = "$"): string[] {
  if (typeof value !== "object" || value === null) return [];
  const own = Array.isArray(value) ? [] : [`${path}: ${Object.keys(value)}`];
  return own.concat(
    Object.entries(value).flatMap(([key, item]) =>
      keyOrder(item, `${path}.${key}`)
    ),
  );
}

/** `copy` holds what `source` holds (-0 included), keys in the same order. */
function assertSameJson(copy: unknown, source: unknown): void {
  assert.deepEqual(copy, source);
  assert.deepEqual(keyOrder(copy), keyOrder(source));
}

describe("JSON copies of tool parameters", () => {
  it("follow an object whose keys are added, deleted or reordered between steps", async () => {
    const path: Record<string, unknown> = { type: "string", description: "p" };
    const parameters = { type: "object", properties: { path } };
    const prompt = oneTool(() => parameters);
    assertSameJson(await parametersOf(prompt), parameters);
    path.format = "uri";
    assertSameJson(await parametersOf(prompt), parameters);
    delete path.description;
    assertSameJson(await parametersOf(prompt), parameters);
    delete path.type;
    path.type = "string";
    const copy = await parametersOf(prompt) as {
      properties: { path: object };
    };
    assert.deepEqual(Object.keys(copy.properties.path), ["format", "type"]);
    for (const key of Object.keys(path)) delete path[key];
    assertSameJson(await parametersOf(prompt), parameters);
  });

  it("copy fresh objects of one shape with each step's own values", async () => {
    let step = 0;
    const prompt = oneTool(() => ({
      type: "object",
      properties: { count: { type: "integer", minimum: step } },
      required: [`field-${step}`],
    }));
    for (step = 0; step < 5; step++) {
      assert.deepEqual(await parametersOf(prompt), {
        type: "object",
        properties: { count: { type: "integer", minimum: step } },
        required: [`field-${step}`],
      });
    }
  });

  it("copy a nested value whose kind changes between steps at the same key", async () => {
    const items: Record<string, unknown> = { type: "string" };
    const parameters: Record<string, unknown> = { items };
    const prompt = oneTool(() => parameters);
    await parametersOf(prompt);
    items.type = ["string", "null"];
    assertSameJson(await parametersOf(prompt), parameters);
    parameters.items = 3;
    assertSameJson(await parametersOf(prompt), parameters);
    parameters.items = { type: { deep: true } };
    assertSameJson(await parametersOf(prompt), parameters);
  });

  it("copy keys that need quoting, look like indices or name Object.prototype members", async () => {
    const keys = [
      'a"b',
      "back\\slash",
      "line\u2028separator",
      "",
      "0",
      "10",
      "2",
      "constructor",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "}; throw 1; ({",
    ];
    const parameters = Object.fromEntries(keys.map((key, i) => [key, i]));
    const prompt = oneTool(() => parameters);
    for (let step = 0; step < 3; step++) {
      const copy = await parametersOf(prompt) as Record<string, unknown>;
      assertSameJson(copy, parameters);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal(Object.hasOwn(copy, "constructor"), true);
    }
  });

  it("copy an object with more keys than one compiled copy takes", async () => {
    const parameters = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`key${i}`, { i }]),
    );
    const prompt = oneTool(() => parameters);
    assertSameJson(await parametersOf(prompt), parameters);
    (parameters.key7 as Record<string, unknown>).extra = [1];
    assertSameJson(await parametersOf(prompt), parameters);
  });

  it("copy more distinct shapes than the compiled copies cached", async () => {
    const prompt = new SystemPrompt();
    const schemas = Array.from({ length: 1500 }, (_, i) => ({
      name: `tool_${i}`,
      description: "d",
      parameters: { [`only_${i}`]: { [`nested_${i}`]: i } },
    }));
    prompt.tools(() => ({ schemas }));
    for (let step = 0; step < 2; step++) {
      const { tools } = await prompt.assemble();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const schema of schemas) {
        assertSameJson(byName.get(schema.name)!.parameters, schema.parameters);
      }
    }
  });

  it("never share an object with the provider or an earlier step", async () => {
    const parameters = { properties: { a: { enum: ["x"] } } };
    const prompt = oneTool(() => parameters);
    const first = await parametersOf(prompt) as typeof parameters;
    first.properties.a.enum.push("mutated");
    (first.properties.a as Record<string, unknown>).added = true;
    const second = await parametersOf(prompt) as typeof parameters;
    assert.deepEqual(second, { properties: { a: { enum: ["x"] } } });
    assert.deepEqual(parameters, { properties: { a: { enum: ["x"] } } });
    assert.notEqual(second.properties, first.properties);
  });

  it("equal objects mutated in place across steps, key order included (property)", async () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const object = fc.dictionary(fc.string({ maxLength: 4 }), json, {
      maxKeys: 6,
    });
    await fc.assert(
      fc.asyncProperty(object, fc.array(object, { maxLength: 4 }), async (
        start,
        changes,
      ) => {
        const parameters: Record<string, unknown> = structuredClone(start);
        delete parameters.__proto__;
        const prompt = oneTool(() => parameters);
        assertSameJson(await parametersOf(prompt), parameters);
        for (const change of changes) {
          // Delete some keys, then assign others: the same object changes
          // shape while the registry keeps copying it.
          for (const key of Object.keys(parameters)) {
            if (key.length % 2 === 0) delete parameters[key];
          }
          for (const [key, value] of Object.entries(change)) {
            if (key !== "__proto__") parameters[key] = value;
          }
          assertSameJson(await parametersOf(prompt), parameters);
        }
      }),
      { seed: SEED, numRuns: fuzzRuns(300) },
    );
  });
});
