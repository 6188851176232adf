/**
 * The deferred-tools session's tool set: three real MCP servers, 300 tools,
 * registered deferred through `mcpTools`, known to the registry, found by
 * the deterministic search and called through the servers.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PromptAssembly, SystemPrompt } from "../../../mod.ts";
import { mcpTools, type McpToolSource } from "../../../adapters/mcp/mod.ts";
import {
  searchTools,
  toolSearchIndex,
} from "../../../src/shared/tool_search.ts";
import { connectServers, FOUND, SERVERS, toolNamesOf } from "./mcp_servers.ts";

describe("the 300-tool fixture through mcpTools", () => {
  let close: () => Promise<void>;
  let prompt: SystemPrompt;
  const sources = new Map<string, McpToolSource>();
  let assembly: PromptAssembly;

  before(async () => {
    const connected = await connectServers();
    close = connected.close;
    prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.tools(() => ({
      schemas: [{
        name: "read_file",
        description: "Read a file of the workspace.",
        parameters: {
          type: "object",
          properties: { path: { type: "string" } },
        },
      }],
    }));
    for (const { plan, client } of connected.servers) {
      const source = mcpTools(client, { prefix: plan.prefix, defer: true });
      prompt.fork({ label: plan.name }).tools(source.tools$, {
        stability: "stable",
      });
      sources.set(plan.prefix, source);
    }
    for (const source of sources.values()) await source.ready;
    assembly = await prompt.assemble();
  });

  after(async () => {
    await prompt.dispose();
    await close();
  });

  it("lists 300 tools, 120 + 100 + 80, every name unique and wire-valid", () => {
    assert.deepEqual(SERVERS.map((plan) => toolNamesOf(plan).length), [
      120,
      100,
      80,
    ]);
    const names = assembly.deferredTools!.map((tool) => tool.name);
    assert.equal(names.length, 300);
    assert.equal(new Set(names).size, 300);
    assert.ok(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name)));
  });

  it("defers all 300, in canonical order, each grouped under its server's registrar", () => {
    assert.deepEqual(assembly.tools.map((tool) => tool.name), ["read_file"]);
    const names = assembly.deferredTools!.map((tool) => tool.name);
    assert.deepEqual(names, names.toSorted());
    const groups = new Map<string, number>();
    for (const label of Object.values(assembly.deferredSources!)) {
      groups.set(label, (groups.get(label) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(groups), {
      "registry/codehost": 120,
      "registry/crm": 100,
      "registry/ops": 80,
    });
  });

  it("gives each tool a description and a JSON Schema with its fields", () => {
    const byName = new Map(
      assembly.deferredTools!.map((tool) => [tool.name, tool]),
    );
    const create = byName.get("crm_create_deal")!;
    assert.match(create.description, /Create a deal in the CRM/);
    const schema = create.parameters as {
      type: string;
      properties: Record<string, { type: string; description: string }>;
      required: string[];
    };
    assert.equal(schema.type, "object");
    assert.deepEqual(Object.keys(schema.properties), ["title", "amount"]);
    assert.deepEqual(schema.required, ["title", "amount"]);
    assert.equal(
      schema.properties.amount.description,
      "the expected value in cents",
    );
  });

  it("the deterministic search finds each of the 8 session tools first", () => {
    const index = toolSearchIndex(assembly.deferredTools!);
    for (const { name, query } of FOUND) {
      const [first] = searchTools(index, query);
      assert.equal(first?.tool.name, name, query);
    }
  });

  it("calls each of the 8 through its server", async () => {
    for (const { name, args } of FOUND) {
      const source = [...sources.values()].find((one) => one.owns(name))!;
      const result = await source.call(name, args);
      const server = name.slice(name.indexOf("_") + 1);
      assert.deepEqual(result.content, [{
        type: "text",
        text: `${server}(${JSON.stringify(args)})`,
      }]);
    }
  });
});
