// Deno-only: `anthropicConversation` on 300 deferred MCP tools, its bodies
// sent through the real `@anthropic-ai/sdk` client to a loopback server
// holding Anthropic's deferred-tool rules (anthropic_tool_search.ts).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { SystemPrompt } from "../../../mod.ts";
import {
  type AnthropicConversation,
  anthropicConversation,
  type MessagesAnswer,
  type MessagesInputBlock,
  resumeAnthropicConversation,
} from "../../../adapters/anthropic/mod.ts";
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
import { savingOfBodies } from "./deferred_saving.ts";
import { serveRules } from "./rule_server.ts";

/** Each of the 8 found tools searched and called in turn, then text. */
function script(_: unknown, n: number): AnthropicTurn {
  return n < FOUND.length
    ? {
      search: FOUND[n].query,
      call: { name: FOUND[n].name, input: FOUND[n].args },
    }
    : { text: "All done." };
}

function client(baseURL: string): Anthropic {
  return new Anthropic({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

describe(
  "anthropicConversation with 300 deferred MCP tools, through @anthropic-ai/sdk",
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

    /**
     * Runs `conv` until the model stops calling (at most `steps` requests),
     * each call routed to its MCP server.
     */
    async function drive(
      conv: AnthropicConversation,
      anthropic: Anthropic,
      steps = FOUND.length + 1,
    ): Promise<string[]> {
      const called: string[] = [];
      for (let step = 0; step < steps; step++) {
        const body = await conv.request();
        const answer = await anthropic.beta.messages.create(body);
        const calls = conv.record(answer as MessagesAnswer);
        if (calls.length === 0) break;
        for (const call of calls) {
          const source = sources.find((one) => one.owns(call.name))!;
          const result = await source.call(call.name, call.input);
          called.push(call.name);
          conv.toolResult(
            call.id,
            result.content as MessagesInputBlock[],
          );
        }
      }
      return called;
    }

    it("8 tools found and used; every body's tools and system are the first's; no deferred tool is marked", async () => {
      const server = anthropicToolSearchServer(script);
      let called: string[] = [];
      const conv = anthropicConversation(prompt, {
        model: "claude-loopback",
        max_tokens: 256,
      });
      conv.user("Work through today's queue.");
      await serveRules(server.answer, async (baseURL) => {
        called = await drive(conv, client(baseURL));
      });
      assert.deepEqual(server.rejections, []);
      assert.deepEqual(called, FOUND.map((found) => found.name));
      assert.equal(server.bodies.length, FOUND.length + 1);

      // report() reads the bodies: a deferred tool's definition is no prompt
      // token until the model loads it.
      const report = conv.report({
        countTokens: (text) => Math.ceil(text.length / 4),
      });
      assert.equal(report.totals.estimateError, undefined);
      // What deferring saved: every definition not loaded yet, per request.
      const saving = savingOfBodies(
        server.bodies,
        (text) => Math.ceil(text.length / 4),
      );
      assert.equal(saving.tools, 300);
      assert.ok(saving.found >= FOUND.length);
      assert.deepEqual(report.deferred, saving);
      const estimate = report.totals.estimate!;
      const everyTool = JSON.stringify(server.bodies[0].tools).length / 4;
      assert.ok(
        estimate.promptTokens / report.requests.length < everyTool / 2,
        `${estimate.promptTokens} vs ${everyTool}`,
      );

      const first = server.bodies[0];
      const tools = first.tools as Record<string, unknown>[];
      assert.deepEqual(tools[0], {
        type: "tool_search_tool_bm25_20251119",
        name: "tool_search_tool_bm25",
      });
      assert.equal(tools[1].name, "read_file");
      assert.equal(tools.length, 302);
      for (const tool of tools.slice(2)) {
        assert.equal(tool.defer_loading, true);
        assert.equal(tool.cache_control, undefined, String(tool.name));
      }
      for (const body of server.bodies) {
        assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
        assert.equal(JSON.stringify(body.system), JSON.stringify(first.system));
      }
      // No deferred tool's name reaches the system prompt.
      const system = JSON.stringify(first.system);
      for (const tool of tools.slice(2)) {
        assert.ok(!system.includes(String(tool.name)), String(tool.name));
      }
      // The search blocks go back verbatim, and never carry a mark.
      const messages = server.bodies.at(-1)!.messages as {
        content: Record<string, unknown>[];
      }[];
      const searches = messages.flatMap((message) =>
        message.content.filter((block) =>
          block.type === "server_tool_use" ||
          block.type === "tool_search_tool_result"
        )
      );
      assert.equal(searches.length, 2 * FOUND.length);
      for (const block of searches) {
        assert.equal(block.cache_control, undefined);
      }
      // The prefix is read from the cache from the second request on.
      assert.ok(
        server.usages.slice(1).every((usage) =>
          usage.cache_read_input_tokens > 0
        ),
      );
    });

    it('with toolSearch "regex" the regex tool is listed and searched', async () => {
      const server = anthropicToolSearchServer((_, n) =>
        n === 0
          ? {
            search: "(?i)ACKNOWLEDGE_incident",
            call: { name: "ops_acknowledge_incident", input: { id: "inc-4" } },
          }
          : { text: "Done." }
      );
      const conv = anthropicConversation(prompt, {
        model: "claude-loopback",
        max_tokens: 256,
        toolSearch: "regex",
      });
      conv.user("Acknowledge the incident.");
      let called: string[] = [];
      await serveRules(server.answer, async (baseURL) => {
        called = await drive(conv, client(baseURL), 2);
      });
      assert.deepEqual(server.rejections, []);
      assert.deepEqual(called, ["ops_acknowledge_incident"]);
      assert.deepEqual((server.bodies[0].tools as unknown[])[0], {
        type: "tool_search_tool_regex_20251119",
        name: "tool_search_tool_regex",
      });
      assert.match(conv.save(), /"toolSearch":"regex"/);
    });

    it("an answer that ends in a search result (a paused turn, sent on as it is) is never marked", async () => {
      const server = anthropicToolSearchServer(() => ({ search: "incident" }));
      const conv = anthropicConversation(prompt, {
        model: "claude-loopback",
        max_tokens: 256,
      });
      conv.user("Which incident tools are there?");
      let last: Record<string, unknown> = {};
      await serveRules(server.answer, async (baseURL) => {
        const anthropic = client(baseURL);
        const answer = await anthropic.beta.messages.create(
          await conv.request(),
        );
        assert.deepEqual(conv.record(answer as MessagesAnswer), []);
        // The turn goes on from the assistant's own message.
        last = await conv.request() as unknown as Record<string, unknown>;
        await anthropic.beta.messages.create(await conv.request());
      });
      assert.deepEqual(server.rejections, []);
      const messages = last.messages as {
        role: string;
        content: Record<string, unknown>[];
      }[];
      const assistant = messages.at(-1)!;
      assert.equal(assistant.role, "assistant");
      assert.equal(assistant.content.at(-1)!.type, "tool_search_tool_result");
      for (const block of assistant.content) {
        assert.equal(block.cache_control, undefined, String(block.type));
      }
    });

    it("a resume mid-session sends the next body byte for byte", async () => {
      const server = anthropicToolSearchServer(script);
      const options = { model: "claude-loopback", max_tokens: 256 };
      const conv = anthropicConversation(prompt, options);
      conv.user("Work through today's queue.");
      let next = "";
      let resumedNext = "";
      await serveRules(server.answer, async (baseURL) => {
        const anthropic = client(baseURL);
        await drive(conv, anthropic, 2);
        const third = await anthropic.beta.messages.create(
          await conv.request(),
        );
        conv.record(third as MessagesAnswer);
        const resumed = resumeAnthropicConversation(prompt, conv.save());
        // The third answer's call is open in both; answer it in both.
        for (const open of [conv, resumed]) {
          for (const call of open.openCalls) open.toolResult(call.id, "ok");
        }
        next = JSON.stringify(await conv.request());
        resumedNext = JSON.stringify(await resumed.request());
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(resumedNext, next);
      assert.match(next, /"tool_search_tool_result"/);
    });

    it("a fork (its own history) finds its own tools under its parent's tools block", async () => {
      const server = anthropicToolSearchServer((_, n) =>
        n === 0
          ? {
            search: FOUND[0].query,
            call: { name: FOUND[0].name, input: FOUND[0].args },
          }
          : n === 1
          ? { text: "Parent done." }
          : n === 2
          ? {
            search: FOUND[3].query,
            call: { name: FOUND[3].name, input: FOUND[3].args },
          }
          : { text: "Child done." }
      );
      const conv = anthropicConversation(prompt, {
        model: "claude-loopback",
        max_tokens: 256,
      });
      conv.user("Open the bug.");
      let childCalls: string[] = [];
      await serveRules(server.answer, async (baseURL) => {
        const anthropic = client(baseURL);
        await drive(conv, anthropic, 2);
        const child = conv.fork();
        child.user("Look the contact up.");
        childCalls = await drive(child, anthropic, 2);
      });
      assert.deepEqual(server.rejections, []);
      assert.deepEqual(childCalls, [FOUND[3].name]);
      for (const body of server.bodies.slice(2)) {
        assert.equal(
          JSON.stringify(body.tools),
          JSON.stringify(server.bodies[0].tools),
        );
      }
    });

    it("with gates, a found tool that is active is called; one gated off is refused", async () => {
      const gated = new SystemPrompt({ includeHarnessIdentity: false });
      gated.section({ name: "rules", order: 10, text: "Be brief." });
      gated.tools(() => ({ schemas: [READ_FILE] }));
      const crm = sources.find((one) => one.owns("crm_get_contact"))!;
      gated.fork({ label: "crm" }).tools(crm.tools$, { defer: true });
      gated.toolGate(() => ["read_file", "crm_get_contact"]);
      const server = anthropicToolSearchServer((_, n) =>
        n === 0
          ? {
            search: "get contact",
            call: { name: "crm_get_contact", input: {} },
          }
          : n === 1
          ? {
            search: "create deal",
            call: { name: "crm_create_deal", input: {} },
          }
          : { text: "Done." }
      );
      const conv = anthropicConversation(gated, {
        model: "claude-loopback",
        max_tokens: 256,
      });
      conv.user("Look Ada up, then open a deal.");
      const open: string[][] = [];
      await serveRules(server.answer, async (baseURL) => {
        const anthropic = client(baseURL);
        for (let step = 0; step < 3; step++) {
          const answer = await anthropic.beta.messages.create(
            await conv.request(),
          );
          const calls = conv.record(answer as MessagesAnswer);
          open.push(calls.map((call) => call.name));
          for (const call of calls) conv.toolResult(call.id, "ok");
          if (answer.stop_reason !== "tool_use") break;
        }
      });
      await gated.dispose();
      assert.deepEqual(server.rejections, []);
      // The gated-off call was refused by the conversation itself.
      assert.deepEqual(open, [["crm_get_contact"], [], []]);
      const refused = JSON.stringify(server.bodies[2].messages);
      assert.match(
        refused,
        /Tool \\"crm_create_deal\\" is not active this step/,
      );
    });
  },
);
