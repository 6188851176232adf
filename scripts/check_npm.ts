/**
 * Proves that the npm package works where it is meant to: builds it
 * (`scripts/build_npm.ts`, dnt), packs it, and in temporary npm projects
 * that install the tarball:
 *
 * - lints the package with `publint --strict` and `@arethetypeswrong/cli`;
 * - runs the project's test files (any depth under `tests/`, except
 *   `tests/bench/` and the Deno-only `*_sdk_test.ts` and `*_deno_test.ts`, and
 *   the `*_deno.ts` fixtures only they load) on Node 22 and Node 24
 *   (`node --test`) and Bun (`bun test`) against the installed package, not
 *   the sources;
 * - runs the newcomer path on Bedrock and Gemini (the package and their
 *   SDKs installed, one request each; `check_npm_newcomer.ts`) on Node 22,
 *   Node 24 and Bun;
 * - smoke-tests a JavaScript consumer on Node 22, Node 24 and Bun (and
 *   `require()` on both Nodes), a strict TypeScript consumer
 *   (`tsc --noEmit`, `moduleResolution: nodenext`) against the shipped types,
 *   and consumers of the SDK majors Node 22+ users get (`openai` 7, `ai` 7;
 *   `ai` 6, which the peer range still takes).
 *
 * Node 22 and Node 24 come from the npm registry's `node` package (its
 * version is Node's): the machine's own `node` (CI's may be 20, past its end
 * of life on 2026-04-30) only runs npm and the tools.
 *
 * ```sh
 * deno task check:npm [--keep]
 * ```
 *
 * Everything comes from the npm registry (the tools are pinned below, the
 * test dependencies at the versions `deno.lock` resolved). Node and Bun
 * print failures in full and no per-test lines. The last lines count test
 * cases (each `it()`), `node 22: N passed, N failed, N skipped`, then
 * `node 24: …` and `bun: …` (`.ci/run` adds them up), and
 * `package checks: N passed, N failed`; the exit code is 1 if anything
 * failed. `--keep` keeps the temporary projects for inspection.
 *
 * @module
 */

import path from "node:path";
import ts from "typescript";
import {
  buildPackage,
  entryPoints,
  OUT_DIR,
  PEER_DEPENDENCIES,
} from "./build_npm.ts";
import {
  NEWCOMER_JS,
  NEWCOMER_SDKS,
  NEWCOMER_TS,
} from "./check_npm_newcomer.ts";

/** Tools from npm, pinned. TypeScript comes from the import map. */
const TOOLS = {
  bun: "1.4.5",
  publint: "0.3.25",
  "@arethetypeswrong/cli": "0.18.5",
};

/**
 * The Node.js lines the package supports, each from the npm registry's
 * `node` package, pinned (Node 20 reached its end of life on 2026-04-30).
 */
const NODES = { "22": "22.23.3", "24": "24.9.0" } as const;
type NodeMajor = keyof typeof NODES;
const NODE_MAJORS = Object.keys(NODES) as NodeMajor[];

/** A runner of the test files: `node 22`, `node 24`, `bun`. */
type Runner = `node ${NodeMajor}` | "bun";

/** `@types/node` for the TypeScript consumers: the oldest supported Node. */
const CONSUMER_NODE_TYPES = "^22.0.0";

/**
 * The older `ai` major the peer range takes (`^6 || ^7`), the one the build
 * checks against: `./ai-sdk` is checked at run time with it too. `ai` 7, what
 * Node 22+ users get, comes from `deno.lock`.
 */
const AI_6 = PEER_DEPENDENCIES.ai.build!;

/**
 * No single command may run longer than this: a whole runtime's test suite
 * against the package takes 3–11 minutes on a loaded 2-core machine.
 */
const COMMAND_TIMEOUT_MS = 20 * 60 * 1000;

const ROOT = path.resolve(OUT_DIR, "..");
const TEST_ROOT = path.join(ROOT, "tests");
/** Not tests: benchmarks. */
const NOT_TESTS = path.join(TEST_ROOT, "bench");
/**
 * Test files that need Deno (real SDK clients, or the command line run as a
 * Deno subprocess), and what only they load (a fixture named `*_deno.ts`,
 * which may import what the package leaves out); not run on Node and Bun.
 */
const DENO_ONLY = /_(sdk|deno)(_test)?\.ts$/;
const TEST_FILE = /_test\.ts$/;

/** Test cases a runner ran. */
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
const results = new Map<Runner, Counts>();

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

/** Where and how a command runs. */
interface ExecOptions {
  cwd: string;
  /** Echo its output (default true). */
  echo?: boolean;
  /**
   * The `node` binary it runs on: its folder goes first on `PATH`, so what
   * it starts as `node` is the same Node.
   */
  node?: string;
  /** More environment variables. */
  env?: Record<string, string>;
}

/** Runs a command, echoes its output, and returns its exit code and text. */
async function exec(
  command: string,
  args: string[],
  { cwd, echo = true, node, env = {} }: ExecOptions,
): Promise<Output> {
  const first: Record<string, string> = node === undefined ? {} : {
    PATH: `${path.dirname(node)}${path.delimiter}${Deno.env.get("PATH") ?? ""}`,
  };
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", FORCE_COLOR: "0", ...first, ...env },
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
  options: ExecOptions,
): Promise<Output> {
  const output = await exec(command, args, options);
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
  if ((await exec("npm", args, { cwd: dir })).code !== 0) {
    await execOk("npm", args, { cwd: dir });
  }
}

/** `npm:fast-check@^4.10.2/sub` → `{ name: "fast-check", range, path }`. */
function npmSpecifier(
  specifier: string,
): { name: string; range: string; path: string } | undefined {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(
    specifier,
  );
  if (match === null) return undefined;
  return { name: match[1], range: match[2] ?? "*", path: match[3] ?? "" };
}

/**
 * The npm packages of the import map, at the versions `deno.lock` resolved
 * (so Node and Bun test with what Deno tested with). An entry under another
 * name than its package's (`"ai-6": "npm:ai@6..."`, another major for the
 * Deno-only SDK tests) is left out: it would replace the package's own.
 */
function lockedImportMapPackages(): Record<string, string> {
  const imports: Record<string, string> =
    readJson(path.join(ROOT, "deno.json")).imports ?? {};
  const locked: Record<string, string> =
    readJson(path.join(ROOT, "deno.lock")).specifiers ?? {};
  const packages: Record<string, string> = {};
  for (const [key, target] of Object.entries(imports)) {
    const dependency = npmSpecifier(target.replace(/\/$/, ""));
    if (dependency === undefined) continue;
    if (dependency.name !== key.replace(/\/$/, "")) continue;
    const version = locked[target.replace(/\/$/, "")];
    packages[dependency.name] = version === undefined
      ? dependency.range
      : lockedVersion(version);
  }
  return packages;
}

/**
 * A `deno.lock` npm version without its peer suffix: Deno records the
 * peers a package was resolved with (`7.0.173_zod@4.6.7`), npm wants the
 * version (`7.0.173`). Semver has no `_`, so the suffix starts at the first.
 */
function lockedVersion(version: string): string {
  const underscore = version.indexOf("_");
  return underscore === -1 ? version : version.slice(0, underscore);
}

/** What {@linkcode emitTests} wrote. */
interface EmittedTests {
  /** The runnable test files, relative to the destination directory. */
  tests: string[];
  /** The Deno-only test files that were left out. */
  skipped: string[];
}

/**
 * Compiles the test files (and the helpers beside them) to JavaScript in
 * `destDir`, mirroring `tests/`, with the module under test replaced by the
 * installed package: an entry point (`../mod.ts`) becomes its package
 * specifier, any other packaged module (`../src/x.ts`) the same module
 * inside `installed`. `npm:` specifiers lose their prefix and version;
 * import-map names stay bare.
 */
function emitTests(
  name: string,
  installed: string,
  destDir: string,
): EmittedTests {
  const entries = new Map(
    entryPoints().filter((entry) => entry.kind !== "bin").map((entry) => [
      path.resolve(ROOT, entry.path),
      path.posix.join(name, entry.name),
    ]),
  );
  const tests: string[] = [];
  const skipped: string[] = [];
  for (const file of walk(TEST_ROOT)) {
    if (file.startsWith(NOT_TESTS + path.sep)) continue;
    if (DENO_ONLY.test(file)) {
      skipped.push(path.relative(ROOT, file));
      continue;
    }
    const target = path.join(
      destDir,
      path.relative(TEST_ROOT, file).replace(/\.ts$/, ".js"),
    );
    Deno.mkdirSync(path.dirname(target), { recursive: true });
    if (!file.endsWith(".ts")) {
      Deno.copyFileSync(file, target);
      continue;
    }
    const source = rewriteSpecifiers(file, (specifier) => {
      if (specifier.startsWith("npm:")) {
        const npm = npmSpecifier(specifier)!;
        return npm.name + npm.path;
      }
      if (!isRelative(specifier)) {
        if (!specifier.startsWith("jsr:") && !/^https?:/.test(specifier)) {
          return specifier;
        }
        throw new Error(
          `${path.relative(ROOT, file)}: ${specifier} is not on npm; a test ` +
            `that needs it is Deno-only (name it *_sdk_test.ts)`,
        );
      }
      const resolved = path.resolve(path.dirname(file), specifier);
      const entry = entries.get(resolved);
      if (entry !== undefined) return entry;
      const emitted = path.join(
        installed,
        "esm",
        path.relative(ROOT, resolved).replace(/\.ts$/, ".js"),
      );
      if (!resolved.startsWith(TEST_ROOT + path.sep) && exists(emitted)) {
        return relativeSpecifier(path.dirname(target), emitted);
      }
      if (resolved.startsWith(TEST_ROOT + path.sep)) {
        return specifier.replace(/\.(m?)ts$/, ".$1js");
      }
      throw new Error(
        `${path.relative(ROOT, file)}: ${specifier} is neither in the npm ` +
          `package nor under tests/`,
      );
    });
    const output = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        newLine: ts.NewLineKind.LineFeed,
      },
    });
    Deno.writeTextFileSync(target, output.outputText);
    if (TEST_FILE.test(file)) tests.push(path.relative(destDir, target));
  }
  return { tests: tests.sort(), skipped: skipped.sort() };
}

/** The file's source with every module specifier replaced by `map`. */
function rewriteSpecifiers(
  file: string,
  map: (specifier: string) => string,
): string {
  const source = Deno.readTextFileSync(file);
  const sourceFile = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );
  const found: ts.StringLiteralLike[] = [];
  function visit(node: ts.Node): void {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0]);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  }
  visit(sourceFile);
  let output = "";
  let position = 0;
  for (const literal of found.sort((a, b) => a.getStart() - b.getStart())) {
    output += source.slice(position, literal.getStart() + 1) +
      map(literal.text);
    position = literal.getEnd() - 1;
  }
  return output + source.slice(position);
}

function* walk(dir: string): Generator<string> {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0
  );
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory) yield* walk(file);
    else if (entry.isFile) yield file;
  }
}

function exists(file: string): boolean {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../");
}

function relativeSpecifier(fromDir: string, file: string): string {
  const relative = path.relative(fromDir, file).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/** `# pass N` … from `node --test`'s TAP summary (tests, not suites). */
function nodeCounts(tap: string): Counts | undefined {
  const count = (label: string) => {
    const match = new RegExp(`^# ${label} (\\d+)$`, "m").exec(tap);
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

/** The names of the skipped and todo tests in `node --test`'s TAP. */
function nodeSkipped(tap: string): string[] {
  return [...tap.matchAll(/^\s*ok \d+ - (.*?) # (SKIP|TODO)\b/gm)]
    .map(([, name]) => name.replace(/\\(.)/g, "$1"));
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

/**
 * The test files on one Node, with `gc()` exposed for the memory tests:
 * failures in full (dot reporter), counts (TAP).
 */
async function runNode(
  files: string[],
  node: { major: NodeMajor; binary: string; cwd: string },
): Promise<void> {
  const { major, binary, cwd } = node;
  const runner: Runner = `node ${major}`;
  console.log(`\n=== ${runner}: the test suite against the package`);
  const tap = path.join(cwd, `node-${major}.tap`);
  const output = await exec(
    binary,
    [
      "--test",
      // A file is one test of the runner too: the scale files take 40–60 s
      // on a busy 2-core machine.
      "--test-timeout=180000",
      "--test-reporter=dot",
      "--test-reporter-destination=stdout",
      "--test-reporter=tap",
      `--test-reporter-destination=${tap}`,
      ...files,
    ],
    {
      cwd,
      echo: false,
      node: binary,
      // The memory tests measure heap slopes after collection. Through the
      // environment: Node 24 no longer passes its own --expose-gc on to the
      // test files' processes.
      env: { NODE_OPTIONS: "--expose-gc" },
    },
  );
  // The dot reporter's first line is one mark per test: noise in a log.
  const report = output.text.split("\n")
    .filter((line) => !/^[.X]+$/.test(line.trim())).join("\n").trim();
  if (report !== "") console.log(report);
  let counts: Counts | undefined;
  try {
    const text = Deno.readTextFileSync(tap);
    counts = nodeCounts(text);
    for (const name of nodeSkipped(text)) console.log(`skipped: ${name}`);
  } catch {
    counts = undefined;
  }
  record(runner, output.code, counts);
}

/** The test files on Bun, failures only. */
async function runBun(bun: string, files: string[], cwd: string) {
  console.log("\n=== bun: the test suite against the package");
  const output = await exec(bun, [
    "test",
    "--timeout=60000",
    "--only-failures",
    ...files,
  ], { cwd });
  record("bun", output.code, bunCounts(output.text));
}

/** Records a runner's counts; a failed run without counts is one failure. */
function record(runner: Runner, code: number, counts?: Counts) {
  const result = counts ?? { passed: 0, failed: 0, skipped: 0 };
  if (code !== 0 && result.failed === 0) result.failed = 1;
  results.set(runner, result);
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
import { toChatCompletions, toResponses } from "@rxprompt/system-prompt/openai";
import { toMessages } from "@rxprompt/system-prompt/anthropic";
import { bestLayoutTokens, simulateCache } from "@rxprompt/system-prompt/cache";

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

// The SDK-free adapters, with no SDK installed.
const chat = toChatCompletions(assembly);
assert.deepEqual(chat.system, { role: "system", content: text });
assert.deepEqual(chat.tools.map((tool) => tool.function.name), ["shell", "read"]);
const responses = toResponses(assembly, { strict: true });
assert.equal(responses.instructions, text);
assert.deepEqual(
  responses.tools.map((tool) => [tool.type, tool.name, tool.strict]),
  [["function", "shell", true], ["function", "read", true]],
);
const messages = toMessages(assembly, { cache: true });
assert.equal(messages.system.map((block) => block.text).join(""), text);
assert.deepEqual(messages.tools.map((tool) => tool.input_schema), [
  { type: "object" },
  { type: "object" },
]);
assert.deepEqual(messages.tools.map((tool) => tool.cache_control), [
  undefined,
  { type: "ephemeral" },
]);
assert.throws(
  () => toChatCompletions({ ...assembly, tools: [{ name: "a b", parameters: {} }] }),
  (error) => error instanceof SystemPromptError && error.code === "INVALID_TOOL_NAME",
);
// \`./cache\`: the second of two identical marked requests reads the first.
const cached = [0, 1].map(() => ({
  body: { system: messages.system, tools: messages.tools, messages: [] },
}));
const simulation = simulateCache(cached, {
  provider: "anthropic",
  countTokens: (text) => text.length,
  minPrefixTokens: 1,
});
assert.equal(simulation.requests[0].cachedTokens, 0);
assert.equal(
  simulation.requests[1].cachedTokens,
  simulation.requests[1].inputTokens,
);
assert.equal(
  bestLayoutTokens(cached, (text) => text.length).requests[1].boundTokens,
  simulation.requests[1].inputTokens,
);
// \`./ai-sdk\` needs its peer \`ai\`, which this consumer did not install.
await assert.rejects(
  import("@rxprompt/system-prompt/ai-sdk"),
  /Cannot find (package|module) 'ai'/,
);
// \`./otel\` needs its peer \`@opentelemetry/api\`: importing it says so.
await assert.rejects(
  import("@rxprompt/system-prompt/otel"),
  (error) =>
    error instanceof SystemPromptError &&
    error.code === "MISSING_PEER_DEPENDENCY" &&
    /npm install @opentelemetry\\\/api/.test(error.message),
);
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
import type { RxpromptConfig } from "@rxprompt/system-prompt/cli";

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

// A TypeScript config for the command (types/cli/main.d.ts exports its type):
const config = { prompt, scopes: { agent } } satisfies RxpromptConfig<Context>;
// @ts-expect-error a config needs a SystemPrompt as prompt
const badConfig: RxpromptConfig<Context> = { prompt: 42 };

export { bad, badConfig, changes, codeOf, config, render, views };
`;

/**
 * The adapters' results go into the SDKs' typed methods with no cast
 * (type-checked only: nothing is sent).
 */
const SMOKE_SDK_TS = `import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import type { PromptAssembly } from "@rxprompt/system-prompt";
import {
  type ChatCompletionsRequest,
  type ResponsesRequest,
  toChatCompletions,
  toResponses,
} from "@rxprompt/system-prompt/openai";
import { type MessagesRequest, toMessages } from "@rxprompt/system-prompt/anthropic";

export async function send(
  openai: OpenAI,
  anthropic: Anthropic,
  assembly: PromptAssembly,
): Promise<string[]> {
  const chat: ChatCompletionsRequest = toChatCompletions(assembly, { strict: true });
  const completion = await openai.chat.completions.create({
    model: "gpt-5",
    messages: chat.runtimeContext ? [chat.system, chat.runtimeContext] : [chat.system],
    tools: chat.tools,
  });

  const responses: ResponsesRequest = toResponses(assembly);
  const response = await openai.responses.create({
    model: "gpt-5",
    instructions: responses.instructions,
    input: responses.runtimeContext ? [responses.runtimeContext] : "Hello.",
    tools: responses.tools,
  });

  const messages: MessagesRequest = toMessages(assembly, {
    cache: { ttl: "1h" },
    maxCacheBreakpoints: 2,
  });
  const message = await anthropic.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: messages.system,
    tools: messages.tools,
    messages: messages.runtimeContext ? [messages.runtimeContext] : [],
  });

  // The types are real, not \`any\`:
  // @ts-expect-error Chat Completions tools are not Anthropic tools
  void anthropic.messages.create({ model: "m", max_tokens: 1, messages: [], tools: chat.tools });
  // @ts-expect-error Anthropic system blocks are not an OpenAI message
  void openai.chat.completions.create({ model: "m", messages: messages.system });

  return [completion.id, response.id, message.id];
}
`;

/**
 * Each conversation's body goes into the SDK's typed method, and the SDK's
 * answer into \`record()\`, with no cast (type-checked only: nothing is
 * sent). The Responses body of a step a person answers carries
 * \`prompt_cache_options.ttl: "12h"\`, which \`openai\` 7's types take and 6's
 * do not (\`"30m"\` only): the README says the Responses form's types need 7.
 */
const SMOKE_CONVERSATION_TS = `import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import type { SystemPrompt } from "@rxprompt/system-prompt";
import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
import { chatConversation, responsesConversation } from "@rxprompt/system-prompt/openai";

export async function converse(
  openai: OpenAI,
  anthropic: Anthropic,
  prompt: SystemPrompt,
): Promise<number> {
  const messages = anthropicConversation(prompt, {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
  });
  messages.user("Review #42.");
  const claude = messages.record(
    await anthropic.beta.messages.create(await messages.request()),
  );

  const chat = chatConversation(prompt, { model: "gpt-5.6", cache: true });
  chat.user("Review #42.");
  const completion = chat.record(
    await openai.chat.completions.create(await chat.request()),
  );

  const responses = responsesConversation(prompt, {
    model: "gpt-5.6",
    cache: true,
  });
  responses.user("Review #42.");
  const response = responses.record(
    await openai.responses.create(
      await responses.request(undefined, { awaiting: "person" }),
    ),
  );
  return claude.length + completion.length + response.length;
}
`;

/** `toAISDK`'s result goes into `generateText` with no cast. */
const SMOKE_AI_SDK_TS =
  `import { generateText, type LanguageModel, type ModelMessage } from "ai";
import type { PromptAssembly } from "@rxprompt/system-prompt";
import { type AISDKRequest, toAISDK } from "@rxprompt/system-prompt/ai-sdk";

export async function generate(
  model: LanguageModel,
  assembly: PromptAssembly,
): Promise<string> {
  const fields: AISDKRequest = toAISDK(assembly, {
    cache: true,
    execute: { shell: (input) => \`ran \${JSON.stringify(input)}\` },
  });
  const messages: ModelMessage[] = fields.runtimeContext
    ? [fields.runtimeContext]
    : [{ role: "user", content: "Hello." }];
  const result = await generateText({
    model,
    system: fields.system,
    tools: fields.tools,
    messages,
  });
  // @ts-expect-error the tools are a ToolSet, not a list
  void generateText({ model, system: fields.system, tools: [fields.tools], messages });
  return result.text;
}
`;

/** `./ai-sdk` at run time, with `ai` 7 and with `ai` 6. */
const SMOKE_AI_SDK_JS = `import assert from "node:assert/strict";
import { renderPrompt, SystemPrompt, SystemPromptError } from "@rxprompt/system-prompt";
import { toAISDK } from "@rxprompt/system-prompt/ai-sdk";

const prompt = new SystemPrompt({ persona: "You review code." });
const shellSchema = { type: "object", properties: { command: { type: "string" } } };
prompt.tools(() => ({
  schemas: [
    { name: "shell", description: "Runs a command.", parameters: shellSchema },
    { name: "read", description: "Reads a file.", parameters: {} },
  ],
}));
const assembly = await prompt.assemble();
const calls = [];
const { system, tools } = toAISDK(assembly, {
  execute: { shell: (input) => calls.push(input) },
});
assert.equal(system, renderPrompt(assembly));
assert.deepEqual(Object.keys(tools), ["read", "shell"]);
assert.deepEqual(tools.shell.inputSchema.jsonSchema, shellSchema);
await tools.shell.execute({ command: "ls" }, {});
assert.deepEqual(calls, [{ command: "ls" }]);
assert.equal(tools.read.execute, undefined);
const cached = toAISDK(assembly, { cache: true });
assert.deepEqual(cached.system, [{
  role: "system",
  content: renderPrompt(assembly),
  providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
}]);
assert.throws(
  () => toAISDK(assembly, { execute: { nope: () => 0 } }),
  (error) => error instanceof SystemPromptError && error.code === "INVALID_CONFIG",
);
await prompt.dispose();
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

/**
 * The SDK consumer: the AI SDK's declarations name DOM types (`HeadersInit`,
 * `FileList`) and untyped `json-schema`, so it takes the DOM lib and skips
 * checking the libraries' own files, as such projects do; this package's
 * declarations are checked with `skipLibCheck: false` by the consumers above.
 */
const TSCONFIG_SDK = {
  ...TSCONFIG,
  compilerOptions: {
    ...TSCONFIG.compilerOptions,
    lib: ["es2022", "dom", "dom.iterable"],
    skipLibCheck: true,
  },
};

async function main(): Promise<number> {
  const started = performance.now();
  const work = await Deno.makeTempDir({ prefix: "rxprompt_npm_" });
  try {
    let packageJson: Record<string, unknown> | undefined;
    let tarball = "";
    await check("build the package (scripts/build_npm.ts, dnt)", async () => {
      packageJson = await buildPackage();
    });
    if (packageJson === undefined) return summary(started);
    const name = String(packageJson.name);

    await check("npm pack", async () => {
      const output = await execOk(
        "npm",
        ["pack", "--json", "--pack-destination", work],
        { cwd: OUT_DIR, echo: false },
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
      // The README's links to the guides resolve inside the package.
      const readme = await Deno.readTextFile(path.join(OUT_DIR, "README.md"));
      const guides = [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)[#)]/g)]
        .map(([, file]) => file);
      for (
        const required of ["package.json", "README.md", "LICENSE", ...guides]
      ) {
        if (!files.includes(required)) throw new Error(`${required} missing`);
      }
      const stray = files.filter((file) =>
        !["package.json", "README.md", "LICENSE", "esm/package.json"]
          .includes(file) &&
        !/^(esm\/.*\.js|types\/.*\.d\.ts|docs\/[\w.-]+\.md)$/.test(file)
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
      await execOk(bin("publint"), ["run", OUT_DIR, "--strict"], {
        cwd: harness,
      });
    });
    await check("attw --profile esm-only (every entry point)", async () => {
      // Named, so that an export missing from package.json fails here.
      const exported = entryPoints().filter((entry) => entry.kind !== "bin")
        .map((entry) => entry.name);
      await execOk(
        bin("attw"),
        [
          tarball,
          "--profile",
          "esm-only",
          "--format",
          "table-flipped",
          "--entrypoints",
          ...exported,
        ],
        { cwd: harness },
      );
    });

    // Node 22 and Node 24 from the npm registry: the machine's own node
    // (CI's may be 20) only runs npm and the tools.
    const nodes = new Map<NodeMajor, string>();
    await check(
      `install Node ${NODE_MAJORS.join(" and Node ")} (npm's node package)`,
      async () => {
        for (const major of NODE_MAJORS) {
          const dir = path.join(work, `node-${major}`);
          await npmProject(dir, { node: NODES[major] });
          const binary = path.join(dir, "node_modules", "node", "bin", "node");
          const { text } = await execOk(binary, ["--version"], {
            cwd: dir,
            echo: false,
          });
          if (!text.startsWith(`v${major}.`)) {
            throw new Error(`node@${NODES[major]} runs ${text.trim()}`);
          }
          console.log(`node ${major}: ${text.trim()}`);
          nodes.set(major, binary);
        }
      },
    );
    if (nodes.size !== NODE_MAJORS.length) return summary(started);
    /** Runs `args` on Node `major`, in `cwd`; a non-zero exit throws. */
    const onNode = (
      major: NodeMajor,
      args: string[],
      options: { cwd: string; echo?: boolean },
    ) => {
      const node = nodes.get(major)!;
      return execOk(node, args, { ...options, node });
    };

    let testFiles: string[] = [];
    await check("compile the test files against the package", () => {
      const emitted = emitTests(
        name,
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
      for (const major of NODE_MAJORS) {
        await runNode(testFiles, {
          major,
          binary: nodes.get(major)!,
          cwd: harness,
        });
      }
      await runBun(bin("bun"), testFiles, harness);
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
      ], { cwd: consumer });
      Deno.writeTextFileSync(path.join(consumer, "smoke.mjs"), SMOKE_JS);
      Deno.writeTextFileSync(path.join(consumer, "smoke.cjs"), SMOKE_CJS);
      Deno.writeTextFileSync(path.join(consumer, "smoke.ts"), SMOKE_TS);
      writeJson(path.join(consumer, "tsconfig.json"), TSCONFIG);
      writeJson(path.join(consumer, "tsconfig.dom.json"), TSCONFIG_DOM);
    });
    await check("consumer: no SDK installed (ai is an optional peer)", () => {
      const sdks = ["ai", "openai", "@anthropic-ai/sdk", "@opentelemetry/api"]
        .filter((sdk) =>
          exists(path.join(consumer, "node_modules", sdk, "package.json"))
        );
      if (sdks.length > 0) throw new Error(`installed: ${sdks.join(", ")}`);
    });
    for (const major of NODE_MAJORS) {
      await check(`consumer: import and render on Node ${major}`, async () => {
        await onNode(major, ["smoke.mjs"], { cwd: consumer, echo: false });
      });
      await check(`consumer: require() on Node ${major}`, async () => {
        await onNode(major, ["smoke.cjs"], { cwd: consumer });
      });
    }
    await check("consumer: import and render on Bun", async () => {
      await execOk(bin("bun"), ["smoke.mjs"], { cwd: consumer, echo: false });
    });
    await check("consumer: tsc --noEmit (strict, nodenext)", async () => {
      await execOk(bin("tsc"), ["-p", "tsconfig.json"], { cwd: consumer });
    });
    await check("consumer: tsc --noEmit without @types/node", async () => {
      await execOk(bin("tsc"), ["-p", "tsconfig.dom.json"], { cwd: consumer });
    });

    // A consumer with the SDK majors Node 22+ users get (`openai` 7, `ai` 7,
    // `@anthropic-ai/sdk`), at deno.lock's versions.
    const sdkConsumer = path.join(work, "sdk-consumer");
    const locked = lockedImportMapPackages();
    await check("SDK consumer: install the tarball and the SDKs", async () => {
      await npmProject(sdkConsumer, {
        [name]: `file:${tarball}`,
        ...Object.fromEntries(
          ["openai", "@anthropic-ai/sdk", "ai"].map((
            sdk,
          ) => [sdk, locked[sdk]]),
        ),
        "@types/node": CONSUMER_NODE_TYPES,
      });
      Deno.writeTextFileSync(path.join(sdkConsumer, "smoke.ts"), SMOKE_SDK_TS);
      Deno.writeTextFileSync(
        path.join(sdkConsumer, "conversation.ts"),
        SMOKE_CONVERSATION_TS,
      );
      Deno.writeTextFileSync(path.join(sdkConsumer, "ai.ts"), SMOKE_AI_SDK_TS);
      Deno.writeTextFileSync(path.join(sdkConsumer, "ai.mjs"), SMOKE_AI_SDK_JS);
      writeJson(path.join(sdkConsumer, "tsconfig.json"), {
        ...TSCONFIG_SDK,
        files: ["smoke.ts", "conversation.ts", "ai.ts"],
      });
    });
    await check(
      `SDK consumer: tsc --noEmit, adapters and conversations into the ` +
        `SDKs' typed methods (openai ${locked.openai}, ai ${locked.ai})`,
      async () => {
        await execOk(bin("tsc"), ["-p", "tsconfig.json"], {
          cwd: sdkConsumer,
        });
      },
    );
    for (const major of NODE_MAJORS) {
      await check(
        `SDK consumer: toAISDK with ai ${locked.ai} on Node ${major}`,
        async () => {
          await onNode(major, ["ai.mjs"], { cwd: sdkConsumer });
        },
      );
    }
    await check(
      `SDK consumer: toAISDK with ai ${locked.ai} on Bun`,
      async () => {
        await execOk(bin("bun"), ["ai.mjs"], { cwd: sdkConsumer });
      },
    );

    // The newcomer on Bedrock and Gemini: the package and their SDKs, one
    // request each through the SDKs' clients.
    const newcomer = path.join(work, "newcomer");
    await check(
      "newcomer: install the tarball and the Bedrock and Gemini SDKs",
      async () => {
        await npmProject(newcomer, {
          [name]: `file:${tarball}`,
          ...Object.fromEntries(NEWCOMER_SDKS.map((sdk) => [sdk, locked[sdk]])),
          "@types/node": CONSUMER_NODE_TYPES,
        });
        Deno.writeTextFileSync(
          path.join(newcomer, "newcomer.mjs"),
          NEWCOMER_JS,
        );
        Deno.writeTextFileSync(path.join(newcomer, "newcomer.ts"), NEWCOMER_TS);
        writeJson(path.join(newcomer, "tsconfig.json"), {
          ...TSCONFIG_SDK,
          files: ["newcomer.ts"],
        });
      },
    );
    for (const major of NODE_MAJORS) {
      await check(`newcomer: Bedrock and Gemini on Node ${major}`, async () => {
        await onNode(major, ["newcomer.mjs"], { cwd: newcomer });
      });
    }
    await check("newcomer: Bedrock and Gemini on Bun", async () => {
      await execOk(bin("bun"), ["newcomer.mjs"], { cwd: newcomer });
    });
    await check(
      "newcomer: tsc --noEmit, the bodies into the SDKs",
      async () => {
        await execOk(bin("tsc"), ["-p", "tsconfig.json"], { cwd: newcomer });
      },
    );

    // `ai` 6, the other major the peer range takes, on the oldest Node.
    const ai6Consumer = path.join(work, "ai6-consumer");
    const oldest = NODE_MAJORS[0];
    await check(`ai ${AI_6} consumer: install the tarball and ai`, async () => {
      await npmProject(ai6Consumer, {
        [name]: `file:${tarball}`,
        ai: AI_6,
        "@types/node": CONSUMER_NODE_TYPES,
      });
      Deno.writeTextFileSync(path.join(ai6Consumer, "ai.mjs"), SMOKE_AI_SDK_JS);
      Deno.writeTextFileSync(path.join(ai6Consumer, "ai.ts"), SMOKE_AI_SDK_TS);
      writeJson(path.join(ai6Consumer, "tsconfig.json"), {
        ...TSCONFIG_SDK,
        files: ["ai.ts"],
      });
    });
    await check(`ai ${AI_6} consumer: toAISDK on Node ${oldest}`, async () => {
      await onNode(oldest, ["ai.mjs"], { cwd: ai6Consumer });
    });
    await check(`ai ${AI_6} consumer: toAISDK on Bun`, async () => {
      await execOk(bin("bun"), ["ai.mjs"], { cwd: ai6Consumer });
    });
    await check(
      `ai ${AI_6} consumer: tsc --noEmit, into generateText`,
      async () => {
        await execOk(bin("tsc"), ["-p", "tsconfig.json"], { cwd: ai6Consumer });
      },
    );
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
  console.log("test cases (it() blocks) against the package:");
  let failed = checks.failed;
  const runners: Runner[] = [
    ...NODE_MAJORS.map((major): Runner => `node ${major}`),
    "bun",
  ];
  for (const runner of runners) {
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
