/**
 * Assembly as one observable pipeline: a snapshot of the layers' states →
 * the initial assembly (each kind adds its part, in the table's order) →
 * the listener waterfall (RxJS stages) → the registry's finish. Holds no
 * state: the registry passes in the snapshot it read from the layers'
 * `BehaviorSubject`s.
 *
 * @module
 */

import {
  type MonoTypeOperatorFunction,
  Observable,
  type OperatorFunction,
  type Subscriber,
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
import type { Snapshot } from "../store/layers.ts";
import type {
  AssembleContext,
  AssembleListener,
  AssembleOptions,
  PromptAssembly,
} from "../types.ts";
import { waterfall$ } from "./waterfall.ts";

/** What an assembly runs with: the registry's build options and the caller's. */
export interface AssemblyOptions extends BuildOptions {
  /** The caller's options of this assembly (`assemble$(context, options)`). */
  readonly assemble?: AssembleOptions;
}

/**
 * The assembly of `snapshot` for `context`, as a cold Observable that emits
 * one value and completes: the initial assembly is built (each kind adds
 * its part) and flows through the listeners' waterfall, then
 * {@linkcode finish} restores what the registry owns.
 *
 * Aborting `context.signal` fails it with the signal's reason: at once
 * when it aborts while the assembly is pending, and when a stage starts or
 * the result arrives after an abort raised by a provider or a listener.
 * Unsubscribing stops the waterfall: no later stage starts. With
 * `options.trace` (only `explain` sets it), the trace's `built` sees the
 * initial assembly before the listeners.
 */
export function assembly$<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: AssemblyOptions = {},
): Observable<PromptAssembly> {
  const signal = context.signal;
  const assembled$ = initial$(snapshot, context, options).pipe(
    throughListeners({ context, signal }),
  );
  return signal === undefined ? assembled$ : assembled$.pipe(abortOn(signal));
}

/** The build's result: what the waterfall starts from, and what it keeps. */
interface Initial {
  readonly assembly: PromptAssembly;
  readonly listeners: readonly AssembleListener<unknown>[];
  /** The one effective complete section, restored after the waterfall. */
  readonly complete: PromptAssembly["sections"][number] | undefined;
  /** Runtime context is off: `[]` after the waterfall. */
  readonly suppress: boolean;
}

/**
 * The build stage: on subscription, the initial assembly of `snapshot` (a
 * one-value Observable, like `of`, built when subscribed).
 */
function initial$(
  snapshot: Snapshot,
  context: AssembleContext,
  options: BuildOptions,
): Observable<Initial> {
  return new Observable<Initial>((subscriber) => {
    subscriber.next(initialOf(snapshot, context, options));
    subscriber.complete();
  });
}

function initialOf(
  snapshot: Snapshot,
  context: AssembleContext,
  options: BuildOptions,
): Initial {
  const suppress = options.suppressRuntimeContext === true ||
    snapshot.some(({ state }) => state.suppressor.length > 0);
  const built = suppress === options.suppressRuntimeContext
    ? options
    : { ...options, suppressRuntimeContext: suppress };
  const assembly = buildAssembly(snapshot, context, built);
  options.trace?.built?.(assembly);
  return {
    assembly,
    listeners: listenersOf(layersOf(snapshot, "listener")),
    complete: completeSectionOf(assembly),
    suppress,
  };
}

/**
 * The initial assembly through the listeners' waterfall, then
 * {@linkcode finish}: one value in, one value out (at once when every
 * listener answers synchronously).
 */
function throughListeners(
  run: { context: AssembleContext; signal: AbortSignal | undefined },
): OperatorFunction<Initial, PromptAssembly> {
  return (source) =>
    new Observable<PromptAssembly>((subscriber) =>
      source.subscribe({
        next: (initial) => {
          if (initial.listeners.length === 0) {
            // Nothing to wait for: the initial assembly is the result.
            deliver(subscriber, initial.assembly, initial);
            return;
          }
          subscriber.add(
            waterfall$(initial.listeners, initial.assembly, run).subscribe({
              next: (result) => deliver(subscriber, result, initial),
              error: (error) => subscriber.error(error),
            }),
          );
        },
        error: (error) => subscriber.error(error),
      })
    );
}

/**
 * Emits `result` {@linkcode finish}ed and completes; what finishing throws
 * (a listener's getter read again) is the error.
 */
function deliver(
  subscriber: Subscriber<PromptAssembly>,
  result: PromptAssembly,
  initial: Initial,
): void {
  let finished: PromptAssembly;
  try {
    finished = finish(result, initial);
  } catch (error) {
    subscriber.error(error);
    return;
  }
  subscriber.next(finished);
  subscriber.complete();
}

/**
 * Fails with `signal`'s reason as soon as it aborts, or when a value
 * arrives after it aborted (an abort raised synchronously by the last
 * stage); leaves no listener on the signal once settled or unsubscribed.
 */
function abortOn<T>(signal: AbortSignal): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      if (signal.aborted) throw signal.reason;
      function onAbort(): void {
        subscriber.error(signal.reason);
      }
      signal.addEventListener("abort", onAbort, { once: true });
      subscriber.add(() => signal.removeEventListener("abort", onAbort));
      return source.subscribe({
        next: (value) => {
          if (signal.aborted) subscriber.error(signal.reason);
          else subscriber.next(value);
        },
        error: (error) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** What runs on a snapshot: {@linkcode assembly$}, or `explain`'s pipeline. */
export type Pipeline<T> = (
  snapshot: Snapshot,
  context: AssembleContext,
  options: AssemblyOptions,
) => Observable<T>;

/**
 * The waterfall's result with what the registry restores after it: the one
 * complete section, an empty runtime context when it is off, and the
 * `runtimeContext` key a 0.1-shaped listener result lacks.
 */
function finish(
  result: PromptAssembly,
  { complete, suppress }: Initial,
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
