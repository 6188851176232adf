// Deno-only: the Converse and Gemini conversations' bodies sent through
// the real SDK clients (BedrockRuntimeClient with static test credentials
// and the loopback server as its endpoint; @google/genai with the loopback
// server as its base URL, its ai.caches the conversation's) to servers that
// check them as the APIs do and answer with cache usage; the answers are
// recorded as the SDKs return them, and the reports read their usage.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { GoogleGenAI } from "@google/genai";
import {
  converseConversation,
  resumeConverseConversation,
} from "../../adapters/bedrock/mod.ts";
import { geminiConversation } from "../../adapters/gemini/mod.ts";
import {
  bedrockServer,
  geminiServer,
  withCacheServer,
} from "../adapters/loopback_caches.ts";
import { reviewRegistry } from "./helpers.ts";
import {
  AWS_SDK_PERMISSIONS,
  SDK_PERMISSIONS,
} from "../adapters/sdk_permissions.ts";

const MINIMUM = 256;
const countTokens = (text: string) => Math.ceil(text.length / 4);

describe("converseConversation through BedrockRuntimeClient", {
  skip: AWS_SDK_PERMISSIONS,
}, () => {
  it("writes the prefix once, reads it every step, and reports what Bedrock said", async () => {
    const prompt = reviewRegistry();
    await withCacheServer(() => bedrockServer(MINIMUM), async (url, server) => {
      const client = new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: url,
        credentials: { accessKeyId: "AKIDLOOPBACK", secretAccessKey: "x" },
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler(),
      });
      const conv = converseConversation(prompt, {
        modelId: "anthropic.claude-sonnet-4-5",
        maxTokens: 256,
      });
      conv.user("Review #42.");
      for (let step = 0; step < 4; step++) {
        // No cast: the body is ConverseCommand's input.
        const input: ConverseCommandInput = await conv.request(undefined, {
          awaiting: step === 3 ? "person" : "agent",
        });
        conv.record(await client.send(new ConverseCommand(input)));
        conv.user(`And #${43 + step}?`);
      }
      assert.deepEqual(server.rejections, []);
      const report = conv.report({ countTokens });
      const [first, ...rest] = report.requests;
      assert.equal(first.cacheReadTokens, 0);
      assert.ok(first.cacheWriteTokens! >= MINIMUM);
      for (const request of rest) {
        assert.ok(request.cacheReadTokens! >= first.cacheWriteTokens!);
      }
      // Each step writes only what it added: nothing is written twice.
      assert.ok(report.totals.rewriteFactor! <= 1.0001);
      // The last step waited for a person: every point of it lives an hour.
      const last = server.bodies.at(-1)!;
      assert.ok(!JSON.stringify(last).includes('"5m"'));
      assert.ok(JSON.stringify(last).includes('"ttl":"1h"'));
      // A resume is given the inputs not yet sent again.
      const again = resumeConverseConversation(prompt, conv.save());
      again.user("And #46?");
      again.user("And #47?");
      conv.user("And #47?");
      assert.deepEqual(await again.request(), await conv.request());
    });
    await prompt.dispose();
  });
});

describe("converseConversation through ConverseStreamCommand", {
  skip: AWS_SDK_PERMISSIONS,
}, () => {
  it("records the stream's events as the response they make", async () => {
    const prompt = reviewRegistry();
    await withCacheServer(() => bedrockServer(MINIMUM), async (url, server) => {
      const client = new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: url,
        credentials: { accessKeyId: "AKIDLOOPBACK", secretAccessKey: "x" },
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler(),
      });
      const conv = converseConversation(prompt, {
        modelId: "anthropic.claude-sonnet-4-5",
        clock: () => 0,
      });
      const plain = converseConversation(prompt, {
        modelId: "anthropic.claude-sonnet-4-5",
        session: conv.session,
        clock: () => 0,
      });
      for (const text of ["Review #42.", "And #43?"]) {
        conv.user(text);
        const response = await client.send(
          new ConverseStreamCommand(await conv.request()),
        );
        const events: ConverseStreamOutput[] = [];
        for await (const event of response.stream!) events.push(event);
        assert.deepEqual(conv.record(events), []);
        plain.user(text);
        await plain.request();
        plain.record({
          output: { message: { role: "assistant", content: [{ text: "ok" }] } },
          stopReason: "end_turn",
          usage: events.at(-1)!.metadata!.usage,
        });
      }
      assert.deepEqual(server.rejections, []);
      assert.match(server.paths[0], /\/converse-stream$/);
      assert.equal(conv.save(), plain.save());
      const [first, second] = conv.report({ countTokens }).requests;
      assert.ok(first.cacheWriteTokens! >= MINIMUM);
      assert.equal(second.cacheReadTokens, first.cacheWriteTokens);
    });
    await prompt.dispose();
  });
});

describe("geminiConversation through @google/genai", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("reads the prefix implicitly on the next steps", async () => {
    const prompt = reviewRegistry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      const conv = geminiConversation(prompt, { model: "gemini-3-flash" });
      conv.user("Review #42.");
      for (let step = 0; step < 3; step++) {
        conv.record(await ai.models.generateContent(await conv.request()));
        conv.user(`And #${43 + step}?`);
      }
      assert.deepEqual(server.rejections, []);
      const report = conv.report({ countTokens });
      assert.equal(report.requests[0].cacheReadTokens ?? 0, 0);
      // The second step reads all the first sent: tools, system, contents.
      assert.equal(
        report.requests[1].cacheReadTokens,
        report.requests[0].inputTokens,
      );
      assert.ok(!conv.save().includes("sdkHttpResponse"));
    });
    await prompt.dispose();
  });

  it("records generateContentStream's chunks as the response they make", async () => {
    const prompt = reviewRegistry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      const streamed = geminiConversation(prompt, {
        model: "gemini-3-flash",
        clock: () => 0,
      });
      const whole = geminiConversation(prompt, {
        model: "gemini-3-flash",
        session: streamed.session,
        clock: () => 0,
      });
      for (const text of ["Review #42.", "And #43?"]) {
        streamed.user(text);
        const chunks = [];
        const stream = await ai.models.generateContentStream(
          await streamed.request(),
        );
        for await (const chunk of stream) chunks.push(chunk);
        assert.equal(chunks.length, 2);
        streamed.record(chunks);
        whole.user(text);
        whole.record(await ai.models.generateContent(await whole.request()));
      }
      assert.deepEqual(server.rejections, []);
      // The same history as the whole responses'; the stream's usage read.
      assert.deepEqual(streamed.messages, whole.messages);
      assert.deepEqual(streamed.messages[1], {
        role: "model",
        parts: [{ text: "ok" }],
      });
      const [first, second] = streamed.report({ countTokens }).requests;
      assert.equal(first.cacheReadTokens, 0);
      assert.equal(second.cacheReadTokens, first.inputTokens);
      const recorded = streamed.save().split("\n")[1];
      assert.match(recorded, /"candidates":\[\{"content"/);
    });
    await prompt.dispose();
  });

  it("creates the explicit entry through ai.caches, names it, deletes it on dispose", async () => {
    const prompt = reviewRegistry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      let now = 0;
      const conv = geminiConversation(prompt, {
        model: "gemini-3-flash",
        clock: () => now,
        cachedContents: { caches: ai.caches, minTokens: MINIMUM },
      });
      conv.user("Review #42.");
      for (let step = 0; step < 3; step++) {
        conv.record(await ai.models.generateContent(await conv.request()));
        conv.user(`And #${43 + step}?`);
        now += 40 * 60_000;
      }
      assert.deepEqual(server.rejections, []);
      // Renewed at 40 minutes (less than half of the hour left) and at 80.
      assert.deepEqual(server.caches.calls, [
        "create cachedContents/1",
        "update cachedContents/1 3600s",
        "update cachedContents/1 3600s",
      ]);
      const report = conv.report({ countTokens });
      const held = report.cachedContents!.entries[0].tokens;
      for (const request of report.requests) {
        assert.ok(request.cacheReadTokens! >= held, "each step reads it");
      }
      await conv.dispose();
      assert.deepEqual(server.caches.calls.at(-1), "delete cachedContents/1");
      assert.equal(server.caches.entries.size, 0);
    });
    await prompt.dispose();
  });
});
