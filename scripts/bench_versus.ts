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
 * disturbed by other work on a shared machine); the figure printed is the
 * median of three such runs.
 *
 * @module
 */

interface Side {
  readonly name: string;
  readonly step: () => Promise<unknown>;
}

interface W1Module {
  buildW1(): { assemble(context: unknown): Promise<unknown> };
  W1_CONTEXT: unknown;
}

interface ModModule {
  renderPrompt(assembly: unknown): string;
}

/**
 * Many short rounds: a round of about half a millisecond often runs
 * undisturbed on a loaded machine, and the fastest round is what counts.
 */
const ROUNDS = 300;
/** Milliseconds of one timed batch. */
const BATCH = 0.5;
const RUNS = 3;

async function sideOf(name: string, root: string): Promise<Side> {
  const base = new URL(`file://${Deno.cwd()}/`);
  const url = (path: string) =>
    new URL(path, new URL(root.replace(/\/?$/, "/"), base)).href;
  const mod: ModModule = await import(url("mod.ts"));
  const { buildW1, W1_CONTEXT }: W1Module = await import(
    url("tests/bench/w1.ts")
  );
  const w1 = buildW1();
  const { renderPrompt } = mod;
  return {
    name,
    step: async () => renderPrompt(await w1.assemble(W1_CONTEXT)),
  };
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

/** The fastest round's µs per call of each side, timed interleaved. */
async function interleaved(sides: readonly Side[]): Promise<number[]> {
  const calls: number[] = [];
  for (const side of sides) calls.push(await calibrate(side.step));
  const samples: number[][] = sides.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, side] of sides.entries()) {
      samples[index].push(await timeBatch(side.step, calls[index]));
    }
  }
  return samples.map((rounds) => Math.min(...rounds));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

if (Deno.args.length === 0) {
  console.error("usage: bench_versus.ts <other checkout>...");
  Deno.exit(2);
}
const sides = [await sideOf("this checkout", ".")];
for (const other of Deno.args) sides.push(await sideOf(other, other));
// Warm-up: both sides optimized before anything counts.
for (let turn = 0; turn < 20; turn++) {
  for (const side of sides) await timeBatch(side.step, 200);
}
const runs: number[][] = [];
for (let run = 0; run < RUNS; run++) {
  // Alternate the order, so no side always has the same turn.
  const order = run % 2 === 0 ? sides : [...sides].reverse();
  const times = await interleaved(order);
  runs.push(run % 2 === 0 ? times : [...times].reverse());
  console.log(
    `run ${run + 1}: ` +
      sides.map((side, index) =>
        `${side.name} ${runs[run][index].toFixed(1)} µs`
      )
        .join(", "),
  );
}
const medians = sides.map((_, index) => median(runs.map((run) => run[index])));
console.log(
  `W1 assemble + renderPrompt, median of ${RUNS} interleaved runs: ` +
    sides.map((side, index) => `${side.name} ${medians[index].toFixed(1)} µs`)
      .join(", ") +
    `; this ÷ ${sides[1].name}: ${(medians[0] / medians[1]).toFixed(3)}×`,
);
