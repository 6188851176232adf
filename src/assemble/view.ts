/**
 * One view of `watch()`: an assembly under a derived context whose signal
 * aborts when the view is superseded or unsubscribed, rendered, or the
 * error that prevented it.
 *
 * @module
 */

import { catchError, defer, finalize, map, type Observable, of } from "rxjs";
import { renderPrompt } from "../render/prompt.ts";
import type { AssembleContext, PromptAssembly, PromptView } from "../types.ts";

/**
 * The view of `assemble(derived)`. The derived context follows the caller's
 * own signal too (without AbortSignal.any, absent before Node 20.3).
 */
export function view$<C extends AssembleContext>(
  context: C,
  assemble: (derived: C) => Observable<PromptAssembly>,
): Observable<PromptView> {
  return defer(() => {
    const controller = new AbortController();
    const callerSignal = context.signal;
    function follow(): void {
      controller.abort(callerSignal?.reason);
    }
    if (callerSignal?.aborted) follow();
    else callerSignal?.addEventListener("abort", follow, { once: true });
    // A context that is not an object is passed on as it is, so that it
    // fails validation exactly as under assemble().
    const derived = typeof context === "object" && context !== null
      ? withSignal(context, controller.signal)
      : context;
    return assemble(derived).pipe(
      map((assembly): PromptView => ({
        assembly,
        prompt: renderPrompt(assembly),
      })),
      catchError((error: unknown) => of<PromptView>({ error })),
      finalize(() => {
        callerSignal?.removeEventListener("abort", follow);
        controller.abort();
      }),
    );
  });
}

/**
 * `context` with `signal` in place of its own. Keeps the prototype, so a
 * class-instance context keeps its methods.
 */
function withSignal<C extends AssembleContext>(
  context: C,
  signal: AbortSignal,
): C {
  return Object.assign(Object.create(Object.getPrototypeOf(context)), context, {
    signal,
  });
}
