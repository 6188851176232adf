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
import {
  KIND_NAMES,
  type KindName,
  KINDS,
  type RecordOf,
} from "../kinds/table.ts";
import type { Snapshot } from "../layers.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { abortable, waterfall } from "./waterfall.ts";

/**
 * The assembly for `context`: the initial assembly is built at once, then
 * flows through the listeners. Aborting `context.signal` rejects it with the
 * signal's reason; the signal is checked between stages, so an abort raised
 * by a provider or a listener is noticed and no later stage runs.
 */
export function assemble<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: BuildOptions = {},
): Promise<PromptAssembly> {
  const signal = context.signal;
  try {
    if (signal?.aborted) throw signal.reason;
    const assembly = buildAssembly(snapshot, context, options);
    const listeners = listenersOf(layersOf(snapshot, "listener"));
    return abortable(waterfall(listeners, assembly, context, signal), signal);
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

/** The registry's contribution: each kind's part, in the table's order. */
export function buildAssembly(
  snapshot: Snapshot,
  context: unknown,
  options: BuildOptions = {},
): PromptAssembly {
  const draft: PromptAssembly = { sections: [], tools: [], variables: {} };
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
