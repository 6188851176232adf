/**
 * The search-and-call pair stays listed once its deferred tools are gone
 * (a tool that goes away stays listed, inactive): a call of it is then
 * refused as any inactive tool's, and a conversation resumed right after
 * that answer refuses it the same way (the recording's step did not allow
 * the pair), not as a search or a call of the tool it names.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import { chatCompletion } from "../adapters/loopback.ts";

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: { id: { type: "string" } } },
  };
}

function answer(calls: { id: string; name: string; input: unknown }[]) {
  return chatCompletion({
    role: "assistant",
    content: calls.length === 0 ? "Done." : null,
    ...(calls.length === 0 ? {} : {
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.input) },
      })),
    }),
  });
}

describe("the pair after its deferred tools went away", () => {
  it("refuses its calls as an inactive tool's, live and resumed", async () => {
    let connected = true;
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    prompt.tools(() => ({ schemas: [tool("read_file")] }));
    prompt.fork({ label: "crm" }).tools(() => ({
      schemas: connected ? [tool("crm_get"), tool("crm_log")] : [],
    }), { defer: true });
    try {
      const conv = chatConversation(prompt, { model: "gpt-5.6" });
      conv.user("Log the call.");
      const first = await conv.request();
      assert.ok(JSON.stringify(first.tools).includes('"find_tools"'));
      conv.record(answer([]) as never);
      connected = false; // the MCP server went away
      conv.user("Again.");
      await conv.request();
      const calls = conv.record(answer([
        { id: "c1", name: "find_tools", input: { query: "crm" } },
        {
          id: "c2",
          name: "call_tool",
          input: { name: "crm_log", arguments: { id: "1" } },
        },
      ]) as never);
      assert.deepEqual(calls, []); // both answered by the conversation
      const resumed = resumeChatConversation(prompt, conv.save());
      const live = await conv.request();
      const body = await resumed.request();
      const results = live.messages.filter((message) => message.role === "tool")
        .map((message) => JSON.stringify(message.content));
      assert.match(results[0], /Tool \\"find_tools\\" is not active/);
      assert.match(results[1], /Tool \\"call_tool\\" is not active/);
      assert.equal(JSON.stringify(body), JSON.stringify(live));
    } finally {
      await prompt.dispose();
    }
  });
});
