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
import { deriveContext, readContext } from "./context.ts";

/**
 * The view of `assemble(derived)`, where `derived` is `context` with its own
 * signal (see {@linkcode deriveContext}) that also follows the caller's own
 * signal (without AbortSignal.any, absent before Node 20.3). A context that
 * fails validation is the view's error, as under `assemble()`.
 */
export function view$<C extends AssembleContext>(
  context: C,
  assemble: (derived: C) => Observable<PromptAssembly>,
): Observable<PromptView> {
  return defer(() => {
    const callerSignal = readContext(context).signal;
    const controller = new AbortController();
    function follow(): void {
      controller.abort(callerSignal?.reason);
    }
    if (callerSignal?.aborted) follow();
    else callerSignal?.addEventListener("abort", follow, { once: true });
    return assemble(deriveContext(context, controller.signal)).pipe(
      map((assembly): PromptView => ({
        assembly,
        prompt: renderPrompt(assembly),
      })),
      finalize(() => {
        callerSignal?.removeEventListener("abort", follow);
        controller.abort();
      }),
    );
  }).pipe(catchError((error: unknown) => of<PromptView>({ error })));
}
