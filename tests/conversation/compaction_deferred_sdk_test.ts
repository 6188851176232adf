// Deno-only: Anthropic compaction over deferred tools' `tool_reference`
// blocks (issue 47 with issue 48), through the real `@anthropic-ai/sdk`
// client against the loopback server that holds Anthropic's deferred-tool
// rules and its compaction's (tests/adapters/deferred/
// anthropic_tool_search.ts): a tool found before the compaction stays
// callable after it without another search (the block's `tool_changes`
// carry the reference), and past the provider's limit on the tools a block
// records (`compaction_too_many_tool_references`) the refused compaction is
// given up and the conversation goes on.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { SystemPrompt, SystemPromptError, type ToolSchema } from "../../mod.ts";
import {
  anthropicConversation,
  type MessagesAnswer,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import {
  anthropicToolSearchServer,
  type AnthropicTurn,
} from "../adapters/deferred/anthropic_tool_search.ts";
import { serveRules } from "../adapters/deferred/rule_server.ts";

function tool(name: string, description: string): ToolSchema {
  return {
    name,
    description,
    parameters: { type: "object", properties: { id: { type: "string" } } },
  };
}

/** A listed tool, and a deferred CRM source of three. */
function registry(): SystemPrompt {
  const prompt = new SystemPrompt({
    includeHarnessIdentity: false,
    persona: "You run operations for a software company.",
  });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Search for a tool before you say you cannot do something.",
  });
  prompt.tools(() => ({ schemas: [tool("read_file", "Reads a file.")] }));
  prompt.fork({ label: "crm" }).tools(() => ({
    schemas: [
      tool("crm_find_customer", "Finds a customer in the CRM."),
      tool("crm_log_call", "Logs a call with a customer in the CRM."),
      tool("crm_close_deal", "Closes a deal in the CRM."),
    ],
  }), { defer: true });
  return prompt;
}

function client(baseURL: string): Anthropic {
  return new Anthropic({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

type Conv = ReturnType<typeof anthropicConversation>;

/** One turn: requests until the model answers without a call. */
async function turn(
  conv: Conv,
  anthropic: Anthropic,
  text: string,
): Promise<string[]> {
  conv.user(text);
  const called: string[] = [];
  for (let step = 0; step < 5; step++) {
    const answer = await anthropic.beta.messages.create(await conv.request());
    const calls = conv.record(answer as MessagesAnswer);
    if (calls.length === 0) return called;
    for (const call of calls) {
      called.push(call.name);
      conv.toolResult(call.id, `${call.name} done.`);
    }
  }
  throw new Error("the turn did not end");
}

describe("Anthropic compaction over deferred tools (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a tool found before the compaction is called after it without a new search", async () => {
    // Turn 1 finds crm_find_customer and calls it; turn 2, after the
    // compaction, calls it straight away.
    const script = (
      body: Record<string, unknown>,
      n: number,
    ): AnthropicTurn => {
      const messages = body.messages as { content: unknown }[];
      const last = JSON.stringify(messages.at(-1));
      if (n === 0) {
        return {
          search: "customer",
          call: { name: "crm_find_customer", input: { id: "c1" } },
        };
      }
      if (last.includes("Again")) {
        return { call: { name: "crm_find_customer", input: { id: "c2" } } };
      }
      return { text: "Done." };
    };
    const server = anthropicToolSearchServer(script);
    const prompt = registry();
    await serveRules(server.answer, async (baseURL) => {
      const anthropic = client(baseURL);
      const conv = anthropicConversation(prompt, {
        model: "claude-loopback",
        max_tokens: 1024,
      });
      assert.deepEqual(await turn(conv, anthropic, "Find c1."), [
        "crm_find_customer",
      ]);
      const compaction = await conv.compact();
      compaction.record(
        await anthropic.beta.messages.create(compaction.body) as never,
      );
      assert.deepEqual(await turn(conv, anthropic, "Again for c2."), [
        "crm_find_customer",
      ]);
      assert.deepEqual(server.rejections, []);
      // The request after the swap: the block first, carrying the found
      // tool; no search since.
      const after = server.bodies.at(-2)!;
      const messages = after.messages as {
        content: Record<string, unknown>[];
      }[];
      assert.equal(messages[0].content[0].type, "compaction");
      // The search found two; both stay loaded.
      assert.deepEqual(
        messages[0].content[0].tool_changes,
        ["crm_find_customer", "crm_log_call"].map((name) => ({
          type: "tool_addition",
          tool: { type: "tool_reference", name },
        })),
      );
      assert.ok(!JSON.stringify(messages).includes("tool_search_tool_result"));
    });
    await prompt.dispose();
  });

  it("past the tools a block can record, the refused compaction is given up and a client-side summary taken", async () => {
    const script = (
      body: Record<string, unknown>,
      n: number,
    ): AnthropicTurn => {
      const messages = body.messages as { content: unknown }[];
      const text = JSON.stringify(messages.at(-1));
      if (n === 0) {
        return {
          search: "customer",
          call: { name: "crm_find_customer", input: { id: "c1" } },
        };
      }
      if (text.includes("Summarize the conversation")) {
        return { text: "Customer c1 was found with crm_find_customer." };
      }
      // After the summary no reference is left: the model searches again.
      if (text.includes("Again")) {
        return {
          search: "find customer",
          call: { name: "crm_find_customer", input: { id: "c2" } },
        };
      }
      return { text: "Done." };
    };
    // One distinct tool per block: the search's two are one too many.
    const server = anthropicToolSearchServer(script, { maxToolReferences: 1 });
    const prompt = registry();
    await serveRules(server.answer, async (baseURL) => {
      const anthropic = client(baseURL);
      const options = { model: "claude-loopback", max_tokens: 1024 };
      const conv = anthropicConversation(prompt, options);
      await turn(conv, anthropic, "Find c1.");
      const saved = conv.save();
      const refused = await conv.compact();
      await assert.rejects(
        anthropic.beta.messages.create(refused.body),
        (error: unknown) =>
          error instanceof Anthropic.BadRequestError &&
          JSON.stringify(error.error).includes(
            "compaction_too_many_tool_references",
          ),
      );
      // Pending until given up; given up, nothing is recorded.
      await assert.rejects(
        conv.compact(),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "COMPACTION_PENDING",
      );
      refused.cancel();
      assert.throws(
        () => refused.cancel(),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "NOTHING_PENDING",
      );
      assert.equal(conv.save(), saved);
      const summary = await conv.compact({ via: "summary" });
      const body = summary.body as unknown as Record<string, unknown>;
      assert.equal(body.compaction, undefined);
      summary.record(
        await anthropic.beta.messages.create(summary.body) as never,
      );
      const resumed = resumeAnthropicConversation(prompt, conv.save());
      assert.deepEqual(await turn(conv, anthropic, "Again for c2."), [
        "crm_find_customer",
      ]);
      // The summary starts the history; a resume gives the same bytes.
      const after = server.bodies.at(-2)!;
      const messages = after.messages as { content: unknown }[];
      assert.match(
        JSON.stringify(messages[0]),
        /Summary of the conversation so far:\\n\\nCustomer c1 was found/,
      );
      resumed.user("Again for c2.");
      assert.deepEqual(await resumed.request(), after);
      assert.deepEqual(server.rejections, [
        "The conversation references more distinct tools than a " +
        "`compaction` block can record.",
      ]);
    });
    await prompt.dispose();
  });
});
