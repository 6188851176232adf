import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readReportedUsage } from "../../../adapters/cache/mod.ts";

describe("readReportedUsage, Bedrock Converse", () => {
  const response = (usage: unknown) => ({
    $metadata: { httpStatusCode: 200 },
    output: { message: { role: "assistant", content: [{ text: "ok" }] } },
    stopReason: "end_turn",
    usage,
    metrics: { latencyMs: 10 },
  });

  it("adds the cache reads and writes back to inputTokens", () => {
    const usage = readReportedUsage(
      response({
        inputTokens: 40,
        outputTokens: 7,
        totalTokens: 3547,
        cacheReadInputTokens: 3000,
        cacheWriteInputTokens: 500,
        cacheDetails: [{ ttl: "1h", inputTokens: 300 }, {
          ttl: "5m",
          inputTokens: 200,
        }],
      }),
      "bedrock",
    );
    assert.deepEqual(usage, {
      source: "bedrock-converse",
      diagnosis: { status: "none" },
      cacheReadTokens: 3000,
      cacheWriteTokens: 500,
      cacheWrites: { "1h": 300, "5m": 200 },
      inputTokens: 3540,
      outputTokens: 7,
    });
  });

  it("reads absent cache fields as none, and keeps what it cannot read", () => {
    const plain = readReportedUsage(
      response({ inputTokens: 10, outputTokens: 2, totalTokens: 12 }),
      "bedrock",
    );
    assert.equal(plain.inputTokens, 10);
    assert.equal(plain.cacheReadTokens, 0);
    assert.equal(plain.cacheWriteTokens, 0);
    assert.equal(plain.malformed, undefined);
    const broken = readReportedUsage(
      response({
        inputTokens: 10,
        outputTokens: 2,
        cacheReadInputTokens: "lots",
        cacheWriteInputTokens: 4,
        cacheDetails: [{ ttl: "2h", inputTokens: 4 }],
      }),
      "bedrock",
    );
    assert.equal(broken.cacheReadTokens, undefined);
    assert.equal(broken.inputTokens, undefined);
    assert.equal(broken.cacheWrites, undefined);
    assert.deepEqual(broken.malformed?.map((entry) => entry.field), [
      "usage.cacheReadInputTokens",
      "usage.cacheDetails[0]",
    ]);
    // A breakdown that does not add up to the writes is left out.
    const mismatch = readReportedUsage(
      response({
        inputTokens: 1,
        outputTokens: 1,
        cacheWriteInputTokens: 9,
        cacheDetails: [{ ttl: "5m", inputTokens: 4 }],
      }),
      "bedrock",
    );
    assert.equal(mismatch.cacheWrites, undefined);
    assert.deepEqual(readReportedUsage(null, "bedrock").malformed, [
      { field: "response", raw: null },
    ]);
  });
});

describe("readReportedUsage, Gemini", () => {
  it("reads the prompt (cached tokens included), the cached tokens and the output", () => {
    const usage = readReportedUsage({
      responseId: "resp-1",
      modelVersion: "gemini-3-flash",
      candidates: [{ content: { role: "model", parts: [{ text: "ok" }] } }],
      usageMetadata: {
        promptTokenCount: 5000,
        cachedContentTokenCount: 4200,
        candidatesTokenCount: 30,
        thoughtsTokenCount: 12,
        totalTokenCount: 5042,
      },
    }, "gemini");
    assert.deepEqual(usage, {
      source: "gemini",
      responseId: "resp-1",
      responseModel: "gemini-3-flash",
      diagnosis: { status: "none" },
      inputTokens: 5000,
      cacheReadTokens: 4200,
      cacheWriteTokens: 0,
      outputTokens: 42,
    });
  });

  it("reads an uncached response as 0 read, and keeps what it cannot read", () => {
    const plain = readReportedUsage({
      usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
    }, "gemini");
    assert.equal(plain.cacheReadTokens, 0);
    assert.equal(plain.outputTokens, 0);
    const broken = readReportedUsage({
      usageMetadata: { promptTokenCount: -1, cachedContentTokenCount: 1.5 },
    }, "gemini");
    assert.equal(broken.inputTokens, undefined);
    assert.equal(broken.cacheReadTokens, undefined);
    assert.deepEqual(broken.malformed?.map((entry) => entry.field), [
      "usageMetadata.promptTokenCount",
      "usageMetadata.cachedContentTokenCount",
    ]);
    assert.deepEqual(
      readReportedUsage({ candidates: [] }, "gemini").malformed,
      [{ field: "usageMetadata", raw: undefined }],
    );
  });
});
