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
  BuildTrace,
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
import { waterfall$ } from "./waterfall.ts";

/**
 * The assembly for `context` as a one-value observable: the initial assembly
 * is built on subscription, then flows through the listeners. Aborting
 * `context.signal` errors it with the signal's reason.
 */
export function assembly$<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: BuildOptions = {},
): Observable<PromptAssembly> {
  const signal = context.signal;
  if (signal?.aborted) return throwError(() => signal.reason);
  return defer(() => {
    const assembly = buildAssembly(snapshot, context, options);
    const listeners = listenersOf(layersOf(snapshot, "listener"));
    return waterfall$(listeners, assembly, context);
  }).pipe(abortOn(signal));
}

/** What runs on a snapshot: {@linkcode assembly$}, or `explain`'s pipeline. */
export type Pipeline<T> = (
  snapshot: Snapshot,
  context: AssembleContext,
  options: BuildOptions,
) => Observable<T>;

/** Options of {@linkcode tracedAssembly$}. */
export interface TracedBuildOptions<T> extends BuildOptions {
  /**
   * Reads the registry's contribution and the build's trace before any
   * listener runs (listeners may mutate the assembly in place).
   */
  readonly inspect: (initial: PromptAssembly, trace: BuildTrace) => T;
}

/**
 * {@linkcode assembly$} for `explain`: the same snapshot, build, waterfall
 * and abort handling, with a trace of the build handed to `inspect` before
 * the waterfall. Emits the result with what `inspect` returned.
 */
export function tracedAssembly$<C extends AssembleContext, T>(
  snapshot: Snapshot,
  context: C,
  options: TracedBuildOptions<T>,
): Observable<{ assembly: PromptAssembly; inspected: T }> {
  const signal = context.signal;
  if (signal?.aborted) return throwError(() => signal.reason);
  return defer(() => {
    const trace: BuildTrace = {};
    const initial = buildAssembly(snapshot, context, { ...options, trace });
    const inspected = options.inspect(initial, trace);
    const listeners = listenersOf(layersOf(snapshot, "listener"));
    return waterfall$(listeners, initial, context).pipe(
      map((assembly) => ({ assembly, inspected })),
    );
  }).pipe(abortOn(signal));
}

/** The registry's contribution: each kind's part, in the table's order. */
export function buildAssembly(
  snapshot: Snapshot,
  context: unknown,
  options: BuildOptions = {},
): PromptAssembly {
  const draft: PromptAssembly = { sections: [], tools: [], variables: {} };
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
