/**
 * Where the registry's contribution to one assembly came from: read from the
 * snapshot the assembly was built from (section, variable and runtime
 * context names are known without calling a provider) and from the build's
 * trace (a tool's name is known only once its provider ran). For `explain`
 * only; `assemble` never calls it.
 *
 * Generic over the snapshot's layers, farthest first: a chain of any number
 * of scope layers is read the same way, each layer with its own scope key.
 *
 * @module
 */

import type { BuildTrace, RecordBase, TracedTool } from "../kinds/kind.ts";
import type { Snapshot, SnapshotLayer } from "../store/layers.ts";
import type { OwnStability } from "../kinds/stability.ts";
import { gatedToolsOf } from "../kinds/tool_deferral.ts";
import type { PromptAssembly, ScopeKey, ToolSchema } from "../types.ts";

/** A registration's origin: its registrar's label and its layer. */
export interface RegistryOrigin {
  readonly registrar: string;
  readonly layer: "global" | "scope";
  /** Present for a scope layer: that layer's scope key. */
  readonly scope?: ScopeKey;
}

/** One entry the registry contributed, as it was before the waterfall. */
export interface Registered {
  readonly origin: RegistryOrigin;
  /**
   * What the entry after the waterfall is compared with (`Object.is`): its
   * JSON (see {@linkcode fingerprintOf}), or a variable's value itself.
   */
  readonly fingerprint: unknown;
  /** The record's own stability and why (sections, variables, tools). */
  readonly own?: OwnStability;
}

/** The kinds that shadow by name, as `explain` reports them. */
export type ShadowKind = "section" | "variable" | "tool" | "runtimeContext";

/** A registration hidden by a nearer layer's registration of its name. */
export interface Shadowed extends RegistryOrigin {
  readonly kind: ShadowKind;
  readonly name: string;
  /** The registrar label of the registration that won. */
  readonly by: string;
}

/** The registry's contribution, keyed by name, and what it shadowed. */
export interface Contribution {
  readonly sections: Map<string, Registered>;
  readonly variables: Map<string, Registered>;
  readonly tools: Map<string, Registered>;
  readonly runtimeContext: Map<string, Registered>;
  /**
   * Sections, variables, tools, runtime context; each farthest layer first.
   * Built for one explanation, which takes it as it is.
   */
  readonly shadowed: Shadowed[];
}

/** A named record and the layer that holds it. */
interface Placed {
  readonly record: RecordBase & { readonly name: string };
  readonly origin: RegistryOrigin;
}

/** The kinds that shadow by name and whose names a layer state holds. */
type NamedStore = "section" | "variable" | "runtimeContext";

/** The registry's contribution to `initial`, built from `snapshot`. */
export function contributionOf(
  snapshot: Snapshot,
  initial: PromptAssembly,
  trace: BuildTrace,
): Contribution {
  const shadowed: Shadowed[] = [];
  const sections = registeredEntries(
    named(snapshot, "section", shadowed),
    initial.sections,
  );
  const variables = registeredEntries(
    named(snapshot, "variable", shadowed),
    Object.entries(initial.variables).map(([name, value]) => ({ name, value })),
    (entry) => entry.value,
  );
  const tools = registeredTools(
    trace.tools ?? [],
    gatedToolsOf(initial),
    shadowed,
  );
  const runtimeContext = registeredEntries(
    named(snapshot, "runtimeContext", shadowed),
    initial.runtimeContext ?? [],
  );
  return { sections, variables, tools, runtimeContext, shadowed };
}

/** The origin of a record of `layer`. */
export function originOf(
  record: RecordBase,
  layer: Pick<SnapshotLayer, "scope">,
): RegistryOrigin {
  const { scope } = layer;
  return scope === undefined
    ? { registrar: record.label, layer: "global" }
    : { registrar: record.label, layer: "scope", scope };
}

/**
 * The effective record of each name of one store, the nearest layer
 * winning; pushes every record it hides onto `shadowed`.
 */
function named(
  snapshot: Snapshot,
  kind: NamedStore,
  shadowed: Shadowed[],
): Map<string, Placed> {
  const winners = new Map<string, Placed>();
  for (const layer of snapshot) {
    for (const record of layer.state[kind]) {
      winners.set(record.name, { record, origin: originOf(record, layer) });
    }
  }
  for (const layer of snapshot) {
    for (const record of layer.state[kind]) {
      const winner = winners.get(record.name)!;
      if (winner.record === record) continue;
      shadowed.push({
        kind,
        name: record.name,
        ...originOf(record, layer),
        by: winner.record.label,
      });
    }
  }
  return winners;
}

/** The entries of `list` that have a registered record, by name. */
function registeredEntries<E extends { readonly name: string }>(
  winners: ReadonlyMap<string, Placed>,
  list: readonly E[],
  fingerprint: (entry: E) => unknown = fingerprintOf,
): Map<string, Registered> {
  const registered = new Map<string, Registered>();
  for (const entry of list) {
    const winner = winners.get(entry.name);
    if (winner === undefined) continue;
    registered.set(entry.name, {
      origin: winner.origin,
      fingerprint: fingerprint(entry),
      own: (winner.record as { stability?: OwnStability }).stability,
    });
  }
  return registered;
}

/**
 * The assembly's tools (listed and deferred) are some of the collected ones
 * (the same objects): the others were shadowed by the kept tool of their
 * name.
 */
function registeredTools(
  traced: readonly TracedTool[],
  tools: readonly ToolSchema[],
  shadowed: Shadowed[],
): Map<string, Registered> {
  const kept = new Set(tools);
  const winners = new Map<string, TracedTool>();
  for (const entry of traced) {
    if (kept.has(entry.tool)) winners.set(entry.tool.name, entry);
  }
  const registered = new Map<string, Registered>();
  for (const [name, { tool, record, scope }] of winners) {
    registered.set(name, {
      origin: originOf(record, { scope }),
      fingerprint: fingerprintOf(tool),
      own: (record as { stability?: OwnStability }).stability,
    });
  }
  for (const { tool, record, scope } of traced) {
    if (kept.has(tool)) continue;
    const winner = winners.get(tool.name)!;
    shadowed.push({
      kind: "tool",
      name: tool.name,
      ...originOf(record, { scope }),
      by: winner.record.label,
    });
  }
  return registered;
}

/**
 * An entry's JSON, or a fresh symbol for what JSON cannot hold (a BigInt, a
 * cycle a listener made): such an entry equals no registered one.
 */
export function fingerprintOf(entry: unknown): unknown {
  try {
    return JSON.stringify(entry);
  } catch {
    return Symbol("not JSON");
  }
}
