/**
 * SPEC 10.5: what a Gemini conversation's explicit cache entries cost to
 * store, in `report()` (the ledger: each entry until replaced or deleted)
 * and in `rxprompt report` (the recording: each entry until replaced, the
 * last until it expires).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { SystemPrompt } from "../../mod.ts";
import {
  type GeminiCaches,
  geminiConversation,
} from "../../adapters/gemini/mod.ts";

const MINUTE = 60_000;
const countTokens = (text: string) => Math.ceil(text.length / 4);

/** `ai.caches` that names each entry it creates in turn, 40 tokens each. */
function fakeCaches(calls: string[]): GeminiCaches {
  let made = 0;
  return {
    create: () => {
      const name = `cachedContents/${++made}`;
      calls.push(`create ${name}`);
      return Promise.resolve({ name, usageMetadata: { totalTokenCount: 40 } });
    },
    update: ({ name }) => {
      calls.push(`update ${name}`);
      return Promise.resolve({});
    },
    delete: ({ name }) => {
      calls.push(`delete ${name}`);
      return Promise.resolve({});
    },
  };
}

const ANSWER = {
  candidates: [{ content: { role: "model", parts: [{ text: "Ok." }] } }],
  usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 40 },
};

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

describe("the storage of Gemini's explicit cache entries", () => {
  it("report() counts each entry until replaced or deleted; rxprompt report until replaced or expired", async () => {
    const prompt = new SystemPrompt({ persona: "You review pull requests." });
    prompt.section({
      name: "rules",
      order: 10,
      text: "House rule. ".repeat(20),
    });
    const calls: string[] = [];
    let now = 0;
    const conv = geminiConversation(prompt, {
      model: "gemini-3-flash",
      clock: () => now,
      cachedContents: { caches: fakeCaches(calls), minTokens: 20 },
    });
    // 0: created; 40 min: renewed (less than half the hour left); 50 min:
    // the system prompt changed, so the entry is replaced.
    for (const at of [0, 40, 50]) {
      now = at * MINUTE;
      if (at === 50) {
        prompt.section({ name: "review", order: 20, text: "Be thorough." });
      }
      conv.user(`At ${at}.`);
      await conv.request();
      conv.record(ANSWER);
    }
    now = 60 * MINUTE;
    await conv.dispose();
    await prompt.dispose();
    assert.deepEqual(calls, [
      "create cachedContents/1",
      "update cachedContents/1",
      "create cachedContents/2",
      "delete cachedContents/1",
      "delete cachedContents/2",
    ]);

    // The ledger: the first 50 minutes, the second 10 (deleted at 60).
    const live = conv.report({ countTokens });
    assert.deepEqual(live.storage, {
      entries: 2,
      writtenTokens: 80,
      tokenHours: 40 * 50 / 60 + 40 * 10 / 60,
      storageCost: 2 * (40 * 50 / 60 + 40 * 10 / 60),
    });
    assert.equal(live.cachedContents?.tokenHours, live.storage?.tokenHours);

    // The recording: the second entry until it expires (an hour).
    const result = await reported(conv.save());
    assert.equal(result.form, "gemini");
    assert.deepEqual(result.report.storage, {
      entries: 2,
      writtenTokens: 80,
      tokenHours: 40 * 50 / 60 + 40,
      storageCost: 2 * (40 * 50 / 60 + 40),
    });
    const line = reportLines(result).find((text) =>
      text.startsWith("Stored cache entries:")
    );
    assert.equal(
      line,
      "Stored cache entries: 2, 80 tokens written, 73.33 token-hours " +
        "stored, storage cost 146.67 input-token units (each entry until " +
        "replaced or expired).",
    );
  });

  it("a conversation without an explicit entry reports no storage", async () => {
    const prompt = new SystemPrompt({ persona: "You review pull requests." });
    const conv = geminiConversation(prompt, { model: "gemini-3-flash" });
    conv.user("Review #42.");
    await conv.request();
    conv.record(ANSWER);
    await prompt.dispose();
    assert.equal(conv.report({ countTokens }).storage, undefined);
    const result = await reported(conv.save());
    assert.equal(result.report.storage, undefined);
    assert.ok(
      !reportLines(result).some((text) => text.startsWith("Stored cache")),
    );
  });
});
