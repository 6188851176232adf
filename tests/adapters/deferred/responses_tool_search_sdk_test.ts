// Deno-only: the real `openai` client's `responses.create` against a
// loopback server holding requests to OpenAI's deferred-tool rules
// (responses_tool_search.ts). The bodies are built by hand here from an
// assembly with 300 deferred MCP tools, one `namespace` per source: the
// Responses form compiles them after the house refactor (notes:
// deferred_forms_design.md), and its tests will drive this same server.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { PromptAssembly, SystemPrompt, ToolSchema } from "../../../mod.ts";
import { toResponses } from "../../../adapters/openai/mod.ts";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import {
  searchTools,
  toolSearchIndex,
} from "../../../src/shared/tool_search.ts";
import { SDK_PERMISSIONS } from "../sdk_permissions.ts";
import { deferredRegistry, READ_FILE } from "./deferred_registry_sdk.ts";
import { FOUND } from "./mcp_servers.ts";
import {
  responsesToolSearchServer,
  type ResponsesTurn,
} from "./responses_tool_search.ts";
import { serveRules, tokensOf } from "./rule_server.ts";

type Tool = OpenAI.Responses.Tool;
type Input = OpenAI.Responses.ResponseInputItem;

/** A namespace's name: the last segment of its registrar's label. */
function namespaceOf(label: string): string {
  return label.slice(label.lastIndexOf("/") + 1);
}

function deferredFunction(
  tool: ToolSchema,
): OpenAI.Responses.NamespaceTool.Function {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    defer_loading: true,
  };
}

/** `tool_search`, the listed functions, one namespace per deferred source. */
function toolsOf(
  assembly: PromptAssembly,
  search: OpenAI.Responses.ToolSearchTool = { type: "tool_search" },
): Tool[] {
  const groups = new Map<string, ToolSchema[]>();
  for (const tool of assembly.deferredTools ?? []) {
    const name = namespaceOf(assembly.deferredSources![tool.name]);
    groups.set(name, [...groups.get(name) ?? [], tool]);
  }
  const namespaces: OpenAI.Responses.NamespaceTool[] = [...groups].map((
    [name, tools],
  ) => ({
    type: "namespace",
    name,
    description: `The ${name} server's ${tools.length} tools, such as ` +
      `${tools.slice(0, 3).map((tool) => tool.name).join(", ")}.`,
    tools: tools.map(deferredFunction),
  }));
  return [
    search,
    ...(toResponses(assembly).tools ?? []) as Tool[],
    ...namespaces,
  ];
}

function client(baseURL: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

async function sendAll(
  script: (body: Record<string, unknown>, n: number) => ResponsesTurn,
  run: (openai: OpenAI) => Promise<void>,
): Promise<ReturnType<typeof responsesToolSearchServer>> {
  const server = responsesToolSearchServer(script);
  await serveRules(server.answer, (baseURL) => run(client(baseURL)));
  return server;
}

async function rejection(
  body: OpenAI.Responses.ResponseCreateParamsNonStreaming,
): Promise<{ status: number; message: string }> {
  let caught: unknown;
  await sendAll(() => ({ text: "unused" }), async (openai) => {
    await openai.responses.create(body).catch((error) => caught = error);
  });
  assert.ok(caught instanceof OpenAI.APIError, String(caught));
  return { status: caught.status as number, message: caught.message };
}

const crmFind: ToolSchema = {
  name: "crm_find",
  description: "Find a contact in the CRM by name.",
  parameters: { type: "object", properties: { name: { type: "string" } } },
};
const small: PromptAssembly = {
  sections: [{ name: "rules", order: 10, text: "Be brief." }],
  tools: [READ_FILE],
  variables: {},
  deferredTools: [crmFind],
  deferredSources: { crm_find: "registry/crm" },
};
const user = (text: string): Input => ({ role: "user", content: text });

describe("OpenAI's deferred-tool rules, through openai's responses.create", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a server search answers tool_search_call + tool_search_output by namespace; the found function is called; the items go back", async () => {
    const outputs: OpenAI.Responses.ResponseOutputItem[][] = [];
    const server = await sendAll(
      (_, n) =>
        n === 0
          ? {
            search: "contact",
            call: {
              namespace: "crm",
              name: "crm_find",
              arguments: { name: "Ada" },
            },
          }
          : { text: "Found Ada." },
      async (openai) => {
        const input: Input[] = [user("Find Ada.")];
        const tools = toolsOf(small);
        const first = await openai.responses.create({
          model: "gpt-loopback",
          tools,
          input,
        });
        outputs.push(first.output);
        input.push(...first.output as Input[]);
        const call = first.output.find((item) =>
          item.type === "function_call"
        )!;
        input.push({
          type: "function_call_output",
          call_id: call.call_id,
          output: "Ada, ada@example.com",
        });
        const second = await openai.responses.create({
          model: "gpt-loopback",
          tools,
          input,
        });
        assert.equal(second.output_text, "Found Ada.");
      },
    );
    assert.deepEqual(server.rejections, []);
    const [call, output, fn] = outputs[0] as [
      OpenAI.Responses.ResponseToolSearchCall,
      OpenAI.Responses.ResponseToolSearchOutputItem,
      OpenAI.Responses.ResponseFunctionToolCall,
    ];
    assert.equal(call.type, "tool_search_call");
    assert.equal(call.execution, "server");
    assert.deepEqual(call.arguments, { query: "contact" });
    assert.deepEqual(output.tools, [{
      type: "namespace",
      name: "crm",
      description: "The crm server's 1 tools, such as crm_find.",
      tools: [deferredFunction(crmFind)],
    }]);
    assert.equal(fn.namespace, "crm");
    assert.equal(fn.name, "crm_find");
  });

  it("with execution: client the client answers the search with our deterministic search", async () => {
    const server = await sendAll(
      (_, n) =>
        n === 0 ? { search: "find contact" } : {
          call: {
            namespace: "crm",
            name: "crm_find",
            arguments: { name: "Ada" },
          },
        },
      async (openai) => {
        const tools = toolsOf(small, {
          type: "tool_search",
          execution: "client",
        });
        const input: Input[] = [user("Find Ada.")];
        const first = await openai.responses.create({
          model: "gpt-loopback",
          tools,
          input,
        });
        const [call] = first
          .output as OpenAI.Responses.ResponseToolSearchCall[];
        assert.equal(call.execution, "client");
        const query = (call.arguments as { query: string }).query;
        const found = searchTools(toolSearchIndex(small.deferredTools!), query);
        input.push(...first.output as Input[], {
          type: "tool_search_output",
          call_id: call.call_id,
          execution: "client",
          tools: [{
            type: "namespace",
            name: "crm",
            description: "The crm server's tools.",
            tools: found.map((hit) => deferredFunction(hit.tool)),
          }],
        });
        const second = await openai.responses.create({
          model: "gpt-loopback",
          tools,
          input,
        });
        assert.equal(second.output[0].type, "function_call");
      },
    );
    assert.deepEqual(server.rejections, []);
  });

  it("defer_loading without tool_search is a 400", async () => {
    const [, ...tools] = toolsOf(small);
    const { status, message } = await rejection({
      model: "gpt-loopback",
      tools,
      input: [user("Hi.")],
    });
    assert.equal(status, 400);
    assert.match(message, /defer_loading need a tool_search tool/);
  });

  it("a namespace needs a wire name, a description and functions; names are unique", async () => {
    const [search, listed, namespace] = toolsOf(small) as [
      Tool,
      Tool,
      OpenAI.Responses.NamespaceTool,
    ];
    const cases: [Tool[], RegExp][] = [
      [
        [search, listed, { ...namespace, name: "registry/crm" }],
        /a namespace name/,
      ],
      [[search, listed, { ...namespace, description: "" }], /is described/],
      [[search, listed, { ...namespace, tools: [] }], /holds functions/],
      [
        [search, listed, namespace, namespace],
        /namespace crm is defined twice/,
      ],
      [
        [search, listed, { ...namespace, name: "read_file" }],
        /has the name of a function/,
      ],
    ];
    for (const [tools, pattern] of cases) {
      const { status, message } = await rejection({
        model: "gpt-loopback",
        tools,
        input: [user("Hi.")],
      });
      assert.equal(status, 400);
      assert.match(message, pattern);
    }
  });

  it("allowed_tools names a namespaced function by namespace and name, and tool_search by type; the model keeps to it", async () => {
    const tools = toolsOf(small);
    const choice = (
      allowed: Record<string, unknown>[],
    ): OpenAI.Responses.ToolChoiceAllowed => ({
      type: "allowed_tools",
      mode: "auto",
      tools: allowed,
    });
    const bare = await rejection({
      model: "gpt-loopback",
      tools,
      tool_choice: choice([{ type: "function", name: "crm_find" }]),
      input: [user("Find Ada.")],
    });
    assert.equal(bare.status, 400);
    assert.match(bare.message, /allows crm_find, which the request does not/);
    const [, ...unsearchable] = tools;
    const search = await rejection({
      model: "gpt-loopback",
      tools: unsearchable.slice(0, 1),
      tool_choice: choice([{ type: "tool_search" }]),
      input: [user("Find Ada.")],
    });
    assert.match(search.message, /allows tool_search, which is not listed/);

    const allowed = choice([{ type: "tool_search" }, {
      type: "function",
      name: "crm_find",
      namespace: "crm",
    }]);
    // The model searches and calls what tool_choice allows...
    const served = await sendAll(
      () => ({
        search: "contact",
        call: { namespace: "crm", name: "crm_find", arguments: {} },
      }),
      async (openai) => {
        await openai.responses.create({
          model: "gpt-loopback",
          tools,
          tool_choice: allowed,
          input: [user("Find Ada.")],
        });
      },
    );
    assert.deepEqual(served.rejections, []);
    // ...and nothing else: read_file is not allowed.
    let caught: unknown;
    await sendAll(
      () => ({ call: { name: "read_file", arguments: {} } }),
      async (openai) => {
        await openai.responses.create({
          model: "gpt-loopback",
          tools,
          tool_choice: allowed,
          input: [user("Read it.")],
        }).catch((error) => caught = error);
      },
    );
    assert.ok(caught instanceof OpenAI.APIError);
    assert.match(caught.message, /cannot call read_file: tool_choice forbids/);
  });

  it("a call of a deferred function before a tool_search_output loaded it is a 400; so is loading an unknown one", async () => {
    const tools = toolsOf(small);
    const early = await rejection({
      model: "gpt-loopback",
      tools,
      input: [
        user("Find Ada."),
        {
          type: "function_call",
          call_id: "c1",
          namespace: "crm",
          name: "crm_find",
          arguments: "{}",
        },
        { type: "function_call_output", call_id: "c1", output: "Ada" },
      ],
    });
    assert.match(
      early.message,
      /deferred function crm\.crm_find before a tool_search_output loaded it/,
    );
    const unknown = await rejection({
      model: "gpt-loopback",
      tools,
      input: [
        user("Find Ada."),
        {
          type: "tool_search_output",
          execution: "server",
          tools: [{
            type: "namespace",
            name: "crm",
            description: "x",
            tools: [deferredFunction(READ_FILE)],
          }],
        },
      ],
    });
    assert.match(
      unknown.message,
      /loads "crm\.read_file", which is no deferred function/,
    );
  });
});

describe(
  "a session of 300 deferred MCP tools, 8 found and used, through openai's responses.create",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    let close: () => Promise<void>;
    let prompt: SystemPrompt;
    const sources: McpToolSource[] = [];

    before(async () => {
      const registry = await deferredRegistry({ stable: true });
      ({ prompt, close } = registry);
      sources.push(...registry.sources);
    });

    after(async () => {
      await prompt.dispose();
      await close();
    });

    it("every request carries the same instructions and tools; the 8 calls run by namespace; deferral saves the tools' tokens", async () => {
      const assembly = await prompt.assemble();
      const { instructions } = toResponses(assembly);
      const tools = toolsOf(assembly);
      assert.deepEqual(
        tools.filter((tool) => tool.type === "namespace").map((tool) =>
          (tool as { name: string }).name
        ),
        // In the canonical order of each one's first tool: crm_, gh_, ops_.
        ["crm", "codehost", "ops"],
      );
      const namespaceOfTool = (name: string) =>
        namespaceOf(assembly.deferredSources![name]);
      const script = (_: unknown, n: number): ResponsesTurn =>
        n < FOUND.length
          ? {
            search: FOUND[n].query,
            call: {
              namespace: namespaceOfTool(FOUND[n].name),
              name: FOUND[n].name,
              arguments: FOUND[n].args,
            },
          }
          : { text: "All done." };
      const server = await sendAll(script, async (openai) => {
        const input: Input[] = [user("Work through today's queue.")];
        for (let step = 0; step <= FOUND.length; step++) {
          const response = await openai.responses.create({
            model: "gpt-loopback",
            instructions,
            tools,
            input,
          });
          input.push(...response.output as Input[]);
          const call = response.output.find((item) =>
            item.type === "function_call"
          );
          if (call === undefined) break;
          const source = sources.find((one) => one.owns(call.name))!;
          const result = await source.call(
            call.name,
            JSON.parse(call.arguments),
          );
          input.push({
            type: "function_call_output",
            call_id: call.call_id,
            output: JSON.stringify(result.content),
          });
        }
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(server.bodies.length, FOUND.length + 1);
      const first = server.bodies[0];
      for (const body of server.bodies) {
        assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
        assert.equal(body.instructions, first.instructions);
      }
      assert.ok(
        server.usages.slice(1).every((usage) => usage.cached_tokens > 0),
      );
      const definitions = assembly.deferredTools!.reduce(
        (sum, tool) => sum + tokensOf(JSON.stringify(deferredFunction(tool))),
        0,
      );
      assert.ok(
        definitions > 10 * server.usages[0].input_tokens,
        `${definitions} vs ${server.usages[0].input_tokens}`,
      );
    });
  },
);
