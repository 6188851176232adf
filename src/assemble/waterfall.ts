/**
 * The listener waterfall: the initial assembly passes through the
 * `onAssemble` listeners as one pipeline, in registration order.
 *
 * @module
 */

import {
  defer,
  firstValueFrom,
  from,
  isObservable,
  map,
  type Observable,
  of,
  take,
  throwIfEmpty,
} from "rxjs";
import { isPromiseLike } from "../_util.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembleListener, PromptAssembly } from "../types.ts";

/**
 * Each listener gets the assembly, the caller's context and a memoized
 * `next()` that runs the rest of the pipeline on the same assembly. The
 * first stage's result is the pipeline's result.
 */
export function waterfall$<C>(
  listeners: readonly AssembleListener<C>[],
  assembly: PromptAssembly,
  context: C,
): Observable<PromptAssembly> {
  return listeners.reduceRight<Observable<PromptAssembly>>(
    (rest$, listener, index) =>
      defer(() => {
        let rest: Promise<PromptAssembly> | undefined;
        const next = (): Promise<PromptAssembly> =>
          rest ??= firstValueFrom(rest$);
        return stage$(listener(assembly, context, next), index);
      }),
    of(assembly),
  );
}

function stage$(
  result: ReturnType<AssembleListener<unknown>>,
  index: number,
): Observable<PromptAssembly> {
  if (isObservableResult(result)) {
    return result.pipe(
      take(1),
      throwIfEmpty(() =>
        new SystemPromptError(
          "INVALID_LISTENER_RESULT",
          `Assembly listener #${index + 1} returned an Observable that ` +
            `completed without a value; it must emit an assembly.`,
        )
      ),
      map((value) => checkListenerResult(value, index)),
    );
  }
  if (isPromiseLike(result)) {
    return from(result).pipe(map((value) => checkListenerResult(value, index)));
  }
  return of(checkListenerResult(result, index));
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
