/**
 * Issue 44, items 8, 10 and 18: what one form alone must refuse or leave
 * out. The AI SDK form refuses a person's part carrying a cache mark and a
 * tool call without its id or name; the Responses form refuses a `user`
 * message among the model's output, and sends `prompt_cache_options` only
 * with `cache` (`aiSdkConversation`'s optional options: signatures_deno_test).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { rejects } from "../assertions.ts";
import { agent, responsesAnswer } from "./helpers.ts";

describe("the AI SDK form", () => {
  it("refuses a person's part carrying a cache mark, under any provider's options", async () => {
    const a = agent();
    const conv = aiSdkConversation(a.prompt);
    for (
      const providerOptions of [
        { anthropic: { cacheControl: { type: "ephemeral" } } },
        { anthropic: { cache_control: { type: "ephemeral" } } },
        { vertex: { cacheControl: { type: "ephemeral", ttl: "1h" } } },
      ]
    ) {
      assert.throws(
        () =>
          conv.user([{ type: "text", text: "Hi.", providerOptions }] as never),
        rejects("INVALID_CONVERSATION_INPUT", "cache mark"),
      );
    }
    conv.user([{
      type: "text",
      text: "Hi.",
      providerOptions: { anthropic: { citations: { enabled: true } } },
    }] as never);
    const body = await conv.request();
    assert.equal(JSON.stringify(body.messages).includes("cacheControl"), true);
    assert.equal(
      JSON.stringify(body.messages[0].content).match(/cacheControl/g)?.length,
      1,
    );
    await a.prompt.dispose();
  });

  it("refuses a tool call without its id or name, nothing committed", async () => {
    const a = agent();
    const conv = aiSdkConversation(a.prompt);
    conv.user("Read it.");
    await conv.request();
    const call = { type: "tool-call", toolCallId: "t1", toolName: "read_file" };
    for (const key of ["toolCallId", "toolName"]) {
      const part: Record<string, unknown> = { ...call, input: {} };
      delete part[key];
      assert.throws(
        () =>
          conv.record({
            response: { messages: [{ role: "assistant", content: [part] }] },
          } as never),
        rejects("INVALID_RESPONSE", key),
      );
      assert.equal(conv.messages.length, 0);
    }
    const calls = conv.record({
      response: {
        messages: [{ role: "assistant", content: [{ ...call, input: {} }] }],
      },
    } as never);
    assert.deepEqual(calls.map((open) => open.id), ["t1"]);
    await a.prompt.dispose();
  });
});

describe("the Responses form", () => {
  it("refuses an output message that is not the model's", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, { model: "gpt-5.6" });
    conv.user("Hi.");
    await conv.request();
    const answer = responsesAnswer([]);
    for (const role of ["user", "system", "developer"]) {
      const output = answer.output.map((item) => ({ ...item, role }));
      assert.throws(
        () => conv.record({ ...answer, output }),
        rejects("INVALID_RESPONSE", role),
      );
    }
    assert.equal(conv.messages.length, 0);
    conv.record(answer);
    assert.equal(conv.messages.length, 3);
    await a.prompt.dispose();
  });

  it("sends prompt_cache_options only with cache; promptCacheRetention as documented", async () => {
    const a = agent();
    for (
      const options of [
        { model: "gpt-5" },
        { model: "gpt-5", promptCacheRetention: "24h" as const },
      ]
    ) {
      const conv = responsesConversation(a.prompt, options);
      conv.user("Hi.");
      const pause = await conv.request(undefined, { awaiting: "person" });
      assert.equal("prompt_cache_options" in pause, false);
      assert.equal(
        pause.prompt_cache_retention,
        options.promptCacheRetention,
      );
    }
    const cached = responsesConversation(a.prompt, {
      model: "gpt-5.6",
      cache: true,
    });
    cached.user("Hi.");
    const pause = await cached.request(undefined, { awaiting: "person" });
    assert.deepEqual(pause.prompt_cache_options, { ttl: "12h" });
    await a.prompt.dispose();
  });
});
