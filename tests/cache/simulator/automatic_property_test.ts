/**
 * SPEC 8.8, OpenAI's automatic cache, against its plain statement: every
 * request writes every prefix of it, an entry lives its lifetime from its
 * last use (the longer of two while it is alive), and a request is served
 * its longest live prefix, rounded down to 128 tokens, nothing under the
 * minimum. The simulator writes only where a request leaves the one
 * before (issue 49); over random sessions that grow, fall back to an
 * earlier point, branch and come back, pause past the lifetime and switch
 * to the 24-hour retention and back, it must serve what the statement
 * serves.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { simulateCache } from "../../../adapters/cache/mod.ts";
import { OPENAI_RULES } from "../../../adapters/openai/rules.ts";
import { fuzzRuns } from "../../fuzz_runs.ts";

const MINIMUM = 256;
const count = (text: string): number => text.length;

/** Texts that differ from the first character (no partial matches). */
const TEXTS = ["a", "b", "c", "d", "e", "f"].map((first, index) =>
  first + "x".repeat(60 + 97 * index)
);

type Move =
  | { kind: "append"; text: number }
  | { kind: "back"; blocks: number }
  | { kind: "branch" }
  | { kind: "retention" };

const moveArbitrary: fc.Arbitrary<{ move: Move; gap: number }> = fc.record({
  move: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("append" as const),
        text: fc.nat(TEXTS.length - 1),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("back" as const),
        blocks: fc.integer({ min: 1, max: 4 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("branch" as const) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("retention" as const) }),
    },
  ),
  gap: fc.constantFrom(1_000, 30_000, 200_000, 400_000, 3_600_000),
});

/** The session's bodies: two branches of messages, one sent at a time. */
function session(moves: readonly { move: Move; gap: number }[]) {
  const branches: number[][] = [[], []];
  let branch = 0;
  let retention = false;
  let time = 0;
  return moves.map(({ move, gap }) => {
    const messages = branches[branch];
    if (move.kind === "append") messages.push(move.text);
    if (move.kind === "back") messages.splice(-move.blocks);
    if (move.kind === "branch") branch = 1 - branch;
    if (move.kind === "retention") retention = !retention;
    time += gap;
    return {
      time,
      body: {
        model: "gpt-5.6",
        tools: [{ type: "function", function: { name: "shell" } }],
        ...(retention ? { prompt_cache_retention: "24h" } : {}),
        messages: branches[branch].map((text, at) => ({
          role: at % 2 === 0 ? "user" : "assistant",
          content: TEXTS[text],
        })),
      },
    };
  });
}

/** What the plain statement serves each request. */
function served(requests: ReturnType<typeof session>): number[] {
  const entries = new Map<string, { expires: number; ttl: number }>();
  return requests.map(({ body, time }) => {
    const { blocks } = OPENAI_RULES.readBody(body);
    const ttl = body.prompt_cache_retention === "24h"
      ? 24 * 3_600_000
      : 5 * 60_000;
    const paths: string[] = [];
    let path = "";
    for (const block of blocks) paths.push(path += `${block.key}\u0001`);
    let matched = 0;
    let tokens = 0;
    blocks.forEach((block, at) => {
      tokens += count(block.text);
      const entry = entries.get(paths[at]);
      if (
        entry !== undefined && entry.expires > time &&
        matched === tokens - count(block.text)
      ) {
        matched = tokens;
      }
    });
    for (const path of paths) {
      const entry = entries.get(path);
      const alive = entry !== undefined && entry.expires > time;
      const longest = alive ? Math.max(entry.ttl, ttl) : ttl;
      entries.set(path, { expires: time + longest, ttl: longest });
    }
    return matched < MINIMUM ? 0 : Math.floor(matched / 128) * 128;
  });
}

describe("simulateCache, OpenAI automatic rules (property)", () => {
  it("serves each request its longest live prefix, as every prefix written each time would", () => {
    fc.assert(
      fc.property(
        fc.array(moveArbitrary, { minLength: 1, maxLength: 40 }),
        (moves) => {
          const requests = session(moves);
          const { requests: results } = simulateCache(requests, {
            provider: "openai",
            countTokens: count,
            minPrefixTokens: MINIMUM,
          });
          assert.deepEqual(
            results.map((result) => result.cachedTokens),
            served(requests),
          );
        },
      ),
      { numRuns: fuzzRuns(300), seed: 4_920_017 },
    );
  });
});
