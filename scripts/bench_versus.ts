/**
 * The W1 step (`assemble` + `renderPrompt`, the first row of
 * `deno task bench:table`) of this checkout against other checkouts of the
 * module, side by side in one process:
 *
 *   git worktree add ../v020 v0.2.0
 *   deno run --allow-read scripts/bench_versus.ts ../v020
 *
 * Both checkouts' `mod.ts` and `tests/bench/w1.ts` are imported (one rxjs,
 * this checkout's import map). Each run times the two sides interleaved,
 * in many short rounds, and keeps each side's fastest round (the one least
 * disturbed by other work on a shared machine); the ratio printed is the
 * median of three such runs' ratios. With `--all`, the workloads around it too
 * (W1 `assemble` alone and without listeners, `explain`, a `watch()` view);
 * `--only=<text>` keeps the workload of that name (or, when none has it,
 * those whose names contain the text).
 *
 * @module
 */

import { BehaviorSubject } from "rxjs";

/**
 * Many short rounds: a round of about half a millisecond often runs
 * undisturbed on a loaded machine, and the fastest round is what counts.
 */
const ROUNDS = 300;
/** Milliseconds of one timed batch. */
const BATCH = 0.5;
const RUNS = 3;
/** Milliseconds of alternating calls before a workload's runs. */
const WARM_UP_MS = 2000;
const ALL = Deno.args.includes("--all");
/**
 * `--only=<text>`: only the workload of that name, or, when none has it,
 * the workloads whose names contain the text.
 */
const ONLY = Deno.args.find((arg) => arg.startsWith("--only="))?.slice(7);

interface Side {
  readonly name: string;
  /** Each workload's step, by workload name. */
  readonly steps: ReadonlyMap<string, () => Promise<unknown>>;
}

interface W1Registry {
  assemble(context: unknown): Promise<unknown>;
  explain(
    context: unknown,
    options?: { countTokens: (text: string) => number },
  ): Promise<unknown>;
}

interface W1Module {
  buildW1(options?: { listeners?: boolean }): W1Registry;
  W1_CONTEXT: unknown;
}

interface ModModule {
  renderPrompt(assembly: unknown): string;
  SystemPrompt: new () => {
    variable(name: string, provider: unknown): void;
    section(section: unknown): void;
    watch(): {
      subscribe(next: (view: unknown) => void): { unsubscribe(): void };
    };
  };
}

/** The W1 step, the budgeted row; `--all` adds the related workloads. */
const W1_STEP = "W1 assemble + renderPrompt";

async function sideOf(name: string, root: string): Promise<Side> {
  const base = new URL(`file://${Deno.cwd()}/`);
  const url = (path: string) =>
    new URL(path, new URL(root.replace(/\/?$/, "/"), base)).href;
  const mod: ModModule = await import(url("mod.ts"));
  const { buildW1, W1_CONTEXT }: W1Module = await import(
    url("tests/bench/w1.ts")
  );
  const w1 = buildW1();
  const bare = buildW1({ listeners: false });
  const { renderPrompt } = mod;
  const countTokens = (text: string) => text.length >> 2;
  const steps = new Map<string, () => Promise<unknown>>([
    [W1_STEP, async () => renderPrompt(await w1.assemble(W1_CONTEXT))],
  ]);
  if (ALL) {
    steps.set("W1 assemble", () => w1.assemble(W1_CONTEXT));
    steps.set("W1 assemble, no listeners", () => bare.assemble(W1_CONTEXT));
    steps.set("W1 explain", () => w1.explain(W1_CONTEXT));
    steps.set(
      "W1 explain, countTokens",
      () => w1.explain(W1_CONTEXT, { countTokens }),
    );
    steps.set("watch: a live value to its view", watchStep(mod));
  }
  return { name, steps };
}

/** A watched registry: one value pushed into a live variable, to its view. */
function watchStep(mod: ModModule): () => Promise<unknown> {
  const prompt = new mod.SystemPrompt();
  const cwd = new BehaviorSubject("/0");
  prompt.variable("cwd", cwd);
  prompt.section({ name: "where", order: 1, text: "In {{cwd}}." });
  let arrived: (() => void) | undefined;
  prompt.watch().subscribe(() => arrived?.());
  let value = 0;
  return () =>
    new Promise<void>((resolve) => {
      arrived = resolve;
      cwd.next(`/${++value}`);
    });
}

/** Microseconds per call of `run`, over `calls` calls. */
async function timeBatch(
  run: () => Promise<unknown>,
  calls: number,
): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < calls; index++) await run();
  return (performance.now() - start) * 1000 / calls;
}

async function calibrate(run: () => Promise<unknown>): Promise<number> {
  let calls = 1;
  while ((await timeBatch(run, calls)) * calls < BATCH * 1000) calls *= 2;
  return calls;
}

/** The fastest round's µs per call of each step, timed interleaved. */
async function interleaved(
  steps: readonly (() => Promise<unknown>)[],
): Promise<number[]> {
  const calls: number[] = [];
  for (const step of steps) calls.push(await calibrate(step));
  const samples: number[][] = steps.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, step] of steps.entries()) {
      samples[index].push(await timeBatch(step, calls[index]));
    }
  }
  return samples.map((rounds) => Math.min(...rounds));
}

/**
 * Whether `--only` keeps `workload`: the workload of that name, or, when
 * none has it, those whose names contain the text.
 */
function selected(
  workload: string,
  steps: ReadonlyMap<string, unknown>,
): boolean {
  return steps.has(ONLY!) ? workload === ONLY : workload.includes(ONLY!);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

const others = Deno.args.filter((arg) => !arg.startsWith("--"));
if (others.length === 0) {
  console.error(
    "usage: bench_versus.ts [--all] [--only=<text>] <other checkout>...",
  );
  Deno.exit(2);
}
const sides = [await sideOf("this checkout", ".")];
for (const other of others) sides.push(await sideOf(other, other));
for (const workload of sides[0].steps.keys()) {
  if (ONLY !== undefined && !selected(workload, sides[0].steps)) continue;
  const steps = sides.map((side) => side.steps.get(workload)!);
  // Warm-up: every side optimized before anything counts. On a loaded
  // 2-core machine V8's optimizing compiler may finish a second or more
  // after a function turns hot, so the warm-up is timed, not counted.
  const warm = performance.now();
  while (performance.now() - warm < WARM_UP_MS) {
    for (const step of steps) await timeBatch(step, 50);
  }
  const runs: number[][] = [];
  for (let run = 0; run < RUNS; run++) {
    // Alternate the order, so no side always has the same turn.
    const forward = run % 2 === 0;
    const times = await interleaved(forward ? steps : [...steps].reverse());
    runs.push(forward ? times : times.reverse());
  }
  const medians = sides.map((_, index) =>
    median(runs.map((run) => run[index]))
  );
  // Each run's own ratio: its two sides were timed side by side, so a run
  // the machine slowed down compares like with like.
  const ratio = median(runs.map((run) => run[0] / run[1]));
  console.log(
    `${workload}, median of ${RUNS} interleaved runs: ` +
      sides.map((side, index) => `${side.name} ${medians[index].toFixed(1)} µs`)
        .join(", ") +
      `; this ÷ ${sides[1].name}: ${ratio.toFixed(3)}× (median of the runs' ` +
      `ratios)` +
      ` (runs: ${
        runs.map((run) => run.map((time) => time.toFixed(1)).join("/"))
          .join(", ")
      })`,
  );
}
