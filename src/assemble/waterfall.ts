/**
 * The listener waterfall: the initial assembly passes through the
 * `onAssemble` listeners as a chain of RxJS stages, in registration order.
 *
 * Stage `i` is a cold one-value Observable that calls listener `i` (stage 0
 * is the waterfall's own Observable); the listener's `next()` subscribes
 * stage `i + 1` and hands its value over as a memoized promise. The run
 * owns every stage's subscription, so unsubscribing the waterfall before it
 * answered tears the whole chain down: no later stage starts. A listener
 * that answers synchronously is answered synchronously (no promise, no
 * scheduler); a promise or an Observable answer is awaited inside its
 * stage. The caller's signal is checked as each stage starts, so an abort
 * raised by a provider or a listener stops the stages after it.
 *
 * @module
 */

import {
  isObservable,
  map,
  Observable,
  type Subscriber,
  type Subscription,
  take,
  type TeardownLogic,
  throwIfEmpty,
} from "rxjs";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembleListener, PromptAssembly } from "../types.ts";

/** What every stage of one waterfall shares. */
interface Run<C> {
  readonly listeners: readonly AssembleListener<C>[];
  readonly assembly: PromptAssembly;
  readonly context: C;
  readonly signal: AbortSignal | undefined;
  /** Sees the assembly at each stage; see {@linkcode WaterfallOptions}. */
  readonly observe: WaterfallOptions<unknown>["observe"];
  /** Maps the first stage's answer; see {@linkcode WaterfallOptions}. */
  readonly finish: WaterfallOptions<unknown>["finish"];
  /**
   * The subscriptions of the stages `next()` started: ended when the
   * waterfall is torn down before it answered, left to finish after.
   * A plain list: a stage that ends needs no bookkeeping to leave it.
   */
  readonly rests: Subscription[];
  /** Set once stage 0 answered (a value or an error). */
  answered: boolean;
  /** Set once the waterfall was torn down before it answered. */
  stopped: boolean;
  /**
   * How many assemblies this one is nested in, each started synchronously
   * by a listener of the one around it (0: not inside a listener's call).
   */
  readonly depth: number;
}

/**
 * How deep assemblies may nest, each started synchronously from inside a
 * listener's call: a listener that assembles its own registry again,
 * without a way out, would otherwise run until the stack overflows (a raw
 * `RangeError`). Sub-agents' prompts assembled from a listener nest a few
 * levels at most.
 */
export const MAX_LISTENER_REENTRY = 32;

/**
 * The listener whose synchronous call is running, innermost (`undefined`
 * outside every listener's call): an assembly started now is nested in
 * its run.
 */
let calling: { readonly run: Run<unknown>; readonly index: number } | undefined;

/** Stage `index` of a run, answering `subscriber`. */
interface Stage<C> {
  readonly run: Run<C>;
  readonly index: number;
  readonly subscriber: Subscriber<PromptAssembly>;
}

/**
 * `listeners` run on `assembly`, as one cold Observable that emits the
 * first stage's result and completes. Each listener gets the assembly, the
 * caller's context and a memoized `next()` that runs the rest of the
 * pipeline on the same assembly. It fails with the signal's reason, a
 * listener's error or `INVALID_LISTENER_RESULT`.
 */
export function waterfall$<C>(
  listeners: readonly AssembleListener<C>[],
  assembly: PromptAssembly,
  { context, signal, observe, finish }: WaterfallOptions<C>,
): Observable<PromptAssembly> {
  return new Observable<PromptAssembly>((subscriber) => {
    const depth = calling === undefined ? 0 : calling.run.depth + 1;
    if (depth > MAX_LISTENER_REENTRY) throw reentered(calling!);
    const run: Run<C> = {
      listeners,
      assembly,
      context,
      signal,
      observe,
      finish,
      rests: [],
      answered: false,
      stopped: false,
      depth,
    };
    // A rest its listener did not wait for runs on, as a promise would.
    subscriber.add(() => {
      if (!run.answered) stop(run);
    });
    try {
      return runStage({ run, index: 0, subscriber });
    } catch (error) {
      // The first stage's own error is its answer: the rests run on.
      run.answered = true;
      throw error;
    }
  });
}

/** What {@linkcode waterfall$} runs with besides the listeners. */
export interface WaterfallOptions<C> {
  readonly context: C;
  readonly signal: AbortSignal | undefined;
  /**
   * Called with the assembly as listener `by + 1` receives it (`by` is the
   * listener that ran just before: -1 for the registry's build), and as the
   * `next()` of listener `by` resolves (`by`: the last listener for the
   * last `next()`).
   */
  readonly observe?: (by: number, assembly: unknown) => void;
  /**
   * The last step of the first stage's answer: the waterfall emits what it
   * returns, and what it throws is the waterfall's error.
   */
  readonly finish?: (result: PromptAssembly) => PromptAssembly;
}

/** No later stage starts, and those running are unsubscribed. */
function stop<C>(run: Run<C>): void {
  run.stopped = true;
  for (const rest of run.rests) rest.unsubscribe();
}

/**
 * Runs listener `index` (the signal checked first) and answers the stage's
 * subscriber with its checked result; returns what tears its answer down.
 */
function runStage<C>(stage: Stage<C>): TeardownLogic {
  const { run, index } = stage;
  const { signal } = run;
  if (signal?.aborted) throw signal.reason;
  let rest: Promise<PromptAssembly> | undefined;
  function next(): Promise<PromptAssembly> {
    return rest ??= restOf(run, index + 1);
  }
  run.observe?.(index - 1, run.assembly);
  const outer = calling;
  calling = { run: run as Run<unknown>, index };
  let result: ReturnType<AssembleListener<C>>;
  try {
    result = run.listeners[index](run.assembly, run.context, next);
  } finally {
    calling = outer;
  }
  return answer(result, stage);
}

/**
 * Stage `index` as the promise `next()` returns, its subscription owned by
 * the run. Once the run is stopped (the assembly was aborted or
 * unsubscribed before it answered), the rest never starts: the promise
 * rejects with the signal's reason, or an `AbortError` without one.
 */
function restOf<C>(run: Run<C>, index: number): Promise<PromptAssembly> {
  const { signal, observe } = run;
  let rest: Promise<PromptAssembly>;
  if (run.stopped) rest = Promise.reject(stopped(signal));
  else if (index === run.listeners.length) {
    // The last stage answers synchronously with the assembly itself: its
    // value is taken here, without a subscription.
    rest = signal?.aborted
      ? Promise.reject(signal.reason)
      : Promise.resolve(run.assembly);
    // Seen once the listener's own synchronous code after next() ran.
    if (observe !== undefined) {
      rest.then((value) => observe(index - 1, value), ignore);
    }
  } else {
    rest = new Promise<PromptAssembly>((resolve, reject) => {
      const subscription = stage$(run, index).subscribe({
        next: (value) => {
          observe?.(index, value);
          resolve(value);
        },
        error: reject,
      });
      // Stopped while the stage ran synchronously: end what it started.
      if (run.stopped) subscription.unsubscribe();
      else run.rests.push(subscription);
    });
  }
  // After an abort the assembly itself rejects with the reason: a listener
  // that drops next()'s rejection loses nothing.
  if (run.stopped || signal?.aborted) rest.catch(ignore);
  return rest;
}

function stage$<C>(run: Run<C>, index: number): Observable<PromptAssembly> {
  return new Observable<PromptAssembly>((subscriber) =>
    runStage({ run, index, subscriber })
  );
}

function stopped(signal: AbortSignal | undefined): unknown {
  return signal?.aborted
    ? signal.reason
    : new DOMException("The assembly was unsubscribed.", "AbortError");
}

function ignore(): void {}

/** The stage's value (the first stage's finished), then its completion. */
function answered<C>(stage: Stage<C>, value: PromptAssembly): void {
  const { run, subscriber } = stage;
  if (stage.index === 0) {
    run.answered = true;
    if (run.finish !== undefined) {
      try {
        value = run.finish(value);
      } catch (error) {
        subscriber.error(error);
        return;
      }
    }
  }
  subscriber.next(value);
  subscriber.complete();
}

function failed<C>(stage: Stage<C>, error: unknown): void {
  if (stage.index === 0) stage.run.answered = true;
  stage.subscriber.error(error);
}

/** Delivers a listener's answer (value, thenable or Observable) checked. */
function answer<C>(
  result: ReturnType<AssembleListener<unknown>>,
  stage: Stage<C>,
): TeardownLogic {
  const { index } = stage;
  const kind = resultKind(result, index);
  if (kind === "value") {
    answered(stage, checkListenerResult(result, index));
    return;
  }
  if (kind === "observable") {
    return (result as Observable<unknown>).pipe(
      take(1),
      throwIfEmpty(() =>
        new SystemPromptError(
          "INVALID_LISTENER_RESULT",
          `Assembly listener #${index + 1} returned an Observable that ` +
            `completed without a value; it must emit an assembly.`,
        )
      ),
      map((value) => checkListenerResult(value, index)),
    ).subscribe({
      next: (value) => answered(stage, value),
      error: (error) => failed(stage, error),
    });
  }
  // Through the native `then` itself: a promise's own `then` is not read
  // again (resultKind read it once).
  nativeThen.call(
    thenableOf(result as PromiseLike<unknown>, kind),
    (value) => {
      let checked: PromptAssembly;
      try {
        checked = checkListenerResult(value, index);
      } catch (error) {
        failed(stage, error);
        return;
      }
      answered(stage, checked);
    },
    (error) => failed(stage, error),
  );
}

/**
 * A native promise as it is; any other thenable through the `then` read
 * once by {@linkcode resultKind}, settled once as a promise.
 */
function thenableOf(
  result: PromiseLike<unknown>,
  then: PromiseLike<unknown>["then"],
): Promise<unknown> {
  if (result instanceof Promise && then === nativeThen) return result;
  return new Promise((resolve, reject) => {
    then.call(result, resolve, reject);
  });
}

const nativeThen = Promise.prototype.then;

/**
 * Whether a listener's result is an Observable, a value, or a thenable
 * (its `then`, read once).
 *
 * @throws {SystemPromptError} `INVALID_LISTENER_RESULT` with what reading
 * the result threw (a `then` getter, a Proxy) as `cause`.
 */
function resultKind(
  result: unknown,
  index: number,
): "observable" | "value" | PromiseLike<unknown>["then"] {
  if (typeof result !== "object" && typeof result !== "function") {
    return "value";
  }
  if (result === null) return "value";
  try {
    if (isObservable(result)) return "observable";
    const then = (result as PromiseLike<unknown>).then;
    return typeof then === "function" ? then : "value";
  } catch (error) {
    throw invalidResult(result, index, { cause: error });
  }
}

function checkListenerResult(value: unknown, index: number): PromptAssembly {
  let shaped: boolean;
  try {
    shaped = isAssemblyShaped(value as Partial<PromptAssembly> | null);
  } catch (error) {
    throw invalidResult(value, index, { cause: error });
  }
  if (shaped) return value as PromptAssembly;
  throw invalidResult(value, index);
}

/** The error of an assembly nested too deep inside listener calls. */
function reentered(
  { run, index }: { readonly run: Run<unknown>; readonly index: number },
): SystemPromptError {
  const listener = run.listeners[index];
  const name = typeof listener.name === "string" && listener.name !== ""
    ? ` (${quote(listener.name)})`
    : "";
  return new SystemPromptError(
    "REENTRANT_ASSEMBLY",
    `Assembly listener #${index + 1}${name} started an assembly from inside ` +
      `its own call, synchronously, ${MAX_LISTENER_REENTRY} levels deep: a ` +
      `listener that calls assemble() (or explain()) of a registry whose ` +
      `listeners call it again never ends. Assemble another registry, or ` +
      `start the nested assembly outside the listener.`,
  );
}

/** `unreadable` carries what reading the result threw. */
function invalidResult(
  value: unknown,
  index: number,
  unreadable?: { readonly cause: unknown },
): SystemPromptError {
  return new SystemPromptError(
    "INVALID_LISTENER_RESULT",
    `Assembly listener #${index + 1} returned ${quote(value)}` +
      `${unreadable ? " that cannot be read (a getter or Proxy threw)" : ""}` +
      `; a listener must return an assembly ({ sections, tools, variables, ` +
      `runtimeContext? (an array) }): usually ` +
      `the result of next(), or the assembly it received.`,
    unreadable,
  );
}

/** Throws what reading a field of `assembly` throws. */
function isAssemblyShaped(assembly: Partial<PromptAssembly> | null): boolean {
  return typeof assembly === "object" && assembly !== null &&
    Array.isArray(assembly.sections) && Array.isArray(assembly.tools) &&
    typeof assembly.variables === "object" && assembly.variables !== null &&
    (assembly.runtimeContext === undefined ||
      Array.isArray(assembly.runtimeContext));
}
