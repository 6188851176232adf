/**
 * SPEC 9.1, 9.8: the Anthropic Messages form of the conversation builds
 * every step's whole body with the request loop's rules, and keeps what
 * it recorded when given bad input.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  type AnthropicConversationBody,
} from "../../adapters/anthropic/mod.ts";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  agent,
  continues,
  markCount,
  marksOf,
  message,
  schema,
  toolUse,
  unmarked,
} from "./helpers.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

function code(code: string) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === code;
}

function lastBlock(body: AnthropicConversationBody): Record<string, unknown> {
  const content = body.messages.at(-1)!.content;
  return content.at(-1) as Record<string, unknown>;
}

/**
 * A conversation whose first request listed a_tool and c_tool, answered;
 * then c_tool drops (its MCP server goes away) and the user speaks again.
 */
async function afterDroppedTool(a: ReturnType<typeof agent>): Promise<{
  conv: ReturnType<typeof anthropicConversation>;
  first: AnthropicConversationBody;
}> {
  a.tools = [schema("a_tool"), schema("c_tool")];
  const conv = anthropicConversation(a.prompt, OPTIONS);
  conv.user("Go.");
  const first = await conv.request();
  conv.record(message([{ type: "text", text: "Done." }]));
  a.tools = [schema("a_tool")]; // c_tool drops
  conv.user("Again.");
  return { conv, first };
}

describe("anthropicConversation", () => {
  it("runs a tool round trip: runtime context after the results, the last block marked", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Fix the test.");
    const first = await conv.request();
    assert.deepEqual(first.messages.map((m) => m.content.map((b) => b.type)), [
      ["text", "text"],
    ]);
    assert.deepEqual(lastBlock(first).cache_control, { type: "ephemeral" });
    const calls = conv.record(message([toolUse("t1", "read_file")]));
    assert.deepEqual(calls.map((c) => c.id), ["t1"]);
    conv.toolResult("t1", "export {};");
    a.branch = "fix/test";
    const second = await conv.request();
    assert.deepEqual(
      second.messages.map((m) => `${m.role}:${m.content.map((b) => b.type)}`),
      ["user:text,text", "assistant:tool_use", "user:tool_result,text"],
    );
    assert.match(String(lastBlock(second).text), /On fix\/test\.$/);
    assert.equal(markCount(second.messages), 1);
    assert.ok(continues(first.messages, second.messages));
    // The tools block stays byte-identical.
    assert.equal(JSON.stringify(second.tools), JSON.stringify(first.tools));
    await a.prompt.dispose();
  });

  it("sends the runtime context only when it changed", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    await conv.request();
    conv.record(message([{ type: "text", text: "Hello." }]));
    conv.user("Again.");
    const body = await conv.request();
    assert.deepEqual(body.messages.at(-1)!.content.map((b) => b.type), [
      "text",
    ]);
    await a.prompt.dispose();
  });

  it("builds the same body on a retry, and commits only on record()", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    const one = await conv.request();
    const two = await conv.request();
    assert.equal(JSON.stringify(one), JSON.stringify(two));
    assert.equal(conv.messages.length, 0);
    conv.record(message([{ type: "text", text: "Hello." }]));
    assert.equal(conv.messages.length, 2);
    await a.prompt.dispose();
  });

  it("refuses a request while another is being built, and a record with nothing pending", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    assert.throws(
      () => conv.record(message([])),
      code("NOTHING_PENDING"),
    );
    const building = conv.request();
    assert.throws(() => conv.record(message([])), code("CONVERSATION_BUSY"));
    await assert.rejects(conv.request(), code("CONVERSATION_BUSY"));
    await building;
    await a.prompt.dispose();
  });

  it("keeps thinking blocks and every field the SDK returned verbatim", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    await conv.request();
    const answer = message([
      { type: "thinking", thinking: "Read it first.", signature: "c2ln" },
      { type: "text", text: "Reading.", citations: null },
      { ...toolUse("t1", "read_file"), caller: { type: "direct" } },
    ]);
    conv.record(answer);
    assert.equal(
      JSON.stringify(conv.messages[1].content),
      JSON.stringify(answer.content),
    );
    answer.content.length = 0; // the caller's object is not the history
    assert.equal(conv.messages[1].content.length, 3);
    await a.prompt.dispose();
  });

  it("puts parallel results in the order of the calls, whatever order they came in", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Look around.");
    await conv.request();
    conv.record(message([toolUse("t1", "read_file"), toolUse("t2", "shell")]));
    conv.toolResult("t2", "ok", { isError: true });
    await assert.rejects(conv.request(), code("TOOL_RESULTS_MISSING"));
    conv.toolResult("t1", "text");
    const body = await conv.request();
    const blocks = body.messages.at(-1)!.content as Record<string, unknown>[];
    assert.deepEqual(blocks.map((b) => b.tool_use_id), ["t1", "t2"]);
    assert.equal(blocks[1].is_error, true);
    assert.equal(Object.hasOwn(blocks[0], "is_error"), false);
    await a.prompt.dispose();
  });

  it("answers a call of an inactive tool with 8.5's refusal, and does not return it", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Fix it.");
    const first = await conv.request();
    assert.equal(first.tools?.length, 2); // gating "keep"
    const calls = conv.record(
      message([toolUse("t1", "shell"), toolUse("t2", "read_file")]),
    );
    assert.deepEqual(calls.map((c) => c.name), ["read_file"]);
    assert.deepEqual(conv.openCalls.map((c) => c.id), ["t2"]);
    conv.toolResult("t2", "text");
    const body = await conv.request();
    const refusal = body.messages.at(-1)!.content[0] as Record<string, unknown>;
    assert.equal(
      refusal.content,
      'Tool "shell" is not active this step; the active tools are ' +
        '"read_file". Call one of those instead.',
    );
    assert.equal(refusal.is_error, true);
    await a.prompt.dispose();
  });

  it("rejects bad results and answers, and loses nothing recorded", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    await conv.request();
    assert.throws(
      () =>
        conv.record({
          object: "chat.completion",
          choices: [],
        } as unknown as ReturnType<typeof message>),
      code("RESPONSE_OF_OTHER_PROVIDER"),
    );
    assert.throws(
      () =>
        conv.record({ role: "user" } as unknown as ReturnType<typeof message>),
      code("INVALID_RESPONSE"),
    );
    assert.equal(conv.messages.length, 0);
    conv.record(message([toolUse("t1", "read_file")]));
    assert.throws(() => conv.toolResult("t9", "x"), code("UNKNOWN_TOOL_CALL"));
    conv.toolResult("t1", "x");
    assert.throws(
      () => conv.toolResult("t1", "y"),
      code("DUPLICATE_TOOL_RESULT"),
    );
    assert.throws(() => conv.user(""), code("INVALID_CONVERSATION_INPUT"));
    assert.throws(
      () =>
        conv.user([{
          type: "text",
          text: "x",
          cache_control: { type: "ephemeral" },
        }]),
      code("INVALID_CONVERSATION_INPUT"),
    );
    assert.equal(conv.messages.length, 2);
    const body = await conv.request();
    assert.equal(body.messages.length, 3);
    await a.prompt.dispose();
  });

  it("with more than 20 new blocks, also marks the previous request's end, within four markers", async () => {
    const a = agent();
    a.tools = [schema("read_file"), schema("shell"), schema("grep")];
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Search everything.");
    const first = await conv.request();
    const calls = Array.from(
      { length: 12 },
      (_, i) => toolUse(`t${i}`, "read_file"),
    );
    conv.record(message(calls));
    for (const call of calls) conv.toolResult(String(call.id), "found");
    const body = await conv.request();
    assert.deepEqual(
      (body.messages[0].content.at(-1) as Record<string, unknown>)
        .cache_control,
      { type: "ephemeral" },
    );
    assert.ok(lastBlock(body).cache_control !== undefined);
    assert.ok(markCount(body) <= 4);
    assert.ok(markCount(body.system) + markCount(body.tools) <= 2);
    assert.ok(continues(first.messages, body.messages));
    await a.prompt.dispose();
  });

  it("awaiting a person makes every marker of that request 1-hour", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, {
      ...OPTIONS,
      awaiting: "person",
    });
    conv.user("Hi.");
    const body = await conv.request();
    assert.ok(marksOf(body).length >= 2);
    for (const mark of marksOf(body)) {
      assert.deepEqual(mark, { type: "ephemeral", ttl: "1h" });
    }
    const agentBody = await conv.request(undefined, { awaiting: "agent" });
    for (const mark of marksOf(agentBody)) {
      assert.deepEqual(mark, { type: "ephemeral" });
    }
    await a.prompt.dispose();
  });

  it("keeps a dropped tool listed and inactive, and rebuilds once for an added one", async () => {
    const a = agent();
    const { conv, first } = await afterDroppedTool(a);
    const second = await conv.request();
    assert.equal(JSON.stringify(second.tools), JSON.stringify(first.tools));
    conv.record(message([toolUse("t1", "c_tool")]));
    assert.deepEqual(conv.openCalls, []); // refused by the conversation
    a.tools = [schema("a_tool"), schema("b_tool")]; // b_tool added
    const third = await conv.request();
    assert.deepEqual(third.tools?.map((t) => t.name), [
      "a_tool",
      "b_tool",
      "c_tool",
    ]);
    conv.record(message([{ type: "text", text: "Ok." }]));
    conv.user("More.");
    const fourth = await conv.request();
    assert.equal(
      JSON.stringify(unmarked(fourth.tools)),
      JSON.stringify(unmarked(third.tools)),
    );
    assert.ok(continues(third.messages, fourth.messages));
    await a.prompt.dispose();
  });

  it("makes a dropped tool active again when its server comes back, the tools block unchanged", async () => {
    const a = agent();
    const { conv, first } = await afterDroppedTool(a);
    await conv.request();
    assert.deepEqual(conv.record(message([toolUse("t1", "c_tool")])), []);
    a.tools = [schema("a_tool"), schema("c_tool")]; // it reconnects
    const back = await conv.request();
    assert.equal(
      JSON.stringify(unmarked(back.tools)),
      JSON.stringify(unmarked(first.tools)),
    );
    const calls = conv.record(message([toolUse("t2", "c_tool")]));
    assert.deepEqual(calls.map((call) => call.name), ["c_tool"]);
    await a.prompt.dispose();
  });

  it("turns what a hostile answer or input throws into a coded error, losing nothing", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    await conv.request();
    const hostile = new Proxy({}, {
      get() {
        throw new Error("boom");
      },
    });
    assert.throws(
      () => conv.record(hostile as never),
      code("INVALID_RESPONSE"),
    );
    const cyclic: Record<string, unknown> = { type: "text", text: "x" };
    cyclic.self = cyclic;
    assert.throws(
      () => conv.user([cyclic as never]),
      code("INVALID_CONVERSATION_INPUT"),
    );
    conv.record(message([{ type: "text", text: "Hello." }]));
    assert.equal(conv.messages.length, 2);
    await a.prompt.dispose();
  });

  it("checks its options", () => {
    const a = agent();
    assert.throws(
      () => anthropicConversation(a.prompt, { model: "", max_tokens: 1 }),
      code("INVALID_CONFIG"),
    );
    assert.throws(
      () =>
        anthropicConversation(a.prompt, {
          ...OPTIONS,
          awaiting: "later" as "person",
        }),
      code("INVALID_CONFIG"),
    );
    for (
      const bad of [
        { session: 42 },
        { onRecord: "file.jsonl" },
        { header: null },
        { max_tokens: 0 },
      ]
    ) {
      assert.throws(
        () => anthropicConversation(a.prompt, { ...OPTIONS, ...bad } as never),
        code("INVALID_CONFIG"),
      );
    }
  });

  it("has nothing to send before the first message", async () => {
    const prompt = new SystemPrompt();
    const conv = anthropicConversation(prompt, OPTIONS);
    await assert.rejects(conv.request(), code("NOTHING_TO_SEND"));
    await prompt.dispose();
  });
});
