/**
 * Proves that the npm package works where it is meant to: builds it
 * (`scripts/build_npm.ts`), packs it, and in temporary npm projects that
 * install the tarball:
 *
 * - lints the package with `publint` and `@arethetypeswrong/cli`;
 * - runs the project's own test files under Node (`node --test`) and Bun
 *   (`bun test`) against the installed package, not the sources;
 * - smoke-tests a JavaScript consumer on Node and Bun (and `require()` where
 *   Node has it for ES modules), and a strict TypeScript consumer
 *   (`tsc --noEmit`, `moduleResolution: nodenext`) against the shipped types.
 *
 * ```sh
 * deno task check:npm [--keep]
 * ```
 *
 * Everything comes from the npm registry (the tools are pinned below, the
 * test dependencies at the versions `deno.lock` resolved). The last lines
 * are one summary per runner, `node: N passed, N failed, N skipped`, then
 * `bun: …` and `package checks: N passed, N failed`; the exit code is 1 if
 * anything failed. `--keep` keeps the temporary projects for inspection.
 *
 * @module
 */

import path from "node:path";
import {
  build,
  type BuildResult,
  emitTests,
  npmDependency,
  options,
  root,
} from "./build_npm.ts";

/** Tools from npm, pinned. TypeScript comes from the import map. */
const TOOLS = {
  bun: "1.4.5",
  publint: "0.3.25",
  "@arethetypeswrong/cli": "0.18.5",
};

/** `@types/node` for the TypeScript consumer: the oldest supported Node. */
const CONSUMER_NODE_TYPES = "^20.19.0";

/** No single command may run longer than this. */
const COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

/** Tests a runner ran. */
interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The outcome of one command. */
interface Output {
  code: number;
  text: string;
}

const keep = Deno.args.includes("--keep");
const checks = { passed: 0, failed: 0 };
const results = new Map<"node" | "bun", Counts>();

/** Runs one named check; a throw is a failed check, reported and counted. */
async function check(
  name: string,
  body: () => Promise<void> | void,
): Promise<void> {
  console.log(`\n=== ${name}`);
  try {
    await body();
    checks.passed += 1;
    console.log(`ok: ${name}`);
  } catch (error) {
    checks.failed += 1;
    console.log(
      `FAILED: ${name}: ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** Runs a command, echoes its output, and returns its exit code and text. */
async function exec(
  command: string,
  args: string[],
  cwd: string,
  echo = true,
): Promise<Output> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", FORCE_COLOR: "0" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS),
  }).output();
  const decoder = new TextDecoder();
  const text = decoder.decode(stdout) + decoder.decode(stderr);
  if (echo && text.trim() !== "") console.log(text.trimEnd());
  return { code, text };
}

/** Like {@linkcode exec}, but a non-zero exit throws. */
async function execOk(
  command: string,
  args: string[],
  cwd: string,
  echo = true,
): Promise<Output> {
  const output = await exec(command, args, cwd, echo);
  if (output.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${output.code}`);
  }
  return output;
}

/** `npm install` into a fresh project at `dir` with these dependencies. */
async function npmProject(
  dir: string,
  dependencies: Record<string, string>,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  writeJson(path.join(dir, "package.json"), {
    private: true,
    type: "module",
    dependencies,
  });
  await execOk("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error",
  ], dir);
}

/**
 * The npm packages of the import map, at the versions `deno.lock` resolved
 * (so Node and Bun test with what Deno tested with).
 */
function lockedImportMapPackages(): Record<string, string> {
  const imports: Record<string, string> = readJson(
    path.join(root, options.importMap),
  ).imports ?? {};
  const lock = readJson(path.join(root, "deno.lock"));
  const locked: Record<string, string> = lock.specifiers ?? {};
  const packages: Record<string, string> = {};
  for (const [key, target] of Object.entries(imports)) {
    const dependency = npmDependency(key, imports);
    if (dependency === undefined) continue;
    const version = locked[target.replace(/\/$/, "")];
    packages[dependency.name] = version ?? dependency.range;
  }
  return packages;
}

/** `# pass N` … from `node --test`'s TAP summary. */
function nodeCounts(text: string): Counts | undefined {
  const count = (label: string) => {
    const match = new RegExp(`^# ${label} (\\d+)$`, "m").exec(text);
    return match === null ? undefined : Number(match[1]);
  };
  const passed = count("pass");
  const failed = count("fail");
  if (passed === undefined || failed === undefined) return undefined;
  return {
    passed,
    failed: failed + (count("cancelled") ?? 0),
    skipped: (count("skipped") ?? 0) + (count("todo") ?? 0),
  };
}

/** ` N pass` … from `bun test`'s summary. */
function bunCounts(text: string): Counts | undefined {
  const count = (label: string) => {
    const match = new RegExp(`^\\s*(\\d+) ${label}$`, "m").exec(text);
    return match === null ? undefined : Number(match[1]);
  };
  const passed = count("pass");
  const failed = count("fail");
  if (passed === undefined || failed === undefined) return undefined;
  return {
    passed,
    failed,
    skipped: (count("skip") ?? 0) + (count("todo") ?? 0),
  };
}

/** Runs a test runner and records its counts; no summary is one failure. */
async function runTests(
  runner: "node" | "bun",
  command: string,
  args: string[],
  cwd: string,
  parse: (text: string) => Counts | undefined,
): Promise<void> {
  console.log(`\n=== ${runner}: the test suite against the package`);
  const output = await exec(command, args, cwd);
  const counts = parse(output.text) ?? { passed: 0, failed: 0, skipped: 0 };
  if (output.code !== 0 && counts.failed === 0) counts.failed = 1;
  results.set(runner, counts);
}

const SMOKE_JS = `import assert from "node:assert/strict";
import {
  renderPrompt,
  SystemPromptError,
  TOOL_ORDER_REST,
} from "@rxprompt/system-prompt";

const prompt = renderPrompt({
  sections: [
    { name: "identity", order: -100, text: "You are a coding agent." },
    { name: "empty", order: 0, text: "" },
    { name: "env", order: 100, text: "You run on {{model}}." },
  ],
  tools: [],
  variables: { model: "example-model" },
});
assert.equal(prompt, "You are a coding agent.\\n\\nYou run on example-model.");
assert.equal(TOOL_ORDER_REST, "<unlisted-tools>");
assert.throws(
  () =>
    renderPrompt({
      sections: [{ name: "s", order: 0, text: "{{missing}}" }],
      tools: [],
      variables: {},
    }),
  (error) => error instanceof SystemPromptError && error.code === "UNKNOWN_VARIABLE",
);
console.log(prompt);
`;

const SMOKE_CJS =
  `// CommonJS callers: require() of an ES module, where Node has it.
const assert = require("node:assert/strict");
if (!process.features.require_module) {
  console.log("require(esm) is not available on Node " + process.version);
  return;
}
const { renderPrompt } = require("@rxprompt/system-prompt");
assert.equal(
  renderPrompt({ sections: [{ name: "a", order: 0, text: "hi" }], tools: [], variables: {} }),
  "hi",
);
console.log("require() works on Node " + process.version);
`;

const SMOKE_TS = `import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  SystemPromptError,
  type SystemPromptErrorCode,
  TOOL_ORDER_REST,
  type ToolSchema,
} from "@rxprompt/system-prompt";

const section: AssembledSection = { name: "env", order: 100, text: "On {{model}}." };
const tool: ToolSchema = { name: "shell", description: "Runs a command.", parameters: {} };
const assembly: PromptAssembly = {
  sections: [section],
  tools: [tool],
  variables: { model: "example-model", unset: undefined },
};
const prompt: string = renderPrompt(assembly);
const rest: string = TOOL_ORDER_REST;

function codeOf(error: unknown): SystemPromptErrorCode | undefined {
  return error instanceof SystemPromptError ? error.code : undefined;
}

// The shipped types are real, not \`any\`:
// @ts-expect-error sections must be an array of sections
renderPrompt({ sections: "text", tools: [], variables: {} });
// @ts-expect-error not a code
const bad: SystemPromptErrorCode = "NOT_A_CODE";

export { bad, codeOf, prompt, rest };
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: "es2022",
    lib: ["es2022"],
    module: "nodenext",
    moduleResolution: "nodenext",
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
    verbatimModuleSyntax: true,
  },
  files: ["smoke.ts"],
};

async function main(): Promise<number> {
  const started = performance.now();
  const work = await Deno.makeTempDir({ prefix: "rxprompt_npm_" });
  try {
    let built: BuildResult | undefined;
    let tarball = "";
    await check("build the package (scripts/build_npm.ts)", async () => {
      built = await build(options);
    });
    if (built === undefined) return summary(started);
    const outDir = built.outDir;
    const { name } = built.packageJson;

    await check("npm pack", async () => {
      const output = await execOk(
        "npm",
        [
          "pack",
          "--json",
          "--pack-destination",
          work,
        ],
        outDir,
        false,
      );
      const packed = JSON.parse(output.text.slice(output.text.indexOf("[")));
      tarball = path.join(work, packed[0].filename);
      console.log(
        `${packed[0].filename}: ${packed[0].entryCount} files, ` +
          `${packed[0].size} bytes packed`,
      );
      const files: string[] = packed[0].files.map((f: { path: string }) =>
        f.path
      );
      for (const required of ["package.json", "README.md", "LICENSE"]) {
        if (!files.includes(required)) throw new Error(`${required} missing`);
      }
      const stray = files.filter((file) =>
        !["package.json", "README.md", "LICENSE"].includes(file) &&
        !/^esm\/.*\.(js|d\.ts)$/.test(file)
      );
      if (stray.length > 0) {
        throw new Error(`unexpected files in the tarball: ${stray.join(", ")}`);
      }
    });
    if (tarball === "") return summary(started);

    // One project with the package, the test dependencies and the tools.
    const harness = path.join(work, "test");
    const bin = (tool: string) => path.join(harness, "node_modules/.bin", tool);
    let installed = false;
    await check(
      "install the tarball, test dependencies and tools",
      async () => {
        await npmProject(harness, {
          ...lockedImportMapPackages(),
          ...TOOLS,
          [name]: `file:${tarball}`,
        });
        installed = true;
      },
    );
    if (!installed) return summary(started);

    await check("publint --strict", async () => {
      await execOk(bin("publint"), ["run", outDir, "--strict"], harness);
    });
    await check("attw --profile esm-only", async () => {
      await execOk(
        bin("attw"),
        [tarball, "--profile", "esm-only", "--format", "table-flipped"],
        harness,
      );
    });

    let testFiles: string[] = [];
    await check("compile the test files against the package", () => {
      const emitted = emitTests(
        options,
        built!,
        path.join(harness, "node_modules", name),
        path.join(harness, "tests"),
      );
      testFiles = emitted.tests.map((file) => `./tests/${file}`);
      console.log(`${testFiles.length} test files`);
      if (emitted.skipped.length > 0) {
        console.log(`Deno-only, skipped: ${emitted.skipped.join(", ")}`);
      }
    });
    if (testFiles.length > 0) {
      await runTests(
        "node",
        "node",
        [
          "--test",
          "--test-reporter=tap",
          "--test-timeout=60000",
          ...testFiles,
        ],
        harness,
        nodeCounts,
      );
      await runTests(
        "bun",
        bin("bun"),
        [
          "test",
          "--timeout=60000",
          ...testFiles,
        ],
        harness,
        bunCounts,
      );
    }

    // A consumer with nothing but the tarball (and Node's types).
    const consumer = path.join(work, "consumer");
    await check("consumer: install the tarball alone", async () => {
      await npmProject(consumer, { [name]: `file:${tarball}` });
      await execOk("npm", [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        "--save-dev",
        `@types/node@${CONSUMER_NODE_TYPES}`,
      ], consumer);
      Deno.writeTextFileSync(path.join(consumer, "smoke.mjs"), SMOKE_JS);
      Deno.writeTextFileSync(path.join(consumer, "smoke.cjs"), SMOKE_CJS);
      Deno.writeTextFileSync(path.join(consumer, "smoke.ts"), SMOKE_TS);
      writeJson(path.join(consumer, "tsconfig.json"), TSCONFIG);
    });
    await check("consumer: import and render on Node", async () => {
      await execOk("node", ["smoke.mjs"], consumer);
    });
    await check("consumer: require() on Node", async () => {
      await execOk("node", ["smoke.cjs"], consumer);
    });
    await check("consumer: import and render on Bun", async () => {
      await execOk(bin("bun"), ["smoke.mjs"], consumer);
    });
    await check("consumer: tsc --noEmit (strict, nodenext)", async () => {
      await execOk(bin("tsc"), ["-p", "tsconfig.json"], consumer);
    });
    return summary(started);
  } finally {
    if (keep) console.log(`kept ${work}`);
    else await Deno.remove(work, { recursive: true });
  }
}

/** Prints the summary lines; returns the exit code. */
function summary(started: number): number {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\nnpm package checked in ${seconds}s`);
  let failed = checks.failed;
  for (const runner of ["node", "bun"] as const) {
    const counts = results.get(runner) ??
      { passed: 0, failed: 0, skipped: 0 };
    failed += counts.failed;
    console.log(
      `${runner}: ${counts.passed} passed, ${counts.failed} failed, ` +
        `${counts.skipped} skipped`,
    );
  }
  console.log(
    `package checks: ${checks.passed} passed, ${checks.failed} failed`,
  );
  return failed > 0 ? 1 : 0;
}

function readJson(file: string) {
  return JSON.parse(Deno.readTextFileSync(file));
}

function writeJson(file: string, value: unknown): void {
  Deno.writeTextFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

if (import.meta.main) {
  Deno.exit(await main());
}
