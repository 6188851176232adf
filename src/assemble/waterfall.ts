/**
 * The listener waterfall: the initial assembly passes through the
 * `onAssemble` listeners as one pipeline, in registration order.
 *
 * Plain functions and promises, not an RxJS pipeline: a listener that
 * returns a value costs a function call, and only a listener that returns
 * an Observable goes through RxJS. The caller's signal is checked before
 * every stage, so an abort raised by a provider or a listener stops the
 * stages after it.
 *
 * @module
 */

import {
  firstValueFrom,
  isObservable,
  map,
  type Observable,
  take,
  throwIfEmpty,
} from "rxjs";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembleListener, PromptAssembly } from "../types.ts";

/**
 * Runs `listeners` on `assembly`. Each listener gets the assembly, the
 * caller's context and a memoized `next()` that runs the rest of the
 * pipeline on the same assembly. The first stage's result is the pipeline's
 * result: the assembly itself when every stage answered synchronously, a
 * promise otherwise.
 *
 * @throws the signal's reason, a listener's error or
 * `INVALID_LISTENER_RESULT`, when that happens synchronously.
 */
export function waterfall<C>(
  listeners: readonly AssembleListener<C>[],
  assembly: PromptAssembly,
  context: C,
  signal?: AbortSignal,
): PromptAssembly | Promise<PromptAssembly> {
  function stage(index: number): PromptAssembly | Promise<PromptAssembly> {
    if (signal?.aborted) throw signal.reason;
    if (index === listeners.length) return assembly;
    let rest: Promise<PromptAssembly> | undefined;
    function next(): Promise<PromptAssembly> {
      if (rest !== undefined) return rest;
      rest = settle(() => stage(index + 1));
      // After an abort the assembly itself rejects with the reason: a
      // listener that drops next()'s rejection loses nothing.
      if (signal?.aborted) rest.catch(ignore);
      return rest;
    }
    return checkStage(listeners[index](assembly, context, next), index);
  }
  return stage(0);
}

function ignore(): void {}

/**
 * `run()`'s result as a promise (a synchronous throw becomes a rejection).
 */
export function settle<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `result` settled as `signal` allows: it rejects with the signal's reason
 * as soon as the signal aborts, even while `result` is still pending.
 */
export function abortable<T>(
  result: T | Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (signal === undefined) return Promise.resolve(result);
  if (!(result instanceof Promise)) {
    return signal.aborted
      ? Promise.reject(signal.reason)
      : Promise.resolve(result);
  }
  if (signal.aborted) {
    // The abort is the assembly's one rejection: the pipeline's own
    // promise, which may reject too, is dropped handled.
    result.catch(ignore);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    function onAbort(): void {
      reject(signal!.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
    result.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) reject(signal.reason);
        else resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function checkStage(
  result: ReturnType<AssembleListener<unknown>>,
  index: number,
): PromptAssembly | Promise<PromptAssembly> {
  const kind = resultKind(result, index);
  if (kind === "observable") {
    return firstValueFrom((result as Observable<unknown>).pipe(
      take(1),
      throwIfEmpty(() =>
        new SystemPromptError(
          "INVALID_LISTENER_RESULT",
          `Assembly listener #${index + 1} returned an Observable that ` +
            `completed without a value; it must emit an assembly.`,
        )
      ),
      map((value) => checkListenerResult(value, index)),
    ));
  }
  if (kind === "thenable") {
    return Promise.resolve(result).then((value) =>
      checkListenerResult(value, index)
    );
  }
  return checkListenerResult(result, index);
}

/**
 * Whether a listener's result is an Observable, a thenable, or a value.
 *
 * @throws {SystemPromptError} `INVALID_LISTENER_RESULT` with what reading
 * the result threw (a `then` getter, a Proxy) as `cause`.
 */
function resultKind(
  result: unknown,
  index: number,
): "observable" | "thenable" | "value" {
  if (typeof result !== "object" && typeof result !== "function") {
    return "value";
  }
  if (result === null) return "value";
  try {
    if (isObservable(result)) return "observable";
    return typeof (result as PromiseLike<unknown>).then === "function"
      ? "thenable"
      : "value";
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
