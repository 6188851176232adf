/**
 * No cost grows with V8's long-string hashing (`deno task test:slow`): V8
 * hashes a string of 16,384 code units or more by its length alone, so a
 * `Map` keyed by such texts chains them when they are equally long. A
 * 300-step session of 16,400-character messages must cost at most 1.5x the
 * same session of 16,000-character ones (2.5% longer texts), for
 * `simulateCache`, `bestLayoutTokens` and a budgeted assembly whose
 * sections change every step. Before the texts were keyed by digest the
 * ratios were about 10x, 10x and 50x.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../../mod.ts";
import {
  bestLayoutTokens,
  simulateCache,
} from "../../../adapters/cache/mod.ts";
import type { CacheRequest } from "../../../adapters/cache/mod.ts";

const STEPS = 300;
const SHORT = 16_000;
const LONG = 16_400;
const RATIO = 1.5;

const quarter = (text: string) => Math.ceil(text.length / 4);

/**
 * A session whose every step adds a message of `size` characters, equal
 * but for a counter at its end (the worst case for comparing equal-length
 * texts), and sends the whole conversation.
 */
function session(
  size: number,
  wire: "anthropic" | "openai",
): CacheRequest[] {
  const system = "You are terse.\n\nAnswer in English.";
  const messages: { role: string; content: string }[] = wire === "openai"
    ? [{ role: "system", content: system }]
    : [];
  const requests: CacheRequest[] = [];
  for (let step = 0; step < STEPS; step++) {
    messages.push({
      role: step % 2 === 0 ? "user" : "assistant",
      content: "x".repeat(size - 8) + String(step).padStart(8, "0"),
    });
    requests.push({
      body: wire === "anthropic"
        ? { system, messages: [...messages] }
        : { messages: [...messages] },
    });
  }
  return requests;
}

/** A budgeted registry whose eight sections of `size` change every step. */
async function budgetedSteps(size: number): Promise<void> {
  let step = 0;
  const prompt = new SystemPrompt({
    includeHarnessIdentity: false,
    // Seven of the eight sections fit: one is pruned every step.
    budget: { maxTokens: Math.ceil(7.5 * size / 4), countTokens: quarter },
  });
  for (let index = 0; index < 8; index++) {
    prompt.section({
      name: `log${index}`,
      order: index,
      stability: "volatile",
      text: () =>
        "y".repeat(size - 12) + String(step * 8 + index).padStart(12, "0"),
    });
  }
  for (; step < STEPS; step++) {
    const assembly = await prompt.assemble();
    assert.equal(assembly.pruned?.length, 1);
  }
  await prompt.dispose();
}

async function timed(run: () => unknown): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Asserts the long run costs at most `RATIO` times the short one: the
 * sizes are interleaved and the best of seven of each kept; a noisy
 * machine (another process busy on the two cores) gets five attempts. The verdict is the ratio alone (the 10 s
 * sampling budget only cuts short runs too slow to need more samples).
 */
async function assertRatio(
  run: (size: number) => unknown,
): Promise<void> {
  await run(SHORT); // warm up
  await run(LONG);
  const ratios: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    let short = Infinity;
    let long = Infinity;
    const started = performance.now();
    for (let round = 0; round < 7; round++) {
      short = Math.min(short, await timed(() => run(SHORT)));
      long = Math.min(long, await timed(() => run(LONG)));
      // Only a run far too slow to need more samples stops early.
      if (performance.now() - started > 10_000) break;
    }
    const ratio = long / short;
    if (ratio <= RATIO) return;
    ratios.push(
      `${ratio.toFixed(2)} (${long.toFixed(0)} / ${short.toFixed(0)} ms)`,
    );
  }
  assert.fail(
    `16,400-character texts cost over ${RATIO}x 16,000-character ones: ` +
      ratios.join(", "),
  );
}

describe("long texts of one length cost what shorter ones do", () => {
  const sessions = {
    anthropic: new Map(
      [SHORT, LONG].map((size) => [size, session(size, "anthropic")]),
    ),
    openai: new Map(
      [SHORT, LONG].map((size) => [size, session(size, "openai")]),
    ),
  };

  it("simulateCache", async () => {
    for (const provider of ["anthropic", "openai"] as const) {
      await assertRatio((size) =>
        simulateCache(sessions[provider].get(size)!, {
          provider,
          countTokens: quarter,
        })
      );
    }
  });

  it("bestLayoutTokens", async () => {
    await assertRatio((size) =>
      bestLayoutTokens(sessions.anthropic.get(size)!, quarter)
    );
  });

  it("a budgeted assembly whose sections change every step", async () => {
    await assertRatio(budgetedSteps);
  });
});
