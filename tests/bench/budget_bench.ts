/**
 * What a token budget costs (run with `deno bench tests/bench/budget_bench.ts`).
 *
 * - "W1 step": `assemble` + `renderPrompt` of W1 (`w1.ts`), without a
 *   budget and with one that prunes 10 of its 57 sections (counts memoised:
 *   the steady state of an agent loop). Before the benches run, the file
 *   prints the ratio from interleaved short rounds, as `bench:table` times
 *   its ratios (target ≤ 1.3).
 * - "pruning": `pruneToBudget` alone on 1k and 10k distinct sections, half
 *   of them pruned, with the memo warm; the file prints the growth exponent
 *   `log(t(10k) / t(1k)) / log(10)` (1 is linear; target ≤ 1.1).
 */

import {
  type PromptAssembly,
  renderPrompt,
  type TokenBudget,
} from "../../mod.ts";
import { pruneToBudget } from "../../src/budget/prune.ts";
import { TokenMemo } from "../../src/budget/token_memo.ts";
import { buildW1, W1_CONTEXT } from "./w1.ts";

/** A cheap estimate: the counter runs once per text anyway. */
const quarter = (text: string): number => Math.ceil(text.length / 4);

const prompt = buildW1();
const context = W1_CONTEXT;

/** The largest budget that prunes exactly `count` sections of W1. */
async function budgetPruning(count: number): Promise<TokenBudget> {
  let low = 1;
  let high = 100_000;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const assembly = await prompt.assemble(context, {
      budget: { maxTokens: mid, countTokens: quarter },
    });
    if ((assembly.pruned?.length ?? 0) >= count) low = mid;
    else high = mid - 1;
  }
  const budget = { maxTokens: low, countTokens: quarter };
  const pruned = (await prompt.assemble(context, { budget })).pruned;
  if (pruned?.length !== count) throw new Error(`pruned ${pruned?.length}`);
  return budget;
}

const budget = await budgetPruning(10);
const withBudget = { budget };
let sink = 0;

async function step(): Promise<void> {
  sink += renderPrompt(await prompt.assemble(context)).length;
}

async function budgetedStep(): Promise<void> {
  sink += renderPrompt(await prompt.assemble(context, withBudget)).length;
}

/** Milliseconds of both steps, alternating, before a run is timed. */
const WARM_UP_MS = 2000;

/** Microseconds per call of `run`, over `calls` calls. */
async function usPer(run: () => Promise<void>, calls: number): Promise<number> {
  const start = performance.now();
  for (let call = 0; call < calls; call++) await run();
  return (performance.now() - start) / calls * 1000;
}

/**
 * The two steps timed as `scripts/bench_versus.ts` times its workloads:
 * two seconds of both first (on this machine V8's optimizing compiler may
 * finish a second or more after a function turns hot), then many short rounds
 * (about half a millisecond), interleaved and in alternating order; the
 * fastest round of each side, the one least disturbed by other work, and
 * the median of the rounds' ratios (which counts the collector's pauses
 * that land in a round).
 */
async function stepRatio(
  rounds: number,
): Promise<{ plain: number; budgeted: number; median: number }> {
  const warm = performance.now();
  while (performance.now() - warm < WARM_UP_MS) {
    await usPer(step, 10);
    await usPer(budgetedStep, 10);
  }
  const ratios: number[] = [];
  let plain = Infinity;
  let budgeted = Infinity;
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    const a = await usPer(first ? step : budgetedStep, 25);
    const b = await usPer(first ? budgetedStep : step, 25);
    const [plainRound, budgetRound] = first ? [a, b] : [b, a];
    plain = Math.min(plain, plainRound);
    budgeted = Math.min(budgeted, budgetRound);
    ratios.push(budgetRound / plainRound);
  }
  ratios.sort((a, b) => a - b);
  return { plain, budgeted, median: ratios[ratios.length >> 1] };
}

const stepRuns = [];
for (let run = 0; run < 3; run++) stepRuns.push(await stepRatio(300));
const ratios = stepRuns.map(({ plain, budgeted }) => budgeted / plain)
  .sort((a, b) => a - b);
const medians = stepRuns.map(({ median }) => median).sort((a, b) => a - b);
console.log(
  `W1 step: ${stepRuns.map(({ plain }) => plain.toFixed(1)).join(", ")} µs ` +
    `without a budget, ${
      stepRuns.map(({ budgeted }) => budgeted.toFixed(1)).join(", ")
    } µs with one pruning 10 of 57 sections (fastest rounds of three runs); ` +
    `ratio ${ratios[1].toFixed(2)}x (median of the runs; target ≤ 1.3), ` +
    `median round ${medians[1].toFixed(2)}x`,
);

const SIZES = [1_000, 10_000];

/** `count` distinct sections, with their counts memoised and half pruned. */
function pruning(count: number): () => PromptAssembly {
  const sections = [];
  for (let index = 0; index < count; index++) {
    sections.push({
      name: `rule:${index}`,
      order: index % 97,
      text: `## Rule ${index}\nWork in {{cwd}}; rule ${index} applies.`,
    });
  }
  const assembly: PromptAssembly = {
    sections,
    tools: [],
    variables: { cwd: "/home/agent/workspace" },
  };
  const memo = new TokenMemo(quarter);
  const terms = new Map(
    sections.map((section, index) => [section.name, {
      priority: index % 7,
      required: false,
    }]),
  );
  const total = sections.reduce(
    (sum, section) =>
      sum + quarter(renderPrompt({ ...assembly, sections: [section] })),
    0,
  );
  const plan = { maxTokens: Math.floor(total / 2), memo };
  const run = () => pruneToBudget(assembly, plan, { terms });
  renders.push(() => {
    sink += renderPrompt(assembly).length;
    return assembly;
  });
  const pruned = run().pruned?.length ?? 0;
  if (Math.abs(pruned - count / 2) > count / 10) {
    throw new Error(`pruned ${pruned} of ${count}`);
  }
  return run;
}

/** `renderPrompt` of the same sections: the machine's own growth, for scale. */
const renders: (() => PromptAssembly)[] = [];
const pruners = SIZES.map(pruning);

function msPer(run: () => PromptAssembly): number {
  let calls = 0;
  const start = performance.now();
  do {
    sink += run().sections.length;
    calls++;
  } while (performance.now() - start < 50);
  return (performance.now() - start) / calls;
}

const best = SIZES.map(() => Infinity);
const renderBest = SIZES.map(() => Infinity);
for (let round = 0; round < 9; round++) {
  pruners.forEach((run, index) => {
    best[index] = Math.min(best[index], msPer(run));
    renderBest[index] = Math.min(renderBest[index], msPer(renders[index]));
  });
}
console.log(
  SIZES.map((size, index) =>
    `${size} sections: ${best[index].toFixed(3)} ms ` +
    `(${(best[index] / size * 1e6).toFixed(0)} ns/section)`
  ).join("; ") +
    `; growth exponent 1k→10k: ` +
    `${(Math.log(best[1] / best[0]) / Math.log(10)).toFixed(3)} (target ≤ ` +
    `1.1); renderPrompt of the same sections: ` +
    `${(Math.log(renderBest[1] / renderBest[0]) / Math.log(10)).toFixed(3)}`,
);

Deno.bench("W1 step, no budget", { group: "W1 step", baseline: true }, step);
Deno.bench(
  "W1 step, budget pruning 10 of 57",
  { group: "W1 step" },
  budgetedStep,
);
for (const [index, run] of pruners.entries()) {
  Deno.bench({
    name: `pruneToBudget, ${SIZES[index]} sections, half pruned`,
    group: "pruning",
    baseline: index === 0,
    fn() {
      sink += run().sections.length;
    },
  });
}

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
