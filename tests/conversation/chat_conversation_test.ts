/**
 * SPEC 9.1, 9.8: the OpenAI Chat Completions form of the conversation:
 * explicit marks on the last item and the previous request's end, one
 * prompt_cache_key per conversation, allowed_tools from the gates, the
 * runtime context as a new user message, 12-hour marks for pauses.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import { agent, completion, marksOf, message } from "./helpers.ts";

function code(code: string) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === code;
}

/** Where the body's messages carry marks: [message index, mark]. */
function markedMessages(body: { messages: unknown[] }): [number, unknown][] {
  return body.messages.flatMap((message, index) =>
    index === 0 ? [] : marksOf(message).map((mark): [number, unknown] => [
      index,
      mark,
    ])
  );
}

describe("chatConversation", () => {
  it("marks the last item and the previous request's end, and sends the runtime context after the results", async () => {
    const a = agent();
    const conv = chatConversation(a.prompt, { model: "gpt-5.6", cache: true });
    conv.user("Where is it?");
    const first = await conv.request();
    assert.deepEqual(first.messages.map((m) => m.role), [
      "system",
      "user",
      "user",
    ]);
    assert.deepEqual(markedMessages(first), [[2, { mode: "explicit" }]]);
    const calls = conv.record(completion([{ id: "c1", name: "read_file" }]));
    assert.deepEqual(calls, [{
      id: "c1",
      name: "read_file",
      input: { path: "a.ts" },
    }]);
    conv.toolResult("c1", "found");
    a.branch = "fix";
    const second = await conv.request();
    assert.deepEqual(second.messages.map((m) => m.role), [
      "system",
      "user",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    assert.deepEqual(markedMessages(second).map(([index]) => index), [2, 5]);
    assert.equal(second.prompt_cache_key, first.prompt_cache_key);
    await a.prompt.dispose();
  });

  it("fixes prompt_cache_key at the first request, per session", async () => {
    const a = agent();
    const one = chatConversation(a.prompt, { model: "gpt-5.6", session: "1" });
    const two = chatConversation(a.prompt, { model: "gpt-5.6", session: "2" });
    one.user("Hi.");
    two.user("Hi.");
    const key = (await one.request()).prompt_cache_key;
    assert.notEqual(key, (await two.request()).prompt_cache_key);
    one.record(completion([]));
    a.prompt.section({ name: "late", order: 5, text: "A new rule." });
    one.user("Again.");
    assert.equal((await one.request()).prompt_cache_key, key);
    const resumed = resumeChatConversation(a.prompt, one.save());
    resumed.user("Again.");
    assert.equal((await resumed.request()).prompt_cache_key, key);
    await a.prompt.dispose();
  });

  it("gates through allowed_tools, keeping every tool listed", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = chatConversation(a.prompt, { model: "gpt-5.6" });
    conv.user("Hi.");
    const body = await conv.request();
    assert.equal(body.tools?.length, 2);
    assert.deepEqual(body.tool_choice, {
      type: "allowed_tools",
      allowed_tools: {
        mode: "auto",
        tools: [{ type: "function", function: { name: "read_file" } }],
      },
    });
    assert.equal(markedMessages(body).length, 0); // automatic caching
    await a.prompt.dispose();
  });

  it("gives every mark a 12-hour lifetime when a person answers next", async () => {
    const a = agent();
    const conv = chatConversation(a.prompt, {
      model: "gpt-5.6",
      cache: { ttl: "30m" },
      awaiting: "person",
    });
    conv.user("Hi.");
    const body = await conv.request();
    assert.ok(marksOf(body).length >= 2);
    for (const mark of marksOf(body)) {
      assert.deepEqual(mark, { mode: "explicit", ttl: "12h" });
    }
    const soon = await conv.request(undefined, { awaiting: "agent" });
    for (const mark of marksOf(soon)) {
      assert.deepEqual(mark, { mode: "explicit", ttl: "30m" });
    }
    await a.prompt.dispose();
  });

  it("asks for the extended retention on automatic caching only while a person is awaited, and keeps the option on resume", async () => {
    const a = agent();
    const conv = chatConversation(a.prompt, {
      model: "gpt-5",
      promptCacheRetention: "24h",
    });
    conv.user("Hi.");
    const pause = await conv.request(undefined, { awaiting: "person" });
    assert.equal(pause.prompt_cache_retention, "24h");
    assert.equal(marksOf(pause).length, 0); // automatic caching: no marks
    const soon = await conv.request();
    assert.equal("prompt_cache_retention" in soon, false);
    conv.record(completion([]));
    conv.user("Still there?");
    const resumed = resumeChatConversation(a.prompt, conv.save());
    resumed.user("Still there?");
    assert.equal(
      JSON.stringify(await resumed.request(undefined, { awaiting: "person" })),
      JSON.stringify(await conv.request(undefined, { awaiting: "person" })),
    );
    for (const bad of ["12h", true, 24]) {
      assert.throws(
        () =>
          chatConversation(a.prompt, {
            model: "gpt-5",
            promptCacheRetention: bad as "24h",
          }),
        code("INVALID_CONFIG"),
      );
    }
    await a.prompt.dispose();
  });

  it("asks for the usage when streaming", async () => {
    const a = agent();
    const conv = chatConversation(a.prompt, { model: "gpt-5.6", stream: true });
    conv.user("Hi.");
    const body = await conv.request();
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.throws(
      () => resumeChatConversation(a.prompt, conv.save()),
      code("INVALID_CONFIG"),
    );
    const again = resumeChatConversation(a.prompt, conv.save(), {
      stream: true,
    });
    assert.equal((await again.request()).stream, true);
    await a.prompt.dispose();
  });

  it("rejects another provider's answer and keeps what it recorded", async () => {
    const a = agent();
    const conv = chatConversation(a.prompt, { model: "gpt-5.6" });
    conv.user("Hi.");
    await conv.request();
    assert.throws(
      () => conv.record(message([]) as never),
      code("RESPONSE_OF_OTHER_PROVIDER"),
    );
    assert.throws(
      () => conv.record({ choices: [] }),
      code("INVALID_RESPONSE"),
    );
    assert.equal(conv.messages.length, 0);
    conv.record(completion([]));
    assert.equal(conv.messages.length, 3);
    await a.prompt.dispose();
  });
});

describe("a client-side summary's answer", () => {
  it("without text is refused, nothing committed; with text it starts the history", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 10, text: "Be brief." });
    const conv = chatConversation(prompt, { model: "m" });
    conv.user("Fix the test.");
    await conv.request();
    conv.record({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "Fixed." } }],
    } as never);
    const compaction = await conv.compact();
    const toolCall = {
      object: "chat.completion",
      choices: [{
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: "{}" },
          }],
        },
      }],
    };
    assert.throws(
      () => compaction.record(toolCall as never),
      (error: unknown) =>
        error instanceof SystemPromptError &&
        error.code === "INVALID_RESPONSE" &&
        /holds no text/.test(error.message),
    );
    compaction.record({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "Fixed one test." } }],
    } as never);
    conv.user("Next.");
    const body = await conv.request();
    assert.match(JSON.stringify(body.messages), /Fixed one test\./);
    assert.doesNotMatch(JSON.stringify(body.messages), /Fix the test\./);
    await prompt.dispose();
  });
});
