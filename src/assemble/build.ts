/**
 * Assembly: a snapshot of layers → the initial assembly (each kind adds its
 * part, in the table's order) → the listener waterfall, as one promise.
 * Holds no state: the registry passes in the snapshot it read.
 *
 * @module
 */

import { defer, type Observable } from "rxjs";
import type {
  BuildOptions,
  Kind,
  KindLayer,
  RecordBase,
} from "../kinds/kind.ts";
import { listenersOf } from "../kinds/listener.ts";
import { completeSectionOf } from "../kinds/section.ts";
import {
  settleStability,
  type SettleStabilityOptions,
  takeVariableStabilities,
} from "../kinds/stability.ts";
import {
  KIND_NAMES,
  type KindName,
  KINDS,
  type RecordOf,
} from "../kinds/table.ts";
import type { Snapshot } from "../store/layers.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { abortable, waterfall } from "./waterfall.ts";

/**
 * The assembly for `context`: the initial assembly is built at once, then
 * flows through the listeners. Aborting `context.signal` rejects it with the
 * signal's reason; the signal is checked between stages, so an abort raised
 * by a provider or a listener is noticed and no later stage runs. With
 * `options.trace` (only `explain` sets it), the trace's `built` sees the
 * initial assembly before the listeners.
 */
export function assemble<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: BuildOptions = {},
): Promise<PromptAssembly> {
  const signal = context.signal;
  try {
    if (signal?.aborted) throw signal.reason;
    const suppress = options.suppressRuntimeContext === true ||
      snapshot.some(({ state }) => state.suppressor.length > 0);
    const built = suppress === options.suppressRuntimeContext
      ? options
      : { ...options, suppressRuntimeContext: suppress };
    const assembly = buildAssembly(snapshot, context, built);
    options.trace?.built?.(assembly);
    const listeners = listenersOf(layersOf(snapshot, "listener"));
    const complete = completeSectionOf(assembly);
    const stability: SettleStabilityOptions = takeVariableStabilities(
      assembly,
    );
    const result = waterfall(listeners, assembly, context, signal);
    return abortable(
      result instanceof Promise
        ? result.then((value) =>
          finish(value, { complete, suppress, stability })
        )
        : finish(result, { complete, suppress, stability }),
      signal,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** {@linkcode assemble} as a one-value observable, built on subscription. */
export function assembly$<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: BuildOptions = {},
): Observable<PromptAssembly> {
  return defer(() => assemble(snapshot, context, options));
}

/** What runs on a snapshot: {@linkcode assembly$}, or `explain`'s pipeline. */
export type Pipeline<T> = (
  snapshot: Snapshot,
  context: AssembleContext,
  options: BuildOptions,
) => Observable<T>;

/**
 * The waterfall's result with what the registry restores after it: the one
 * complete section, an empty runtime context when it is off, and the
 * `runtimeContext` key a 0.1-shaped listener result lacks; then the
 * effective stability of what is left (SPEC §8.13.2).
 */
function finish(
  result: PromptAssembly,
  { complete, suppress, stability }: {
    complete: PromptAssembly["sections"][number] | undefined;
    suppress: boolean;
    stability: SettleStabilityOptions;
  },
): PromptAssembly {
  const clear = suppress && result.runtimeContext?.length !== 0;
  if (complete === undefined && !clear && result.runtimeContext !== undefined) {
    return settleStability(result, stability);
  }
  const finished = { ...result, runtimeContext: result.runtimeContext ?? [] };
  if (complete !== undefined) finished.sections = [complete];
  if (clear) finished.runtimeContext = [];
  return settleStability(finished, stability);
}

/** The registry's contribution: each kind's part, in the table's order. */
export function buildAssembly(
  snapshot: Snapshot,
  context: unknown,
  options: BuildOptions = {},
): PromptAssembly {
  const draft: PromptAssembly = {
    sections: [],
    tools: [],
    variables: {},
    runtimeContext: [],
  };
  const signal = (context as AssembleContext).signal;
  for (const name of KIND_NAMES) {
    if (signal?.aborted) throw signal.reason;
    const kind = KINDS[name] as Kind<RecordBase>;
    kind.build?.(layersOf(snapshot, name), context, draft, options);
  }
  return draft;
}

function layersOf<K extends KindName>(
  snapshot: Snapshot,
  name: K,
): KindLayer<RecordOf<K>>[] {
  return snapshot.map(({ state, scope }) => ({
    records: state[name] as readonly RecordOf<K>[],
    scope,
  }));
}
