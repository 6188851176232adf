/**
 * Builds the npm package into `npm/`: ESM JavaScript and `.d.ts` files that
 * the TypeScript compiler (from npm, pinned in the `deno.json` import map)
 * emits for `mod.ts` and everything it imports, a `package.json` generated
 * from `deno.json`, and `README.md` and `LICENSE`.
 *
 * ```sh
 * deno task build:npm
 * ```
 *
 * The inputs are one options object, {@linkcode options}, shaped like dnt's
 * `BuildOptions` (`entryPoints`, `outDir`, `importMap`, `scriptModule`,
 * `compilerOptions`, `package`, `test`, `postBuild`), so that moving to dnt
 * once JSR is reachable is a small change. `scripts/check_npm.ts` packs the
 * result and runs the test suite against it on Node and Bun, with the test
 * files compiled by {@linkcode emitTests}.
 *
 * @module
 */

import ts from "typescript";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The subset of dnt's `BuildOptions` this build understands. */
export interface BuildOptions {
  /** Modules exported by the package: `"./mod.ts"` is the `"."` export. */
  entryPoints: string[];
  /** Where the package is written; emptied first. */
  outDir: string;
  /** The import map that maps bare specifiers to `npm:` packages. */
  importMap: string;
  /** `false`: ESM only, no CommonJS build (dnt's option of that name). */
  scriptModule: false;
  /** Target and libraries: what the emitted code may rely on at run time. */
  compilerOptions: { target: "ES2022"; lib: string[]; types: string[] };
  /** Build-only npm packages (types), installed into `outDir` unsaved. */
  devDependencies: Record<string, string>;
  /** The `package.json` fields; exports, dependencies and files are added. */
  package: PackageJson;
  /** The test files that `scripts/check_npm.ts` runs on Node and Bun. */
  test: {
    /** Where the test files live. */
    rootTestDir: string;
    /** Which files under `rootTestDir` are test files. */
    testPattern: RegExp;
    /** Directories under the root that hold no tests (benches). */
    exclude: string[];
    /**
     * Test files that need Deno itself (Deno APIs, the Deno CLI, files of
     * the repository that are not in the package); skipped on Node and Bun.
     */
    denoOnly: string[];
  };
  /** Runs after the package is emitted, with the options' paths resolved. */
  postBuild(outDir: string): void;
}

/** The generated `package.json`. */
export interface PackageJson {
  name: string;
  version: string;
  description: string;
  license: string;
  [field: string]: unknown;
}

/** The repository root (this file is `<root>/scripts/build_npm.ts`). */
export const root: string = fileURLToPath(new URL("..", import.meta.url));

const denoJson = readJson(path.join(root, "deno.json"));

/** The build's inputs, in dnt's shape. */
export const options: BuildOptions = {
  entryPoints: ["./mod.ts"],
  outDir: "./npm",
  importMap: "./deno.json",
  scriptModule: false,
  compilerOptions: {
    target: "ES2022",
    // Node 20 is the floor: ES2024 APIs (Promise.withResolvers,
    // Object.groupBy) are missing there, so they must not type-check.
    lib: ["ES2023", "ESNext.Disposable"],
    types: ["node"],
  },
  devDependencies: { "@types/node": "^20.19.0" },
  package: {
    name: String(denoJson.name),
    version: String(denoJson.version),
    description: String(denoJson.description),
    license: String(denoJson.license),
    keywords: ["ai", "agent", "llm", "system-prompt", "prompt", "rxjs"],
    sideEffects: false,
    engines: { node: ">=20" },
  },
  test: {
    rootTestDir: "./tests",
    testPattern: /_test\.ts$/,
    exclude: ["./tests/bench/"],
    denoOnly: [],
  },
  postBuild(outDir) {
    Deno.copyFileSync(
      path.join(root, "README.md"),
      path.join(outDir, "README.md"),
    );
    Deno.copyFileSync(path.join(root, "LICENSE"), path.join(outDir, "LICENSE"));
  },
};

/** Where the emitted modules go inside the package. */
const ESM_DIR = "esm";

/** What {@linkcode build} produced. */
export interface BuildResult {
  /** Absolute path of the package directory. */
  outDir: string;
  /** The `package.json` written there. */
  packageJson: PackageJson;
  /** Repository-relative `.ts` paths of the modules in the package. */
  modules: string[];
}

/** Builds the package described by `opts`. */
export async function build(opts: BuildOptions): Promise<BuildResult> {
  const outDir = path.resolve(root, opts.outDir);
  const importMap = readImportMap(path.resolve(root, opts.importMap));
  const entryFiles = opts.entryPoints.map((entry) => path.resolve(root, entry));

  // The module graph and the npm packages it needs, before anything else, so
  // package.json knows its dependencies when npm installs them.
  const graph = moduleGraph(entryFiles);
  const dependencies: Record<string, string> = {};
  for (const specifier of [...graph.bare].sort()) {
    if (specifier.startsWith("node:")) continue;
    const dependency = npmDependency(specifier, importMap);
    if (dependency === undefined) {
      throw new Error(
        `${specifier}: not in the import map as an npm: package; the npm ` +
          `build can only ship npm dependencies`,
      );
    }
    dependencies[dependency.name] = dependency.range;
  }

  await emptyDir(outDir);
  const exports: Record<string, { types: string; default: string }> = {};
  for (const entry of entryFiles) {
    const emitted = emittedPath(path.relative(root, entry));
    const key = path.basename(entry) === "mod.ts"
      ? "."
      : `./${path.basename(entry, ".ts")}`;
    exports[key] = {
      types: `./${emitted.replace(/\.js$/, ".d.ts")}`,
      default: `./${emitted}`,
    };
  }
  const main = exports["."];
  const packageJson: PackageJson = {
    ...opts.package,
    type: "module",
    ...(main ? { main: main.default, types: main.types } : {}),
    exports,
    files: [`${ESM_DIR}/`],
    ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}),
  };
  writeJson(path.join(outDir, "package.json"), packageJson);

  // Types of the dependencies (and the build-only types) for the compiler,
  // resolved from the package directory as a consumer would.
  const devDependencies = Object.entries(opts.devDependencies).map(
    ([name, range]) => `${name}@${range}`,
  );
  await run("npm", [
    "install",
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--ignore-scripts",
    ...devDependencies,
  ], outDir);

  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: opts.compilerOptions.lib.map((lib) => `lib.${lib.toLowerCase()}.d.ts`),
    types: opts.compilerOptions.types,
    typeRoots: [path.join(outDir, "node_modules", "@types")],
    // Deno's defaults, then deno.json's own compilerOptions.
    strict: true,
    noImplicitOverride: true,
    ...denoCompilerOptions(),
    isolatedModules: true,
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    declaration: true,
    rootDir: root,
    outDir: path.join(outDir, ESM_DIR),
    newLine: ts.NewLineKind.LineFeed,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(compilerOptions);
  // Bare specifiers resolve from the package directory (its node_modules),
  // relative ones from the importing file.
  const fromPackage = path.join(outDir, "index.ts");
  host.resolveModuleNameLiterals = (literals, containingFile) =>
    literals.map((literal) =>
      ts.resolveModuleName(
        literal.text,
        isRelative(literal.text) ? containingFile : fromPackage,
        compilerOptions,
        host,
      )
    );
  const program = ts.createProgram(entryFiles, compilerOptions, host);
  // The compiler rewrites `.ts` specifiers in JavaScript only; declarations
  // get the same `.js` specifiers here.
  const emit = program.emit(
    undefined,
    (file, text, bom, onError, sources, data) => {
      const output = file.endsWith(".d.ts")
        ? rewriteSpecifiers(
          file,
          text,
          (specifier) =>
            isRelative(specifier)
              ? specifier.replace(/\.(m?)ts$/, ".$1js")
              : specifier,
        )
        : text;
      host.writeFile(file, output, bom, onError, sources, data);
    },
  );
  const diagnostics = [
    ...ts.getPreEmitDiagnostics(program),
    ...emit.diagnostics,
  ];
  if (diagnostics.length > 0 || emit.emitSkipped) {
    throw new Error(
      "the TypeScript compiler reported errors:\n" +
        ts.formatDiagnosticsWithColorAndContext(diagnostics, {
          getCanonicalFileName: (name) => name,
          getCurrentDirectory: () => root,
          getNewLine: () => "\n",
        }),
    );
  }
  const modules = program.getSourceFiles()
    .map((file) => path.resolve(file.fileName))
    .filter((file) => graph.files.has(file))
    .map((file) => path.relative(root, file))
    .sort();

  opts.postBuild(outDir);
  return { outDir, packageJson, modules };
}

/** What {@linkcode emitTests} wrote. */
export interface EmittedTests {
  /** The runnable test files, relative to the destination directory. */
  tests: string[];
  /** The Deno-only test files that were left out. */
  skipped: string[];
}

/**
 * Compiles the test files (and the helpers beside them) to JavaScript in
 * `destDir`, mirroring `rootTestDir`, with the module under test replaced by
 * the installed package: `../mod.ts` becomes the package name, and
 * `../src/x.ts` the same module inside `installedPackage`. `npm:` specifiers
 * lose their prefix and version; import-map names stay bare.
 */
export function emitTests(
  opts: BuildOptions,
  built: BuildResult,
  installedPackage: string,
  destDir: string,
): EmittedTests {
  const testRoot = path.resolve(root, opts.test.rootTestDir);
  const excluded = opts.test.exclude.map((dir) => path.resolve(root, dir));
  const denoOnly = new Set(
    opts.test.denoOnly.map((f) => path.resolve(root, f)),
  );
  const packaged = new Map<string, string>();
  for (const module of built.modules) {
    packaged.set(path.resolve(root, module), module);
  }
  const entries = new Map(
    opts.entryPoints.map((entry) => [
      path.resolve(root, entry),
      path.basename(entry) === "mod.ts"
        ? built.packageJson.name
        : `${built.packageJson.name}/${path.basename(entry, ".ts")}`,
    ]),
  );

  const tests: string[] = [];
  const skipped: string[] = [];
  for (const file of walk(testRoot)) {
    if (excluded.some((dir) => file.startsWith(dir + path.sep))) continue;
    const relative = path.relative(testRoot, file);
    if (denoOnly.has(file)) {
      skipped.push(path.relative(root, file));
      continue;
    }
    const target = path.join(destDir, relative.replace(/\.ts$/, ".js"));
    Deno.mkdirSync(path.dirname(target), { recursive: true });
    if (!file.endsWith(".ts")) {
      Deno.copyFileSync(file, target);
      continue;
    }
    const source = Deno.readTextFileSync(file);
    const rewritten = rewriteSpecifiers(file, source, (specifier) => {
      if (specifier.startsWith("npm:")) return npmSpecifierPath(specifier);
      if (!isRelative(specifier)) {
        if (specifier.startsWith("jsr:") || /^https?:/.test(specifier)) {
          throw new Error(
            `${path.relative(root, file)}: ${specifier} cannot be installed ` +
              `from npm; list the file in options.test.denoOnly`,
          );
        }
        return specifier;
      }
      const resolved = path.resolve(path.dirname(file), specifier);
      const entry = entries.get(resolved);
      if (entry !== undefined) return entry;
      const module = packaged.get(resolved);
      if (module !== undefined) {
        const inPackage = path.join(installedPackage, emittedPath(module));
        return relativeSpecifier(path.dirname(target), inPackage);
      }
      if (resolved.startsWith(testRoot + path.sep)) {
        return specifier.replace(/\.(m?)ts$/, ".$1js");
      }
      throw new Error(
        `${path.relative(root, file)}: ${specifier} is neither in the npm ` +
          `package nor under ${opts.test.rootTestDir}; list the file in ` +
          `options.test.denoOnly`,
      );
    });
    const output = ts.transpileModule(rewritten, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        newLine: ts.NewLineKind.LineFeed,
      },
      reportDiagnostics: true,
    });
    if (output.diagnostics && output.diagnostics.length > 0) {
      throw new Error(
        ts.formatDiagnostics(output.diagnostics, {
          getCanonicalFileName: (name) => name,
          getCurrentDirectory: () => root,
          getNewLine: () => "\n",
        }),
      );
    }
    Deno.writeTextFileSync(target, output.outputText);
    if (opts.test.testPattern.test(file)) {
      tests.push(path.relative(destDir, target));
    }
  }
  return { tests: tests.sort(), skipped: skipped.sort() };
}

/** The `.ts` files reachable from `entries` and the bare specifiers used. */
function moduleGraph(
  entries: string[],
): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = Deno.readTextFileSync(file);
    for (const specifier of moduleSpecifiers(file, source)) {
      if (isRelative(specifier.text)) {
        pending.push(path.resolve(path.dirname(file), specifier.text));
      } else {
        bare.add(specifier.text);
      }
    }
  }
  return { files, bare };
}

/**
 * Every module specifier of a file: static imports and re-exports (type-only
 * ones too), `import()` with a string literal, and `import("x")` types.
 */
function moduleSpecifiers(file: string, source: string): ts.StringLiteral[] {
  const sourceFile = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );
  const found: ts.StringLiteral[] = [];
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
      found.push(node.arguments[0] as ts.StringLiteral);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  }
  visit(sourceFile);
  return found;
}

/** `source` with every module specifier replaced by `map(specifier)`. */
function rewriteSpecifiers(
  file: string,
  source: string,
  map: (specifier: string) => string,
): string {
  const specifiers = moduleSpecifiers(file, source)
    .sort((a, b) => a.getStart() - b.getStart());
  let output = "";
  let position = 0;
  for (const specifier of specifiers) {
    const start = specifier.getStart() + 1; // inside the quotes
    const end = specifier.getEnd() - 1;
    output += source.slice(position, start) + map(specifier.text);
    position = end;
  }
  return output + source.slice(position);
}

/** `deno.json`'s `compilerOptions`, converted for the compiler API. */
function denoCompilerOptions(): ts.CompilerOptions {
  const converted = ts.convertCompilerOptionsFromJson(
    denoJson.compilerOptions ?? {},
    root,
  );
  if (converted.errors.length > 0) {
    throw new Error(
      `deno.json compilerOptions: ${
        converted.errors.map((error) =>
          ts.flattenDiagnosticMessageText(error.messageText, "\n")
        ).join("; ")
      }`,
    );
  }
  return converted.options;
}

/** The import map's `imports`. */
function readImportMap(file: string): Record<string, string> {
  const imports = readJson(file).imports;
  return typeof imports === "object" && imports !== null
    ? imports as Record<string, string>
    : {};
}

/** The npm package behind a bare specifier, through the import map. */
export function npmDependency(
  specifier: string,
  importMap: Record<string, string>,
): { name: string; range: string } | undefined {
  let target = importMap[specifier];
  if (target === undefined) {
    // A subpath of a mapped package ("rxjs/operators"), through a "rxjs/"
    // entry or the package's own entry.
    const prefix = Object.keys(importMap)
      .filter((key) =>
        specifier.startsWith(key.endsWith("/") ? key : `${key}/`)
      )
      .sort((a, b) => b.length - a.length)[0];
    if (prefix !== undefined) target = importMap[prefix];
  }
  if (target === undefined || !target.startsWith("npm:")) return undefined;
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?/.exec(target);
  if (match === null) return undefined;
  return { name: match[1], range: match[2] ?? "*" };
}

/** `npm:fast-check@^4.10.2/sub` → `fast-check/sub`. */
function npmSpecifierPath(specifier: string): string {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@[^/]+)?(\/.*)?$/.exec(
    specifier,
  );
  if (match === null) throw new Error(`${specifier}: not an npm: specifier`);
  return match[1] + (match[2] ?? "");
}

/** `src/render.ts` → `esm/src/render.js`. */
function emittedPath(module: string): string {
  return `${ESM_DIR}/${module.split(path.sep).join("/")}`.replace(
    /\.ts$/,
    ".js",
  );
}

function relativeSpecifier(fromDir: string, file: string): string {
  const relative = path.relative(fromDir, file).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../");
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

/** Empties `dir` but keeps its `node_modules` (npm reuses what is there). */
async function emptyDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name === "node_modules") continue;
    await Deno.remove(path.join(dir, entry.name), { recursive: true });
  }
}

/** Runs a command with inherited stdout/stderr; throws unless it exits 0. */
export async function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<void> {
  const { code } = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  }
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(file));
}

function writeJson(file: string, value: unknown): void {
  Deno.writeTextFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

if (import.meta.main) {
  const result = await build(options);
  console.log(
    `built ${result.packageJson.name}@${result.packageJson.version} in ` +
      `${path.relative(Deno.cwd(), result.outDir) || "."}: ` +
      `${result.modules.length} modules`,
  );
}
