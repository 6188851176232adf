/**
 * Issue 44, item 2, in process: a fork's first request reads what the
 * bytes it shares with its parent are worth, on Anthropic (tools rebuilt or
 * changed inline), Chat Completions and Responses (explicit breakpoints or
 * automatic caching), each answer carrying the usage the provider's prefix
 * rules give the bodies sent so far. `fork_share_sdk_test.ts` sends the
 * same through the real SDK clients, the AI SDK's included.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  answerOf,
  ANTHROPIC,
  ANTHROPIC_INLINE,
  CHILD_ADDS,
  countTokens,
  OPENAI_FORMS,
  playFork,
  sharedWorth,
  shareRegistry,
} from "./fork_share.ts";

for (const form of [ANTHROPIC, ANTHROPIC_INLINE, ...OPENAI_FORMS]) {
  describe(`a fork's first read on ${form.name}`, () => {
    for (
      const [adds, cut] of CHILD_ADDS.flatMap((adds) => [
        [adds, false] as const,
        [adds, true] as const,
      ])
    ) {
      it(
        `reads its parent's shared prefix when its scope adds a ${
          adds === "both" ? "tool and a section" : adds
        } (the parent's system in ${cut ? "cut blocks" : "one block"})`,
        async () => {
          const prompt = shareRegistry(adds, { cut });
          try {
            const bodies: unknown[] = [];
            const child = await playFork(form, prompt, (body) => {
              bodies.push(body);
              return Promise.resolve(answerOf(form, bodies));
            });
            const worth = sharedWorth(bodies[1], form, adds);
            assert.ok(worth >= 1024, `the scenario shares ${worth} tokens`);
            const read = child.report({ countTokens }).requests[0]
              .cacheReadTokens;
            assert.equal(read, worth);
          } finally {
            await prompt.dispose();
          }
        },
      );
    }
  });
}
