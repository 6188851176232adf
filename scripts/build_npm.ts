/**
 * Builds the npm package into `npm/` with dnt: ESM JavaScript (no CommonJS
 * build, see README "Install") with `.d.ts` files in `types/`, a
 * `package.json` from `deno.json`, `README.md`, the guides in `docs/` and
 * `LICENSE`.
 *
 * ```sh
 * deno task build:npm
 * ```
 *
 * Entry points are `deno.json`'s `exports` (a string is the `"."` export)
 * and the commands in {@linkcode BINS}. `scripts/check_npm.ts` packs the
 * result and tests it on Node and Bun.
 *
 * @module
 */

// Types only: the value comes from loadDnt(), so that a machine without JSR
// gets one line instead of a module-graph error, and `deno check` passes
// against the mirror (through a static value import it asks the mirror for
// @deno/graph, a type-only dependency of dnt's that the mirror does not hold).
import type { BuildOptions, EntryPoint } from "@deno/dnt";

/** npm commands: name → module (for example `rxprompt: "./cli/main.ts"`). */
export const BINS: Record<string, string> = { rxprompt: "./cli/main.ts" };

/** A package of the import map that the consumer provides. */
export interface PeerDependency {
  /** The versions the package accepts. */
  range: string;
  /**
   * Only some subpaths need it (`peerDependenciesMeta` `optional`): npm does
   * not install it, and a consumer that imports none of them needs none.
   */
  optional: boolean;
  /** The subpaths the module imports it by (default: only the package root). */
  subpaths?: readonly string[];
  /**
   * The version the build type-checks against, where the import map's needs
   * a newer Node than the machine that builds may run (CI's may be Node 20):
   * npm would install it with `EBADENGINE` warnings. Default: the import
   * map's range.
   */
  build?: string;
}

/** The consumer's packages: name → range and whether it is optional. */
export const PEER_DEPENDENCIES: Record<string, PeerDependency> = {
  // `./ai-sdk` only. `ai` 7 needs Node 22, `ai` 6 Node 18 (see README): the
  // build checks against `ai` 6, `deno check` and check:npm against both.
  // (`openai` is no dependency: the adapters' results fit its types.)
  ai: { range: "^6 || ^7", optional: true, build: "6.0.325" },
  // `./gemini` only, and only its types (the function-calling mode is an
  // enum of the SDK's). 3.x needs Node 22: the build checks against 2.x.
  "@google/genai": { range: "^2 || ^3", optional: true, build: "2.32.0" },
  // `./otel` only, imported on the first span: without it, importing
  // `./otel` works and recording rejects with MISSING_PEER_DEPENDENCY.
  "@opentelemetry/api": { range: "^1.3.0", optional: true },
  // `./mcp` only: a connected Client of the MCP SDK.
  "@modelcontextprotocol/sdk": {
    range: "^1.10.0",
    optional: true,
    subpaths: ["client", "types"],
  },
};

/** Where the package is written. */
export const OUT_DIR: string = new URL("../npm/", import.meta.url).pathname;

const DENO_JSON = new URL("../deno.json", import.meta.url).pathname;
const denoJson = JSON.parse(await Deno.readTextFile(DENO_JSON));

/** `deno.json`'s exports, then {@linkcode BINS}. */
export function entryPoints(): EntryPoint[] {
  const exports: Record<string, string> = typeof denoJson.exports === "string"
    ? { ".": denoJson.exports }
    : denoJson.exports;
  return [
    ...Object.entries(exports).map(([name, path]) => ({ name, path })),
    ...Object.entries(BINS).map(([name, path]) => ({
      kind: "bin" as const,
      name,
      path,
    })),
  ];
}

/** The build, as dnt takes it. */
function buildOptions(): BuildOptions {
  return {
    entryPoints: entryPoints(),
    outDir: OUT_DIR,
    importMap: DENO_JSON,
    shims: {},
    test: false, // check_npm.ts runs the tests against the packed tarball
    // One copy of the module: a CommonJS twin would give a consumer that
    // mixes import and require two SystemPromptError classes.
    scriptModule: false,
    declaration: "separate",
    skipSourceOutput: true,
    mappings: peerMappings(),
    compilerOptions: {
      target: "ES2022",
      // ES2023: the module needs nothing newer from any runtime it runs on
      // (Node 22 and 24, Bun, Deno).
      lib: ["ES2023", "ESNext.Disposable"],
    },
    package: {
      name: denoJson.name,
      version: denoJson.version,
      description: denoJson.description,
      license: denoJson.license,
      keywords: ["ai", "agent", "llm", "system-prompt", "prompt", "rxjs"],
      type: "module",
      sideEffects: false,
      // `.`, `./openai` and `./anthropic`; `./ai-sdk` needs what `ai` needs.
      // Node 22 and 24 (Node 20 reached its end of life on 2026-04-30).
      engines: { node: ">=22" },
      peerDependenciesMeta: Object.fromEntries(
        Object.entries(PEER_DEPENDENCIES)
          .filter(([, peer]) => peer.optional)
          .map(([name]) => [name, { optional: true }]),
      ),
      // The build type-checks against the peers (npm skips optional ones).
      devDependencies: { "@types/node": "^22.0.0", ...peerDevDependencies() },
      // The rxprompt command imports it under a computed specifier (see
      // cli/tokens.ts), which dnt does not see.
      dependencies: { "gpt-tokenizer": npmRange("gpt-tokenizer") },
    },
    async postBuild() {
      // The guides too: the README links to them.
      const guides = [...Deno.readDirSync(new URL("../docs", import.meta.url))]
        .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
        .map((entry) => `docs/${entry.name}`);
      await Deno.mkdir(OUT_DIR + "docs", { recursive: true });
      for (const file of ["README.md", "LICENSE", ...guides]) {
        await Deno.copyFile(
          new URL(`../${file}`, import.meta.url),
          OUT_DIR + file,
        );
      }
    },
  };
}

/** The version range of an `npm:` import of the import map. */
function npmRange(name: string): string {
  const specifier: string | undefined = denoJson.imports[name];
  if (!specifier?.startsWith(`npm:${name}@`)) {
    throw new Error(`dependency ${name}: no "npm:${name}@…" import`);
  }
  return specifier.slice(`npm:${name}@`.length);
}

/** Each peer's `npm:` import, mapped to a peer dependency. */
function peerMappings(): BuildOptions["mappings"] {
  const imports: Record<string, string> = denoJson.imports;
  return Object.fromEntries(
    Object.entries(PEER_DEPENDENCIES).flatMap(([name, peer]) => {
      const specifier = imports[name];
      if (!specifier?.startsWith(`npm:${name}@`)) {
        throw new Error(`peer dependency ${name}: no "npm:${name}@…" import`);
      }
      const mapping = { name, version: peer.range, peerDependency: true };
      if (peer.subpaths === undefined) return [[specifier, mapping]];
      // An import-map name's subpath resolves to `npm:/name@range/subpath`.
      return peer.subpaths.map((subPath) => [
        `${specifier.replace(/^npm:/, "npm:/")}/${subPath}`,
        { ...mapping, subPath },
      ]);
    }),
  );
}

/** Each peer at its build version or the import map's range, to build against. */
function peerDevDependencies(): Record<string, string> {
  const imports: Record<string, string> = denoJson.imports;
  return Object.fromEntries(
    Object.entries(PEER_DEPENDENCIES).map(([name, peer]) => [
      name,
      peer.build ?? imports[name].slice(`npm:${name}@`.length),
    ]),
  );
}

/** Builds the package; returns its `package.json`. */
export async function buildPackage(): Promise<Record<string, unknown>> {
  const { build, emptyDir } = await loadDnt();
  await emptyDir(OUT_DIR);
  await build(buildOptions());
  // dnt names the ESM files under "import" only; Node's require(esm) asks
  // for "require" or "default", so each export becomes unconditional.
  const packageJson = JSON.parse(
    await Deno.readTextFile(OUT_DIR + "package.json"),
  );
  for (const [name, target] of Object.entries(packageJson.exports)) {
    packageJson.exports[name] = (target as { import: unknown }).import;
  }
  await Deno.writeTextFile(
    OUT_DIR + "package.json",
    JSON.stringify(packageJson, null, 2) + "\n",
  );
  return packageJson;
}

/** dnt from JSR, or an error that says what the build needs. */
async function loadDnt(): Promise<typeof import("@deno/dnt")> {
  try {
    return await import("@deno/dnt");
  } catch {
    const registry = Deno.env.get("JSR_URL") ?? "https://jsr.io/";
    throw new Error(
      `the npm build needs jsr:@deno/dnt@0.41.0, which ${registry} did not ` +
        "serve; reach JSR, or run the local JSR mirror and set " +
        "JSR_URL=http://127.0.0.1:4874/ (see docs/development.md)",
    );
  }
}

if (import.meta.main) {
  try {
    const { name, version } = await buildPackage();
    console.log(`built ${name}@${version} in npm/`);
  } catch (error) {
    // dnt prints its diagnostics itself: one line is enough here.
    console.error(`error: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
