// Deno-only: the fixed search-and-call pair on request (SPEC §10.3, "any
// form on request"): `anthropicConversation` and `responsesConversation`
// with `toolSearch: "pair"` on 300 deferred MCP tools, through the real
// `@anthropic-ai/sdk` and `openai` clients, against the loopback servers
// holding each API's deferred-tool rules: no tool search and no deferred
// definition sent, the pair listed after the listed tools, the search
// answered by the conversation, the call run through `mcpTools`.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  searchTools,
  type SystemPrompt,
  type ToolCall,
  toolSearchIndex,
} from "../../../mod.ts";
import {
  anthropicConversation,
  type MessagesAnswer,
  resumeAnthropicConversation,
} from "../../../adapters/anthropic/mod.ts";
import {
  type ResponsesConversation,
  responsesConversation,
  resumeResponsesConversation,
} from "../../../adapters/openai/mod.ts";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import { SDK_PERMISSIONS } from "../sdk_permissions.ts";
import { deferredRegistry, SEARCH_RULES } from "./deferred_registry_sdk.ts";
import { FOUND } from "./mcp_servers.ts";
import {
  anthropicToolSearchServer,
  type AnthropicTurn,
} from "./anthropic_tool_search.ts";
import {
  responsesToolSearchServer,
  type ResponsesTurn,
} from "./responses_tool_search.ts";
import { type Received, type Reply, serveRules } from "./rule_server.ts";

type ResponsesAnswer = Parameters<ResponsesConversation["record"]>[0];

/** Even answers search for a found tool, odd ones call it, then text. */
function pairScript(n: number): { name: string; input: unknown } | undefined {
  const at = Math.floor(n / 2);
  if (at >= FOUND.length) return undefined;
  return n % 2 === 0
    ? { name: "find_tools", input: { query: FOUND[at].query } }
    : {
      name: "call_tool",
      input: { name: FOUND[at].name, arguments: FOUND[at].args },
    };
}

/** A conversation of either form, as the session drives it. */
interface Driven {
  user(text: string): void;
  request(): Promise<unknown>;
  record(answer: never): ToolCall[];
  toolResult(id: string, content: string): void;
  save(): string;
}

/** What a form needs to run the session. */
interface Vendor {
  readonly name: string;
  server(script: (n: number) => { name: string; input: unknown } | undefined): {
    answer(request: Received): Reply;
    readonly bodies: Record<string, unknown>[];
    readonly rejections: string[];
  };
  start(prompt: SystemPrompt, options?: { toolSearch?: unknown }): Driven;
  resume(prompt: SystemPrompt, saved: string): Driven;
  send(url: string): (body: unknown) => Promise<unknown>;
  /** The names of a body's tools. */
  toolNames(body: Record<string, unknown>): string[];
  /** The body's system prompt, as JSON. */
  system(body: Record<string, unknown>): string;
}

const ANTHROPIC: Vendor = {
  name: "anthropicConversation through @anthropic-ai/sdk",
  server(script) {
    return anthropicToolSearchServer((_, n): AnthropicTurn => {
      const call = script(n);
      return call === undefined ? { text: "All done." } : { call };
    });
  },
  start: (prompt, options = {}) =>
    anthropicConversation(prompt, {
      model: "claude-loopback",
      max_tokens: 256,
      toolSearch: "pair",
      ...options,
    } as never) as unknown as Driven,
  resume: (prompt, saved) =>
    resumeAnthropicConversation(prompt, saved) as unknown as Driven,
  send(url) {
    const anthropic = new Anthropic({
      apiKey: "sk-loopback",
      baseURL: url,
      maxRetries: 0,
      timeout: 10_000,
    });
    return async (body) =>
      await anthropic.beta.messages.create(body as never) as MessagesAnswer;
  },
  toolNames: (body) =>
    (body.tools as { name: string }[]).map(({ name }) => name),
  system: (body) => JSON.stringify(body.system),
};

const RESPONSES: Vendor = {
  name: "responsesConversation through openai",
  server(script) {
    return responsesToolSearchServer((_, n): ResponsesTurn => {
      const call = script(n);
      return call === undefined
        ? { text: "All done." }
        : { call: { name: call.name, arguments: call.input } };
    });
  },
  start: (prompt, options = {}) =>
    responsesConversation(prompt, {
      model: "gpt-loopback",
      toolSearch: "pair",
      ...options,
    } as never) as unknown as Driven,
  resume: (prompt, saved) =>
    resumeResponsesConversation(prompt, saved) as unknown as Driven,
  send(url) {
    const openai = new OpenAI({
      apiKey: "sk-loopback",
      baseURL: url,
      maxRetries: 0,
      timeout: 10_000,
    });
    return async (body) =>
      await openai.responses.create(
        body as never,
      ) as unknown as ResponsesAnswer;
  },
  toolNames: (body) =>
    (body.tools as { type: string; name?: string }[]).map((tool) =>
      tool.name ?? tool.type
    ),
  system: (body) =>
    JSON.stringify([body.instructions, (body.input as unknown[])[0]]),
};

for (const vendor of [ANTHROPIC, RESPONSES]) {
  describe(`${vendor.name} with toolSearch: "pair" on 300 deferred MCP tools`, {
    skip: SDK_PERMISSIONS,
  }, () => {
    let close: () => Promise<void>;
    let prompt: SystemPrompt;
    const sources: McpToolSource[] = [];

    before(async () => {
      const registry = await deferredRegistry({ section: SEARCH_RULES });
      ({ prompt, close } = registry);
      sources.push(...registry.sources);
    });

    after(async () => {
      await prompt.dispose();
      await close();
    });

    it("8 tools found and called through the pair; the tools block and the system never change", async () => {
      const server = vendor.server(pairScript);
      const conv = vendor.start(prompt);
      conv.user("Work through today's queue.");
      const called: ToolCall[] = [];
      const open: string[][] = [];
      await serveRules(server.answer, async (url) => {
        const send = vendor.send(url);
        for (let step = 0; step <= 2 * FOUND.length; step++) {
          const calls = conv.record(await send(await conv.request()) as never);
          open.push(calls.map((call) => call.name));
          for (const call of calls) {
            const source = sources.find((one) => one.owns(call.name))!;
            const result = await source.call(call.name, call.input);
            called.push(call);
            const [first] = result.content as { text: string }[];
            conv.toolResult(call.id, first.text);
          }
          if (pairScript(step) === undefined) break;
        }
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(server.bodies.length, 2 * FOUND.length + 1);
      // find_tools is never an open call; call_tool opens the named tool.
      assert.deepEqual(
        called.map((call) => call.name),
        FOUND.map((found) => found.name),
      );
      for (const call of called) assert.equal(call.via, "call_tool");
      assert.deepEqual(
        open.filter((names) => names.length > 0),
        FOUND.map((found) => [found.name]),
      );
      // No tool search, no deferred definition: the listed tool and the pair.
      const [first] = server.bodies;
      assert.deepEqual(vendor.toolNames(first), [
        "read_file",
        "find_tools",
        "call_tool",
      ]);
      const sent = JSON.stringify(first);
      assert.doesNotMatch(sent, /defer_loading|tool_search|namespace/);
      for (const body of server.bodies) {
        assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
        assert.equal(vendor.system(body), vendor.system(first));
      }
      // Each search was answered with searchTools' hits.
      const index = toolSearchIndex((await prompt.assemble()).deferredTools!);
      const last = JSON.stringify(server.bodies.at(-1));
      for (const found of FOUND) {
        const best = searchTools(index, found.query)[0].tool.name;
        assert.ok(last.includes(`{\\"name\\":\\"${best}\\"`), best);
      }
    });

    it("a resume with a search pending answers it as the live conversation does", async () => {
      const server = vendor.server(pairScript);
      const conv = vendor.start(prompt);
      conv.user("Open the bug.");
      let next = "";
      let resumedNext = "";
      await serveRules(server.answer, async (url) => {
        const send = vendor.send(url);
        assert.deepEqual(
          conv.record(await send(await conv.request()) as never),
          [],
        );
        const resumed = vendor.resume(prompt, conv.save());
        next = JSON.stringify(await conv.request());
        resumedNext = JSON.stringify(await resumed.request());
      });
      assert.equal(resumedNext, next);
      assert.match(next, /gh_create_issue/);
      assert.doesNotMatch(next, /defer_loading/);
    });

    it("a toolSearch the form does not have names the values it has", () => {
      assert.throws(() => vendor.start(prompt, { toolSearch: "pairs" }), {
        code: "INVALID_CONFIG",
        message: /toolSearch is "pairs"; it must be .*"pair"/,
      });
    });
  });
}
