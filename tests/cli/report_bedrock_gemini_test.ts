/**
 * SPEC 10.5: `rxprompt report` and the inspector's chart read the Bedrock
 * Converse and Gemini conversations' recordings through the table of
 * forms: the form the header names, its rules, its usage fields.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { chartOfRecording } from "../../cli/inspect/chart.ts";
import { converseConversation } from "../../adapters/bedrock/mod.ts";
import { geminiConversation } from "../../adapters/gemini/mod.ts";
import { agent } from "../conversation/helpers.ts";

/** Two steps of `start`'s conversation, answered with `answer(read)`. */
async function recording(
  start: (prompt: ReturnType<typeof agent>["prompt"]) => {
    user(text: string): void;
    request(): Promise<unknown>;
    record(answer: never): unknown;
    save(): string;
  },
  answer: (read: number) => unknown,
): Promise<string> {
  const { prompt } = agent();
  const conv = start(prompt);
  for (const [index, text] of ["One.", "Two."].entries()) {
    conv.user(text);
    await conv.request();
    conv.record(answer(index * 30) as never);
  }
  await prompt.dispose();
  return conv.save();
}

async function reported(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "report-"));
  try {
    const file = join(dir, "conversation.jsonl");
    await writeFile(file, text);
    return await reportOfFile(file, {});
  } finally {
    await rm(dir, { recursive: true });
  }
}

describe("rxprompt report of Bedrock and Gemini recordings", () => {
  it("reads a Converse recording's cacheReadInputTokens and charts them", async () => {
    const text = await recording(
      (prompt) =>
        converseConversation(prompt, {
          modelId: "anthropic.claude-sonnet-4-5",
          clock: () => 0,
        }),
      (read) => ({
        output: { message: { role: "assistant", content: [{ text: "Ok." }] } },
        stopReason: "end_turn",
        usage: {
          inputTokens: 10,
          outputTokens: 1,
          totalTokens: 11 + read,
          cacheReadInputTokens: read,
          cacheWriteInputTokens: 5,
        },
      }),
    );
    const result = await reported(text);
    assert.equal(result.form, "bedrock-converse");
    assert.equal(result.provider, "bedrock");
    assert.deepEqual(
      result.report.requests.map((request) => request.cacheReadTokens),
      [0, 30],
    );
    assert.match(reportLines(result)[0], /2 requests/);
    const chart = chartOfRecording(result);
    assert.equal(chart.source.kind, "recording");
    assert.deepEqual(
      chart.requests.map((request) => request.cachedTokens),
      [0, 30],
    );
  });

  it("reads a Gemini recording's cachedContentTokenCount, an explicit entry's too", async () => {
    const caches = {
      create: () =>
        Promise.resolve({
          name: "cachedContents/1",
          usageMetadata: { totalTokenCount: 40 },
        }),
      update: () => Promise.resolve({}),
      delete: () => Promise.resolve({}),
    };
    const text = await recording(
      (prompt) =>
        geminiConversation(prompt, {
          model: "gemini-3-flash",
          clock: () => 0,
          cachedContents: { caches, minTokens: 20 },
        }),
      (read) => ({
        candidates: [{ content: { role: "model", parts: [{ text: "Ok." }] } }],
        usageMetadata: {
          promptTokenCount: 100,
          cachedContentTokenCount: 40 + read,
          candidatesTokenCount: 1,
        },
      }),
    );
    assert.match(text, /"cachedContent":"cachedContents\/1"/);
    const result = await reported(text);
    assert.equal(result.form, "gemini");
    assert.equal(result.provider, "gemini");
    assert.deepEqual(
      result.report.requests.map((request) => request.cacheReadTokens),
      [40, 70],
    );
    assert.deepEqual(
      chartOfRecording(result).requests.map((request) => request.cachedTokens),
      [40, 70],
    );
  });
});
