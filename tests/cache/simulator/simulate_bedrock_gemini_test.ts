/**
 * The Bedrock and Gemini rules of `simulateCache` (SPEC 10.5), one
 * hand-made case each: tokens are characters (`count`), so the expected
 * figures can be read off the bodies.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  bestLayoutTokens,
  type CacheRequest,
  simulateCache,
} from "../../../adapters/cache/mod.ts";
import { SystemPromptError } from "../../../mod.ts";

const count = (text: string): number => text.length;
const point = { cachePoint: { type: "default" } };
const hourPoint = { cachePoint: { type: "default", ttl: "1h" } };

function text(length: number, fill = "a"): string {
  return fill.repeat(length);
}

function simulate(
  provider: "bedrock" | "gemini" | "anthropic" | "openai",
  requests: CacheRequest[],
  minPrefixTokens?: number,
) {
  return simulateCache(requests, {
    provider,
    countTokens: count,
    minPrefixTokens,
  });
}

function converse(system: unknown[], question = "hello") {
  return {
    modelId: "anthropic.claude-sonnet-4-5",
    system,
    messages: [{ role: "user", content: [{ text: question }] }],
  };
}

function invalid(pattern: RegExp): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof SystemPromptError);
    assert.equal(error.code, "INVALID_CONFIG");
    assert.match(error.message, pattern);
    return true;
  };
}

describe("simulateCache, Bedrock rules", () => {
  it("serves the prefix through a cachePoint, written at 1.25 and read at 0.1", () => {
    const tool = {
      toolSpec: { name: "read", inputSchema: { json: { type: "object" } } },
    };
    const body = {
      ...converse([{ text: text(1100) }, point]),
      toolConfig: { tools: [tool] },
    };
    const { requests } = simulate("bedrock", [{ body }, {
      body: { ...body, messages: converse([], "other").messages },
    }]);
    const through = JSON.stringify(tool).length + 1100;
    assert.equal(requests[0].writtenTokens, through);
    assert.equal(requests[0].cost, through * 1.25 + 5);
    assert.equal(requests[1].cachedTokens, through);
    assert.equal(requests[1].firstMiss?.block, "message:0.0");
  });

  it("needs the minimum in each checkpoint since the previous one", () => {
    // Anthropic counts the whole prefix; Bedrock each checkpoint's span.
    const system = [{ text: text(1500) }, point, { text: text(500) }, point];
    const body = converse(system);
    const bedrock = simulate("bedrock", [{ body }, { body }]);
    assert.equal(bedrock.requests[0].writtenTokens, 1500);
    assert.equal(bedrock.requests[1].cachedTokens, 1500);
    const anthropic = simulate("anthropic", [{
      body: {
        system: [
          {
            type: "text",
            text: text(1500),
            cache_control: { type: "ephemeral" },
          },
          {
            type: "text",
            text: text(500),
            cache_control: { type: "ephemeral" },
          },
        ],
        messages: [{ role: "user", content: "hello" }],
      },
    }]);
    assert.equal(anthropic.requests[0].writtenTokens, 2000);
    const short = simulate("bedrock", [{
      body: converse([{ text: text(600) }, point, { text: text(600) }, point]),
    }, {
      body: converse([{ text: text(600) }, point, { text: text(600) }, point]),
    }]);
    // The second checkpoint holds 1200 since the start: none was written before it.
    assert.equal(short.requests[1].cachedTokens, 1200);
  });

  it("reads a written prefix up to 20 blocks before a cachePoint", () => {
    const turns = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: [{ text: `turn ${i}${text(600, " ")}` }],
      }));
    const first = { ...converse([{ text: text(1100) }, point]) };
    const later = (n: number) => ({
      ...first,
      messages: [
        ...turns(n).slice(0, -1),
        { ...turns(n).at(-1)!, content: [...turns(n).at(-1)!.content, point] },
      ],
    });
    const near = simulate("bedrock", [{ body: later(2) }, { body: later(22) }]);
    const far = simulate("bedrock", [{ body: later(2) }, { body: later(24) }]);
    // Each checkpoint holds over 1024 since the one before it.
    const through2 = 1100 + 2 * ("turn 0".length + 600);
    assert.equal(near.requests[1].cachedTokens, through2);
    // Past the lookback, only the system's cache point still reads.
    assert.equal(far.requests[1].cachedTokens, 1100);
  });

  it("refuses what Bedrock refuses: five cache points, a longer ttl later", () => {
    const five = converse([
      { text: "a" },
      point,
      { text: "b" },
      point,
      { text: "c" },
      point,
      { text: "d" },
      point,
      { text: "e" },
      point,
    ]);
    assert.throws(
      () => simulate("bedrock", [{ body: five }]),
      invalid(/request 0: A maximum of 4 blocks with cachePoint.*Found 5/),
    );
    const increasing = converse([
      { text: "a" },
      point,
      { text: "b" },
      hourPoint,
    ]);
    assert.throws(
      () => simulate("bedrock", [{ body: increasing }]),
      invalid(/cachePoint with ttl "1h" \(system:2\).*toolConfig, then system/),
    );
    assert.throws(
      () => simulate("bedrock", [{ body: converse([point, { text: "a" }]) }]),
      invalid(/system\[0\] is a cachePoint with no block before it/),
    );
    assert.throws(
      () =>
        simulate("bedrock", [{
          body: converse([{ text: "a" }, {
            cachePoint: { type: "default", ttl: "2h" },
          }]),
        }]),
      invalid(/system\[1\]\.cachePoint\.ttl is "2h"/),
    );
  });

  it("says why nothing is cached", () => {
    const { requests } = simulate("bedrock", [
      { body: converse([{ text: text(2000) }]) },
      { body: converse([{ text: text(2000) }]) },
    ]);
    assert.equal(requests[1].cachedTokens, 0);
    assert.match(requests[1].firstMiss!.reason, /no cachePoint marker/);
  });
});

describe("simulateCache, Gemini rules", () => {
  const sdkBody = (system: string, question: string) => ({
    model: "gemini-3-flash",
    contents: [{ role: "user", parts: [{ text: question }] }],
    config: { systemInstruction: { parts: [{ text: system }] } },
  });

  it("serves the common prefix over 4,096 tokens, unrounded", () => {
    const system = text(4100);
    const { requests } = simulate("gemini", [
      { body: sdkBody(system, "one") },
      { body: sdkBody(system, "two") },
    ]);
    assert.equal(requests[0].cachedTokens, 0);
    assert.equal(requests[0].writtenTokens, 0);
    // OpenAI's rule rounds the same prefix down to 4096.
    assert.equal(requests[1].cachedTokens, 4100);
    assert.equal(requests[1].cost, 4100 * 0.1 + 3);
  });

  it("serves nothing under the minimum, and says so", () => {
    const system = text(3000);
    const { requests } = simulate("gemini", [
      { body: sdkBody(system, "one") },
      { body: sdkBody(system, "two") },
    ]);
    assert.equal(requests[1].cachedTokens, 0);
    assert.match(requests[1].firstMiss!.reason, /under the minimum of 4096/);
    const lower = simulate("gemini", [
      { body: sdkBody(system, "one") },
      { body: sdkBody(system, "two") },
    ], 1024);
    assert.equal(lower.requests[1].cachedTokens, 3000);
  });

  it("reads the REST shape as the SDK's, tools before the system", () => {
    const declaration = {
      name: "read",
      parametersJsonSchema: { type: "object" },
    };
    const sdk = {
      ...sdkBody(text(5000), "one"),
      config: {
        systemInstruction: { parts: [{ text: text(5000) }] },
        tools: [{ functionDeclarations: [declaration] }],
      },
    };
    const rest = {
      contents: sdk.contents,
      systemInstruction: sdk.config.systemInstruction,
      tools: sdk.config.tools,
    };
    const a = simulate("gemini", [{ body: sdk }, { body: sdk }]);
    const b = simulate("gemini", [{ body: rest }, { body: rest }]);
    assert.deepEqual(a.requests, b.requests);
    const changedTool = {
      ...sdk,
      config: {
        ...sdk.config,
        tools: [{ functionDeclarations: [{ ...declaration, name: "load" }] }],
      },
    };
    const changed = simulate("gemini", [{ body: sdk }, { body: changedTool }]);
    assert.equal(changed.requests[1].cachedTokens, 0);
    assert.equal(changed.requests[1].firstMiss?.block, "tool:load");
  });

  it("counts Converse and Gemini bodies in the bound", () => {
    const bound = bestLayoutTokens([
      { body: converse([{ text: "Rules.\n\n" }, point], "Hi.") },
      { body: sdkBody("Rules.\n\n", "Hi.") },
    ], count);
    assert.equal(bound.requests[0].inputTokens, "Rules.\n\n".length + 3);
    assert.equal(bound.requests[1].inputTokens, "Rules.\n\n".length + 3);
    assert.equal(bound.requests[1].promptBoundTokens, "Rules.\n\n".length);
  });
});
