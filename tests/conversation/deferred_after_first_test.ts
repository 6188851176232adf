/**
 * Deferred tools that change after the first request of a conversation
 * whose tool changes go inline (the default once an answer holds thinking
 * or reasoning): with the search-and-call pair, the pair is added inline
 * as any tool (the tools block untouched, a resume reads it), and with
 * the provider's tool search, whose tools block lists the deferred tools,
 * the request is refused with `DEFERRED_TOOLS_CHANGED` naming the way out
 * (not an append-only "bug").
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, SystemPromptError, type ToolSchema } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { message } from "./helpers.ts";

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: {} },
  };
}

/** A registry with one listed tool; `defer()` registers deferred ones. */
function registry() {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.tools(() => ({ schemas: [tool("read_file")] }));
  const defer = (...names: string[]) =>
    prompt.fork({ label: "tracker" }).tools(
      () => ({ schemas: names.map(tool) }),
      { defer: true },
    );
  return { prompt, defer };
}

const ANTHROPIC = {
  model: "claude-opus-4-5",
  max_tokens: 1024,
  changes: "inline",
} as const;

const text = (said: string) => message([{ type: "text", text: said }]);
const use = (id: string, name: string, input: unknown) =>
  message([{ type: "tool_use", id, name, input }]);

function code(expected: string) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === expected;
}

describe("deferred tools after the first request, tool changes inline", () => {
  it("adds the pair inline on Anthropic: the tools block kept, the search answered, a resume alike", async () => {
    const { prompt, defer } = registry();
    const conv = anthropicConversation(prompt, {
      ...ANTHROPIC,
      toolSearch: "pair",
    });
    conv.user("Hi.");
    const first = await conv.request();
    conv.record(text("Hello."));
    defer("tracker_open_issue");
    conv.user("Open an issue.");
    const second = await conv.request();
    assert.deepEqual(second.tools, first.tools, "the tools block is kept");
    const told = JSON.stringify(second.messages.slice(-2));
    assert.ok(told.includes("tool_addition"), told);
    assert.ok(told.includes('"find_tools"') && told.includes('"call_tool"'));
    // The model searches: the conversation answers it at the next request.
    assert.deepEqual(
      conv.record(use("t1", "find_tools", { query: "open issue" })),
      [],
    );
    assert.equal(conv.continues, true);
    const resumed = resumeAnthropicConversation(prompt, conv.save());
    assert.equal(resumed.continues, true, "the resume knows the pair");
    assert.deepEqual(resumed.openCalls, []);
    const third = await conv.request();
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(third),
    );
    assert.ok(JSON.stringify(third.messages.at(-1)).includes("tracker_open"));
    const calls = conv.record(
      use("t2", "call_tool", { name: "tracker_open_issue", arguments: {} }),
    );
    assert.deepEqual(calls.map((call) => call.name), ["tracker_open_issue"]);
    await prompt.dispose();
  });

  it("with gates, a found tool the gates allow is called through the pair", async () => {
    const { prompt, defer } = registry();
    let active = ["read_file"];
    prompt.toolGate(() => active);
    const conv = anthropicConversation(prompt, {
      ...ANTHROPIC,
      toolSearch: "pair",
    });
    conv.user("Hi.");
    await conv.request();
    conv.record(text("Hello."));
    defer("tracker_open_issue", "tracker_close_issue");
    active = ["read_file", "tracker_open_issue"];
    conv.user("Open an issue.");
    await conv.request();
    const calls = conv.record(
      message([
        {
          type: "tool_use",
          id: "t1",
          name: "call_tool",
          input: { name: "tracker_open_issue", arguments: {} },
        },
        {
          type: "tool_use",
          id: "t2",
          name: "call_tool",
          input: { name: "tracker_close_issue", arguments: {} },
        },
      ]),
    );
    // The gated-off one is refused by the conversation itself.
    assert.deepEqual(calls.map((call) => call.name), ["tracker_open_issue"]);
    await prompt.dispose();
  });

  it("adds the pair inline on Responses: an additional_tools item", async () => {
    const { prompt, defer } = registry();
    const conv = responsesConversation(prompt, {
      model: "gpt-5.6",
      changes: "inline",
      toolSearch: "pair",
    });
    conv.user("Hi.");
    const first = await conv.request();
    conv.record({
      object: "response",
      output: [{
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Hello.", annotations: [] }],
      }],
    } as never);
    defer("tracker_open_issue");
    conv.user("Open an issue.");
    const second = await conv.request();
    assert.deepEqual(second.tools, first.tools, "the tools block is kept");
    const added = second.input.find((item) =>
      (item as { type?: string }).type === "additional_tools"
    ) as { tools: { name?: string }[] } | undefined;
    assert.deepEqual(added?.tools.map((one) => one.name), [
      "find_tools",
      "call_tool",
    ]);
    await prompt.dispose();
  });

  for (const changed of [false, true]) {
    it(
      `refuses the provider's tool search whose deferred tools were ${
        changed ? "changed" : "registered"
      } after the first request`,
      async () => {
        const { prompt, defer } = registry();
        if (changed) defer("tracker_close_issue");
        const conv = anthropicConversation(prompt, ANTHROPIC);
        conv.user("Hi.");
        await conv.request();
        conv.record(text("Hello."));
        const late = defer("tracker_open_issue");
        conv.user("Open an issue.");
        await assert.rejects(
          conv.request(),
          (error: unknown) =>
            code("DEFERRED_TOOLS_CHANGED")(error) &&
            (error as Error).message.includes('"tracker_open_issue"') &&
            (error as Error).message.includes('toolSearch: "pair"'),
        );
        // Nothing was lost: with the registry as it was, the step goes on.
        late();
        const body = await conv.request();
        assert.ok(JSON.stringify(body.messages.at(-1)).includes("Open an"));
        await prompt.dispose();
      },
    );
  }

  it("refuses the provider's tool search whose deferred tools were all unregistered", async () => {
    const { prompt, defer } = registry();
    const early = defer("tracker_close_issue");
    const conv = anthropicConversation(prompt, ANTHROPIC);
    conv.user("Hi.");
    await conv.request();
    conv.record(text("Hello."));
    early();
    conv.user("Read a file.");
    await assert.rejects(
      conv.request(),
      (error: unknown) =>
        code("DEFERRED_TOOLS_CHANGED")(error) &&
        (error as Error).message.includes("(now none)"),
    );
    await prompt.dispose();
  });
});
