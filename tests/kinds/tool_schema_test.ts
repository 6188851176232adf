import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PromptAssembly, SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";

/** The assembly of a registry whose one tool provider returns `schemas`. */
function assembleWith(...schemas: unknown[]): Promise<PromptAssembly> {
  const prompt = new SystemPrompt();
  prompt.tools(() => ({ schemas: schemas as never }));
  return prompt.assemble();
}

/** A tool schema that is a class instance, not a plain object. */
class Schema {
  name = "t";
  description = "d";
  parameters = { type: "object" };
}

describe("tool schema copies", () => {
  it("reject an array used as a tool schema with INVALID_TOOL_SCHEMA", async () => {
    const prompt = new SystemPrompt();
    const array = Object.assign([], {
      name: "t",
      description: "d",
      parameters: {},
    });
    prompt.tools(() => ({ schemas: [array] as never }));
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_TOOL_SCHEMA", "an array", "#1"),
    );
  });

  it("reject parameters that are not a plain object with INVALID_TOOL_SCHEMA, a schema that is not one with PROVIDER_FAILED", async () => {
    class Parameters {
      type = "object";
    }
    for (const parameters of [new Parameters(), new Map(), new Date(0)]) {
      await assert.rejects(
        assembleWith({ name: "t", description: "d", parameters }),
        rejects("INVALID_TOOL_SCHEMA", '"t"', "object of parameters"),
      );
    }
    await assert.rejects(
      assembleWith(new Schema()),
      rejects("PROVIDER_FAILED", '"t"', "plain JSON data"),
    );
  });

  it("name the path of a bad value that follows a nested object", async () => {
    const parameters = { a: { type: "string" }, b: { c: [1, 2n] } };
    await assert.rejects(
      assembleWith({ name: "t", description: "d", parameters }),
      rejects("PROVIDER_FAILED", '"t"', "parameters.b.c[1] is a bigint"),
    );
  });

  it("check a new schema object at a place that held a plain one", async () => {
    const plain = { name: "t", description: "d", parameters: {} };
    let schema: object = plain;
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: [schema as never] }));
    assert.equal((await prompt.assemble()).tools[0].name, "t");
    schema = new Schema();
    await assert.rejects(prompt.assemble(), rejects("PROVIDER_FAILED", '"t"'));
    schema = { ...plain, parameters: new Map() };
    await assert.rejects(prompt.assemble(), rejects("INVALID_TOOL_SCHEMA"));
  });

  it("read each field once: a getter cannot pass the check with one value and be copied with another", async () => {
    const prompt = new SystemPrompt();
    let reads = 0;
    const schema = {
      get name(): unknown {
        reads++;
        return reads === 1 ? "ok" : 42;
      },
      description: "d",
      parameters: { type: "object" },
    };
    prompt.tools(() => ({ schemas: [schema as never] }));
    const { tools } = await prompt.assemble();
    assert.equal(reads, 1);
    assert.equal(tools[0].name, "ok");
  });

  it("reject a symbol key inside parameters with INVALID_TOOL_SCHEMA naming its path", async () => {
    const prompt = new SystemPrompt();
    const nested = { type: "string" };
    const parameters = {
      type: "object",
      properties: { a: { [Symbol("meta")]: nested } },
    };
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters }],
    }));
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "INVALID_TOOL_SCHEMA",
        '"t"',
        "parameters.properties.a[Symbol(meta)]",
      ),
    );
  });

  it("reject a non-enumerable symbol key and a symbol key on the schema itself", async () => {
    const hidden = { type: "object" };
    Object.defineProperty(hidden, Symbol("hidden"), { value: { x: 1 } });
    const schemas = [
      { name: "t", description: "d", parameters: hidden },
      { name: "t", description: "d", parameters: {}, [Symbol("top")]: {} },
    ];
    for (const schema of schemas) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({ schemas: [schema] }));
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_TOOL_SCHEMA", "symbol key", "Symbol("),
      );
    }
  });

  it("reject a symbol key on a nested object that replaced one already copied", async () => {
    const prompt = new SystemPrompt();
    const parameters: Record<string, unknown> = {
      type: "object",
      properties: { a: { type: "string" } },
    };
    const schema = { name: "t", description: "d", parameters };
    prompt.tools(() => ({ schemas: [schema] }));
    await prompt.assemble();
    parameters.properties = { a: { [Symbol("meta")]: { x: 1 } } };
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_TOOL_SCHEMA", "parameters.properties.a[Symbol(meta)]"),
    );
  });

  it("reject a class instance that replaced a plain object already copied", async () => {
    class Range {
      minimum = 0;
    }
    const prompt = new SystemPrompt();
    const properties: Record<string, unknown> = { a: { type: "string" } };
    const schema = { name: "t", description: "d", parameters: { properties } };
    prompt.tools(() => ({ schemas: [schema] }));
    await prompt.assemble();
    properties.a = new Range();
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", "parameters.properties.a is a Range"),
    );
  });

  it("copy an object already copied whose prototype was replaced as plain data, sharing nothing", async () => {
    const prompt = new SystemPrompt();
    const a: Record<string, unknown> = { type: "string" };
    const schema = {
      name: "t",
      description: "d",
      parameters: { properties: { a } },
    };
    prompt.tools(() => ({ schemas: [schema] }));
    await prompt.assemble();
    const inherited = { format: { shared: true } };
    Object.setPrototypeOf(a, inherited);
    const { tools } = await prompt.assemble();
    const copy = (tools[0].parameters.properties as Record<string, {
      format: object;
    }>).a;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(copy, { type: "string", format: { shared: true } });
    assert.notEqual(copy.format, inherited.format);
  });

  it("leave out a symbol key added later to an object already copied, never sharing its value", async () => {
    const prompt = new SystemPrompt();
    const properties: Record<string | symbol, unknown> = {
      a: { type: "string" },
    };
    const schema = {
      name: "t",
      description: "d",
      parameters: { type: "object", properties },
    };
    prompt.tools(() => ({ schemas: [schema] }));
    await prompt.assemble();
    const meta = Symbol("meta");
    properties[meta] = { shared: true };
    const { tools } = await prompt.assemble();
    const copied = tools[0].parameters.properties as Record<symbol, unknown>;
    assert.deepEqual(Object.getOwnPropertySymbols(copied), []);
    assert.deepEqual(copied, { a: { type: "string" } });
  });

  it("copy an own __proto__ key as data, leaving the copy's prototype alone", async () => {
    const prompt = new SystemPrompt();
    const properties = JSON.parse('{"__proto__": {"type": "string"}}');
    prompt.tools(() => ({
      schemas: [{
        name: "t",
        description: "d",
        parameters: { type: "object", properties },
      }],
    }));
    const { tools } = await prompt.assemble();
    const copied = tools[0].parameters.properties as object;
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(copied, "__proto__"), {
      value: { type: "string" },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    assert.notEqual(
      Object.getOwnPropertyDescriptor(copied, "__proto__")!.value,
      properties["__proto__"],
    );
  });

  it("copy own keys only while Object.prototype has an enumerable key", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{
        name: "t",
        description: "d",
        parameters: { type: "object", properties: { a: { type: "string" } } },
      }],
    }));
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.polluted = "yes";
    try {
      const { tools } = await prompt.assemble();
      assert.deepEqual(Object.keys(tools[0].parameters.properties as object), [
        "a",
      ]);
      assert.equal(
        Object.hasOwn(tools[0].parameters.properties as object, "polluted"),
        false,
      );
    } finally {
      delete prototype.polluted;
    }
  });

  it("never share a nested object between assemblies or with the provider", async () => {
    const prompt = new SystemPrompt();
    const deep = { enum: ["a"] };
    const parameters = {
      type: "object",
      properties: { p: deep },
      list: [deep],
    };
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters, extra: { x: [1] } }],
    }));
    const first = await prompt.assemble();
    const copied = first.tools[0] as unknown as {
      parameters: { properties: { p: { enum: string[] } }; list: unknown[] };
      extra: { x: number[] };
    };
    copied.parameters.properties.p.enum.push("mutated");
    (copied.parameters.list[0] as { enum: string[] }).enum.push("mutated");
    copied.extra.x.push(2);
    assert.deepEqual(deep, { enum: ["a"] });
    const second = await prompt.assemble();
    assert.deepEqual(second.tools[0], {
      name: "t",
      description: "d",
      parameters: { type: "object", properties: { p: deep }, list: [deep] },
      extra: { x: [1] },
    });
  });

  it("copy parameters nested deeper than the fast copy goes, and still find a deep cycle", async () => {
    let deep: Record<string, unknown> = { leaf: [1, { x: null }] };
    for (let depth = 0; depth < 200; depth++) deep = { next: deep };
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters: deep }],
    }));
    const { tools } = await prompt.assemble();
    assert.deepEqual(tools[0].parameters, deep);
    assert.notEqual(tools[0].parameters, deep);

    let cyclic: Record<string, unknown> = {};
    const bottom = cyclic;
    for (let depth = 0; depth < 100; depth++) cyclic = { next: cyclic };
    bottom.loop = cyclic;
    const looping = new SystemPrompt();
    looping.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters: cyclic }],
    }));
    await assert.rejects(
      looping.assemble(),
      rejects("PROVIDER_FAILED", "contains itself (a cycle)"),
    );
  });

  it("copy an object that two keys share twice when the careful copy runs, not as a cycle", async () => {
    const shared = { type: "string" };
    let deep: Record<string, unknown> = { leaf: true };
    for (let depth = 0; depth < 100; depth++) deep = { next: deep };
    const parameters = { a: shared, b: shared, deep };
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters }],
    }));
    const { tools } = await prompt.assemble();
    const copied = tools[0].parameters as typeof parameters;
    assert.deepEqual(copied, parameters);
    assert.notEqual(copied.a, shared);
    assert.notEqual(copied.a, copied.b);
  });

  it("describe a schema that is not an object by its value", async () => {
    for (const [schema, described] of [[null, "null"], [5, "5"]] as const) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({ schemas: [schema as never] }));
      await assert.rejects(
        prompt.assemble(),
        rejects(
          "INVALID_TOOL_SCHEMA",
          `returned ${described} as a tool schema`,
        ),
      );
    }
  });

  it("keep null, scalars and empty containers in arrays when the careful copy runs", async () => {
    // Deeper than the fast copy goes: the careful copy copies the whole schema.
    let deep: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 80; depth++) deep = { items: deep };
    const parameters = {
      type: "object",
      enum: [null, "a", 0, false, [], {}, [null]],
      deep,
    };
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters }],
    }));
    const { tools } = await prompt.assemble();
    assert.deepEqual(tools[0].parameters, parameters);
    assert.notEqual(tools[0].parameters.enum, parameters.enum);
  });

  it("read a getter nested in parameters once per assembly", async () => {
    let reads = 0;
    const anyOf: unknown[] = [null, { type: "number" }];
    Object.defineProperty(anyOf, 0, {
      enumerable: true,
      get() {
        reads++;
        return { type: "string" };
      },
    });
    const parameters = {
      anyOf,
      properties: {
        get path() {
          reads++;
          return { type: "string", enum: ["a", "b"] };
        },
      },
      required: ["path", 1, true, null],
      type: "object",
    };
    // An extra field of the schema itself, copied before the parameters.
    const examples: unknown[] = [null, { path: "a" }];
    Object.defineProperty(examples, 0, {
      enumerable: true,
      get() {
        reads++;
        return { path: "b" };
      },
    });
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", examples, parameters }],
    }));
    const { tools } = await prompt.assemble();
    assert.equal(reads, 3, "each getter once");
    assert.deepEqual(
      (tools[0] as unknown as { examples: unknown }).examples,
      [{ path: "b" }, { path: "a" }],
    );
    assert.deepEqual(tools[0].parameters, {
      anyOf: [{ type: "string" }, { type: "number" }],
      properties: { path: { type: "string", enum: ["a", "b"] } },
      required: ["path", 1, true, null],
      type: "object",
    });
  });

  it("name the path of a value that is not JSON data: a function through arrays, a symbol", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { anyOf: [{ type: "string" }, { default: () => 1 }] },
        "parameters.anyOf[1].default is a function",
      ],
      [
        { properties: { a: { default: Symbol("s") } } },
        "parameters.properties.a.default is a symbol",
      ],
    ];
    for (const [parameters, path] of cases) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({
        schemas: [{ name: "t", description: "d", parameters }],
      }));
      await assert.rejects(prompt.assemble(), rejects("PROVIDER_FAILED", path));
    }
  });

  it("describe a value whose class has no usable name as an exotic object", async () => {
    const anonymous = new (class {})();
    const noConstructor = Object.create(
      Object.create(null, { constructor: { value: undefined } }),
    );
    for (const value of [anonymous, noConstructor]) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({
        schemas: [{ name: "t", description: "d", parameters: { value } }],
      }));
      await assert.rejects(
        prompt.assemble(),
        rejects("PROVIDER_FAILED", "parameters.value is a exotic object"),
      );
    }
  });

  it("describe a schema whose constructor cannot be read as an exotic object", async () => {
    class Schema {}
    const target = Object.assign(new Schema(), {
      name: "t",
      description: "d",
      parameters: {},
    });
    const hostile = new Proxy(target, {
      get(object, key) {
        if (key === "constructor") throw new Error("no constructor");
        return Reflect.get(object, key);
      },
    });
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: [hostile] }));
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", '"t"', "the schema is a exotic object"),
    );
  });
});
