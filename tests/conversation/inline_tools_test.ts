/**
 * SPEC 9.1, 9.8: with `toolChanges: "inline"` the tools block stays the
 * first request's, byte for byte; a dropped tool is removed and an added
 * one added in a `role: "system"` message after the tool results (a
 * reference for a tool the first request listed, the whole definition
 * otherwise); save and resume keeps what the model has.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { SystemPromptError } from "../../mod.ts";
import {
  agent,
  continues,
  markCount,
  message,
  schema,
  toolUse,
} from "./helpers.ts";

const OPTIONS = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  toolChanges: "inline" as const,
};

describe("inline tool changes", () => {
  it("keeps the tools block and tells the model in the conversation", async () => {
    const a = agent();
    a.tools = [schema("read_file"), schema("shell")];
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Go.");
    const first = await conv.request();
    assert.deepEqual(first.betas, [
      "mid-conversation-tool-changes-2026-07-01",
      "inline-tools-2026-09-15",
    ]);
    conv.record(message([toolUse("t1", "read_file")]));
    conv.toolResult("t1", "text");
    a.tools = [schema("read_file"), schema("grep")]; // shell dropped, grep added
    const second = await conv.request();
    assert.equal(JSON.stringify(second.tools), JSON.stringify(first.tools));
    assert.deepEqual(second.messages.at(-1), {
      role: "system",
      content: [
        {
          type: "tool_removal",
          tool: { type: "tool_reference", name: "shell" },
        },
        {
          type: "tool_addition",
          tool: {
            type: "tool_definition",
            definition: {
              name: "grep",
              description: "The grep tool.",
              input_schema: { type: "object", properties: {} },
            },
          },
          cache_control: { type: "ephemeral" },
        },
      ],
    });
    assert.equal(second.messages.at(-2)!.role, "user");
    assert.ok(continues(first.messages, second.messages));
    assert.ok(markCount(second) <= 4);
    // A call of the removed tool is refused; the added one runs.
    const calls = conv.record(
      message([toolUse("t2", "shell"), toolUse("t3", "grep")]),
    );
    assert.deepEqual(calls.map((call) => call.name), ["grep"]);
    conv.toolResult("t3", "found");
    a.tools = [schema("read_file"), schema("shell"), schema("grep")];
    const third = await conv.request();
    const change = third.messages.at(-1)!;
    assert.deepEqual(
      change.content.map((b) =>
        JSON.stringify(b.type === "tool_addition" ? b.tool : null)
      ),
      [
        JSON.stringify({ type: "tool_reference", name: "shell" }),
      ],
    );
    // Resumed, the next request is the same bytes.
    assert.throws(
      () => resumeAnthropicConversation(a.prompt, conv.save()),
      (error: unknown) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG",
    );
    const again = resumeAnthropicConversation(a.prompt, conv.save(), {
      toolChanges: "inline",
    });
    again.toolResult("t3", "found");
    assert.equal(JSON.stringify(await again.request()), JSON.stringify(third));
    await a.prompt.dispose();
  });

  it("sends a changed definition as a removal and an addition", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Go.");
    await conv.request();
    conv.record(message([{ type: "text", text: "Ok." }]));
    a.tools = [schema("read_file", "Read a file, faster."), schema("shell")];
    conv.user("Again.");
    const body = await conv.request();
    const change = body.messages.at(-1)!;
    assert.equal(change.role, "system");
    assert.deepEqual(change.content.map((block) => block.type), [
      "tool_removal",
      "tool_addition",
    ]);
    await a.prompt.dispose();
  });
});
