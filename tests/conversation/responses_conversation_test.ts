/**
 * SPEC 9.1, 9.8: the OpenAI Responses form of the conversation: stateless
 * input with the system message first, explicit marks on the last item and
 * the previous request's end, prompt_cache_options for pauses.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { SystemPromptError } from "../../mod.ts";
import { agent, completion, marksOf, responsesAnswer } from "./helpers.ts";

function code(code: string) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === code;
}

describe("responsesConversation", () => {
  it("sends the whole input, system first, with the tool round trip and the marks", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = responsesConversation(a.prompt, {
      model: "gpt-5.6",
      cache: true,
    });
    conv.user("Where is it?");
    const first = await conv.request();
    assert.equal((first.input[0] as { role: string }).role, "system");
    assert.equal(first.tool_choice !== undefined, true);
    const calls = conv.record(
      responsesAnswer([{ id: "c1", name: "read_file" }]),
    );
    assert.deepEqual(calls.map((call) => call.input), [{ path: "a.ts" }]);
    conv.toolResult("c1", "found");
    a.branch = "fix";
    const second = await conv.request(undefined, { awaiting: "person" });
    assert.deepEqual(
      second.input.map((item) =>
        "type" in item && item.type !== undefined ? item.type : item.role
      ),
      [
        "system",
        "user",
        "user",
        "function_call",
        "function_call_output",
        "user",
      ],
    );
    assert.deepEqual(second.prompt_cache_options, { ttl: "12h" });
    for (const mark of marksOf(second)) {
      assert.deepEqual(mark, { mode: "explicit", ttl: "12h" });
    }
    assert.equal(second.prompt_cache_key, first.prompt_cache_key);
    await a.prompt.dispose();
  });

  it("sends instructions as the first input message without cache", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, { model: "gpt-5" });
    conv.user("Hi.");
    const body = await conv.request();
    assert.equal(
      typeof (body.input[0] as { content: unknown }).content,
      "string",
    );
    assert.equal(marksOf(body).length, 0);
    assert.equal("prompt_cache_options" in body, false);
    await a.prompt.dispose();
  });

  it("asks for the extended retention only while a person is awaited", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, {
      model: "gpt-5",
      promptCacheRetention: "24h",
    });
    conv.user("Hi.");
    const pause = await conv.request(undefined, { awaiting: "person" });
    assert.equal(pause.prompt_cache_retention, "24h");
    assert.equal("prompt_cache_retention" in await conv.request(), false);
    assert.throws(
      () =>
        responsesConversation(a.prompt, {
          model: "gpt-5",
          promptCacheRetention: "in_memory" as "24h",
        }),
      code("INVALID_CONFIG"),
    );
    await a.prompt.dispose();
  });

  it("rejects another provider's answer, keeping what it recorded", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, { model: "gpt-5.6" });
    conv.user("Hi.");
    await conv.request();
    assert.throws(
      () => conv.record(completion([]) as never),
      code("RESPONSE_OF_OTHER_PROVIDER"),
    );
    assert.equal(conv.messages.length, 0);
    conv.record(responsesAnswer([]));
    assert.equal(conv.messages.length, 3);
    await a.prompt.dispose();
  });
});
