/**
 * `continues`: an answer whose calls the conversation answers itself (the
 * pair's `find_tools` search, the refusal of a call to an inactive tool)
 * returns no call from `record()`, yet the model waits for those answers:
 * the documented loop `while (calls.length > 0 || conv.continues)` must
 * send the next request, not end the turn with them unsent.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { agent, message, toolUse } from "./helpers.ts";

/** A registry with one listed tool and one deferred tool. */
function deferredPrompt(): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  prompt.section({ name: "rules", order: 10, text: "Search for tools." });
  prompt.tools(() => ({
    schemas: [{
      name: "read_file",
      description: "Read a file.",
      parameters: { type: "object", properties: {} },
    }],
  }));
  prompt.fork({ label: "crm" }).tools(() => ({
    schemas: [{
      name: "crm_log_call",
      description: "Log a phone call with a contact.",
      parameters: { type: "object", properties: {} },
    }],
  }), { defer: true });
  return prompt;
}

/** A Chat Completions answer calling `name` with `args`, or a text. */
function chatAnswer(call?: { id: string; name: string; args: unknown }) {
  return {
    choices: [{
      message: {
        role: "assistant" as const,
        content: call === undefined ? "Done." : null,
        ...(call === undefined ? {} : {
          tool_calls: [{
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          }],
        }),
      },
    }],
  };
}

describe("continues", () => {
  it("is set while a find_tools search of the pair is to be answered", async () => {
    const prompt = deferredPrompt();
    const conv = chatConversation(prompt, { model: "gpt-5.4" });
    conv.user("Log my call with Ada.");
    await conv.request();
    const calls = conv.record(
      chatAnswer({ id: "call_1", name: "find_tools", args: { query: "call" } }),
    );
    // The loop of docs/conversation.md goes on: no call to run, yet the
    // model waits for the search's answer.
    assert.deepEqual(calls, []);
    assert.equal(conv.continues, true);
    const next = await conv.request();
    const sent = JSON.stringify(next.messages.at(-1));
    assert.ok(sent.includes("crm_log_call"), sent);
    assert.deepEqual(conv.record(chatAnswer()), []);
    assert.equal(conv.continues, false, "a text answer ends the turn");
    await prompt.dispose();
  });

  it("is set on a resumed conversation whose last answer is a search", async () => {
    const prompt = deferredPrompt();
    const conv = chatConversation(prompt, { model: "gpt-5.4" });
    conv.user("Log my call with Ada.");
    await conv.request();
    conv.record(
      chatAnswer({ id: "call_1", name: "find_tools", args: { query: "call" } }),
    );
    const resumed = resumeChatConversation(prompt, conv.save());
    assert.equal(resumed.continues, true);
    assert.deepEqual(
      JSON.stringify(await resumed.request()),
      JSON.stringify(await conv.request()),
    );
    await prompt.dispose();
  });

  it("is set when the only call is one the conversation refuses", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = anthropicConversation(a.prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
    });
    conv.user("Fix it.");
    await conv.request();
    assert.deepEqual(conv.record(message([toolUse("t1", "shell")])), []);
    assert.equal(conv.continues, true);
    const body = await conv.request();
    const refusal = body.messages.at(-1)!.content[0] as Record<string, unknown>;
    assert.equal(refusal.is_error, true);
    conv.record(message([{ type: "text", text: "Done." }]));
    assert.equal(conv.continues, false);
    await a.prompt.dispose();
  });

  it("is not set by calls the harness answers", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
    });
    conv.user("Fix it.");
    await conv.request();
    const calls = conv.record(message([toolUse("t1", "read_file")]));
    assert.deepEqual(calls.map((call) => call.id), ["t1"]);
    assert.equal(conv.continues, false);
    await a.prompt.dispose();
  });
});
