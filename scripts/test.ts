/**
 * `deno task test` and `deno task test:slow`: the test suite in two parts,
 * printed short. Together they run every test file under `tests/` (and every
 * example in the docs); `.ci/run` runs both.
 *
 * Which part a test file belongs to follows from its name, so a new file
 * lands in the right one without a list to keep:
 *
 * - **slow** (`deno task test:slow`), slow by nature, one file at a time:
 *   - `*_sdk_test.ts`: the real SDK clients (`openai`, `@anthropic-ai/sdk`,
 *     `ai`), loaded and sent to servers on 127.0.0.1;
 *   - `*_deno_test.ts`: runs Deno as a subprocess (the `rxprompt` command
 *     line, a host with restricted V8 flags, `deno info`) or reads the
 *     checkout itself (the golden body fixtures, the core's names);
 *   - `*_scale_test.ts` (and `*_scale_deno_test.ts`, which Node and Bun
 *     leave out): costs and limits measured at scale (run apart, without
 *     coverage, when coverage is asked for: see `SCALE_FILE`);
 *   - everything in `tests/memory/`: heap slopes, with `gc()` exposed;
 *   - the JSDoc examples of `mod.ts`, `src/` and `adapters/`: each is a
 *     module loaded in an isolate of its own.
 *
 *   (`scripts/check_npm.ts` leaves out the same `*_sdk_test.ts` and
 *   `*_deno_test.ts` on Node and Bun: they need Deno.)
 * - **unit** (`deno task test`): every other test file, files run in
 *   parallel, and every example in `README.md` and `docs/`.
 *
 * Deno's dot reporter runs each part; its progress marks are dropped (shown
 * as dots on a terminal), failures are printed in full, each ignored test
 * is named, and the last line is the part's one total, in test cases:
 *
 * ```text
 * deno: test cases (it() blocks and doc examples): 983 passed, 0 failed, 0 ignored (21s)
 * deno (slow): test cases (it() blocks and JSDoc examples): 260 passed, 0 failed, 0 ignored (90s)
 * ```
 *
 * A test case is a test or step without steps of its own: each `it()`, each
 * doc example. Extra arguments go to `deno test` (CI adds `--coverage`).
 * No colour unless stdout is a terminal and `NO_COLOR` is unset.
 *
 * ```sh
 * deno task test          # the unit suite and the guides' examples
 * deno task test:slow     # SDK round trips, subprocesses, scale, memory, JSDoc examples
 * ```
 *
 * @module
 */

/** The guides' examples run with the unit tests. */
const GUIDE_DOCS = ["README.md", "docs/"];
/**
 * The JSDoc examples run with the slow part: each is a module of its own,
 * loaded in an isolate of its own (about 0.2 s each, for 130 of them).
 */
const API_DOCS = ["mod.ts", "src/", "adapters/"];
/** Where the test files are; `tests/bench/` holds benchmarks, no tests. */
const TEST_ROOT = "tests";
const NOT_TESTS = ["tests/bench"];
/** The file names `deno test` takes as tests in a folder. */
const TEST_FILE = /(^|[._])test\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/** The naming rule of the slow part (see the module documentation). */
const SLOW_FILE = /_(sdk|deno|scale)_test\.[cm]?[jt]sx?$/;
const SLOW_FOLDERS = ["tests/memory"];

/**
 * The SDK round trips talk to a loopback server; `ai` reads the host name,
 * the AWS SDK the OS release (for its user agent).
 * The command-line tests run `deno` (and `script`, for a terminal) on
 * configs in the checkout and in temporary folders.
 */
const PERMISSIONS = [
  "--allow-net=127.0.0.1",
  "--allow-sys=hostname,osRelease",
  "--allow-env",
  "--allow-run",
  "--allow-read",
  "--allow-write",
];

/** Which part of the suite runs a test file. */
export type TestPart = "unit" | "slow";

/**
 * The part of the suite a test file (a path relative to the checkout, `/`
 * or the platform's separator) belongs to, by the rule in the module
 * documentation.
 */
export function testPart(file: string): TestPart {
  const path = file.replaceAll("\\", "/");
  if (SLOW_FILE.test(path)) return "slow";
  return SLOW_FOLDERS.some((folder) => path.startsWith(folder + "/"))
    ? "slow"
    : "unit";
}

/** The test files under `root` (relative paths, sorted), benchmarks aside. */
export function testFiles(root = TEST_ROOT): string[] {
  const files: string[] = [];
  const visit = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && !NOT_TESTS.includes(path)) visit(path);
      else if (entry.isFile && TEST_FILE.test(entry.name)) files.push(path);
    }
  };
  visit(root);
  return files.sort();
}

/** Test cases in a JUnit report, the way {@linkcode countTestCases} counts. */
export interface TestCaseCounts {
  passed: number;
  failed: number;
  ignored: number;
  /** Each ignored test case: `file: name > step`. */
  ignoredNames: string[];
}

/** `&amp;` and the like, as text. */
function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) =>
    ({
      lt: "<",
      gt: ">",
      quot: '"',
      apos: "'",
      amp: "&",
    })[name]!);
}

/**
 * Counts the leaves of a Deno JUnit report: a step is named
 * `parent > step`, so a test case whose name prefixes another's is a parent
 * and is not counted (its result is its steps'). An ignored test case is
 * named with the file of its top-level test.
 */
export function countTestCases(junit: string): TestCaseCounts {
  const cases = [...junit.matchAll(
    /<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g,
  )].map(([, name, file, body]) => ({ name, file, body }));
  const parents = new Set<string>();
  const files = new Map<string, string>();
  for (const { name, file } of cases) {
    const parts = name.split(" &gt; ");
    if (parts.length === 1) files.set(name, file);
    for (let i = 1; i < parts.length; i++) {
      parents.add(parts.slice(0, i).join(" &gt; "));
    }
  }
  const counts: TestCaseCounts = {
    passed: 0,
    failed: 0,
    ignored: 0,
    ignoredNames: [],
  };
  for (const { name, file, body } of cases) {
    if (parents.has(name)) continue;
    if (body.includes("<failure")) counts.failed += 1;
    else if (body.includes("<skipped")) {
      counts.ignored += 1;
      const top = files.get(name.split(" &gt; ")[0]) ?? file;
      counts.ignoredNames.push(
        unescapeXml(`${top.replace(/^\.\//, "")}: ${name}`),
      );
    } else counts.passed += 1;
  }
  return counts;
}

/**
 * Deno's own summary line (`ok | 256 passed (898 steps) | …`): it counts
 * tests and steps, not test cases, and the part prints its one total.
 */
export function isDenoSummary(line: string): boolean {
  return /^(ok|FAILED) \| \d+ passed/.test(line);
}

/** The lines of a byte stream. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<
  string
> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest !== "") yield rest;
}

/** `deno test` arguments for one part, before the caller's extra ones. */
function partArgs(part: TestPart, files: string[]): string[] {
  return part === "unit"
    // Files in parallel: one file is one isolate, and most of a unit file's
    // time is loading its modules.
    ? ["--doc", "--parallel", ...files, ...GUIDE_DOCS]
    // One file at a time: timings and heap slopes are measured.
    : ["--v8-flags=--expose-gc", "--doc", ...files, ...API_DOCS];
}

/**
 * With coverage, the slow part's scale tests (`*_scale[_deno]_test.ts`) run in a
 * second `deno test` without it: they compare the costs of two sizes of the
 * same work, and coverage's counters slow the module's own code but not
 * the engine's (a hash V8 computes natively), which skews the ratio. The
 * other tests give the coverage.
 */
const SCALE_FILE = /_scale(_deno)?_test\.[cm]?[jt]sx?$/;

/** One `deno test` run: its exit code and its JUnit report. */
async function runDenoTest(
  args: string[],
  colour: boolean,
): Promise<{ code: number; report: string }> {
  const terminal = Deno.stdout.isTerminal();
  // deno-lint-ignore no-control-regex
  const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "");
  const encoder = new TextEncoder();
  const junit = await Deno.makeTempFile({ suffix: ".xml" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--quiet",
        "--reporter=dot",
        `--junit-path=${junit}`,
        ...PERMISSIONS,
        ...args,
      ],
      env: colour ? {} : { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    let progress = false;
    let blanks = 0;
    for await (const line of lines(child.stdout)) {
      const text = plain(line);
      if (/^[.,!]+$/.test(text)) {
        if (terminal) Deno.stdout.writeSync(encoder.encode(line));
        progress = terminal;
        continue;
      }
      if (progress) console.log();
      progress = false;
      // Blank lines are held back, so that none is left where the summary
      // was dropped.
      if (text.trim() === "") {
        blanks += 1;
        continue;
      }
      if (isDenoSummary(text)) continue;
      for (; blanks > 0; blanks--) console.log();
      console.log(line);
    }
    if (progress) console.log();
    const { code } = await child.status;
    return { code, report: await Deno.readTextFile(junit) };
  } finally {
    await Deno.remove(junit);
  }
}

async function main(): Promise<number> {
  const part: TestPart = Deno.args.includes("--slow") ? "slow" : "unit";
  const extra = Deno.args.filter((arg) => arg !== "--slow");
  const root = new URL("..", import.meta.url).pathname;
  Deno.chdir(root);
  const files = testFiles().filter((file) => testPart(file) === part);
  const colour = Deno.stdout.isTerminal() &&
    Deno.env.get("NO_COLOR") === undefined;
  const started = performance.now();
  const coverage = (arg: string) => arg.startsWith("--coverage");
  const apart = part === "slow" && extra.some(coverage)
    ? files.filter((file) => SCALE_FILE.test(file))
    : [];
  const runs = [
    [...extra, ...partArgs(part, files.filter((f) => !apart.includes(f)))],
    ...(apart.length === 0
      ? []
      : [[...extra.filter((arg) => !coverage(arg)), ...scaleArgs(apart)]]),
  ];
  let code = 0;
  const totals = { passed: 0, failed: 0, ignored: 0, reported: false };
  for (const args of runs) {
    const run = await runDenoTest(args, colour);
    if (run.code !== 0) code = run.code;
    if (!run.report.includes("<testsuites")) continue;
    const counts = countTestCases(run.report);
    for (const name of counts.ignoredNames) console.log(`ignored: ${name}`);
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    totals.ignored += counts.ignored;
    totals.reported = true;
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  if (totals.reported) {
    const label = part === "unit"
      ? "deno: test cases (it() blocks and the guides' examples)"
      : "deno (slow): test cases (it() blocks and JSDoc examples)";
    console.log(
      `${label}: ${totals.passed} passed, ${totals.failed} failed, ` +
        `${totals.ignored} ignored (${seconds}s)`,
    );
  }
  return code;
}

/** The scale tests' own run (see `SCALE_FILE`): one file at a time. */
function scaleArgs(files: string[]): string[] {
  return ["--v8-flags=--expose-gc", ...files];
}

if (import.meta.main) {
  Deno.exit(await main());
}
