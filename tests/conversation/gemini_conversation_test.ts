/**
 * SPEC 10.5: the Gemini conversation. Its bodies are `generateContent`'s
 * (no marks: implicit caching), function calls without ids are named by
 * their place, and the explicit `cachedContents` entry lives as the
 * option says: created once the prefix reaches the minimum, named while it
 * lives, renewed when less than half is left, recreated after a pause
 * longer than its lifetime, replaced when the prefix changes, deleted by
 * `dispose()`, its storage counted in the report, its name kept across a
 * resume.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  type GeminiCaches,
  geminiConversation,
  resumeGeminiConversation,
} from "../../adapters/gemini/mod.ts";
import { rejects } from "../assertions.ts";
import { agent } from "./helpers.ts";

const MODEL = "gemini-3-flash";
const MINUTE = 60_000;

function answer(parts: Record<string, unknown>[]) {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }],
    usageMetadata: {
      promptTokenCount: 100,
      cachedContentTokenCount: 60,
      candidatesTokenCount: 2,
    },
    responseId: "r-1",
    sdkHttpResponse: { headers: { "x-secret": "kept out" } },
  };
}

/** `ai.caches` as a log of its calls, each entry named by a counter. */
function fakeCaches(): { caches: GeminiCaches; calls: string[] } {
  const calls: string[] = [];
  let made = 0;
  return {
    calls,
    caches: {
      create: (params) => {
        calls.push(`create ${Object.keys(params.config).join(",")}`);
        return Promise.resolve({
          name: `cachedContents/${++made}`,
          usageMetadata: { totalTokenCount: 1000 },
        });
      },
      update: (params) => {
        calls.push(`update ${params.name} ${params.config.ttl}`);
        return Promise.resolve({});
      },
      delete: (params) => {
        calls.push(`delete ${params.name}`);
        return Promise.resolve({});
      },
    },
  };
}

/** A tool the registry gains mid-conversation (a changed prefix). */
const GREP = {
  name: "grep",
  description: "Search.",
  parameters: { type: "object" },
};
describe("geminiConversation", () => {
  it("builds generateContent's body; calls without ids are named by place", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = geminiConversation(a.prompt, {
      model: MODEL,
      maxOutputTokens: 256,
    });
    conv.user("Read a.ts.");
    const first = await conv.request();
    assert.equal(first.model, MODEL);
    assert.equal(first.config.maxOutputTokens, 256);
    assert.equal(first.config.tools?.[0].functionDeclarations.length, 2);
    assert.deepEqual(first.config.toolConfig?.functionCallingConfig, {
      mode: "VALIDATED",
      allowedFunctionNames: ["read_file"],
    });
    assert.equal(first.contents.length, 1);
    assert.ok(!JSON.stringify(first).includes("cache"));
    const calls = conv.record(answer([
      { text: "Thinking.", thought: true, thoughtSignature: "c2ln" },
      { functionCall: { name: "read_file", args: { p: 1 } } },
      { functionCall: { id: "own", name: "read_file", args: { p: 2 } } },
      { functionCall: { name: "shell", args: {} } },
    ]));
    // The gated tool's call is refused by the conversation itself.
    assert.deepEqual(calls.map((call) => call.id), ["read_file#0", "own"]);
    conv.toolResult("read_file#0", "export {};");
    conv.toolResult("own", { lines: 2 }, { isError: true });
    const second = await conv.request();
    assert.deepEqual(second.contents[1].parts[0], {
      text: "Thinking.",
      thought: true,
      thoughtSignature: "c2ln",
    });
    const responses = second.contents[2].parts.map((part) =>
      part.functionResponse
    );
    assert.deepEqual(responses[0], {
      name: "read_file",
      response: { output: "export {};" },
    });
    assert.deepEqual(responses[1], {
      id: "own",
      name: "read_file",
      response: { lines: 2 },
    });
    assert.equal(responses[2]?.name, "shell");
    assert.match(String(responses[2]?.response?.error), /not active/);
    assert.ok(!conv.save().includes("x-secret"));
    const report = conv.report({ countTokens: (text) => text.length });
    assert.equal(report.requests[0].cacheReadTokens, 60);
    assert.equal(report.cachedContents, undefined);
    await a.prompt.dispose();
  });

  it("creates, names, renews, replaces and deletes the explicit cache entry", async () => {
    const a = agent();
    const { caches, calls } = fakeCaches();
    let now = 0;
    const options = {
      model: MODEL,
      clock: () => now,
      cachedContents: { caches, minTokens: 60, ttlSeconds: 600 },
    };
    const conv = geminiConversation(a.prompt, options);
    conv.user("Hi.");
    const first = await conv.request();
    assert.deepEqual(calls, ["create systemInstruction,tools,ttl"]);
    assert.deepEqual(first.config, { cachedContent: "cachedContents/1" });
    conv.record(answer([{ text: "Hello." }]));
    // Less than half the lifetime left: renewed before it is named.
    now += 6 * MINUTE;
    conv.user("And?");
    await conv.request();
    assert.deepEqual(calls.slice(1), ["update cachedContents/1 600s"]);
    conv.record(answer([{ text: "More." }]));
    // A pause past its expiry: a new entry.
    now += 30 * MINUTE;
    conv.user("Back.");
    const back = await conv.request();
    assert.equal(back.config.cachedContent, "cachedContents/2");
    conv.record(answer([{ text: "Welcome back." }]));
    // A new tool changes the prefix: a new entry, the old one deleted once
    // the step naming the new one is recorded.
    a.tools = [...a.tools, GREP];
    now += MINUTE;
    conv.user("Search.");
    const changed = await conv.request();
    assert.equal(changed.config.cachedContent, "cachedContents/3");
    assert.deepEqual(calls.slice(2), [
      "create systemInstruction,tools,ttl",
      "create systemInstruction,tools,ttl",
    ]);
    conv.record(answer([{ text: "Found." }]));
    conv.user("Next.");
    now += MINUTE;
    const next = await conv.request();
    assert.deepEqual(calls.slice(4), ["delete cachedContents/2"]);
    // A resume names the same entry, given ai.caches again.
    const again = resumeGeminiConversation(a.prompt, conv.save(), {
      cachedContents: { caches },
      clock: () => now,
    });
    again.user("Next.");
    assert.deepEqual(await again.request(), next);
    const resumedWithout = resumeGeminiConversation(a.prompt, conv.save(), {
      clock: () => now + 60 * MINUTE,
    });
    resumedWithout.user("Next.");
    await assert.rejects(
      resumedWithout.request(),
      rejects("INVALID_CONFIG", "ai.caches"),
    );
    const report = conv.report({ countTokens: (text) => text.length });
    const entries = report.cachedContents!.entries;
    assert.deepEqual(entries.map((entry) => entry.name), [
      "cachedContents/1",
      "cachedContents/2",
      "cachedContents/3",
    ]);
    // 1: 0 → 16 min (renewed at 6); 2: 36 → 37 (deleted); 3: 37 → 47.
    assert.deepEqual(
      entries.map(({ createdAt, expiresAt, deletedAt }) => [
        createdAt / MINUTE,
        expiresAt / MINUTE,
        deletedAt === undefined ? undefined : deletedAt / MINUTE,
      ]),
      [[0, 16, undefined], [36, 46, 37], [37, 47, undefined]],
    );
    assert.equal(report.cachedContents!.writtenTokens, 3000);
    const hours = (16 + 1 + 10) / 60;
    assert.ok(
      Math.abs(report.cachedContents!.tokenHours - 1000 * hours) < 1e-9,
    );
    assert.ok(
      Math.abs(report.cachedContents!.storageCost - 2000 * hours) < 1e-9,
    );
    // Entry 1 expired at 16 minutes (Gemini removed it): only 3 is live.
    await conv.dispose();
    assert.deepEqual(calls.slice(4), [
      "delete cachedContents/2",
      "delete cachedContents/3",
    ]);
    await a.prompt.dispose();
  });

  it("keeps a replaced entry until its step is recorded; a failed deletion is thrown once, tried again by dispose()", async () => {
    const a = agent();
    const { caches, calls } = fakeCaches();
    let refuse = false;
    const refusing: GeminiCaches = {
      ...caches,
      delete: (params) =>
        refuse
          ? Promise.reject(new Error(`unavailable: ${params.name}`))
          : caches.delete(params),
    };
    let now = 0;
    const conv = geminiConversation(a.prompt, {
      model: MODEL,
      clock: () => now,
      cachedContents: { caches: refusing, minTokens: 60 },
    });
    conv.user("Hi.");
    await conv.request();
    conv.record(answer([{ text: "Hello." }]));
    a.tools = [...a.tools, GREP];
    now += MINUTE;
    conv.user("Search.");
    await conv.request();
    // Built again before an answer (a retry): the entry the first made.
    const again = await conv.request();
    assert.equal(again.config.cachedContent, "cachedContents/2");
    assert.deepEqual(calls.slice(1), ["create systemInstruction,tools,ttl"]);
    refuse = true;
    conv.record(answer([{ text: "Found." }]));
    conv.user("Next.");
    await assert.rejects(conv.request(), /unavailable: cachedContents\/1/);
    const [first] = conv.report({ countTokens: (text) => text.length })
      .cachedContents!.entries;
    assert.equal(first.deletedAt, undefined);
    refuse = false;
    assert.equal(
      (await conv.request()).config.cachedContent,
      "cachedContents/2",
    );
    await conv.dispose();
    assert.deepEqual(calls.slice(2), [
      "delete cachedContents/1",
      "delete cachedContents/2",
    ]);
    await a.prompt.dispose();
  });

  it("records a stream's chunks as one turn: texts joined, signatures kept", async () => {
    const prompt = new SystemPrompt();
    const conv = geminiConversation(prompt, { model: MODEL });
    conv.user("Hi.");
    await conv.request();
    const chunk = (parts: Record<string, unknown>[], usage?: object) => ({
      candidates: [{ content: { role: "model", parts } }],
      ...(usage === undefined ? {} : { usageMetadata: usage }),
    });
    const calls = conv.record([
      chunk([{ text: "Let me ", thought: true }]),
      chunk([{ text: "think.", thought: true, thoughtSignature: "c2ln" }]),
      chunk([{ text: "Reading " }]),
      chunk([{ text: "it." }, { functionCall: { name: "read", args: {} } }]),
      chunk([], { promptTokenCount: 9, cachedContentTokenCount: 4 }),
    ]);
    assert.deepEqual(calls, [{ id: "read#0", name: "read", input: {} }]);
    assert.deepEqual(conv.messages[1], {
      role: "model",
      parts: [
        { text: "Let me think.", thought: true, thoughtSignature: "c2ln" },
        { text: "Reading it." },
        { functionCall: { name: "read", args: {} } },
      ],
    });
    const report = conv.report({ countTokens: (text) => text.length });
    assert.equal(report.requests[0].cacheReadTokens, 4);
    await prompt.dispose();
  });

  it("sends the prefix itself while it is below the minimum", async () => {
    const { caches, calls } = fakeCaches();
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const conv = geminiConversation(prompt, {
      model: MODEL,
      cachedContents: { caches },
    });
    conv.user("Hi.");
    const body = await conv.request();
    assert.deepEqual(calls, []);
    assert.ok(body.config.systemInstruction !== undefined);
    await conv.dispose();
    assert.deepEqual(calls, []);
    await prompt.dispose();
  });

  it("refuses what Gemini would, with codes", async () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () => geminiConversation(prompt, { model: "" }),
      rejects("INVALID_CONFIG", "model"),
    );
    assert.throws(
      () =>
        geminiConversation(prompt, {
          model: MODEL,
          cachedContents: { ttlSeconds: -1 },
        }),
      rejects("INVALID_CONFIG", "ttlSeconds"),
    );
    assert.throws(
      () =>
        geminiConversation(prompt, {
          model: MODEL,
          cachedContents: { caches: {} as never },
        }),
      rejects("INVALID_CONFIG", "ai.caches"),
    );
    const conv = geminiConversation(prompt, { model: MODEL });
    assert.throws(
      () => conv.user([{ functionResponse: { name: "x" } }]),
      rejects("INVALID_CONVERSATION_INPUT", "toolResult"),
    );
    conv.user("Hi.");
    await conv.request();
    assert.throws(
      () => conv.record({ choices: [] } as never),
      rejects("RESPONSE_OF_OTHER_PROVIDER", "a Gemini"),
    );
    assert.throws(
      () => conv.record({ candidates: [{}] }),
      rejects("INVALID_RESPONSE", "GenerateContentResponse"),
    );
    await prompt.dispose();
  });
});
