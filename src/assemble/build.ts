/**
 * Assembly: a snapshot of layers → the initial assembly (each kind adds its
 * part, in the table's order) → the listener waterfall, as one RxJS
 * pipeline. Holds no state: the registry passes in the snapshot it read.
 *
 * @module
 */

import {
  defer,
  fromEvent,
  map,
  type MonoTypeOperatorFunction,
  type Observable,
  race,
  throwError,
} from "rxjs";
import type {
  BuildOptions,
  Kind,
  KindLayer,
  RecordBase,
} from "../kinds/kind.ts";
import { listenersOf } from "../kinds/listener.ts";
import { completeSectionOf } from "../kinds/section.ts";
import {
  KIND_NAMES,
  type KindName,
  KINDS,
  type RecordOf,
} from "../kinds/table.ts";
import type { Snapshot } from "../layers.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { waterfall$ } from "./waterfall.ts";

/**
 * The assembly for `context` as a one-value observable: the initial assembly
 * is built on subscription, then flows through the listeners. Aborting
 * `context.signal` errors it with the signal's reason. With
 * `options.trace` (only `explain` sets it), the trace's `built` sees the
 * initial assembly before the listeners.
 */
export function assembly$<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: BuildOptions = {},
): Observable<PromptAssembly> {
  const signal = context.signal;
  if (signal?.aborted) return throwError(() => signal.reason);
  return defer(() => {
    const suppress = options.suppressRuntimeContext === true ||
      snapshot.some(({ state }) => state.suppressor.length > 0);
    const built = suppress === options.suppressRuntimeContext
      ? options
      : { ...options, suppressRuntimeContext: suppress };
    const assembly = buildAssembly(snapshot, context, built);
    options.trace?.built?.(assembly);
    const listeners = listenersOf(layersOf(snapshot, "listener"));
    const complete = completeSectionOf(assembly);
    return waterfall$(listeners, assembly, context).pipe(
      map((result) => finish(result, complete, suppress)),
    );
  }).pipe(abortOn(signal));
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
 * `runtimeContext` key a 0.1-shaped listener result lacks.
 */
function finish(
  result: PromptAssembly,
  complete: PromptAssembly["sections"][number] | undefined,
  suppress: boolean,
): PromptAssembly {
  const clear = suppress && result.runtimeContext?.length !== 0;
  if (complete === undefined && !clear && result.runtimeContext !== undefined) {
    return result;
  }
  const finished = { ...result, runtimeContext: result.runtimeContext ?? [] };
  if (complete !== undefined) finished.sections = [complete];
  if (clear) finished.runtimeContext = [];
  return finished;
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
  for (const name of KIND_NAMES) {
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

/** Errors the source with `signal.reason` as soon as `signal` aborts. */
function abortOn<T>(
  signal: AbortSignal | undefined,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    signal === undefined ? source : race(
      source,
      fromEvent(signal, "abort").pipe(map((): never => {
        throw signal.reason;
      })),
    );
}
