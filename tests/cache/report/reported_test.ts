/**
 * `readReportedUsage` reads each API's usage and diagnosis into one shape,
 * counts cache reads and writes in the input everywhere, and turns a
 * malformed or unknown payload into `unknown` with the raw value kept.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readReportedUsage } from "../../../adapters/cache/mod.ts";
import {
  aiSdkResult,
  anthropicMessage,
  anthropicUsage,
  chatCompletion,
  responsesResponse,
} from "./reported_fixtures.ts";

describe("readReportedUsage", () => {
  it("adds Anthropic's cache reads and writes to its input_tokens", () => {
    const usage = readReportedUsage(
      anthropicMessage("msg_1", anthropicUsage(12, 4096, { "1h": 700 })),
      "anthropic-messages",
    );
    // 0.4's name of the form reads the same, as the form's id.
    assert.deepEqual(
      readReportedUsage(
        anthropicMessage("msg_1", anthropicUsage(12, 4096, { "1h": 700 })),
        "anthropic",
      ),
      usage,
    );
    assert.deepEqual(usage, {
      source: "anthropic-messages",
      responseId: "msg_1",
      responseModel: "claude-sonnet-4-5",
      diagnosis: { status: "none" },
      cacheReadTokens: 4096,
      cacheWriteTokens: 700,
      cacheWrites: { "1h": 700 },
      inputTokens: 12 + 4096 + 700,
      outputTokens: 212,
    });
  });

  it("reads Anthropic's cache_miss_reason with its missed tokens", () => {
    const usage = readReportedUsage(
      anthropicMessage(
        "msg_2",
        anthropicUsage(5200, 0, { "5m": 5200 }),
        { type: "tools_changed", cache_missed_input_tokens: 4900 },
      ),
      "anthropic",
    );
    assert.deepEqual(usage.diagnosis, {
      status: "miss",
      reason: "tools_changed",
      missedTokens: 4900,
      raw: { type: "tools_changed", cache_missed_input_tokens: 4900 },
    });
  });

  it("tells Anthropic's pending, unavailable and not-found diagnoses apart", () => {
    const read = (
      reason: Parameters<typeof anthropicMessage>[2],
      diagnosed = true,
    ) =>
      readReportedUsage(
        anthropicMessage("msg", anthropicUsage(1, 0), reason, diagnosed),
        "anthropic",
      ).diagnosis.status;
    assert.equal(read(null, true), "none"); // null: pending, not a hit
    assert.equal(read({ type: "unavailable" }), "unavailable");
    assert.equal(read({ type: "previous_message_not_found" }), "not_found");
  });

  it("reads Chat Completions: prompt_tokens already holds the cache", () => {
    const usage = readReportedUsage(
      chatCompletion(6000, 5888, 0),
      "openai-chat",
    );
    assert.equal(usage.inputTokens, 6000);
    assert.equal(usage.cacheReadTokens, 5888);
    assert.equal(usage.cacheWriteTokens, 0);
    assert.deepEqual(usage.diagnosis, { status: "none" });
    assert.equal(usage.malformed, undefined);
  });

  it("reads an absent prompt_tokens_details as no cache", () => {
    const completion = chatCompletion(900, 0);
    delete completion.usage.prompt_tokens_details;
    const usage = readReportedUsage(completion, "openai-chat");
    assert.equal(usage.cacheReadTokens, 0);
    assert.equal(usage.cacheWriteTokens, 0);
    assert.equal(usage.malformed, undefined);
  });

  it("reads Responses usage, write lifetimes and prompt_cache_diagnostics", () => {
    const usage = readReportedUsage(
      responsesResponse(8000, 2048, { "12h": 5800 }, {
        type: "cache_miss",
        reason: "input_changed",
        cache_missed_tokens: 5800,
        comparison_reusable_tokens: 7900,
      }),
      "openai-responses",
    );
    assert.equal(usage.inputTokens, 8000);
    assert.equal(usage.cacheReadTokens, 2048);
    assert.equal(usage.cacheWriteTokens, 5800);
    assert.deepEqual(usage.cacheWrites, { "12h": 5800 });
    assert.equal(usage.diagnosis.status, "miss");
    assert.equal(usage.diagnosis.reason, "input_changed");
    assert.equal(usage.diagnosis.missedTokens, 5800);
    assert.equal(usage.diagnosis.reusableTokens, 7900);
  });

  it("reads OpenAI's cache_hit and comparison_response_not_found", () => {
    const status = (
      diagnosis: Parameters<typeof responsesResponse>[3],
    ) =>
      readReportedUsage(
        responsesResponse(100, 0, {}, diagnosis),
        "openai-responses",
      ).diagnosis.status;
    assert.equal(status({ type: "cache_hit" }), "hit");
    assert.equal(
      status({ type: "comparison_response_not_found" }),
      "not_found",
    );
    assert.equal(status({ type: "unavailable" }), "unavailable");
  });

  it("reads an AI SDK result's usage and the usage itself", () => {
    const result = aiSdkResult(10, 3000, 200);
    for (const response of [result, result.usage]) {
      const usage = readReportedUsage(response, "ai-sdk");
      assert.equal(usage.inputTokens, 3210);
      assert.equal(usage.cacheReadTokens, 3000);
      assert.equal(usage.cacheWriteTokens, 200);
      assert.equal(usage.malformed, undefined);
    }
  });

  it("keeps an AI SDK figure the provider did not report undefined", () => {
    const result = aiSdkResult(10, 0, 0);
    result.usage.inputTokenDetails.cacheWriteTokens = undefined;
    const usage = readReportedUsage(result, "ai-sdk");
    assert.equal(usage.cacheWriteTokens, undefined);
    assert.equal(usage.inputTokens, 10);
    assert.equal(usage.malformed, undefined);
  });

  it("gives unknown with the raw value for an unknown reason", () => {
    const raw = { type: "cache_evicted", cache_missed_input_tokens: 10 };
    const usage = readReportedUsage(
      { usage: anthropicUsage(1, 0), diagnostics: { cache_miss_reason: raw } },
      "anthropic",
    );
    assert.deepEqual(usage.diagnosis, { status: "unknown", raw });
    assert.deepEqual(usage.malformed, [{
      field: "diagnostics.cache_miss_reason.type",
      raw: "cache_evicted",
    }]);
    const openai = readReportedUsage(
      {
        usage: responsesResponse(1, 0).usage,
        prompt_cache_diagnostics: { type: "cache_miss", reason: "moon_phase" },
      },
      "openai-responses",
    );
    assert.equal(openai.diagnosis.status, "unknown");
    assert.deepEqual(openai.malformed, [{
      field: "prompt_cache_diagnostics.reason",
      raw: "moon_phase",
    }]);
  });

  it("leaves a wrong-typed figure undefined and names it", () => {
    const message = anthropicMessage("msg", anthropicUsage(5, 0));
    const usage = readReportedUsage(
      {
        ...message,
        usage: { ...message.usage, cache_read_input_tokens: "4096" },
      },
      "anthropic",
    );
    assert.equal(usage.cacheReadTokens, undefined);
    assert.equal(usage.inputTokens, undefined); // the total needs the read
    assert.deepEqual(usage.malformed, [{
      field: "usage.cache_read_input_tokens",
      raw: "4096",
    }]);
  });

  it("reads a response without usage, or no object, as nothing", () => {
    assert.deepEqual(readReportedUsage(undefined, "openai-chat"), {
      source: "openai-chat",
      diagnosis: { status: "none" },
      malformed: [{ field: "response", raw: undefined }],
    });
    const usage = readReportedUsage({ id: "msg" }, "anthropic");
    assert.equal(usage.inputTokens, undefined);
    assert.deepEqual(usage.malformed, [{ field: "usage", raw: undefined }]);
  });

  it("survives a getter that throws", () => {
    const response = {
      get usage(): never {
        throw new Error("boom");
      },
    };
    const usage = readReportedUsage(response, "openai-responses");
    assert.equal(usage.inputTokens, undefined);
    assert.equal(usage.malformed?.[0].field, "usage");
  });
});
