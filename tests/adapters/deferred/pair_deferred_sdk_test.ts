// Deno-only: `chatConversation` on 300 deferred MCP tools through the real
// `openai` client's `chat.completions.create`, against a scripted loopback
// model, and `aiSdkConversation` through `generateText` with
// `@ai-sdk/anthropic`: the fixed search-and-call pair (find_tools,
// call_tool), the search answered by the conversation itself, the call run
// through `mcpTools`.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { searchTools, SystemPrompt, toolSearchIndex } from "../../../mod.ts";
import {
  type ChatConversation,
  chatConversation,
  resumeChatConversation,
} from "../../../adapters/openai/mod.ts";
import { aiSdkConversation } from "../../../adapters/ai_sdk/mod.ts";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import { anthropicToolSearchServer } from "./anthropic_tool_search.ts";
import { SDK_PERMISSIONS } from "../sdk_permissions.ts";
import { deferredRegistry, READ_FILE } from "./deferred_registry_sdk.ts";
import { FOUND } from "./mcp_servers.ts";
import { type Received, type Reply, serveRules } from "./rule_server.ts";

type Answer = Parameters<ChatConversation["record"]>[0];

/** What the scripted model does in one answer. */
interface ChatTurn {
  readonly calls?: readonly { name: string; arguments: unknown }[];
  readonly text?: string;
}

/** A Chat Completions server that plays `script` and keeps every body. */
function chatServer(
  script: (n: number) => ChatTurn,
): { answer(request: Received): Reply; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  return {
    bodies,
    answer(request) {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      const n = bodies.length;
      bodies.push(body);
      const turn = script(n);
      const calls = (turn.calls ?? []).map((call, at) => ({
        id: `call_${n}_${at}`,
        type: "function",
        function: {
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        },
      }));
      return {
        status: 200,
        body: {
          id: `chatcmpl_${n}`,
          object: "chat.completion",
          created: 0,
          model: String(body.model),
          choices: [{
            index: 0,
            finish_reason: calls.length > 0 ? "tool_calls" : "stop",
            logprobs: null,
            message: {
              role: "assistant",
              content: turn.text ?? null,
              refusal: null,
              ...(calls.length > 0 ? { tool_calls: calls } : {}),
            },
          }],
          usage: {
            prompt_tokens: 100,
            completion_tokens: 10,
            total_tokens: 110,
          },
        },
      };
    },
  };
}

/** Even answers search for a found tool, odd ones call it, then text. */
function script(n: number): ChatTurn {
  const at = Math.floor(n / 2);
  if (at >= FOUND.length) return { text: "All done." };
  return n % 2 === 0
    ? { calls: [{ name: "find_tools", arguments: { query: FOUND[at].query } }] }
    : {
      calls: [{
        name: "call_tool",
        arguments: { name: FOUND[at].name, arguments: FOUND[at].args },
      }],
    };
}

function client(baseURL: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

describe(
  "chatConversation with 300 deferred MCP tools: the search-and-call pair, through openai",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    let close: () => Promise<void>;
    let prompt: SystemPrompt;
    const sources: McpToolSource[] = [];

    before(async () => {
      const registry = await deferredRegistry();
      ({ prompt, close } = registry);
      sources.push(...registry.sources);
    });

    after(async () => {
      await prompt.dispose();
      await close();
    });

    /** Until the model stops asking (finish_reason "stop"), calls run on MCP. */
    async function drive(
      conv: ChatConversation,
      openai: OpenAI,
      steps: number,
    ): Promise<{ called: string[]; open: string[][] }> {
      const called: string[] = [];
      const open: string[][] = [];
      for (let step = 0; step < steps; step++) {
        const answer = await openai.chat.completions.create(
          await conv.request(),
        );
        const calls = conv.record(answer as Answer);
        open.push(calls.map((call) => call.name));
        for (const call of calls) {
          const source = sources.find((one) => one.owns(call.name))!;
          const result = await source.call(call.name, call.input);
          called.push(call.name);
          const [first] = result.content as { text: string }[];
          conv.toolResult(call.id, first.text);
        }
        if (answer.choices[0].finish_reason !== "tool_calls") break;
      }
      return { called, open };
    }

    it("8 tools found and called through the pair; the tools block and the system never change", async () => {
      const server = chatServer(script);
      const conv = chatConversation(prompt, { model: "gpt-loopback" });
      conv.user("Work through today's queue.");
      let run = { called: [] as string[], open: [] as string[][] };
      await serveRules(server.answer, async (baseURL) => {
        run = await drive(conv, client(baseURL), 2 * FOUND.length + 1);
      });
      // find_tools is never an open call; call_tool opens the named tool.
      assert.deepEqual(run.called, FOUND.map((found) => found.name));
      assert.deepEqual(
        run.open.filter((names) => names.length > 0),
        FOUND.map((found) => [found.name]),
      );
      assert.equal(server.bodies.length, 2 * FOUND.length + 1);

      // report() reads the bodies: a deferred tool's definition is no prompt
      // token until the model loads it.
      const report = conv.report({
        countTokens: (text) => Math.ceil(text.length / 4),
      });
      assert.equal(report.totals.estimateError, undefined);
      const estimate = report.totals.estimate!;
      const everyTool =
        JSON.stringify((await prompt.assemble()).deferredTools).length / 4;
      assert.ok(
        estimate.promptTokens / report.requests.length < everyTool / 2,
        `${estimate.promptTokens} vs ${everyTool}`,
      );

      const first = server.bodies[0];
      const names = (first.tools as { function: { name: string } }[]).map((
        tool,
      ) => tool.function.name);
      assert.deepEqual(names, ["read_file", "find_tools", "call_tool"]);
      for (const body of server.bodies) {
        assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
        const [system] = body.messages as unknown[];
        assert.equal(
          JSON.stringify(system),
          JSON.stringify((first.messages as unknown[])[0]),
        );
      }
      // Each search was answered with searchTools' hits over the deferred tools.
      const assembly = await prompt.assemble();
      const index = toolSearchIndex(assembly.deferredTools!);
      const messages = server.bodies.at(-1)!.messages as {
        role: string;
        tool_call_id?: string;
        content: unknown;
      }[];
      FOUND.forEach((found, at) => {
        const reply = messages.find((message) =>
          message.tool_call_id === `call_${2 * at}_0`
        )!;
        const text = (reply.content as { text: string }[])
          .map((part) => part.text).join("");
        const hits = text.split("\n").map((line) => JSON.parse(line).name);
        assert.deepEqual(
          hits,
          searchTools(index, found.query).map((hit) => hit.tool.name),
        );
        assert.ok(hits.includes(found.name), found.name);
      });
    });

    it("a resume with a search pending answers it as the live conversation does", async () => {
      const server = chatServer(script);
      const conv = chatConversation(prompt, { model: "gpt-loopback" });
      conv.user("Open the bug.");
      let next = "";
      let resumedNext = "";
      await serveRules(server.answer, async (baseURL) => {
        const openai = client(baseURL);
        const answer = await openai.chat.completions.create(
          await conv.request(),
        );
        assert.deepEqual(conv.record(answer as Answer), []);
        const resumed = resumeChatConversation(prompt, conv.save());
        assert.deepEqual(resumed.openCalls, []);
        next = JSON.stringify(await conv.request());
        resumedNext = JSON.stringify(await resumed.request());
      });
      assert.equal(resumedNext, next);
      assert.match(next, /gh_create_issue/);
    });

    it("with gates, call_tool of a gated-off tool is refused by the conversation", async () => {
      const gated = new SystemPrompt({ includeHarnessIdentity: false });
      gated.tools(() => ({ schemas: [READ_FILE] }));
      const crm = sources.find((one) => one.owns("crm_get_contact"))!;
      gated.fork({ label: "crm" }).tools(crm.tools$);
      gated.toolGate(() => ["read_file", "crm_get_contact"]);
      const server = chatServer((n) =>
        n === 0
          ? {
            calls: [
              {
                name: "call_tool",
                arguments: {
                  name: "crm_get_contact",
                  arguments: { id: "c-1" },
                },
              },
              {
                name: "call_tool",
                arguments: { name: "crm_create_deal", arguments: {} },
              },
            ],
          }
          : { text: "Done." }
      );
      const conv = chatConversation(gated, { model: "gpt-loopback" });
      conv.user("Look Ada up and open a deal.");
      let open: string[][] = [];
      await serveRules(server.answer, async (baseURL) => {
        open = (await drive(conv, client(baseURL), 2)).open;
      });
      await gated.dispose();
      assert.deepEqual(open[0], ["crm_get_contact"]);
      const first = server.bodies[0];
      assert.deepEqual(
        (first.tools as { function: { name: string } }[]).map((tool) =>
          tool.function.name
        ),
        ["read_file", "find_tools", "call_tool"],
      );
      assert.match(
        JSON.stringify(server.bodies[1].messages),
        /Tool \\"crm_create_deal\\" is not active this step/,
      );
    });
  },
);

describe(
  "aiSdkConversation with deferred MCP tools: the pair, through generateText and @ai-sdk/anthropic",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    it("finds and calls 2 tools; the tool set never changes; the results answer call_tool", async () => {
      const connected = await deferredRegistry({
        persona: null,
        section: { name: "rules", order: 10, text: "Search for tools." },
      });
      const { prompt, sources } = connected;
      const server = anthropicToolSearchServer((_, n) => {
        const at = Math.floor(n / 2);
        if (at >= 2) return { text: "Done." };
        return n % 2 === 0
          ? { call: { name: "find_tools", input: { query: FOUND[at].query } } }
          : {
            call: {
              name: "call_tool",
              input: { name: FOUND[at].name, arguments: FOUND[at].args },
            },
          };
      });
      const conv = aiSdkConversation(prompt);
      conv.user("Open the bug and list the pull requests.");
      const called: string[] = [];
      try {
        await serveRules(server.answer, async (baseURL) => {
          const model = createAnthropic({ apiKey: "sk-loopback", baseURL })(
            "claude-loopback",
          );
          for (let step = 0; step < 5; step++) {
            const result = await generateText({
              model,
              maxRetries: 0,
              maxOutputTokens: 256,
              ...await conv.request(),
            });
            const calls = conv.record(result);
            for (const call of calls) {
              assert.equal(call.via, "call_tool");
              const source = sources.find((one) => one.owns(call.name))!;
              const output = await source.call(call.name, call.input);
              called.push(call.name);
              const [first] = output.content as { text: string }[];
              conv.toolResult(call.id, first.text);
            }
            if (result.finishReason !== "tool-calls") break;
          }
        });
      } finally {
        await prompt.dispose();
        await connected.close();
      }
      assert.deepEqual(server.rejections, []);
      assert.deepEqual(called, [FOUND[0].name, FOUND[1].name]);
      assert.equal(server.bodies.length, 5);
      const names = (server.bodies[0].tools as { name: string }[]).map((tool) =>
        tool.name
      );
      assert.deepEqual(names, ["read_file", "find_tools", "call_tool"]);
      for (const body of server.bodies) {
        assert.equal(
          JSON.stringify(body.tools),
          JSON.stringify(server.bodies[0].tools),
        );
      }
      // Each result answers the call the model made: call_tool's by its name.
      const results = conv.messages.flatMap((message) =>
        message.role === "tool"
          ? (message.content as { toolName?: string }[]).map((part) =>
            part.toolName
          )
          : []
      );
      assert.deepEqual(results, [
        "find_tools",
        "call_tool",
        "find_tools",
        "call_tool",
      ]);
      // The search's answer holds the tool it found.
      assert.match(
        JSON.stringify(server.bodies[1].messages),
        new RegExp(FOUND[0].name),
      );
    });
  },
);
