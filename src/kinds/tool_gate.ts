/**
 * The tool gate kind: anonymous functions (or live sources) of the context
 * that say which tools are active for one assembly. The assembly's
 * `activeTools` holds the tools every answering gate of the layers read
 * allows, in canonical order (the listed tools, then the deferred ones);
 * `tools` still lists every tool, so the tools block a provider caches
 * stays byte-identical while gates change.
 *
 * Built after the tools kind: a gate's names are checked against the tools
 * and the providers' `knownNames` of the same assembly.
 *
 * @module
 */

import { describeError, userCodeFailed } from "../shared/user_code.ts";
import {
  describeScope,
  functionName,
  isSystemPromptError,
  quote,
  SystemPromptError,
} from "../errors.ts";
import { assertSource, callSource, isLive, liveOr } from "./live.ts";
import { gatedToolsOf } from "./tool_deferral.ts";
import type { PromptAssembly, ScopeKey } from "../types.ts";
import type {
  GateAnswer,
  Kind,
  KindBuildOptions,
  KindLayer,
  Provenance,
  RecordBase,
} from "./kind.ts";

export type { GateAnswer };

/** A registered tool gate, as stored in a layer. */
export interface ToolGateRecord extends RecordBase {
  /** A function of the context, or a `LiveValue` (undefined before a value). */
  readonly gate: unknown;
}

/** The tool gate kind; a layer keeps its gates in registration order. */
export const toolGateKind: Kind<ToolGateRecord> = {
  change: "toolGate",
  record: toToolGateRecord,
  build: buildToolGates,
};

function toToolGateRecord(
  gate: unknown,
  { label, sequence }: Provenance,
): ToolGateRecord {
  // Before its first value, a live gate does not answer.
  const live = liveOr(gate, undefined);
  assertSource(live, "A tool gate");
  return { gate: live, label, sequence };
}

/** Names a gate in a message: its function name, position and registrar. */
export function describeGate(
  record: ToolGateRecord,
  index: number,
  scope: ScopeKey | undefined,
): string {
  const noun = isLive(record.gate) ? "tool gate source" : "tool gate";
  const name = isLive(record.gate) ? undefined : functionName(record.gate);
  const which = name !== undefined ? `${name} (#${index})` : `#${index}`;
  return `${noun} ${which} of registrar ${quote(record.label)} (${
    describeScope(scope)
  })`;
}

function buildToolGates(
  layers: readonly KindLayer<ToolGateRecord>[],
  context: unknown,
  draft: PromptAssembly,
  { notes }: KindBuildOptions,
): void {
  let index = 0;
  let answered: GateAnswer[] | undefined;
  for (const { records, scope } of layers) {
    for (const record of records) {
      const position = ++index;
      const describe = () => describeGate(record, position, scope);
      const result = callSource(record.gate, context, describe);
      if (result === undefined) continue;
      const allowed = readNames(result, describe);
      checkKnown(allowed, { draft, known: notes.knownToolNames, describe });
      (answered ??= []).push({ record, scope, index: position, allowed });
    }
  }
  if (answered === undefined) return;
  notes.gateAnswers = answered;
  const active: string[] = [];
  for (const tool of gatedToolsOf(draft)) {
    if (answered.every(({ allowed }) => allowed.has(tool.name))) {
      active.push(tool.name);
    }
  }
  draft.activeTools = active;
}

/**
 * A gate's answer as a set of names; a hostile iterable fails typed, with
 * what reading it threw as `cause`.
 */
function readNames(result: unknown, describe: () => string): Set<string> {
  const iterable = iterableOf(result, describe);
  const names = new Set<string>();
  try {
    for (const name of iterable) {
      if (typeof name !== "string") {
        throw new SystemPromptError(
          "INVALID_PROVIDER",
          `The ${describe()} returned a name that is ${quote(name)}; every ` +
            `name a tool gate returns is a tool name (a string).`,
        );
      }
      names.add(name);
    }
  } catch (error) {
    if (isSystemPromptError(error)) throw error;
    throw userCodeFailed(
      `Reading the result of the ${describe()} threw`,
      error,
    );
  }
  return names;
}

/**
 * `result` as an iterable, its `Symbol.iterator` read once. Throws
 * `INVALID_PROVIDER` for a string or a non-iterable, with what reading the
 * iterator threw (a revoked Proxy, a throwing getter or trap) as `cause`.
 */
function iterableOf(
  result: unknown,
  describe: () => string,
): Iterable<unknown> {
  let iterator: unknown;
  let unreadable: { cause: unknown } | undefined;
  if (typeof result === "object" && result !== null) {
    try {
      iterator = (result as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    } catch (error) {
      unreadable = { cause: error };
    }
  }
  if (typeof iterator === "function") {
    const method = iterator as () => Iterator<unknown>;
    return { [Symbol.iterator]: () => method.call(result) };
  }
  throw new SystemPromptError(
    "INVALID_PROVIDER",
    `The ${describe()} returned ${quote(result)}${
      unreadable === undefined
        ? ""
        : ` whose Symbol.iterator cannot be read (${
          describeError(unreadable.cause)
        })`
    }; a tool gate returns an iterable of tool names (for example ` +
      `["read_file"]) or undefined to leave the choice to the other gates.`,
    unreadable,
  );
}

/** Throws `UNKNOWN_TOOL_IN_GATE` for a name no tool or `knownNames` has. */
function checkKnown(
  allowed: ReadonlySet<string>,
  { draft, known, describe }: {
    draft: PromptAssembly;
    known: ReadonlySet<string> | undefined;
    describe: () => string;
  },
): void {
  let present: Set<string> | undefined;
  for (const name of allowed) {
    if (known?.has(name)) continue;
    present ??= new Set(gatedToolsOf(draft).map((tool) => tool.name));
    if (present.has(name)) continue;
    throw unknownToolInGate(name, `The ${describe()}`, [
      ...present,
      ...(known ?? []),
    ]);
  }
}

/**
 * `UNKNOWN_TOOL_IN_GATE` for `name`, set by `who` (the start of a sentence,
 * such as `"The tool gate #1 of registrar …"`).
 */
export function unknownToolInGate(
  name: string,
  who: string,
  known: Iterable<string>,
): SystemPromptError {
  const names = [...new Set(known)].sort();
  const shown = names.length > 20
    ? `${names.slice(0, 20).map(quote).join(", ")}, …`
    : names.map(quote).join(", ");
  return new SystemPromptError(
    "UNKNOWN_TOOL_IN_GATE",
    `${who} allows tool ${quote(name)}, which no tool provider of this ` +
      `assembly offers or lists in knownNames; known tools: ${
        shown === "" ? "none" : shown
      }. Fix the name, or list it in a provider's knownNames.`,
  );
}
