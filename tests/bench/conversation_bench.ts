/**
 * The conversation's cost per step (issue 33): `request()` on W1 after 20
 * and after 200 recorded steps, against `assemble()` + `toMessages` alone
 * (the baseline). The goal: at most 1.3× the baseline, growing linearly in
 * the history (the history is copied once per step, never re-rendered).
 * Besides the table, it prints the ratio itself, measured in interleaved
 * rounds.
 */
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { buildW1, W1_CONTEXT } from "./w1.ts";

const prompt = buildW1();
const context = W1_CONTEXT;

async function conversationOf(steps: number, diagnostics = false) {
  const conv = anthropicConversation(prompt, {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    diagnostics,
  });
  for (let step = 0; step < steps; step++) {
    conv.user(`Step ${step}: go on.`);
    await conv.request(context);
    conv.record({
      id: `msg_${step}`,
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: `Done with step ${step}.` }],
      usage: {
        input_tokens: 12,
        cache_read_input_tokens: 4096,
        cache_creation_input_tokens: 80,
        output_tokens: 9,
      },
    });
  }
  conv.user("Next.");
  return conv;
}

const short = await conversationOf(20);
const long = await conversationOf(200);
// `diagnostics: true` explains each step (`explain()` instead of
// `assemble()`: the provenance of every block and tool), an opt-in cost.
const diagnosed = await conversationOf(20, true);

async function baseline(): Promise<void> {
  toMessages(await prompt.assemble(context), { cache: true, gating: "keep" });
}

/**
 * The ratio printed plainly: per-step means of the three, interleaved in
 * rounds (a busy machine slows all three alike), the median round's ratio.
 */
async function printRatio(rounds = 15, iterations = 300): Promise<void> {
  const ratios: { short: number[]; long: number[] } = { short: [], long: [] };
  const mean = async (step: () => Promise<unknown>) => {
    const start = performance.now();
    for (let index = 0; index < iterations; index++) await step();
    return (performance.now() - start) / iterations;
  };
  // Warm: every step compiled before anything is counted.
  for (let round = 0; round < 3; round++) {
    await mean(baseline);
    await mean(() => short.request(context));
    await mean(() => long.request(context));
  }
  for (let round = 0; round < rounds; round++) {
    const base = await mean(baseline);
    ratios.short.push(await mean(() => short.request(context)) / base);
    ratios.long.push(await mean(() => long.request(context)) / base);
  }
  const median = (values: number[]) =>
    values.sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(2);
  console.log(
    `request() / (assemble + toMessages), median of ${rounds} rounds: ` +
      `${median(ratios.short)}× after 20 steps, ${median(ratios.long)}× ` +
      `after 200 steps (goal: at most 1.3×, about flat).`,
  );
}

await printRatio();

Deno.bench(
  "assemble + toMessages",
  { group: "step", baseline: true },
  baseline,
);
Deno.bench("conversation request(), 20 steps", { group: "step" }, async () => {
  await short.request(context);
});
Deno.bench("conversation request(), 200 steps", { group: "step" }, async () => {
  await long.request(context);
});
Deno.bench(
  "conversation request(), 20 steps, diagnostics",
  { group: "diagnostics" },
  async () => {
    await diagnosed.request(context);
  },
);
