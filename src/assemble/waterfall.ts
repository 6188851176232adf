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
import { isPromiseLike } from "../shared/util.ts";
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
  if (signal.aborted) return Promise.reject(signal.reason);
  if (!(result instanceof Promise)) return Promise.resolve(result);
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
  if (isObservableResult(result)) {
    return firstValueFrom(result.pipe(
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
  if (isPromiseLike(result)) {
    return Promise.resolve(result).then((value) =>
      checkListenerResult(value, index)
    );
  }
  return checkListenerResult(result, index);
}

function checkListenerResult(value: unknown, index: number): PromptAssembly {
  const assembly = value as Partial<PromptAssembly> | null;
  if (isAssemblyShaped(assembly)) return assembly as PromptAssembly;
  throw new SystemPromptError(
    "INVALID_LISTENER_RESULT",
    `Assembly listener #${index + 1} returned ${quote(value)}; a listener ` +
      `must return an assembly ({ sections, tools, variables, ` +
      `runtimeContext? (an array) }): usually ` +
      `the result of next(), or the assembly it received.`,
  );
}

/** Never throws: an assembly whose fields cannot be read is not one. */
function isAssemblyShaped(assembly: Partial<PromptAssembly> | null): boolean {
  try {
    return typeof assembly === "object" && assembly !== null &&
      Array.isArray(assembly.sections) && Array.isArray(assembly.tools) &&
      typeof assembly.variables === "object" && assembly.variables !== null &&
      (assembly.runtimeContext === undefined ||
        Array.isArray(assembly.runtimeContext));
  } catch {
    return false;
  }
}

/** Never throws: a revoked Proxy is not an Observable. */
function isObservableResult(
  result: unknown,
): result is Observable<PromptAssembly> {
  try {
    return isObservable(result);
  } catch {
    return false;
  }
}
