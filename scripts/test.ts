/**
 * `deno task test`: the test suite and every example in the docs, printed
 * short. Deno's dot reporter runs it; its progress marks are dropped (shown
 * as dots on a terminal), failures are printed in full, then Deno's summary
 * and one line in the unit CI totals:
 *
 * ```text
 * deno: test cases (it() blocks and doc examples): 390 passed, 0 failed, 0 ignored
 * ```
 *
 * A test case is a test or step without steps of its own: each `it()`, each
 * doc example. Extra arguments go to `deno test` (CI adds `--coverage`,
 * whose table Deno prints once). No colour unless stdout is a terminal and
 * `NO_COLOR` is unset.
 *
 * @module
 */

const TARGETS = ["tests/", "mod.ts", "src/", "adapters/", "README.md", "docs/"];
/**
 * The SDK round trips talk to a loopback server; `ai` reads the host name.
 * The command-line tests run `deno` (and `script`, for a terminal) on
 * configs in the checkout and in temporary folders.
 */
const PERMISSIONS = [
  "--allow-net=127.0.0.1",
  "--allow-sys=hostname",
  "--allow-env",
  "--allow-run",
  "--allow-read",
  "--allow-write",
];

/** Test cases in a JUnit report, the way {@linkcode countTestCases} counts. */
export interface TestCaseCounts {
  passed: number;
  failed: number;
  ignored: number;
}

/**
 * Counts the leaves of a Deno JUnit report: a step is named
 * `parent > step`, so a test case whose name prefixes another's is a parent
 * and is not counted (its result is its steps').
 */
export function countTestCases(junit: string): TestCaseCounts {
  const cases = [...junit.matchAll(
    /<testcase name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g,
  )].map(([, name, body]) => ({ name, body }));
  const parents = new Set<string>();
  for (const { name } of cases) {
    const parts = name.split(" &gt; ");
    for (let i = 1; i < parts.length; i++) {
      parents.add(parts.slice(0, i).join(" &gt; "));
    }
  }
  const counts = { passed: 0, failed: 0, ignored: 0 };
  for (const { name, body } of cases) {
    if (parents.has(name)) continue;
    if (body.includes("<failure")) counts.failed += 1;
    else if (body.includes("<skipped")) counts.ignored += 1;
    else counts.passed += 1;
  }
  return counts;
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

async function main(): Promise<number> {
  const terminal = Deno.stdout.isTerminal();
  const colour = terminal && Deno.env.get("NO_COLOR") === undefined;
  const encoder = new TextEncoder();
  const junit = await Deno.makeTempFile({ suffix: ".xml" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--quiet",
        "--doc",
        "--reporter=dot",
        `--junit-path=${junit}`,
        ...PERMISSIONS,
        ...Deno.args,
        ...TARGETS,
      ],
      env: colour ? {} : { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    let progress = false;
    for await (const line of lines(child.stdout)) {
      // deno-lint-ignore no-control-regex
      if (/^[.,!]+$/.test(line.replace(/\x1b\[[0-9;]*m/g, ""))) {
        if (terminal) Deno.stdout.writeSync(encoder.encode(line));
        progress = terminal;
        continue;
      }
      if (progress) console.log();
      progress = false;
      console.log(line);
    }
    const { code } = await child.status;
    const report = await Deno.readTextFile(junit);
    if (report.includes("<testsuites")) {
      const { passed, failed, ignored } = countTestCases(report);
      console.log(
        `deno: test cases (it() blocks and doc examples): ${passed} passed, ` +
          `${failed} failed, ${ignored} ignored`,
      );
    }
    return code;
  } finally {
    await Deno.remove(junit);
  }
}

if (import.meta.main) {
  Deno.exit(await main());
}
