/**
 * `deno task mutation`: how many deliberate bugs in `src/` the test suite
 * catches.
 *
 * Takes a seeded sample of mutants (scripts/mutation_operators.ts), copies
 * the repository once per worker into a temporary folder, and for each
 * mutant patches one file, runs the tests (`deno test --no-check` on
 * `tests/`, fast-check runs cut by `RXPROMPT_FUZZ_RUNS`, stopping at the
 * first failure), restores the file and records the outcome: `killed` (a
 * test failed), `timeout` (the run hung; counted as detected) or `survived`.
 * The score is (killed + timeout) / mutants. Not run in CI.
 *
 *   deno task mutation [--seed 1] [--count 250] [--files src/]
 *                      [--concurrency 1] [--timeout SECONDS]
 *                      [--fuzz-runs 50] [--tests tests/]
 *                      [--json report.json] [--list]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { applyMutant, type Mutant, mutantsOf } from "./mutation_operators.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname)
  .replace(/\/$/, "");
/** Not copied into a worker: history, build output, caches. */
const NOT_COPIED = new Set([".git", "npm", ".coverage", "node_modules"]);

interface Options {
  seed: number;
  count: number;
  files: string[];
  concurrency: number;
  timeout?: number;
  fuzzRuns: number;
  tests: string[];
  json?: string;
  list: boolean;
}

type Status = "killed" | "survived" | "timeout";

interface Result extends Mutant {
  status: Status;
  /** For `killed`: the first failing test. */
  killedBy?: string;
  milliseconds: number;
}

const USAGE = `Usage: deno task mutation [options]
  --seed N          sample seed (default 1)
  --count N         mutants to test (default 250)
  --files A,B       files or folders to mutate (default src/)
  --concurrency N   parallel workers (default 1)
  --timeout S       seconds per mutant (default: 3x the clean run, at least 20)
  --fuzz-runs N     RXPROMPT_FUZZ_RUNS for the tests (default 50)
  --tests A,B       test files or folders to run (default tests/)
  --json PATH       also write the full report as JSON
  --list            print the sampled mutants and stop`;

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      seed: { type: "string", default: "1" },
      count: { type: "string", default: "250" },
      files: { type: "string", default: "src/" },
      concurrency: { type: "string", default: "1" },
      timeout: { type: "string" },
      "fuzz-runs": { type: "string", default: "50" },
      tests: { type: "string", default: "tests/" },
      json: { type: "string" },
      list: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const integer = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min) {
      console.error(`--${name} must be an integer >= ${min}; got ${text}\n`);
      console.error(USAGE);
      Deno.exit(2);
    }
    return value;
  };
  return {
    seed: integer("seed", values.seed, 0),
    count: integer("count", values.count, 1),
    files: values.files.split(",").map((file) => file.trim()).filter(Boolean),
    concurrency: integer("concurrency", values.concurrency, 1),
    timeout: values.timeout === undefined
      ? undefined
      : integer("timeout", values.timeout, 1),
    fuzzRuns: integer("fuzz-runs", values["fuzz-runs"], 1),
    tests: values.tests.split(",").map((path) => path.trim()).filter(Boolean),
    json: values.json,
    list: values.list,
  };
}

/** The `.ts` files under each path, relative to the root, sorted. */
function sourceFiles(paths: string[]): string[] {
  const files = new Set<string>();
  const visit = (relative: string): void => {
    const info = Deno.statSync(`${ROOT}/${relative}`);
    if (info.isFile) {
      if (relative.endsWith(".ts")) files.add(relative);
      return;
    }
    for (const entry of Deno.readDirSync(`${ROOT}/${relative}`)) {
      visit(`${relative.replace(/\/$/, "")}/${entry.name}`);
    }
  };
  for (const path of paths) {
    try {
      visit(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      console.error(`--files: ${path} does not exist under ${ROOT}`);
      Deno.exit(2);
    }
  }
  return [...files].sort();
}

/** A small, fast, seeded generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` mutants drawn without replacement, reported in file order. */
function sample(mutants: Mutant[], count: number, seed: number): Mutant[] {
  const next = random(seed);
  const pool = [...mutants];
  const size = Math.min(count, pool.length);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(next() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, size).sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line
  );
}

function copyTree(from: string, to: string): void {
  Deno.mkdirSync(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    if (NOT_COPIED.has(entry.name)) continue;
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) copyTree(source, target);
    else if (entry.isFile) Deno.copyFileSync(source, target);
  }
}

interface TestRun {
  status: Status;
  /** For `killed`: the first failing test, or the error that stopped the run. */
  killedBy?: string;
}

/**
 * Runs the tests in `cwd`, one module after the other: `--parallel` would
 * be faster on an idle machine, but on a busy one it makes the few
 * timing-ratio tests flaky, and a flaky failure is a false kill.
 */
async function runTests(
  cwd: string,
  options: { fuzzRuns: number; tests: string[] },
  timeoutMs: number,
): Promise<TestRun> {
  const { fuzzRuns, tests } = options;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--no-check",
      "--fail-fast",
      // What `deno task test` grants: the SDK round trips use a loopback
      // server, the CLI tests run the command as a subprocess.
      "--allow-net=127.0.0.1",
      "--allow-sys=hostname",
      "--allow-env",
      "--allow-run",
      "--allow-read",
      "--allow-write",
      ...tests,
    ],
    cwd,
    env: { RXPROMPT_FUZZ_RUNS: String(fuzzRuns), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  const { success, stdout, stderr } = await child.output();
  clearTimeout(timer);
  if (timedOut) return { status: "timeout" };
  if (success) return { status: "survived" };
  const decoder = new TextDecoder();
  const output = decoder.decode(stdout) + decoder.decode(stderr);
  return { status: "killed", killedBy: firstFailure(output) };
}

/** The first failing test of a `deno test` output, else its first error. */
function firstFailure(output: string): string {
  const failures = output.split("\n FAILURES \n")[1];
  const failed = failures?.split("\n").find((line) => line.includes(" => "));
  if (failed !== undefined) return failed.split(" => ")[0].trim();
  const error = output.split("\n").find((line) => line.startsWith("error:"));
  return error?.trim() ?? "the test run failed";
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)}s`;
}

/** Runs every mutant, `concurrency` at a time, each worker in its own copy. */
async function runAll(
  mutants: Mutant[],
  workers: string[],
  options: Options & { timeout: number },
): Promise<Result[]> {
  const results: Result[] = new Array(mutants.length);
  let next = 0;
  let done = 0;
  const work = async (dir: string): Promise<void> => {
    while (next < mutants.length) {
      const index = next++;
      const mutant = mutants[index];
      const path = `${dir}/${mutant.file}`;
      const original = Deno.readTextFileSync(path);
      Deno.writeTextFileSync(path, applyMutant(original, mutant));
      const started = performance.now();
      const run = await runTests(dir, options, options.timeout * 1000);
      const milliseconds = performance.now() - started;
      Deno.writeTextFileSync(path, original);
      results[index] = { ...mutant, ...run, milliseconds };
      done++;
      const by = run.killedBy === undefined ? "" : ` by ${run.killedBy}`;
      console.log(
        `[${done}/${mutants.length}] ${run.status.padEnd(8)} ` +
          `${mutant.file}:${mutant.line} ${mutant.operator} ` +
          `(${seconds(milliseconds)})${by.slice(0, 100)}`,
      );
    }
  };
  await Promise.all(workers.map(work));
  return results;
}

/** `file:line operator` and the change as a diff. */
function describe(mutant: Mutant): string {
  const lines = [`${mutant.file}:${mutant.line} ${mutant.operator}`];
  for (const line of mutant.original) lines.push(`  - ${line.trim()}`);
  const mutated = mutant.mutated.filter((line) => line.trim() !== "");
  for (const line of mutated) lines.push(`  + ${line.trim()}`);
  if (mutated.length === 0) lines.push("  + (deleted)");
  return lines.join("\n");
}

interface Tally {
  total: number;
  killed: number;
  survived: number;
  timeout: number;
  score: number;
}

function tally(results: Result[]): Tally {
  const count = (status: Status) =>
    results.filter((result) => result.status === status).length;
  const killed = count("killed");
  const timeout = count("timeout");
  const total = results.length;
  const score = total === 0 ? 0 : (100 * (killed + timeout)) / total;
  return { total, killed, survived: count("survived"), timeout, score };
}

function groupBy(
  results: Result[],
  key: (result: Result) => string,
): [string, Result[]][] {
  const groups = new Map<string, Result[]>();
  for (const result of results) {
    const name = key(result);
    groups.set(name, [...(groups.get(name) ?? []), result]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function line(name: string, t: Tally): string {
  return `  ${name.padEnd(28)} ${t.score.toFixed(1).padStart(5)}%  ` +
    `${t.killed} killed, ${t.timeout} timeout, ${t.survived} survived of ${t.total}`;
}

function summarize(
  results: Result[],
  wallMs: number,
  candidates: number,
): Tally {
  const all = tally(results);
  const count = Math.max(results.length, 1);
  const mean = results.reduce((sum, r) => sum + r.milliseconds, 0) / count;
  console.log(
    `\nMutation score: ${all.score.toFixed(1)}% ` +
      `(${all.killed} killed + ${all.timeout} timeout of ${all.total}; ` +
      `${all.survived} survived; sampled from ${candidates} candidates)`,
  );
  console.log(
    `Time: ${seconds(wallMs)} in all (${seconds(wallMs / count)} per ` +
      `mutant); one test run takes ${seconds(mean)} on average; 250 mutants ` +
      `at this rate: ${(wallMs / count * 250 / 60_000).toFixed(0)} min`,
  );
  console.log("\nBy file:");
  for (const [file, group] of groupBy(results, (r) => r.file)) {
    console.log(line(file, tally(group)));
  }
  console.log("\nBy operator:");
  for (const [operator, group] of groupBy(results, (r) => r.operator)) {
    console.log(line(operator, tally(group)));
  }
  console.log("\nTests that killed the most mutants:");
  const killers = groupBy(
    results.filter((result) => result.killedBy !== undefined),
    (result) => result.killedBy!,
  ).sort(([, a], [, b]) => b.length - a.length);
  for (const [test, group] of killers.slice(0, 8)) {
    console.log(`  ${String(group.length).padStart(4)}  ${test}`);
  }
  const survivors = results.filter((result) => result.status === "survived");
  if (survivors.length > 0) {
    console.log(`\nSurviving mutants (${survivors.length}):`);
    for (const survivor of survivors) console.log(describe(survivor));
  }
  return all;
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const files = sourceFiles(options.files);
  const candidates = files.flatMap((file) =>
    mutantsOf(file, Deno.readTextFileSync(`${ROOT}/${file}`))
  );
  const mutants = sample(candidates, options.count, options.seed);
  console.log(
    `${mutants.length} mutants (seed ${options.seed}) sampled from ` +
      `${candidates.length} candidates in ${files.length} files`,
  );
  if (options.list) {
    for (const mutant of mutants) console.log(describe(mutant));
    return;
  }
  const base = Deno.makeTempDirSync({ prefix: "rxprompt-mutation-" });
  const cleanUp = () => Deno.removeSync(base, { recursive: true });
  Deno.addSignalListener("SIGINT", () => {
    cleanUp();
    Deno.exit(130);
  });
  try {
    const workers = Array.from(
      { length: Math.min(options.concurrency, mutants.length) },
      (_, index) => `${base}/worker-${index}`,
    );
    for (const worker of workers) copyTree(ROOT, worker);
    const timeout = await calibrate(workers[0], options);
    const started = performance.now();
    const results = await runAll(mutants, workers, { ...options, timeout });
    const wall = performance.now() - started;
    const all = summarize(results, wall, candidates.length);
    if (options.json !== undefined) {
      const report = {
        options,
        candidates: candidates.length,
        ...all,
        wallMs: wall,
        results,
      };
      Deno.writeTextFileSync(
        options.json,
        JSON.stringify(report, null, 2) + "\n",
      );
      console.log(`\nReport written to ${options.json}`);
    }
  } finally {
    cleanUp();
  }
}

/** Runs the unmutated suite once: it must pass, and it sets the timeout. */
async function calibrate(dir: string, options: Options): Promise<number> {
  const started = performance.now();
  const { status, killedBy } = await runTests(dir, options, 10 * 60 * 1000);
  const milliseconds = performance.now() - started;
  if (status !== "survived") {
    console.error(
      `The unmutated test suite fails (${status}: ${killedBy}); fix it ` +
        `before a mutation run.`,
    );
    Deno.exit(1);
  }
  const timeout = options.timeout ??
    Math.max(20, Math.ceil((3 * milliseconds) / 1000));
  console.log(
    `Clean run: ${seconds(milliseconds)}; timeout per mutant: ${timeout}s`,
  );
  return timeout;
}

if (import.meta.main) await main();
