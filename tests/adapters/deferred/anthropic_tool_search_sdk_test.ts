// Deno-only: the real `@anthropic-ai/sdk` client against a loopback server
// holding requests to Anthropic's deferred-tool rules
// (anthropic_tool_search.ts). The bodies are built by hand here from an
// assembly with 300 deferred MCP tools: the Messages form compiles them
// after the house refactor (notes: deferred_forms_design.md), and its tests
// will drive this same server.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { PromptAssembly, SystemPrompt, ToolSchema } from "../../../mod.ts";
import { toMessages } from "../../../adapters/anthropic/mod.ts";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import { SDK_PERMISSIONS } from "../sdk_permissions.ts";
import {
  deferredRegistry,
  READ_FILE,
  SEARCH_RULES,
} from "./deferred_registry_sdk.ts";
import { FOUND } from "./mcp_servers.ts";
import {
  anthropicToolSearchServer,
  type AnthropicTurn,
} from "./anthropic_tool_search.ts";
import { serveRules, tokensOf } from "./rule_server.ts";

type Body = Anthropic.MessageCreateParamsNonStreaming;

const BM25 = {
  type: "tool_search_tool_bm25_20251119",
  name: "tool_search_tool_bm25",
} as const;
const REGEX = {
  type: "tool_search_tool_regex_20251119",
  name: "tool_search_tool_regex",
} as const;

function deferredTool(tool: ToolSchema): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Anthropic.Tool.InputSchema,
    defer_loading: true,
  };
}

/** The tools block: the search tool, the listed tools (marked), the deferred ones. */
function toolsOf(
  assembly: PromptAssembly,
  search: typeof BM25 | typeof REGEX = BM25,
): Anthropic.ToolUnion[] {
  const { tools } = toMessages(assembly, { cache: true });
  return [
    search,
    ...tools as Anthropic.ToolUnion[],
    ...(assembly.deferredTools ?? []).map(deferredTool),
  ];
}

function client(baseURL: string): Anthropic {
  return new Anthropic({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

/** Runs `body` through the SDK against a server playing `script`. */
async function sendAll(
  script: (body: Record<string, unknown>, n: number) => AnthropicTurn,
  run: (anthropic: Anthropic) => Promise<void>,
): Promise<ReturnType<typeof anthropicToolSearchServer>> {
  const server = anthropicToolSearchServer(script);
  await serveRules(server.answer, (baseURL) => run(client(baseURL)));
  return server;
}

async function rejection(
  body: Body,
): Promise<{ status: number; message: string; errorCode?: string }> {
  let caught: unknown;
  await sendAll(() => ({ text: "unused" }), async (anthropic) => {
    try {
      await anthropic.messages.create(body);
    } catch (error) {
      caught = error;
    }
  });
  assert.ok(caught instanceof Anthropic.APIError, String(caught));
  return {
    status: caught.status as number,
    message: caught.message,
    errorCode: (caught as { errorCode?: string }).errorCode,
  };
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
};
const user = (text: string): Anthropic.MessageParam => ({
  role: "user",
  content: text,
});

describe("Anthropic's deferred-tool rules, through @anthropic-ai/sdk", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a search answers server_tool_use + tool_search_tool_result, and the found tool is called", async () => {
    let message: Anthropic.Message | undefined;
    const server = await sendAll(
      () => ({
        search: "contact name",
        call: { name: "crm_find", input: { name: "Ada" } },
      }),
      async (anthropic) => {
        message = await anthropic.messages.create({
          model: "claude-loopback",
          max_tokens: 64,
          tools: toolsOf(small),
          messages: [user("Find Ada.")],
        });
      },
    );
    assert.deepEqual(server.rejections, []);
    assert.deepEqual(message!.content.map((block) => block.type), [
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    const result = message!.content[1] as Anthropic.ToolSearchToolResultBlock;
    assert.deepEqual(result.content, {
      type: "tool_search_tool_search_result",
      tool_references: [{ type: "tool_reference", tool_name: "crm_find" }],
    });
    assert.equal(message!.stop_reason, "tool_use");
  });

  it("the regex variant reads (?i) and searches names and descriptions", async () => {
    let message: Anthropic.Message | undefined;
    await sendAll(() => ({ search: "(?i)CONTACT" }), async (anthropic) => {
      message = await anthropic.messages.create({
        model: "claude-loopback",
        max_tokens: 64,
        tools: toolsOf(small, REGEX),
        messages: [user("Find Ada.")],
      });
    });
    const [use, result] = message!.content as [
      Anthropic.ServerToolUseBlock,
      Anthropic.ToolSearchToolResultBlock,
    ];
    assert.equal(use.name, "tool_search_tool_regex");
    assert.deepEqual(use.input, { pattern: "(?i)CONTACT" });
    assert.deepEqual(
      (result.content as Anthropic.ToolSearchToolSearchResultBlock)
        .tool_references.map((ref) => ref.tool_name),
      ["crm_find"],
    );
  });

  it("a tool with both defer_loading and cache_control is a 400", async () => {
    const tools = toolsOf(small);
    (tools.at(-1) as Anthropic.Tool).cache_control = { type: "ephemeral" };
    const { status, message } = await rejection({
      model: "claude-loopback",
      max_tokens: 64,
      tools,
      messages: [user("Hi.")],
    });
    assert.equal(status, 400);
    assert.match(
      message,
      /defer_loading cannot have cache_control \(crm_find\)/,
    );
  });

  it("deferred tools without a tool search tool are a 400, and so is a deferred search tool", async () => {
    const [, ...withoutSearch] = toolsOf(small);
    const missing = await rejection({
      model: "claude-loopback",
      max_tokens: 64,
      tools: withoutSearch,
      messages: [user("Hi.")],
    });
    assert.equal(missing.status, 400);
    assert.match(missing.message, /defer_loading requires a tool search tool/);
    const deferredSearch = await rejection({
      model: "claude-loopback",
      max_tokens: 64,
      tools: [{ ...BM25, defer_loading: true }, ...withoutSearch],
      messages: [user("Hi.")],
    });
    assert.match(deferredSearch.message, /search tool cannot be deferred/);
  });

  it("a call of a deferred tool before any reference to it is an error, in the history and for the model", async () => {
    const history = await rejection({
      model: "claude-loopback",
      max_tokens: 64,
      tools: toolsOf(small),
      messages: [
        user("Find Ada."),
        {
          role: "assistant",
          content: [{
            type: "tool_use",
            id: "toolu_1",
            name: "crm_find",
            input: {},
          }],
        },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: "ok",
          }],
        },
      ],
    });
    assert.equal(history.status, 400);
    assert.match(
      history.message,
      /deferred tool crm_find before any tool_reference/,
    );

    let caught: unknown;
    await sendAll(
      () => ({ call: { name: "crm_find", input: {} } }),
      async (anthropic) => {
        await anthropic.messages.create({
          model: "claude-loopback",
          max_tokens: 64,
          tools: toolsOf(small),
          messages: [user("Find Ada.")],
        }).catch((error) => caught = error);
      },
    );
    assert.ok(caught instanceof Anthropic.InternalServerError);
    assert.match(caught.message, /cannot call crm_find: it is not loaded/);
  });

  it("a tool_reference to no deferred tool is tool_reference_unresolved, as the SDK types it", async () => {
    const unresolved = await rejection({
      model: "claude-loopback",
      max_tokens: 64,
      tools: toolsOf(small),
      messages: [
        user("Find Ada."),
        {
          role: "assistant",
          content: [
            {
              type: "server_tool_use",
              id: "srvtoolu_1",
              name: "tool_search_tool_bm25",
              input: { query: "x" },
            },
            {
              type: "tool_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: {
                type: "tool_search_tool_search_result",
                tool_references: [{
                  type: "tool_reference",
                  tool_name: "read_file",
                }],
              },
            },
          ],
        },
        user("Go on."),
      ],
    });
    assert.equal(unresolved.status, 400);
    assert.equal(unresolved.errorCode, "tool_reference_unresolved");
    assert.match(unresolved.message, /read_file.{0,4} names no deferred tool/);
  });

  it("a client-side search's tool_reference in a tool_result loads the tool too", async () => {
    const server = await sendAll(
      () => ({ text: "Done." }),
      async (anthropic) => {
        await anthropic.messages.create({
          model: "claude-loopback",
          max_tokens: 64,
          tools: toolsOf(small),
          messages: [
            user("Find Ada."),
            {
              role: "assistant",
              content: [{
                type: "tool_use",
                id: "toolu_1",
                name: "read_file",
                input: {},
              }],
            },
            {
              role: "user",
              content: [{
                type: "tool_result",
                tool_use_id: "toolu_1",
                content: [{ type: "tool_reference", tool_name: "crm_find" }],
              }],
            },
            {
              role: "assistant",
              content: [{
                type: "tool_use",
                id: "toolu_2",
                name: "crm_find",
                input: {},
              }],
            },
            {
              role: "user",
              content: [{
                type: "tool_result",
                tool_use_id: "toolu_2",
                content: "Ada",
              }],
            },
          ],
        });
      },
    );
    assert.deepEqual(server.rejections, []);
  });
});

describe(
  "a session of 300 deferred MCP tools, 8 found and used, through @anthropic-ai/sdk",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    let close: () => Promise<void>;
    let prompt: SystemPrompt;
    const sources: McpToolSource[] = [];

    before(async () => {
      const registry = await deferredRegistry({
        section: SEARCH_RULES,
        stable: true,
      });
      ({ prompt, close } = registry);
      sources.push(...registry.sources);
    });

    after(async () => {
      await prompt.dispose();
      await close();
    });

    it("every request carries the same tools and system bytes; the 8 calls run; deferral saves the tools' tokens", async () => {
      const assembly = await prompt.assemble();
      assert.equal(assembly.deferredTools?.length, 300);
      const { system } = toMessages(assembly, { cache: true });
      const tools = toolsOf(assembly);
      const script = (_: unknown, n: number): AnthropicTurn =>
        n < FOUND.length
          ? {
            search: FOUND[n].query,
            call: { name: FOUND[n].name, input: FOUND[n].args },
          }
          : { text: "All done." };
      const sent: string[] = [];
      const server = await sendAll(script, async (anthropic) => {
        const messages: Anthropic.MessageParam[] = [
          user("Work through today's queue."),
        ];
        for (let step = 0; step <= FOUND.length; step++) {
          const body: Body = {
            model: "claude-loopback",
            max_tokens: 256,
            system,
            tools,
            messages,
          };
          sent.push(JSON.stringify(body));
          const answer = await anthropic.messages.create(body);
          // The answer's blocks go back verbatim.
          messages.push({
            role: "assistant",
            content: answer.content as Anthropic.ContentBlockParam[],
          });
          const call = answer.content.find((block) =>
            block.type === "tool_use"
          );
          if (call === undefined) break;
          assert.equal(call.name, FOUND[step].name);
          const source = sources.find((one) => one.owns(call.name))!;
          const result = await source.call(call.name, call.input);
          messages.push({
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: call.id,
              content: result.content as Anthropic.TextBlockParam[],
            }],
          });
        }
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(server.bodies.length, FOUND.length + 1);
      const first = server.bodies[0];
      for (const body of server.bodies) {
        assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
        assert.equal(JSON.stringify(body.system), JSON.stringify(first.system));
      }
      // The found tools, each referenced once, in the order they were found.
      const referenced = server.bodies.at(-1)!.messages as {
        content: unknown;
      }[];
      const names = JSON.stringify(referenced).match(/"tool_name":"[a-z_]+"/g)!;
      for (const { name } of FOUND) {
        assert.ok(
          names.includes(`"tool_name":"${name}"`),
          name,
        );
      }
      // No deferred tool carries a cache mark.
      for (const tool of first.tools as Record<string, unknown>[]) {
        if (tool.defer_loading === true) {
          assert.equal(
            tool.cache_control,
            undefined,
          );
        }
      }
      // The system prefix is read from the cache from the second request on.
      assert.ok(
        server.usages.slice(1).every((usage) =>
          usage.cache_read_input_tokens > 0
        ),
      );
      // Listing all 300 would cost their definitions on every request.
      const definitions = assembly.deferredTools!.reduce(
        (sum, tool) => sum + tokensOf(JSON.stringify(deferredTool(tool))),
        0,
      );
      const firstInput = server.usages[0].input_tokens +
        server.usages[0].cache_creation_input_tokens;
      assert.ok(
        definitions > 10 * firstInput,
        `${definitions} vs ${firstInput}`,
      );
    });

    it("a deferred tool's new description leaves the cached prefix whole", async () => {
      const assembly = await prompt.assemble();
      const { system } = toMessages(assembly, { cache: true });
      const changed: PromptAssembly = {
        ...assembly,
        deferredTools: assembly.deferredTools!.map((tool, index) =>
          index === 0 ? { ...tool, description: "Changed." } : tool
        ),
      };
      const server = await sendAll(
        () => ({ text: "ok" }),
        async (anthropic) => {
          for (const version of [assembly, changed]) {
            await anthropic.messages.create({
              model: "claude-loopback",
              max_tokens: 64,
              system,
              tools: toolsOf(version),
              messages: [user("Hi.")],
            });
          }
        },
      );
      const [, second] = server.usages;
      assert.equal(second.cache_creation_input_tokens, 0);
      assert.ok(second.cache_read_input_tokens > 0);
    });
  },
);
