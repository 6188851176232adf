/**
 * `activeTools` after the waterfall: listeners may set or change it, so the
 * final value is checked (an array of names a provider knows) and kept to
 * the names of `tools` and `deferredTools`, in their order. A name no
 * provider knows rejects with `UNKNOWN_TOOL_IN_GATE` naming the listener
 * that set it.
 *
 * To name that listener, the waterfall samples the value as each listener
 * is called and as its `next()` settles: the first sample holding the bad
 * value tells which listener was running just before it. Without listeners
 * nothing is sampled: the gates' value is already checked.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { describeError } from "../shared/user_code.ts";
import { unknownToolInGate } from "../kinds/tool_gate.ts";
import { gatedToolsOf } from "../kinds/tool_deferral.ts";
import type { AssembleListener, PromptAssembly } from "../types.ts";

/** `activeTools` seen at one moment, and the listener that ran before it. */
interface Sample {
  /** 0-based listener index; `-1` is the registry's own build. */
  readonly by: number;
  readonly active: unknown;
}

/** The waterfall's observer, and the check of its result. */
export interface ActiveToolsWatch {
  /** Samples `activeTools` as the waterfall runs (`WaterfallOptions`). */
  readonly observe: ((by: number, assembly: unknown) => void) | undefined;
  /** The result with `activeTools` checked and kept to `tools`. */
  check(result: PromptAssembly): PromptAssembly;
}

/**
 * Watches the waterfall of `listeners` for changes of `activeTools`;
 * `draft` is the registry's assembly before them, `known` the names its
 * tool providers listed in `knownNames`.
 */
export function watchActiveTools(
  listeners: readonly AssembleListener<unknown>[],
  initial: { draft: PromptAssembly; known: ReadonlySet<string> | undefined },
): ActiveToolsWatch {
  if (listeners.length === 0) return { observe: undefined, check: same };
  const samples: Sample[] = [];
  return {
    observe: (by, assembly) => record(samples, by, assembly),
    check: (result) => {
      record(samples, 0, result);
      return checkActiveTools(result, { ...initial, samples });
    },
  };
}

function same(result: PromptAssembly): PromptAssembly {
  return result;
}

/**
 * Samples `assembly.activeTools`; an absent value holds no bad name, so it
 * is not kept (the common case costs one read).
 */
function record(samples: Sample[], by: number, assembly: unknown): void {
  const active = sample(assembly);
  if (active !== undefined) samples.push({ by, active });
}

/**
 * A copy of `assembly.activeTools` as it is now (the value itself when it
 * cannot be copied, so the listener that set it is still found); never
 * throws.
 */
function sample(assembly: unknown): unknown {
  let active: unknown;
  try {
    active = (assembly as PromptAssembly).activeTools;
  } catch {
    return undefined;
  }
  try {
    return Array.isArray(active) ? [...active] : active;
  } catch {
    return active;
  }
}

/** The listener that set a value `holds` tells, as a sentence's subject. */
function describeListener(
  samples: readonly Sample[],
  holds: (active: unknown) => boolean,
): string {
  const first = samples.find((entry) => holds(entry.active));
  return first === undefined || first.by < 0
    ? "An assembly listener"
    : `The assembly listener #${first.by + 1}`;
}

/**
 * The names of `tools`, then of `deferredTools`; an entry that is not a
 * readable tool has none.
 */
function toolNames(result: PromptAssembly): string[] {
  const names: string[] = [];
  try {
    for (const tool of gatedToolsOf(result)) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name === "string") names.push(name);
    }
  } catch {
    // A hostile list or entry: the adapters reject it; it names no tool.
  }
  return names;
}

/**
 * A copy of `active` when it is an array of strings, read once; else what
 * reading it threw (a revoked Proxy, a throwing getter or trap), if it
 * threw. Never throws.
 */
function nameList(
  active: unknown,
): { names: string[] } | { names?: undefined; cause?: unknown } {
  try {
    if (!Array.isArray(active)) return {};
    const names = [...active];
    return names.every((name) => typeof name === "string") ? { names } : {};
  } catch (error) {
    return { cause: error };
  }
}

const ACTIVE_TOOLS_RULE = "activeTools is an array of tool names (or " +
  "absent: every tool is active).";

function checkActiveTools(
  result: PromptAssembly,
  { draft, known, samples }: {
    draft: PromptAssembly;
    known: ReadonlySet<string> | undefined;
    samples: readonly Sample[];
  },
): PromptAssembly {
  // The last stages' copy of the listeners' result: a plain field, read
  // once when it was made (a getter that threw was named then).
  const active: unknown = result.activeTools;
  if (active === undefined) return result;
  const list = nameList(active);
  if (list.names === undefined) {
    const who = describeListener(
      samples,
      (value) => value !== undefined && nameList(value).names === undefined,
    );
    const unreadable = "cause" in list
      ? ` that cannot be read (${describeError(list.cause)})`
      : "";
    throw new SystemPromptError(
      "INVALID_LISTENER_RESULT",
      `${who} set activeTools to ${quote(active)}${unreadable}; ` +
        ACTIVE_TOOLS_RULE,
      "cause" in list ? { cause: list.cause } : undefined,
    );
  }
  const names = list.names;
  const tools = toolNames(result);
  const present = new Set(tools);
  let initial: Set<string> | undefined;
  for (const name of names) {
    if (present.has(name) || known?.has(name)) continue;
    initial ??= new Set(gatedToolsOf(draft).map((tool) => tool.name));
    if (initial.has(name)) continue;
    const who = describeListener(
      samples,
      (value) => Array.isArray(value) && value.includes(name),
    );
    throw unknownToolInGate(name, who, [...present, ...(known ?? [])]);
  }
  const allowed = new Set(names);
  const kept = tools.filter((name) => allowed.has(name));
  if (
    kept.length === names.length &&
    kept.every((name, index) => name === names[index])
  ) {
    return result;
  }
  return { ...result, activeTools: kept };
}
