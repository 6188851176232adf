/**
 * The config loader: imports a config module and reads its default export,
 * which is a `SystemPrompt`, `{ prompt, scopes?, context?, dispose? }`, or a (possibly
 * async) function returning either. Every way a config can be wrong is a
 * {@linkcode CliError} with one line that names the config and what would
 * be valid.
 *
 * @module
 */

import type { AssembleContext, ScopeKey, SystemPrompt } from "../mod.ts";
import { CliError, describeError } from "./cli_error.ts";
import { node } from "./node.ts";
import { within } from "./deadline.ts";

/** The brand of every copy of `SystemPrompt` (see src/system_prompt.ts). */
const BRAND = Symbol.for("rxprompt.SystemPrompt");

const EXPECTED = "export default a SystemPrompt, { prompt, scopes?, " +
  "context?, dispose? }, or a (possibly async) function returning either";

const KEYS = new Set(["prompt", "scopes", "context", "dispose"]);

/** A loaded config: the registry, its named scopes, and their contexts. */
export interface PromptConfig {
  /** The path the config was loaded from, as given. */
  readonly source: string;
  readonly prompt: SystemPrompt;
  /** Named scopes, in the config's key order. */
  readonly scopes: ReadonlyMap<string, ScopeKey>;
  /**
   * The assembly context for `scope` (`undefined`: the global view), with
   * its `scope` set.
   *
   * @throws {CliError} when the config's `context` function fails
   */
  context(scope: ScopeKey | undefined): AssembleContext;
  /**
   * The config's own teardown (its `dispose` export): called before the
   * registry is disposed, when a command ends and when `watch` or
   * `inspect --serve` replace the config with a saved one.
   */
  readonly dispose?: () => unknown;
}

/** One view a command assembles: the global view or a named scope. */
export interface Target {
  /** The scope's name; `undefined` for the global view. */
  readonly name: string | undefined;
  readonly key: ScopeKey | undefined;
}

let reloads = 0;

/** Options of {@linkcode loadConfig}. */
export interface LoadOptions {
  /** Import the config module itself anew (the modules it imports stay cached). */
  fresh?: boolean;
  /** How long the import and the default export may take (default 10 s). */
  timeoutMs?: number;
}

/**
 * Imports the config at `path` (relative to the working directory) and
 * reads it, under a time limit: a config whose import or default export
 * never settles is a config error, not a hang. With `fresh`, the module
 * itself is imported anew (the modules it imports stay cached), so an
 * edited config is seen.
 *
 * @throws {CliError} for a missing file, a config that fails to load, or
 * one that takes longer than `timeoutMs`; the message names the config
 */
export async function loadConfig(
  path: string,
  options: LoadOptions = {},
): Promise<PromptConfig> {
  const file = node.resolve(path);
  try {
    await node.stat(file);
  } catch {
    throw new CliError(`config ${path} not found`);
  }
  const url = node.pathToFileURL(file);
  if (options.fresh) url.search = `reload=${++reloads}`;
  return await within(
    {
      timeoutMs: options.timeoutMs,
      what: `config ${path}`,
      verb: "did not finish loading",
      why: "its import or its default export never settled",
    },
    () => load(url, { path, file }),
  );
}

async function load(
  url: URL,
  { path, file }: { path: string; file: string },
): Promise<PromptConfig> {
  let module: unknown;
  try {
    module = await import(url.href);
  } catch (error) {
    const where = await nodeSyntaxLocation(error, file);
    throw new CliError(
      `config ${path} failed to load: ${loadFailure(error, path, where)}`,
    );
  }
  try {
    return await readConfig(module, path);
  } catch (error) {
    if (error instanceof CliError) throw error;
    // A hostile default export (a throwing getter, a revoked Proxy): still
    // one line that names the config.
    throw new CliError(
      `config ${path}: reading its default export failed: ${
        describeError(error)
      }`,
    );
  }
}

/**
 * On Node, where a syntax error is: Node keeps the location out of the
 * error object, so ask `node --check FILE` (only on this failure path).
 * `undefined` elsewhere, or when the config itself parses (the error is in
 * a module it imports).
 */
async function nodeSyntaxLocation(
  error: unknown,
  file: string,
): Promise<string | undefined> {
  const onNode = !("Deno" in globalThis) && !("Bun" in globalThis);
  if (!onNode || !(error instanceof Error) || error.name !== "SyntaxError") {
    return undefined;
  }
  const stderr = await node.checkSyntax(file);
  const first = stderr.split("\n", 1)[0];
  return first.startsWith(file + ":") && /:\d+$/.test(first)
    ? first
    : undefined;
}

/**
 * Why an import of a config failed, in one line: how to run TypeScript on
 * this runtime, a syntax error's `file:line:column`, or the error itself.
 */
export function loadFailure(
  error: unknown,
  path = "FILE",
  where?: string,
): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_UNKNOWN_FILE_EXTENSION") {
    return "this runtime cannot import TypeScript; on Node 22.6+ run it " +
      "with NODE_OPTIONS=--experimental-strip-types (23.6+ strips types by " +
      "default), before Node 22.6 install tsx and run it with " +
      "NODE_OPTIONS=--import=tsx, with Bun run bun x --bun rxprompt (plain " +
      "bun x runs Node), or write the config as .mjs";
  }
  const syntax = syntaxError(error, path, where);
  if (syntax !== undefined) return syntax;
  return describeError(error);
}

/**
 * A syntax error as `syntax error at FILE:LINE:COLUMN: what`. Deno puts the
 * location in the message; Node keeps it out of the error object, so the
 * line says how to get it.
 */
function syntaxError(
  error: unknown,
  path: string,
  where: string | undefined,
): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const message = String(error.message);
  if (error.name !== "SyntaxError" && !message.startsWith("SyntaxError")) {
    return undefined;
  }
  const what = message.split("\n", 1)[0].replace(/^SyntaxError: /, "").trim();
  const at = /\bat (file:\/\/\S+?):(\d+):(\d+)\s*$/m.exec(message);
  if (at === null) {
    return where === undefined
      ? `syntax error: ${what} (node --check ${path} shows the line)`
      : `syntax error at ${where}: ${what}`;
  }
  let file = at[1];
  try {
    file = decodeURIComponent(new URL(file).pathname);
  } catch {
    // Not a URL after all: keep it as written.
  }
  return `syntax error at ${file}:${at[2]}:${at[3]}: ${what}`;
}

/**
 * Reads a config module's namespace: checks the default export, calls it
 * when it is a function, and checks the result.
 *
 * @throws {CliError} naming `source` and what would be valid
 */
export async function readConfig(
  module: unknown,
  source: string,
): Promise<PromptConfig> {
  if (
    typeof module !== "object" || module === null || !("default" in module)
  ) {
    throw new CliError(`config ${source} has no default export; ${EXPECTED}`);
  }
  let value: unknown = module.default;
  if (isSystemPromptClass(value)) {
    throw new CliError(
      `config ${source} exports the SystemPrompt class itself; export an ` +
        `instance (export default new SystemPrompt(...))`,
    );
  }
  if (typeof value === "function") {
    try {
      value = await value();
    } catch (error) {
      throw new CliError(
        `config ${source}: its default export function failed: ${
          describeError(error)
        }`,
      );
    }
    if (typeof value === "function") {
      throw new CliError(
        `config ${source}: its default export function returned a function; ` +
          `it must return a SystemPrompt or { prompt, scopes?, context?, dispose? }`,
      );
    }
  } else if (isThenable(value)) {
    try {
      value = await value;
    } catch (error) {
      throw new CliError(
        `config ${source}: its default export promise rejected: ${
          describeError(error)
        }`,
      );
    }
  }
  return fromValue(value, source);
}

function fromValue(value: unknown, source: string): PromptConfig {
  if (isSystemPrompt(value)) {
    return config(source, value, new Map(), undefined);
  }
  if (!isPlainObject(value)) {
    throw new CliError(
      `config ${source}: the default export is ${describe(value)}; ${EXPECTED}`,
    );
  }
  const unknown = Object.keys(value).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) {
    throw new CliError(
      `config ${source}: unknown key ${JSON.stringify(unknown[0])} in the ` +
        `default export; the keys are prompt, scopes, context and dispose`,
    );
  }
  const { prompt, scopes, context, dispose } = value;
  if (!isSystemPrompt(prompt)) {
    throw new CliError(
      `config ${source}: prompt is ${describe(prompt)}; it must be a ` +
        `SystemPrompt`,
    );
  }
  if (context !== undefined && typeof context !== "function") {
    throw new CliError(
      `config ${source}: context is ${describe(context)}; it must be a ` +
        `function (scope) => assembly context, or absent`,
    );
  }
  if (dispose !== undefined && typeof dispose !== "function") {
    throw new CliError(
      `config ${source}: dispose is ${describe(dispose)}; it must be a ` +
        `function that stops the config's own timers and callbacks, or ` +
        `absent`,
    );
  }
  return {
    ...config(
      source,
      prompt,
      readScopes(scopes, source),
      context as ((scope?: ScopeKey) => unknown) | undefined,
    ),
    ...(dispose === undefined
      ? {}
      : { dispose: () => (dispose as () => unknown).call(value) }),
  };
}

function readScopes(
  scopes: unknown,
  source: string,
): Map<string, ScopeKey> {
  if (scopes === undefined) return new Map();
  if (!isPlainObject(scopes)) {
    throw new CliError(
      `config ${source}: scopes is ${describe(scopes)}; it must be an ` +
        `object mapping each scope name to its scope key, or absent`,
    );
  }
  const named = new Map<string, ScopeKey>();
  for (const [name, key] of Object.entries(scopes)) {
    if (key === null || key === undefined) {
      throw new CliError(
        `config ${source}: scopes.${name} is ${key}; a scope key is any ` +
          `other value (usually the agent object or its id)`,
      );
    }
    named.set(name, key as ScopeKey);
  }
  return named;
}

function config(
  source: string,
  prompt: unknown,
  scopes: ReadonlyMap<string, ScopeKey>,
  contextOf: ((scope?: ScopeKey) => unknown) | undefined,
): PromptConfig {
  return {
    source,
    prompt: prompt as SystemPrompt,
    scopes,
    context(scope) {
      if (contextOf === undefined) return scope === undefined ? {} : { scope };
      return scopedContext(contextOf, scope, source);
    },
  };
}

function scopedContext(
  contextOf: (scope?: ScopeKey) => unknown,
  scope: ScopeKey | undefined,
  source: string,
): AssembleContext {
  const where = scope === undefined ? "the global view" : "a scope";
  let context: unknown;
  try {
    context = contextOf(scope);
  } catch (error) {
    throw new CliError(
      `config ${source}: context() failed for ${where}: ${
        describeError(error)
      }`,
    );
  }
  if (typeof context !== "object" || context === null) {
    throw new CliError(
      `config ${source}: context() returned ${describe(context)} for ` +
        `${where}; it must return an assembly context object`,
    );
  }
  const own = (context as AssembleContext).scope;
  if (own === undefined || own === null) {
    if (scope === undefined) return context as AssembleContext;
    // Keep the prototype: a class-instance context keeps its methods.
    return Object.assign(
      Object.create(Object.getPrototypeOf(context)),
      context,
      { scope },
    );
  }
  if (own !== scope) {
    throw new CliError(
      `config ${source}: context() returned a context for another scope ` +
        `than the one it was given, for ${where}; leave scope out or pass ` +
        `the given one back`,
    );
  }
  return context as AssembleContext;
}

/** The global view, then every named scope in the config's order. */
export function targets(config: PromptConfig): Target[] {
  return [
    { name: undefined, key: undefined },
    ...[...config.scopes].map(([name, key]) => ({ name, key })),
  ];
}

/**
 * The target `--scope NAME` selects; the global view without a name.
 *
 * @throws {CliError} for a name the config does not define
 */
export function target(config: PromptConfig, name?: string): Target {
  if (name === undefined) return { name, key: undefined };
  if (config.scopes.has(name)) return { name, key: config.scopes.get(name) };
  const names = [...config.scopes.keys()];
  throw new CliError(
    `config ${config.source} has no scope named ${JSON.stringify(name)}; ` +
      (names.length === 0
        ? "it names no scopes (add scopes: { name: key } to its default export)"
        : `its scopes are ${names.join(", ")}`),
  );
}

/** Whether `value` is a `SystemPrompt` of any copy of the module. */
export function isSystemPrompt(value: unknown): boolean {
  return typeof value === "object" && value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true;
}

function isSystemPromptClass(value: unknown): boolean {
  return typeof value === "function" &&
    isSystemPrompt((value as { prototype?: unknown }).prototype);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A value's kind, for an error message. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return `a ${typeof value} (${String(value)})`;
    case "boolean":
      return `${value}`;
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
  }
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object"
    ? `a ${name} instance`
    : "an object";
}
