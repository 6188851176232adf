// Deno-only: `converseConversation` through the real BedrockRuntimeClient
// and `geminiConversation` through the real @google/genai client, on the
// 300 deferred tools of three MCP servers, against the loopback servers
// that check the bodies as the APIs do (tests/adapters/loopback_caches.ts),
// their answers scripted to search and call: the fixed search-and-call pair
// (find_tools, call_tool), the search answered by the conversation itself,
// the call run through `mcpTools`, the tools block and the system prompt
// the first request's on every request.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BedrockRuntimeClient,
  ConverseCommand,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { GoogleGenAI } from "@google/genai";
import {
  type ConversationReportOptions,
  searchTools,
  SystemPrompt,
  type ToolCall,
  toolSearchIndex,
} from "../../../mod.ts";
import {
  converseConversation,
  resumeConverseConversation,
} from "../../../adapters/bedrock/mod.ts";
import {
  geminiConversation,
  resumeGeminiConversation,
} from "../../../adapters/gemini/mod.ts";
import type { PromptCacheReport } from "../../../adapters/cache/mod.ts";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import {
  bedrockServer,
  type CacheServer,
  type GeminiCacheStore,
  geminiServer,
} from "../loopback_caches.ts";
import { type RecordedRequest, serveLoopback } from "../loopback.ts";
import { AWS_SDK_PERMISSIONS, SDK_PERMISSIONS } from "../sdk_permissions.ts";
import { deferredRegistry, READ_FILE } from "./deferred_registry_sdk.ts";
import { FOUND } from "./mcp_servers.ts";

const MINIMUM = 256;
const countTokens = (text: string) => Math.ceil(text.length / 4);

/** A call the scripted model makes. */
interface Call {
  readonly name: string;
  readonly input: unknown;
}

/** Even answers search for a found tool, odd ones call it, then none. */
function script(n: number): Call[] {
  const at = Math.floor(n / 2);
  if (at >= FOUND.length) return [];
  return n % 2 === 0
    ? [{ name: "find_tools", input: { query: FOUND[at].query } }]
    : [{
      name: "call_tool",
      input: { name: FOUND[at].name, arguments: FOUND[at].args },
    }];
}

/**
 * The cache server's answer (bodies checked, cache usage counted) with
 * the model's text replaced by the calls `calls` gives the n-th body.
 */
function scripted<S extends CacheServer>(
  made: { server: S; answer: (request: RecordedRequest) => unknown },
  calls: (n: number) => Call[],
  vendor: "bedrock" | "gemini",
): { server: S; answer: (request: RecordedRequest) => unknown } {
  return {
    server: made.server,
    answer(request) {
      const before = made.server.bodies.length;
      const reply = made.answer(request) as Record<string, unknown>;
      // A refused body, or a call of ai.caches: answered as it is.
      if (reply === undefined || made.server.bodies.length === before) {
        return reply;
      }
      const wanted = calls(before);
      if (wanted.length === 0) return reply;
      if (vendor === "bedrock") {
        return {
          ...reply,
          output: {
            message: {
              role: "assistant",
              content: wanted.map((call, at) => ({
                toolUse: {
                  toolUseId: `tooluse_${before}_${at}`,
                  name: call.name,
                  input: call.input,
                },
              })),
            },
          },
          stopReason: "tool_use",
        };
      }
      const [candidate] = reply.candidates as Record<string, unknown>[];
      return {
        ...reply,
        candidates: [{
          ...candidate,
          // Gemini's API gives its calls no id.
          content: {
            role: "model",
            parts: wanted.map((call) => ({
              functionCall: { name: call.name, args: call.input },
            })),
          },
        }],
      };
    },
  };
}

function bedrockClient(endpoint: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "AKIDLOOPBACK", secretAccessKey: "x" },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
}

/** One step's model call through the SDK, as the conversation's body. */
type Send = (body: unknown) => Promise<unknown>;

/** A conversation of either form, as the session drives it. */
interface Driven {
  user(text: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): ToolCall[];
  toolResult(id: string, content: unknown): void;
  save(): string;
  report(options: ConversationReportOptions): PromptCacheReport;
}

/** What a form needs to run the session. */
interface Vendor {
  readonly name: string;
  readonly skip: false | string;
  server(calls: (n: number) => Call[]): {
    server: CacheServer & { caches?: GeminiCacheStore };
    answer: (request: RecordedRequest) => unknown;
  };
  /** `explicit`: with Gemini's explicit cache entry (Bedrock has none). */
  start(
    prompt: SystemPrompt,
    url: string,
    send: { fn?: Send },
    explicit?: boolean,
  ): Driven;
  resume(prompt: SystemPrompt, saved: string): Driven;
  /** The body's tools block and its system prompt, as JSON. */
  prefix(body: Record<string, unknown>): { tools: string; system: string };
  /** The tool names of the body's tools block. */
  toolNames(body: Record<string, unknown>): string[];
  /** The text of the result answering `call` in the body's history. */
  resultText(body: Record<string, unknown>, call: number): string;
}

const BEDROCK: Vendor = {
  name: "converseConversation through BedrockRuntimeClient",
  skip: AWS_SDK_PERMISSIONS,
  server: (calls) => scripted(bedrockServer(MINIMUM), calls, "bedrock"),
  start(prompt, url, send) {
    const client = bedrockClient(url);
    send.fn = (body) => client.send(new ConverseCommand(body as never));
    return converseConversation(prompt, {
      modelId: "anthropic.claude-sonnet-4-5",
      maxTokens: 256,
    }) as never;
  },
  resume: (prompt, saved) =>
    resumeConverseConversation(prompt, saved) as unknown as Driven,
  prefix: (body) => ({
    tools: JSON.stringify(body.toolConfig),
    system: JSON.stringify(body.system),
  }),
  toolNames: (body) =>
    (body.toolConfig as { tools: { toolSpec?: { name: string } }[] }).tools
      .flatMap((tool) =>
        tool.toolSpec === undefined ? [] : [tool.toolSpec.name]
      ),
  resultText(body, call) {
    const messages = body.messages as { content: Record<string, unknown>[] }[];
    for (const message of messages) {
      for (const block of message.content) {
        const result = block.toolResult as
          | { toolUseId: string; content: { text: string }[] }
          | undefined;
        if (result?.toolUseId === `tooluse_${call}_0`) {
          return result.content.map((part) => part.text).join("");
        }
      }
    }
    throw new Error(`no result for call ${call}`);
  },
};

const GEMINI: Vendor = {
  name: "geminiConversation through @google/genai",
  skip: SDK_PERMISSIONS,
  server: (calls) => scripted(geminiServer(MINIMUM), calls, "gemini"),
  start(prompt, url, send, explicit) {
    const ai = new GoogleGenAI({
      apiKey: "loopback",
      httpOptions: { baseUrl: url },
    });
    send.fn = (body) => ai.models.generateContent(body as never);
    return geminiConversation(prompt, {
      model: "gemini-3-flash",
      ...(explicit
        ? { cachedContents: { caches: ai.caches, minTokens: MINIMUM } }
        : {}),
    }) as never;
  },
  resume: (prompt, saved) =>
    resumeGeminiConversation(prompt, saved) as unknown as Driven,
  prefix: (body) => ({
    tools: JSON.stringify(body.tools),
    system: JSON.stringify(body.systemInstruction),
  }),
  toolNames: (body) =>
    (body.tools as { functionDeclarations: { name: string }[] }[])
      .flatMap((tool) => tool.functionDeclarations.map(({ name }) => name)),
  resultText(body, call) {
    // The n-th answer's one call is answered in the content after it.
    const contents = body.contents as {
      role: string;
      parts: Record<string, unknown>[];
    }[];
    const models = contents.flatMap((content, at) =>
      content.role === "model" ? [at] : []
    );
    const reply = contents[models[call] + 1];
    const response = reply.parts[0].functionResponse as {
      response: { output: string };
    };
    return response.response.output;
  },
};

for (const vendor of [BEDROCK, GEMINI]) {
  describe(
    `${vendor.name} with 300 deferred MCP tools: the search-and-call pair`,
    {
      skip: vendor.skip,
    },
    () => {
      let close: () => Promise<void>;
      let prompt: SystemPrompt;
      const sources: McpToolSource[] = [];

      before(async () => {
        const registry = await deferredRegistry({
          section: {
            name: "house-rules",
            order: 10,
            text: "Follow the house rules, every one of them. ".repeat(30),
          },
        });
        ({ prompt, close } = registry);
        sources.push(...registry.sources);
      });

      after(async () => {
        await prompt.dispose();
        await close();
      });

      /** Until the model stops calling, each call run on its MCP server. */
      async function drive(
        conv: Driven,
        send: Send,
        steps: number,
      ): Promise<{ called: ToolCall[]; open: string[][] }> {
        const called: ToolCall[] = [];
        const open: string[][] = [];
        for (let step = 0; step < steps; step++) {
          const calls = conv.record(await send(await conv.request()));
          open.push(calls.map((call) => call.name));
          for (const call of calls) {
            const source = sources.find((one) => one.owns(call.name))!;
            const result = await source.call(call.name, call.input);
            called.push(call);
            const [first] = result.content as { text: string }[];
            conv.toolResult(call.id, first.text);
          }
          // The model stops when it makes no call (a search is no open call).
          if (script(step).length === 0) break;
        }
        return { called, open };
      }

      it("8 tools found and called; every request's tools and system bytes are the first's", async () => {
        const made = vendor.server(script);
        const send: { fn?: Send } = {};
        let run = { called: [] as ToolCall[], open: [] as string[][] };
        let conv!: Driven;
        await serveLoopback(made.answer, async (url) => {
          conv = vendor.start(prompt, url, send);
          conv.user("Work through today's queue.");
          run = await drive(conv, send.fn!, 2 * FOUND.length + 1);
        });
        const { server } = made;
        assert.deepEqual(server.rejections, []);
        // find_tools is never an open call; call_tool opens the named tool.
        assert.deepEqual(
          run.called.map((call) => call.name),
          FOUND.map((found) => found.name),
        );
        for (const call of run.called) assert.equal(call.via, "call_tool");
        assert.deepEqual(
          run.open.filter((names) => names.length > 0),
          FOUND.map((found) => [found.name]),
        );
        assert.equal(server.bodies.length, 2 * FOUND.length + 1);

        const [first] = server.bodies;
        assert.deepEqual(vendor.toolNames(first), [
          "read_file",
          "find_tools",
          "call_tool",
        ]);
        const prefix = vendor.prefix(first);
        for (const body of server.bodies) {
          assert.deepEqual(vendor.prefix(body), prefix);
          // No deferred tool's name reaches the prefix.
          assert.doesNotMatch(prefix.tools + prefix.system, /gh_|crm_|ops_/);
        }

        // Each search was answered with searchTools' hits over the deferred
        // tools, and holds the tool found.
        const index = toolSearchIndex((await prompt.assemble()).deferredTools!);
        const last = server.bodies.at(-1)!;
        FOUND.forEach((found, at) => {
          const hits = vendor.resultText(last, 2 * at).split("\n").map((line) =>
            JSON.parse(line).name
          );
          assert.deepEqual(
            hits,
            searchTools(index, found.query).map((hit) => hit.tool.name),
          );
          assert.ok(hits.includes(found.name), found.name);
          // The call's result is the real tool's, answering call_tool.
          assert.match(vendor.resultText(last, 2 * at + 1), /./);
        });

        // report(): the prefix read from the cache after the first request;
        // the bodies far smaller than every tool listed; the pair sends no
        // deferred definition, so no `deferred` figures.
        const report = conv.report({ countTokens });
        assert.equal(report.totals.estimateError, undefined);
        for (const request of report.requests.slice(1)) {
          assert.ok(request.cacheReadTokens! > 0, JSON.stringify(request));
        }
        const everyTool = countTokens(
          JSON.stringify((await prompt.assemble()).deferredTools),
        );
        const perRequest = report.totals.estimate!.promptTokens /
          report.requests.length;
        assert.ok(perRequest < everyTool / 4, `${perRequest} vs ${everyTool}`);
        assert.equal(report.deferred, undefined);
      });

      // Gemini's explicit cache only: Bedrock has no entry of its own.
      if (vendor === GEMINI) {
        it(
          "with Gemini's explicit entry, one entry holds the pair for every request",
          async () => {
            const made = vendor.server(script);
            const send: { fn?: Send } = {};
            await serveLoopback(made.answer, async (url) => {
              const conv = vendor.start(prompt, url, send, true);
              conv.user("Work through today's queue.");
              const run = await drive(conv, send.fn!, 2 * FOUND.length + 1);
              assert.equal(run.called.length, FOUND.length);
              await (conv as unknown as { dispose(): Promise<void> }).dispose();
            });
            const { server } = made;
            assert.deepEqual(server.rejections, []);
            // The tools block never changes: the entry made first is never
            // replaced, and every request names it.
            assert.deepEqual(server.caches!.calls, [
              "create cachedContents/1",
              "delete cachedContents/1",
            ]);
            assert.equal(server.bodies.length, 2 * FOUND.length + 1);
            for (const body of server.bodies) {
              assert.equal(body.cachedContent, "cachedContents/1");
            }
          },
        );
      }

      it("a resume with a search pending answers it as the live conversation does", async () => {
        const made = vendor.server(script);
        const send: { fn?: Send } = {};
        let next = "";
        let resumedNext = "";
        await serveLoopback(made.answer, async (url) => {
          const conv = vendor.start(prompt, url, send);
          conv.user("Open the bug.");
          assert.deepEqual(
            conv.record(await send.fn!(await conv.request())),
            [],
          );
          const resumed = vendor.resume(prompt, conv.save());
          next = JSON.stringify(await conv.request());
          resumedNext = JSON.stringify(await resumed.request());
        });
        assert.equal(resumedNext, next);
        assert.match(next, /gh_create_issue/);
      });

      it("with gates, call_tool of a gated-off tool is refused; the tools block stays", async () => {
        const gated = new SystemPrompt({ includeHarnessIdentity: false });
        gated.section({
          name: "house-rules",
          order: 10,
          text: "Follow the house rules, every one of them. ".repeat(30),
        });
        gated.tools(() => ({ schemas: [READ_FILE] }));
        const crm = sources.find((one) => one.owns("crm_get_contact"))!;
        gated.fork({ label: "crm" }).tools(crm.tools$);
        gated.toolGate(() => ["read_file", "crm_get_contact"]);
        const made = vendor.server((n) =>
          n === 0
            ? [
              {
                name: "call_tool",
                input: { name: "crm_get_contact", arguments: { id: "c-1" } },
              },
              {
                name: "call_tool",
                input: { name: "crm_create_deal", arguments: {} },
              },
            ]
            : []
        );
        const send: { fn?: Send } = {};
        const open: string[][] = [];
        await serveLoopback(made.answer, async (url) => {
          const conv = vendor.start(gated, url, send);
          conv.user("Look Ada up and open a deal.");
          for (let step = 0; step < 2; step++) {
            const calls = conv.record(await send.fn!(await conv.request()));
            open.push(calls.map((call) => call.name));
            for (const call of calls) conv.toolResult(call.id, "Ada, c-1.");
          }
        });
        await gated.dispose();
        assert.deepEqual(made.server.rejections, []);
        assert.deepEqual(open, [["crm_get_contact"], []]);
        const [first, second] = made.server.bodies;
        assert.deepEqual(vendor.toolNames(first), [
          "read_file",
          "find_tools",
          "call_tool",
        ]);
        assert.deepEqual(vendor.prefix(second), vendor.prefix(first));
        assert.match(
          JSON.stringify(second),
          /Tool \\"crm_create_deal\\" is not active this step/,
        );
      });
    },
  );
}
