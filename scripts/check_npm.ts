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
  // One retry: a registry hiccup should not fail the run.
  const args = [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error",
  ];
  if ((await exec("npm", args, dir)).code !== 0) {
    await execOk("npm", args, dir);
  }
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
import { firstValueFrom } from "rxjs";
import {
  HARNESS_IDENTITY,
  renderPrompt,
  SystemPrompt,
  SystemPromptError,
  TOOL_ORDER_REST,
} from "@rxprompt/system-prompt";

const prompt = new SystemPrompt({
  persona: "You are {{agent_name}}.",
  toolOrder: ["shell", TOOL_ORDER_REST],
});
const changes = [];
prompt.change$.subscribe((change) => changes.push(change.type));
prompt.variable("agent_name", () => "Ada");
prompt.variable("model", () => "example-model");
prompt.section({ name: "env", order: 50, text: "You run on {{model}}." });
prompt.tools(() => ({
  schemas: [
    { name: "read", description: "Reads a file.", parameters: {} },
    { name: "shell", description: "Runs a command.", parameters: {} },
  ],
}));
const agent = { id: "reviewer" };
const scope = prompt.scope(agent);
scope.section({ name: "deployment:persona", order: 0, text: "You review code." });

const assembly = await prompt.assemble();
const text = renderPrompt(assembly);
assert.equal(
  text,
  HARNESS_IDENTITY + "\\n\\nYou are Ada.\\n\\nYou run on example-model.",
);
assert.deepEqual(assembly.tools.map((tool) => tool.name), ["shell", "read"]);
const scoped = renderPrompt(await prompt.assemble({ scope: agent }));
assert.match(scoped, /You review code\\./);
assert.doesNotMatch(scoped, /Ada/);
const view = await firstValueFrom(prompt.watch({ scope: agent }));
assert.equal(view.prompt, scoped);

await scope.dispose();
assert.equal(renderPrompt(await prompt.assemble({ scope: agent })), text);
assert.throws(
  () =>
    renderPrompt({
      sections: [{ name: "s", order: 0, text: "{{missing}}" }],
      tools: [],
      variables: {},
    }),
  (error) => error instanceof SystemPromptError && error.code === "UNKNOWN_VARIABLE",
);
await prompt.dispose();
await assert.rejects(prompt.assemble(), SystemPromptError);
assert.ok(changes.includes("register") && changes.includes("unregister"));
console.log(text);
`;

const SMOKE_CJS =
  `// CommonJS callers: require() of an ES module, where Node has it.
const assert = require("node:assert/strict");
if (!process.features.require_module) {
  console.log("require(esm) is not available on Node " + process.version);
  return;
}
const { renderPrompt, SystemPrompt } = require("@rxprompt/system-prompt");
const prompt = new SystemPrompt({ includeHarnessIdentity: false, persona: "hi" });
prompt.assemble().then((assembly) => {
  assert.equal(renderPrompt(assembly), "hi");
  console.log("require() works on Node " + process.version);
  return prompt.dispose();
});
`;

const SMOKE_TS = `import type { Observable } from "rxjs";
import {
  type AssembledSection,
  type Disposer,
  type PromptAssembly,
  type PromptChange,
  type PromptView,
  type Registrar,
  renderPrompt,
  SystemPrompt,
  SystemPromptError,
  type SystemPromptErrorCode,
  TOOL_ORDER_REST,
  type ToolSchema,
} from "@rxprompt/system-prompt";

interface Agent {
  name: string;
}
interface Context {
  scope?: Agent;
  signal?: AbortSignal;
  cwd?: string;
}

const prompt = new SystemPrompt<Context>({
  persona: "You are {{agent_name}}.",
  toolOrder: ["shell", TOOL_ORDER_REST],
});
const agent: Agent = { name: "reviewer" };
const scope: Registrar<Context> = prompt.scope(agent);
const name: Disposer = scope.variable("agent_name", () => agent.name);
const cwd: Disposer = prompt.variable("cwd", (context) => context.cwd);
const tool: ToolSchema = { name: "shell", description: "Runs a command.", parameters: {} };
prompt.tools(() => ({ schemas: [tool] }));
prompt.onAssemble(async (assembly, _context, next) => {
  const rest: PromptAssembly = await next();
  return { ...rest, sections: [...rest.sections, ...assembly.sections.slice(0, 0)] };
});
const changes: Observable<PromptChange> = prompt.change$;
const views: Observable<PromptView> = prompt.watch({ scope: agent });

async function render(): Promise<string> {
  await using _cwd = cwd;
  const assembly: PromptAssembly = await prompt.assemble({ scope: agent, cwd: "/tmp" });
  const first: AssembledSection | undefined = assembly.sections[0];
  await name();
  return renderPrompt(assembly) + (first?.name ?? "");
}

function codeOf(error: unknown): SystemPromptErrorCode | undefined {
  return error instanceof SystemPromptError ? error.code : undefined;
}

// The shipped types are real, not \`any\`:
// @ts-expect-error sections must be an array of sections
renderPrompt({ sections: "text", tools: [], variables: {} });
// @ts-expect-error not a code
const bad: SystemPromptErrorCode = "NOT_A_CODE";
// @ts-expect-error a section needs an order
prompt.section({ name: "x", text: "y" });
// @ts-expect-error the context type is checked
void prompt.assemble({ cwd: 42 });

export { bad, changes, codeOf, render, views };
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

/** A consumer without `@types/node`: the DOM and disposable libs instead. */
const TSCONFIG_DOM = {
  ...TSCONFIG,
  compilerOptions: {
    ...TSCONFIG.compilerOptions,
    lib: ["es2022", "dom", "esnext.disposable"],
    types: [],
  },
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
      writeJson(path.join(consumer, "tsconfig.dom.json"), TSCONFIG_DOM);
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
    await check("consumer: tsc --noEmit without @types/node", async () => {
      await execOk(bin("tsc"), ["-p", "tsconfig.dom.json"], consumer);
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
