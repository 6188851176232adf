import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { firstValueFrom } from "rxjs";
import {
  type AssembleContext,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool, toolNames } from "../fixtures.ts";

describe("tools", () => {
  it("collects global then scope providers; a scope tool shadows the global one of its name", async () => {
    const prompt = new SystemPrompt({ toolOrder: ["dup", TOOL_ORDER_REST] });
    const key = { id: "agent" };
    prompt.scope(key).tools(() => ({ schemas: [tool("dup", "scoped")] }));
    prompt.tools(() => ({ schemas: [tool("dup", "global"), tool("b")] }));
    prompt.tools(() => ({ schemas: [tool("a")] }));

    const global = await prompt.assemble();
    assert.deepEqual(
      global.tools.map((t) => [t.name, t.description]),
      [["dup", "global"], ["a", "a"], ["b", "b"]],
    );
    const forAgent = await prompt.assemble({ scope: key });
    assert.deepEqual(
      forAgent.tools.map((t) => [t.name, t.description]),
      [["dup", "scoped"], ["a", "a"], ["b", "b"]],
    );
  });

  it("a shadowed tool's name stays known to toolOrder", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["shell", TOOL_ORDER_REST],
    });
    prompt.tools(() => ({ schemas: [tool("shell", "global")] }));
    prompt.scope("agent").tools(() => ({
      schemas: [tool("shell", "scoped")],
    }));
    const { tools } = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(tools.map((t) => t.description), ["scoped"]);
  });

  it("rejects DUPLICATE_TOOL for one name from two providers of one layer, naming both registrars", async () => {
    const prompt = new SystemPrompt();
    prompt.fork({ label: "shell" }).tools(() => ({ schemas: [tool("run")] }));
    prompt.fork({ label: "exec" }).tools(() => ({ schemas: [tool("run")] }));
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "DUPLICATE_TOOL",
        '"run"',
        '"registry/shell"',
        '"registry/exec"',
        "the global layer",
      ),
    );
    const fresh = new SystemPrompt();
    const scoped = fresh.scope("agent", { label: "agent" });
    scoped.tools(() => ({ schemas: [tool("edit")] }));
    scoped.fork().tools(() => ({ schemas: [tool("edit")] }));
    await assert.rejects(
      fresh.assemble({ scope: "agent" }),
      rejects(
        "DUPLICATE_TOOL",
        '"edit"',
        'registrar "registry/agent"',
        'registrar "registry/agent/fork"',
        'scope "agent"',
      ),
    );
  });

  it("a watch() view names the scope layer of a duplicate tool, as assemble() does", async () => {
    const prompt = new SystemPrompt();
    const scoped = prompt.scope("agent", { label: "agent" });
    scoped.tools(() => ({ schemas: [tool("edit")] }));
    scoped.fork().tools(() => ({ schemas: [tool("edit")] }));
    const view = await firstValueFrom(prompt.watch({ scope: "agent" }));
    assert.ok("error" in view);
    rejects("DUPLICATE_TOOL", '"edit"', 'scope "agent"')(view.error);
    await prompt.dispose();
  });

  it("rejects DUPLICATE_TOOL for a provider that lists one name twice", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(function twice() {
      return { schemas: [tool("run"), tool("run", "again")] };
    });
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "DUPLICATE_TOOL",
        '"run"',
        /twice \(#1\) of registrar "registry"[^]*lists it twice/,
      ),
    );
  });

  it("rejects INVALID_TOOL_SCHEMA for a tool name that is too long or holds whitespace or control characters", async () => {
    const bad = [
      "a".repeat(129),
      "read file",
      "tab\there",
      "nl\n",
      "nul\u0000",
      "nbsp\u00a0x",
    ];
    for (const name of bad) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({ schemas: [tool(name)] }));
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_TOOL_SCHEMA", "at most 128"),
        JSON.stringify(name),
      );
    }
    const prompt = new SystemPrompt();
    const longest = "a".repeat(128);
    prompt.tools(() => ({ schemas: [tool(longest), tool("ünïcode:ok/-.")] }));
    assert.deepEqual(toolNames(await prompt.assemble()), [
      longest,
      "ünïcode:ok/-.",
    ]);
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
        "lists tools that no tool provider knows",
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
      rejects(
        "UNKNOWN_TOOL_IN_ORDER",
        "lists a tool that no tool provider knows",
        /shell/,
      ),
    );
  });

  it("orders each step's tools afresh when the names or their order change", async () => {
    const steps = [
      ["b", "shell", "a"],
      ["a", "b", "shell"],
      ["c", "shell", "a"],
      ["c", "shell", "a", "finish"],
    ];
    for (const toolOrder of [undefined, ["shell", TOOL_ORDER_REST]]) {
      const prompt = new SystemPrompt({ toolOrder });
      let step = 0;
      prompt.tools(() => ({ schemas: steps[step].map((name) => tool(name)) }));
      for (step = 0; step < steps.length; step++) {
        const rest = steps[step].filter((name) =>
          toolOrder === undefined || name !== "shell"
        ).sort();
        assert.deepEqual(
          toolNames(await prompt.assemble()),
          toolOrder === undefined ? rest : ["shell", ...rest],
        );
      }
    }
  });

  it("checks a listed name that only knownNames vouched for again at every step", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["restricted", TOOL_ORDER_REST],
    });
    let knownNames: string[] | undefined = ["restricted", "shell"];
    prompt.tools(() => ({ schemas: [tool("shell")], knownNames }));
    assert.deepEqual(toolNames(await prompt.assemble()), ["shell"]);
    knownNames = undefined;
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_ORDER", '"restricted"'),
    );
  });

  it("keeps the orders of registries with and without a toolOrder apart", async () => {
    const plain = new SystemPrompt();
    const ordered = new SystemPrompt({ toolOrder: ["b", TOOL_ORDER_REST] });
    for (const prompt of [plain, ordered]) {
      prompt.tools(() => ({ schemas: [tool("a"), tool("b")] }));
    }
    for (let step = 0; step < 3; step++) {
      assert.deepEqual(toolNames(await plain.assemble()), ["a", "b"]);
      assert.deepEqual(toolNames(await ordered.assemble()), ["b", "a"]);
    }
  });

  it("rejects a tool named TOOL_ORDER_REST that appears after steps without one", async () => {
    const prompt = new SystemPrompt({ toolOrder: [TOOL_ORDER_REST] });
    let names = ["ok"];
    prompt.tools(() => ({ schemas: names.map((name) => tool(name)) }));
    await prompt.assemble();
    names = [TOOL_ORDER_REST];
    await assert.rejects(prompt.assemble(), rejects("RESERVED_TOOL_NAME"));
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

  it("rejects INVALID_TOOL_SCHEMA for knownNames that is not an array of strings", async () => {
    for (const knownNames of ["shell", [1], [null], {}]) {
      const prompt = new SystemPrompt();
      prompt.tools(() => ({ schemas: [], knownNames } as never));
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_TOOL_SCHEMA", "knownNames", "#1"),
        JSON.stringify(knownNames),
      );
    }
  });

  it("rejects PROVIDER_FAILED for a schema that is a class instance, not plain data", async () => {
    class Schema {
      name = "shell";
      description = "Run.";
      parameters = { type: "object" };
    }
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: [new Schema()] }));
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", '"shell"', "the schema is a Schema"),
    );
  });
});
