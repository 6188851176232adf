// Deno-only: Gemini's explicit cache entry across a crash and a resume,
// through the real @google/genai client (its ai.caches the conversation's)
// against the loopback server, which refuses an entry it does not hold.
// A request built and never recorded leaves the recorded entry usable; a
// resumed conversation knows when each replaced entry was deleted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { GoogleGenAI } from "@google/genai";
import {
  geminiConversation,
  resumeGeminiConversation,
} from "../../adapters/gemini/mod.ts";
import { geminiServer, withCacheServer } from "../adapters/loopback_caches.ts";
import { reviewRegistry } from "./helpers.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";

const MINIMUM = 256;
const MINUTE = 60_000;
const MODEL = "gemini-3-flash";
const countTokens = (text: string) => Math.ceil(text.length / 4);

/** The review registry with a section the test changes (the prefix). */
function registry() {
  const prompt = reviewRegistry();
  const state = { branch: "main" };
  prompt.section({
    name: "git",
    order: 20,
    text: () => `On branch ${state.branch}.`,
  });
  return { prompt, state };
}

describe("geminiConversation's cachedContents across a crash and a resume", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a request built, never recorded, then resumed: the resumed request is served", async () => {
    const { prompt, state } = registry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      const options = {
        model: MODEL,
        clock: () => 0,
        cachedContents: { caches: ai.caches, minTokens: MINIMUM },
      };
      const conv = geminiConversation(prompt, options);
      conv.user("Review #42.");
      conv.record(await ai.models.generateContent(await conv.request()));
      state.branch = "fix/x";
      conv.user("And #43?");
      // Built (the prefix changed: a new entry), then the process dies.
      await conv.request();
      const saved = conv.save();
      const resumed = resumeGeminiConversation(prompt, saved, {
        cachedContents: { caches: ai.caches },
        clock: () => MINUTE,
      });
      resumed.user("And #43?");
      const body = await resumed.request();
      resumed.record(await ai.models.generateContent(body));
      assert.deepEqual(server.rejections, []);
      assert.equal(body.config.cachedContent, "cachedContents/3");
      await resumed.dispose();
      // The recorded entry lived until the step that replaced it was
      // recorded; the dead process's entry is nobody's (it expires).
      assert.deepEqual(server.caches.calls, [
        "create cachedContents/1",
        "create cachedContents/2",
        "create cachedContents/3",
        "delete cachedContents/1",
        "delete cachedContents/3",
      ]);
      assert.deepEqual([...server.caches.entries.keys()], [
        "cachedContents/2",
      ]);
    });
    await prompt.dispose();
  });

  it("an entry replaced before the save: the resumed report and dispose() are the unresumed ones'", async () => {
    /** Four steps, the prefix changed at the second; resumed at the third. */
    const session = (resume: boolean) => {
      const { prompt, state } = registry();
      return withCacheServer(
        () => geminiServer(MINIMUM),
        async (url, server) => {
          const ai = new GoogleGenAI({
            apiKey: "loopback",
            httpOptions: { baseUrl: url },
          });
          let now = 0;
          const clock = () => now;
          let conv = geminiConversation(prompt, {
            model: MODEL,
            clock,
            cachedContents: { caches: ai.caches, minTokens: MINIMUM },
          });
          for (let step = 0; step < 4; step++) {
            if (step === 1) state.branch = "fix/x";
            if (step === 2 && resume) {
              conv = resumeGeminiConversation(prompt, conv.save(), {
                cachedContents: { caches: ai.caches },
                clock,
              });
            }
            conv.user(`Review #${42 + step}.`);
            conv.record(await ai.models.generateContent(await conv.request()));
            now += 5 * MINUTE;
          }
          assert.deepEqual(server.rejections, []);
          await conv.dispose();
          const { cachedContents, storage } = conv.report({ countTokens });
          await prompt.dispose();
          return { cachedContents, storage, calls: server.caches.calls };
        },
      );
    };
    const resumed = await session(true);
    const straight = await session(false);
    assert.deepEqual(resumed, straight);
    // Entry 1 from 0 to the second step (5 minutes), entry 2 from then
    // until dispose() at 20 minutes.
    const entries = resumed.cachedContents!.entries;
    assert.deepEqual(
      entries.map(({ name, createdAt, deletedAt }) => [
        name,
        createdAt / MINUTE,
        deletedAt === undefined ? undefined : deletedAt / MINUTE,
      ]),
      [["cachedContents/1", 0, 5], ["cachedContents/2", 5, 20]],
    );
    assert.deepEqual(resumed.calls, [
      "create cachedContents/1",
      "create cachedContents/2",
      "delete cachedContents/1",
      "delete cachedContents/2",
    ]);
  });
});
