/**
 * Deferred tools (SPEC §10.3), the registry's side: a tool source's
 * deferral read from its registration's options or from its result, and an
 * assembly's tools split into the listed ones and the deferred ones after
 * the canonical order was settled over all of them (so `toolOrder`, the
 * shadowing by name, `DUPLICATE_TOOL` and the stability placement treat a
 * deferred tool as any other).
 *
 * Pure: no state, no RxJS.
 *
 * @module
 */

import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import { compareCodeUnits } from "../shared/util.ts";
import type { PromptAssembly, ToolDeferral, ToolSchema } from "../types.ts";

/** The options of a `tools()` registration, read once. */
export interface ToolsOptionsRead {
  /** The `stability` given (checked by the stability rules). */
  readonly stability: unknown;
  /** The `defer` given, checked; absent when not given. */
  readonly defer: ToolDeferral | undefined;
}

/**
 * Reads `tools()`'s options: an object `{ stability?, defer? }`, each field
 * read once.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for options that are not an
 * object, a field whose read throws, or a `defer` that is not a
 * {@linkcode ToolDeferral}, naming the registration (`what`)
 */
export function readToolsOptions(
  options: unknown,
  what: () => string,
): ToolsOptionsRead {
  if (options === undefined) return { stability: undefined, defer: undefined };
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The options of the ${what()} must be an object { stability?, ` +
        `defer? }; got ${quote(options)}.`,
    );
  }
  const read = <T>(field: () => T): T =>
    readGuarded(
      field,
      "INVALID_CONFIG",
      () =>
        `Reading the options of the ${what()} threw; they are an object ` +
        `{ stability?, defer? } whose fields can be read.`,
    );
  const fields = options as { stability?: unknown; defer?: unknown };
  const stability = read(() => fields.stability);
  const given = read(() => fields.defer);
  const defer = given === undefined
    ? undefined
    : read(() =>
      readDeferral(given, {
        code: "INVALID_CONFIG",
        where: () => `The defer option of the ${what()}`,
      })
    );
  return { stability, defer };
}

/**
 * `value` as a {@linkcode ToolDeferral}: `true`, `false`, or `{ above: n }`
 * with `n` a whole number, 0 or more (read once).
 *
 * @throws {SystemPromptError} `code`, starting with `where()`, for anything
 * else
 */
export function readDeferral(
  value: unknown,
  { code, where }: {
    code: "INVALID_CONFIG" | "INVALID_TOOL_SCHEMA";
    where: () => string;
  },
): ToolDeferral {
  if (typeof value === "boolean") return value;
  let shown = quote(value);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const above: unknown = (value as { above?: unknown }).above;
    if (Number.isSafeInteger(above) && (above as number) >= 0) {
      return { above: above as number };
    }
    shown = `{ above: ${quote(above)} }`;
  }
  throw new SystemPromptError(
    code,
    `${where()} is ${shown}; it is true (defer every tool of the ` +
      `source), false, or { above: n } with n a whole number, 0 or more ` +
      `(defer them when the source offers more than n tools).`,
  );
}

/** Whether a source offering `count` tools defers them under `deferral`. */
export function defers(
  deferral: ToolDeferral | undefined,
  count: number,
): boolean {
  if (deferral === undefined || deferral === false) return false;
  return deferral === true || count > deferral.above;
}

/**
 * Writes `ordered` (the canonical order of every kept tool) into `draft`:
 * the tools of `deferred` (each with its source's registrar label) into
 * `deferredTools` and `deferredSources`, the others into `tools`. Nothing
 * deferred among them: `tools` only.
 */
export function splitDeferred(
  ordered: readonly ToolSchema[],
  deferred: ReadonlyMap<ToolSchema, string>,
  draft: PromptAssembly,
): void {
  const listed: ToolSchema[] = [];
  const later: ToolSchema[] = [];
  for (const tool of ordered) {
    (deferred.has(tool) ? later : listed).push(tool);
  }
  draft.tools = listed;
  if (later.length === 0) return;
  draft.deferredTools = later;
  const names = later.map((tool) => tool.name).sort(compareCodeUnits);
  const labels = new Map(later.map((tool) => [tool.name, deferred.get(tool)!]));
  draft.deferredSources = ownRecord(
    names.map((name) => [name, labels.get(name)!]),
  );
}

/**
 * A record of `entries`, each an own key (even `__proto__`: a define, not
 * an assignment).
 */
function ownRecord(
  entries: readonly (readonly [string, string])[],
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(result, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

/**
 * The names of an assembly's listed tools, then its deferred tools: what a
 * gate or `activeTools` may name, in `activeTools`' order.
 */
export function gatedToolsOf(
  assembly: Pick<PromptAssembly, "tools" | "deferredTools">,
): readonly ToolSchema[] {
  const deferred = assembly.deferredTools;
  return deferred === undefined || deferred.length === 0
    ? assembly.tools
    : [...assembly.tools, ...deferred];
}
