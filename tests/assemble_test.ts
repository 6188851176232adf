import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { from, map, of, throwError } from "rxjs";
import {
  type AssembleContext,
  type AssembleListener,
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  SystemPrompt,
  TOOL_ORDER_REST,
  type ToolSchema,
} from "../mod.ts";
import { macrotask, rejects } from "./assertions.ts";

/** Section names after the two built-ins. */
function ownSections(assembly: PromptAssembly): string[] {
  return assembly.sections
    .map((section) => section.name)
    .filter((name) =>
      name !== HARNESS_IDENTITY_SECTION && name !== PERSONA_SECTION
    );
}

function toolNames(assembly: PromptAssembly): string[] {
  return assembly.tools.map((tool) => tool.name);
}

function tool(
  name: string,
  description = name,
  parameters: Record<string, unknown> = { type: "object" },
): ToolSchema {
  return { name, description, parameters };
}

/** Calls `assemble` and asserts that it did not throw synchronously. */
function assembleSafely(
  prompt: SystemPrompt,
  context?: AssembleContext,
): Promise<PromptAssembly> {
  let result: Promise<PromptAssembly> | undefined;
  assert.doesNotThrow(() => {
    result = prompt.assemble(context);
  });
  assert.ok(result instanceof Promise);
  return result;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A deterministic permutation (mulberry32-driven Fisher–Yates). */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const result = items.slice();
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

describe("assemble() is always a promise", () => {
  it("resolves for a bare call, with an empty context object", async () => {
    const prompt = new SystemPrompt();
    let seen: unknown;
    prompt.variable("probe", (context) => {
      seen = context;
      return "x";
    });
    const assembly = await assembleSafely(prompt);
    assert.deepEqual(assembly.variables, { probe: "x" });
    assert.equal(typeof seen, "object");
    assert.notEqual(seen, null);
  });

  it("rejects, never throws, on a disposed registry", async () => {
    const prompt = new SystemPrompt();
    await prompt.dispose();
    await assert.rejects(assembleSafely(prompt), rejects("DISPOSED"));
  });

  it("rejects, never throws, when a provider or listener throws synchronously", async () => {
    const failures: [string, (prompt: SystemPrompt, error: Error) => void][] = [
      ["section text", (p, e) =>
        p.section({
          name: "s",
          order: 1,
          text: () => {
            throw e;
          },
        })],
      ["variable", (p, e) =>
        p.variable("v", () => {
          throw e;
        })],
      ["tools", (p, e) =>
        p.tools(() => {
          throw e;
        })],
      ["listener", (p, e) =>
        p.onAssemble(() => {
          throw e;
        })],
    ];
    for (const [label, register] of failures) {
      const prompt = new SystemPrompt();
      const boom = new Error(label);
      register(prompt, boom);
      await assert.rejects(assembleSafely(prompt), (error) => {
        assert.ok(
          error === boom || (error as Error).cause === boom,
          `${label}: ${String(error)}`,
        );
        return true;
      });
    }
  });

  it("rejects, never throws, with an already-aborted signal", async () => {
    const prompt = new SystemPrompt();
    const reason = new Error("aborted before");
    await assert.rejects(
      assembleSafely(prompt, { signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
  });
});

describe("snapshot at the start", () => {
  it("registrations and disposals made by a provider affect only later assemblies", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const disposeSection = prompt.section({
      name: "doomed",
      order: 5,
      text: "doomed",
    });
    const disposeTools = prompt.tools(() => ({ schemas: [tool("doomed")] }));
    const disposeListener = prompt.onAssemble((_assembly, _context, next) => {
      log.push("doomed listener");
      return next();
    });
    let first = true;
    prompt.variable("trigger", () => {
      if (first) {
        first = false;
        prompt.section({ name: "added", order: 6, text: "added" });
        prompt.tools(() => ({ schemas: [tool("added")] }));
        prompt.variable("added", () => "added");
        prompt.onAssemble((_assembly, _context, next) => {
          log.push("added listener");
          return next();
        });
        void disposeSection();
        void disposeTools();
        void disposeListener();
      }
      return "t";
    });

    const current = await prompt.assemble();
    assert.deepEqual(ownSections(current), ["doomed"]);
    assert.deepEqual(toolNames(current), ["doomed"]);
    assert.deepEqual(current.variables, { trigger: "t" });
    assert.deepEqual(log, ["doomed listener"]);

    log.length = 0;
    const next = await prompt.assemble();
    assert.deepEqual(ownSections(next), ["added"]);
    assert.deepEqual(toolNames(next), ["added"]);
    assert.deepEqual(next.variables, { trigger: "t", added: "added" });
    assert.deepEqual(log, ["added listener"]);
  });

  it("registrations and disposals made by a listener affect only later assemblies", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const key = { id: "agent" };
    const scoped = prompt.scope(key);
    const disposeSecond = scoped.onAssemble((_assembly, _context, next) => {
      log.push("second");
      return next();
    });
    let first = true;
    prompt.onAssemble((_assembly, _context, next) => {
      log.push("first");
      if (first) {
        first = false;
        void disposeSecond();
        scoped.onAssemble((_assembly, _context, next) => {
          log.push("added");
          return next();
        });
        scoped.section({ name: "added", order: 1, text: "" });
      }
      return next();
    });
    // Compare sorted logs: this test is about the snapshot, not the order.
    const current = await prompt.assemble({ scope: key });
    assert.deepEqual(log.slice().sort(), ["first", "second"]);
    assert.deepEqual(ownSections(current), []);
    log.length = 0;
    const next = await prompt.assemble({ scope: key });
    assert.deepEqual(log.slice().sort(), ["added", "first"]);
    assert.deepEqual(ownSections(next), ["added"]);
  });

  it("a registration made between calls is seen by the next call", async () => {
    const prompt = new SystemPrompt();
    const before = prompt.assemble();
    prompt.section({ name: "later", order: 1, text: "" });
    const after = prompt.assemble();
    // The snapshot of `before` was read when it was called.
    assert.deepEqual(ownSections(await before), []);
    assert.deepEqual(ownSections(await after), ["later"]);
  });
});

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
    // Scope-only variables come after the global ones.
    assert.equal(Object.keys(scopedAssembly.variables).at(-1), "agent_name");
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

describe("sections", () => {
  it("merges by name, a scope section replacing the global one entirely", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    prompt.section({ name: "rules", order: 10, text: "global rules" });
    prompt.section({ name: "style", order: 20, text: "global style" });
    const scoped = prompt.scope(key);
    scoped.section({ name: "rules", order: 30, text: "agent rules" });
    scoped.section({ name: "extra", order: 15, text: "agent extra" });

    const global = await prompt.assemble();
    assert.deepEqual(global.sections.slice(2), [
      { name: "rules", order: 10, text: "global rules" },
      { name: "style", order: 20, text: "global style" },
    ]);
    const forAgent = await prompt.assemble({ scope: key });
    assert.deepEqual(forAgent.sections.slice(2), [
      { name: "extra", order: 15, text: "agent extra" },
      { name: "style", order: 20, text: "global style" },
      { name: "rules", order: 30, text: "agent rules" },
    ]);
  });

  it("calls text functions with the context, and does not interpolate", async () => {
    const prompt = new SystemPrompt<AssembleContext & { who?: string }>();
    prompt.variable("model", () => "m");
    prompt.section({
      name: "dynamic",
      order: 1,
      text: (context) => `hello ${context.who ?? "nobody"} on {{model}}`,
    });
    assert.equal(
      (await prompt.assemble({ who: "ada" })).sections[2].text,
      "hello ada on {{model}}",
    );
    assert.equal(
      (await prompt.assemble()).sections[2].text,
      "hello nobody on {{model}}",
    );
  });

  it("sorts by order, then by code-unit name, never by registration order", async () => {
    const specs: [string, number][] = [
      ["b", 1],
      ["a", 1],
      ["B", 1],
      ["Z", 1],
      ["é", 1],
      ["e", 1],
      ["a10", 1],
      ["a9", 1],
      ["\uffff", 1],
      ["😀", 1],
      ["late", 1000],
      ["early", -5],
      ["half", 0.5],
      ["neg", -1e-9],
    ];
    const expected = [
      "early",
      "neg",
      PERSONA_SECTION,
      "half",
      "B",
      "Z",
      "a",
      "a10",
      "a9",
      "b",
      "e",
      "é",
      "😀",
      "\uffff",
      "late",
    ];
    const orders = [specs, specs.slice().reverse()];
    for (let seed = 1; seed <= 8; seed++) orders.push(shuffle(specs, seed));
    for (const order of orders) {
      const prompt = new SystemPrompt({ includeHarnessIdentity: false });
      for (const [name, position] of order) {
        prompt.section({ name, order: position, text: name });
      }
      const assembly = await prompt.assemble();
      assert.deepEqual(
        assembly.sections.map((section) => section.name),
        expected,
      );
    }
  });

  it("sorts global and scope sections together", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const scoped = prompt.scope("agent");
    scoped.section({ name: "s2", order: 2, text: "" });
    prompt.section({ name: "g3", order: 3, text: "" });
    scoped.section({ name: "a", order: 1, text: "" });
    prompt.section({ name: "g1", order: 1, text: "" });
    assert.deepEqual(
      ownSections(await prompt.assemble({ scope: "agent" })),
      ["a", "g1", "s2", "g3"],
    );
  });

  it("rejects PROVIDER_FAILED when a text function returns a non-string", async () => {
    const prompt = new SystemPrompt();
    prompt.section({
      name: "bad-text",
      order: 1,
      text: () => undefined as unknown as string,
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", /bad-text/),
    );
  });
});

describe("tools", () => {
  it("collects global then scope providers, keeping collection order for shared names", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    prompt.scope(key).tools(() => ({ schemas: [tool("dup", "scoped")] }));
    prompt.tools(() => ({ schemas: [tool("dup", "first"), tool("b")] }));
    prompt.tools(() => ({ schemas: [tool("a"), tool("dup", "second")] }));

    const global = await prompt.assemble();
    assert.deepEqual(
      global.tools.map((t) => [t.name, t.description]),
      [["a", "a"], ["b", "b"], ["dup", "first"], ["dup", "second"]],
    );
    const forAgent = await prompt.assemble({ scope: key });
    assert.deepEqual(
      forAgent.tools.map((t) => [t.name, t.description]),
      [
        ["a", "a"],
        ["b", "b"],
        ["dup", "first"],
        ["dup", "second"],
        ["dup", "scoped"],
      ],
    );
  });

  it("calls each tool provider once per assembly with the context", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const seen: unknown[] = [];
    prompt.tools((context) => {
      seen.push(context.extra);
      return { schemas: [] };
    });
    await prompt.assemble({ extra: 7 });
    await prompt.assemble({ extra: 8 });
    assert.deepEqual(seen, [7, 8]);
  });

  it("sorts tools by code-unit name without a toolOrder", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: [tool("b"), tool("B"), tool("a")] }));
    prompt.tools(() => ({ schemas: [tool("é"), tool("_"), tool("Z")] }));
    assert.deepEqual(toolNames(await prompt.assemble()), [
      "B",
      "Z",
      "_",
      "a",
      "b",
      "é",
    ]);
  });

  it("deep-copies parameters: mutating a result changes neither the provider's object nor the next assembly", async () => {
    const prompt = new SystemPrompt();
    const parameters = {
      type: "object",
      properties: { command: { type: "string", enum: ["ls", "pwd"] } },
      required: ["command"],
    };
    const schema = tool("shell", "Run a command.", parameters);
    prompt.tools(() => ({ schemas: [schema] }));
    const first = await prompt.assemble();
    const copy = first.tools[0];
    assert.notEqual(copy, schema);
    assert.notEqual(copy.parameters, parameters);
    assert.deepEqual(copy.parameters, parameters);
    const properties = copy.parameters.properties as Record<
      string,
      { enum: string[] }
    >;
    properties.command.enum.push("rm");
    (copy.parameters.required as string[]).length = 0;
    copy.parameters.type = "changed";
    copy.description = "changed";

    assert.deepEqual(parameters, {
      type: "object",
      properties: { command: { type: "string", enum: ["ls", "pwd"] } },
      required: ["command"],
    });
    assert.equal(schema.description, "Run a command.");
    const second = await prompt.assemble();
    assert.deepEqual(second.tools, [
      {
        name: "shell",
        description: "Run a command.",
        parameters: {
          type: "object",
          properties: { command: { type: "string", enum: ["ls", "pwd"] } },
          required: ["command"],
        },
      },
    ]);
  });

  it("applies toolOrder, with knownNames defaulting to the schema names", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["zeta", TOOL_ORDER_REST, "alpha"],
    });
    prompt.tools(() => ({
      schemas: [tool("alpha"), tool("mid"), tool("beta"), tool("zeta")],
    }));
    assert.deepEqual(toolNames(await prompt.assemble()), [
      "zeta",
      "beta",
      "mid",
      "alpha",
    ]);
  });

  it("a listed tool known but absent from the schemas is a normal absence", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["restricted", "shell", TOOL_ORDER_REST],
    });
    prompt.tools(() => ({
      schemas: [tool("zz"), tool("shell")],
      knownNames: ["restricted", "shell", "zz"],
    }));
    assert.deepEqual(toolNames(await prompt.assemble()), ["shell", "zz"]);
  });

  it("knownNames from a scope provider count for that scope's assembly", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["special", TOOL_ORDER_REST],
    });
    prompt.tools(() => ({
      schemas: [tool("shell")],
      knownNames: ["special", "shell"],
    }));
    prompt.scope("agent").tools(() => ({ schemas: [tool("special")] }));
    assert.deepEqual(toolNames(await prompt.assemble({ scope: "agent" })), [
      "special",
      "shell",
    ]);
    assert.deepEqual(toolNames(await prompt.assemble()), ["shell"]);
  });

  it("rejects UNKNOWN_TOOL_IN_ORDER for a listed name no provider knows", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["ghost", "shell", TOOL_ORDER_REST, "phantom"],
    });
    prompt.tools(() => ({ schemas: [tool("shell"), tool("edit")] }));
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "UNKNOWN_TOOL_IN_ORDER",
        /ghost[\s\S]*phantom|phantom[\s\S]*ghost/,
      ),
    );
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_ORDER", /edit, shell/),
    );
  });

  it("without knownNames, a listed tool whose provider returns no schema is unknown", async () => {
    const prompt = new SystemPrompt({ toolOrder: ["shell", TOOL_ORDER_REST] });
    prompt.tools(() => ({ schemas: [] }));
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_ORDER", /shell/),
    );
  });

  it("rejects RESERVED_TOOL_NAME for a tool named TOOL_ORDER_REST, with or without toolOrder", async () => {
    for (
      const config of [{}, { toolOrder: [TOOL_ORDER_REST] }]
    ) {
      const prompt = new SystemPrompt(config);
      prompt.tools(() => ({ schemas: [tool("ok"), tool(TOOL_ORDER_REST)] }));
      await assert.rejects(prompt.assemble(), rejects("RESERVED_TOOL_NAME"));
    }
  });

  it("rejects INVALID_TOOL_SCHEMA for malformed provider results", async () => {
    const bad: unknown[] = [
      null,
      undefined,
      {},
      { schemas: "shell" },
      { schemas: [null] },
      { schemas: [{ description: "", parameters: {} }] },
      { schemas: [{ name: "", description: "", parameters: {} }] },
      { schemas: [{ name: "a", description: 1, parameters: {} }] },
      { schemas: [{ name: "a", description: "", parameters: null }] },
      { schemas: [{ name: "a", description: "" }] },
    ];
    for (const result of bad) {
      const prompt = new SystemPrompt();
      prompt.tools(() => result as never);
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_TOOL_SCHEMA"),
        JSON.stringify(result),
      );
    }
  });
});

describe("provider failures", () => {
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

describe("waterfall", () => {
  type Listener = AssembleListener<AssembleContext & { extra?: number }>;

  it("runs listeners in registration order; global for every assembly, scope only for its own", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const log: string[] = [];
    const named = (name: string): Listener => (_assembly, _context, next) => {
      log.push(name);
      return next();
    };
    prompt.onAssemble(named("g1"));
    prompt.fork().onAssemble(named("g2"));
    prompt.onAssemble(named("g3"));
    const a = prompt.scope("a");
    a.onAssemble(named("a1"));
    prompt.scope("b").onAssemble(named("b1"));
    a.fork().onAssemble(named("a2"));

    await prompt.assemble();
    assert.deepEqual(log, ["g1", "g2", "g3"]);
    log.length = 0;
    await prompt.assemble({ scope: "a" });
    assert.deepEqual(log, ["g1", "g2", "g3", "a1", "a2"]);
    log.length = 0;
    await prompt.assemble({ scope: "b" });
    assert.deepEqual(log, ["g1", "g2", "g3", "b1"]);
    log.length = 0;
    await prompt.assemble({ scope: "c" });
    assert.deepEqual(log, ["g1", "g2", "g3"]);
  });

  it("interleaves global and scope listeners by registration time", async () => {
    // "In registration order" read literally: one sequence across layers
    // (not all global listeners first).
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const named = (name: string): Listener => (_assembly, _context, next) => {
      log.push(name);
      return next();
    };
    const scoped = prompt.scope("a");
    scoped.onAssemble(named("a1"));
    prompt.onAssemble(named("g1"));
    scoped.onAssemble(named("a2"));
    prompt.onAssemble(named("g2"));
    await prompt.assemble({ scope: "a" });
    assert.deepEqual(log, ["a1", "g1", "a2", "g2"]);
    log.length = 0;
    await prompt.assemble();
    assert.deepEqual(log, ["g1", "g2"]);
  });

  it("passes the caller's context object itself to every listener", async () => {
    const prompt = new SystemPrompt<AssembleContext & { extra?: number }>();
    const key = { id: "agent" };
    const seen: unknown[] = [];
    const listener: Listener = (_assembly, context, next) => {
      seen.push(context);
      return next();
    };
    prompt.onAssemble(listener);
    prompt.scope(key).onAssemble(listener);
    const context = { scope: key, extra: 1 };
    await prompt.assemble(context);
    assert.equal(seen.length, 2);
    assert.equal(seen[0], context);
    assert.equal(seen[1], context);

    seen.length = 0;
    await prompt.assemble();
    assert.equal(seen.length, 1);
    assert.equal(typeof seen[0], "object");
  });

  it("memoizes next(): calling it twice returns the same promise and runs the rest once", async () => {
    const prompt = new SystemPrompt();
    let downstream = 0;
    let same = false;
    prompt.onAssemble(async (_assembly, _context, next) => {
      const first = next();
      const second = next();
      same = first === second;
      await first;
      const third = next();
      same &&= third === first;
      return second;
    });
    prompt.onAssemble((_assembly, _context, next) => {
      downstream++;
      return next();
    });
    prompt.onAssemble((assembly) => {
      downstream++;
      return assembly;
    });
    await prompt.assemble();
    assert.equal(same, true);
    assert.equal(downstream, 2);
  });

  it("a listener may mutate the assembly and call next()", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let seenDownstream: string[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      assembly.sections.push({ name: "from-listener", order: -1000, text: "" });
      assembly.variables.added = "yes";
      return next();
    });
    prompt.onAssemble((assembly, _context, next) => {
      seenDownstream = assembly.sections.map((s) => s.name);
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(seenDownstream, [PERSONA_SECTION, "from-listener"]);
    assert.deepEqual(result.sections.map((s) => s.name), [
      PERSONA_SECTION,
      "from-listener",
    ]);
    assert.equal(result.variables.added, "yes");
  });

  it("a listener may wrap next()'s result", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      return {
        ...result,
        variables: {
          ...result.variables,
          outer: String(result.variables.inner),
        },
      };
    });
    prompt.onAssemble((assembly, _context, next) => {
      assembly.variables.inner = "set-downstream";
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(result.variables, {
      inner: "set-downstream",
      outer: "set-downstream",
    });
  });

  it("a listener may short-circuit: later listeners do not run and its value is the result", async () => {
    const prompt = new SystemPrompt();
    let laterRan = false;
    const replacement: PromptAssembly = {
      sections: [{ name: "only", order: 0, text: "only" }],
      tools: [],
      variables: { short: "circuit" },
    };
    prompt.onAssemble(() => replacement);
    prompt.onAssemble((assembly) => {
      laterRan = true;
      return assembly;
    });
    const result = await prompt.assemble();
    assert.equal(laterRan, false);
    assert.deepEqual(result, replacement);
  });

  it("a listener may return a value, a Promise or an Observable", async () => {
    const make = (label: string): PromptAssembly => ({
      sections: [],
      tools: [],
      variables: { via: label },
    });
    const returns: [string, Listener][] = [
      ["value", () => make("value")],
      ["promise", () => Promise.resolve(make("promise"))],
      ["async", async () => {
        await macrotask();
        return make("async");
      }],
      ["thenable", () =>
        ({
          then: (resolve: (value: PromptAssembly) => void) =>
            resolve(make("thenable")),
        }) as unknown as PromiseLike<PromptAssembly>],
      ["observable", () => of(make("observable"))],
    ];
    for (const [label, listener] of returns) {
      const prompt = new SystemPrompt();
      prompt.onAssemble(listener);
      assert.deepEqual((await prompt.assemble()).variables, { via: label });
    }
  });

  it("an Observable listener may wrap next()", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble((assembly, _context, next) => {
      assembly.variables.before = "b";
      return from(next()).pipe(
        map((result) => ({
          ...result,
          variables: { ...result.variables, after: "a" },
        })),
      );
    });
    assert.deepEqual((await prompt.assemble()).variables, {
      before: "b",
      after: "a",
    });
  });

  it("without listeners the initial assembly is the result", async () => {
    const prompt = new SystemPrompt({ persona: "p" });
    prompt.variable("model", () => "m");
    const assembly = await prompt.assemble();
    assert.deepEqual(ownSections(assembly), []);
    assert.deepEqual(assembly.variables, { model: "m" });
  });

  it("a listener's error rejects the assembly with that same error", async () => {
    const boom = new Error("listener failed");
    const failing: [string, Listener][] = [
      ["throw", () => {
        throw boom;
      }],
      ["reject", () => Promise.reject(boom)],
      ["async throw", async () => {
        await macrotask();
        throw boom;
      }],
      ["observable error", () => throwError(() => boom)],
      ["after next", async (_a, _c, next) => {
        await next();
        throw boom;
      }],
    ];
    for (const [label, listener] of failing) {
      const prompt = new SystemPrompt();
      prompt.onAssemble((_assembly, _context, next) => next());
      prompt.onAssemble(listener);
      await assert.rejects(prompt.assemble(), (error) => {
        assert.equal(error, boom, label);
        return true;
      });
    }
  });

  it("a downstream error propagates through next() to upstream listeners", async () => {
    const prompt = new SystemPrompt();
    const boom = new Error("downstream");
    let caughtUpstream: unknown;
    prompt.onAssemble(async (_assembly, _context, next) => {
      try {
        return await next();
      } catch (error) {
        caughtUpstream = error;
        throw error;
      }
    });
    prompt.onAssemble(() => {
      throw boom;
    });
    await assert.rejects(prompt.assemble(), (error) => error === boom);
    assert.equal(caughtUpstream, boom);
  });

  it("applies canonical tool order before the waterfall; a listener's addition stays where it put it", async () => {
    const prompt = new SystemPrompt({ toolOrder: [TOOL_ORDER_REST, "first"] });
    prompt.tools(() => ({ schemas: [tool("c"), tool("first"), tool("a")] }));
    prompt.tools(() => ({ schemas: [tool("b")] }));
    let seen: string[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      seen = toolNames(assembly);
      assembly.tools.push(tool("0-added"));
      assembly.sections.push({ name: "0-added", order: -1e9, text: "" });
      return next();
    });
    const result = await prompt.assemble();
    assert.deepEqual(seen, ["a", "b", "c", "first"]);
    assert.deepEqual(toolNames(result), ["a", "b", "c", "first", "0-added"]);
    assert.equal(result.sections.at(-1)?.name, "0-added");
  });
});

describe("AbortSignal", () => {
  it("an already-aborted signal rejects at once with its reason, calling no provider", async () => {
    const prompt = new SystemPrompt();
    let calls = 0;
    prompt.variable("v", () => {
      calls++;
      return "v";
    });
    prompt.onAssemble((assembly) => {
      calls++;
      return assembly;
    });
    const reason = { custom: "reason" };
    await assert.rejects(
      prompt.assemble({ signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      prompt.assemble({ signal: controller.signal }),
      (error) => error === controller.signal.reason,
    );
    assert.equal(calls, 0);
  });

  it("an abort while a slow listener runs rejects with the reason", async () => {
    const prompt = new SystemPrompt();
    const gate = deferred();
    let listenerStarted = false;
    prompt.onAssemble(async (_assembly, _context, next) => {
      listenerStarted = true;
      await gate.promise;
      return next();
    });
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const result = prompt.assemble({ signal: controller.signal });
    const settled = result.then(
      () => "resolved",
      (error) => error,
    );
    await macrotask();
    assert.equal(listenerStarted, true);
    controller.abort(reason);
    const outcome = await Promise.race([
      settled,
      new Promise((resolve) =>
        setTimeout(() => resolve("still pending"), 1000)
      ),
    ]);
    gate.resolve();
    assert.equal(outcome, reason);
    await macrotask();
    assert.equal(await settled, reason);
  });

  it("an abort after the assembly resolved changes nothing", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    const assembly = await prompt.assemble({ signal: controller.signal });
    controller.abort(new Error("late"));
    assert.equal(assembly.sections.length, 2);
  });
});

describe("isolation", () => {
  it("mutating every part of a returned assembly never changes a later one", async () => {
    const prompt = new SystemPrompt({ persona: "persona" });
    const parameters = {
      type: "object",
      properties: { x: { type: "string" } },
    };
    prompt.section({ name: "s", order: 1, text: "section" });
    prompt.section({ name: "f", order: 2, text: () => "function" });
    prompt.variable("model", () => "m");
    prompt.tools(() => ({ schemas: [tool("t", "d", parameters)] }));
    const pristine = await prompt.assemble();
    const snapshot = structuredClone(pristine);

    const mutated = await prompt.assemble();
    assert.notEqual(mutated, pristine);
    assert.notEqual(mutated.sections, pristine.sections);
    assert.notEqual(mutated.sections[0], pristine.sections[0]);
    assert.notEqual(mutated.tools, pristine.tools);
    assert.notEqual(mutated.tools[0], pristine.tools[0]);
    assert.notEqual(mutated.tools[0].parameters, pristine.tools[0].parameters);
    assert.notEqual(mutated.variables, pristine.variables);

    for (const section of mutated.sections) {
      section.text = "mutated";
      section.order = 99;
      section.name = "mutated";
    }
    mutated.sections.reverse();
    mutated.sections.push({ name: "pushed", order: 0, text: "" });
    const properties = mutated.tools[0].parameters.properties as Record<
      string,
      Record<string, unknown>
    >;
    properties.x.type = "number";
    properties.y = { type: "boolean" };
    mutated.tools[0].name = "renamed";
    mutated.tools.push(tool("pushed"));
    mutated.variables.model = "mutated";
    mutated.variables.extra = "extra";
    delete mutated.variables.model;

    assert.deepEqual(await prompt.assemble(), snapshot);
    assert.deepEqual(pristine, snapshot);
    assert.deepEqual(parameters, {
      type: "object",
      properties: { x: { type: "string" } },
    });
  });

  it("a listener's mutations do not leak into the registry", async () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "s", order: 1, text: "original" });
    prompt.tools(() => ({ schemas: [tool("t", "d", { nested: { v: 1 } })] }));
    prompt.variable("model", () => "m");
    const pristine = await prompt.assemble();
    const dispose = prompt.onAssemble((assembly, _context, next) => {
      assembly.sections[2].text = "listener";
      (assembly.tools[0].parameters.nested as { v: number }).v = 2;
      assembly.variables.model = "listener";
      return next();
    });
    await prompt.assemble();
    await dispose();
    assert.deepEqual(await prompt.assemble(), pristine);
  });
});

describe("cost", () => {
  it("assembling for a scope does not depend on how many other scopes exist", async () => {
    const key = { id: "target" };
    const build = (otherScopes: number) => {
      const prompt = new SystemPrompt();
      // The other scopes first, so that a search through the scopes in
      // insertion order would not find the target at once.
      for (let i = 0; i < otherScopes; i++) {
        const scoped = prompt.scope({ i });
        scoped.section({ name: "other", order: 1, text: "other" });
        scoped.variable("model", () => "other");
      }
      for (let i = 0; i < 5; i++) {
        prompt.section({ name: `g${i}`, order: i, text: "g" });
        prompt.scope(key).section({ name: `s${i}`, order: i, text: "s" });
      }
      prompt.variable("model", () => "m");
      prompt.scope(key).tools(() => ({ schemas: [tool("t")] }));
      return prompt;
    };
    const alone = build(0);
    const crowded = build(20_000);
    const batch = 1_000;
    const time = async (prompt: SystemPrompt) => {
      const start = performance.now();
      for (let i = 0; i < batch; i++) await prompt.assemble({ scope: key });
      return performance.now() - start;
    };
    // Interleaved best-of-7, so that load on the machine and garbage
    // collection hit both sides alike. A cost linear in the number of scopes
    // would make the ratio well above 100.
    await time(alone);
    await time(crowded);
    let bestAlone = Infinity;
    let bestCrowded = Infinity;
    for (let round = 0; round < 7; round++) {
      bestAlone = Math.min(bestAlone, await time(alone));
      bestCrowded = Math.min(bestCrowded, await time(crowded));
    }
    const ratio = bestCrowded / Math.max(bestAlone, 0.01);
    assert.ok(
      ratio < 10,
      `${batch} assemblies took ${bestAlone.toFixed(1)}ms alone and ` +
        `${bestCrowded.toFixed(1)}ms beside 20,000 scopes ` +
        `(ratio ${ratio.toFixed(1)}, expected about 1)`,
    );
    const assembly = await crowded.assemble({ scope: key });
    assert.deepEqual(ownSections(assembly), [
      "g0",
      "s0",
      "g1",
      "s1",
      "g2",
      "s2",
      "g3",
      "s3",
      "g4",
      "s4",
    ]);
    assert.deepEqual(assembly.variables, { model: "m" });
    await alone.dispose();
    await crowded.dispose();
  });
});
