/**
 * One view of `watch()`: an assembly under a derived context whose signal
 * aborts when the view is superseded or unsubscribed, rendered, or the
 * error that prevented it.
 *
 * @module
 */

import {
  catchError,
  defer,
  finalize,
  map,
  type Observable,
  of,
  scan,
} from "rxjs";
import { diffSides } from "../diff/diff.ts";
import { type DiffSide, readSide } from "../diff/side.ts";
import { renderPrompt } from "../render/prompt.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import type { PromptView } from "../change_types.ts";
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

/**
 * The last rendered assembly of a subscription as the diff read it
 * (`undefined` when it could not be read), and the view to emit.
 */
interface DiffState {
  readonly previous: DiffSide | undefined;
  readonly view: PromptView;
}

const NO_VIEW_YET: DiffState = {
  previous: undefined,
  view: { error: undefined },
};

/**
 * Each rendered view with its `diff` against the previous rendered view of
 * the same subscription. Error views pass unchanged and do not count as
 * previous. The state lives in `scan`, so every subscription has its own.
 * Each assembly is read for the diff once, as it is emitted: the next view
 * is diffed against that reading.
 */
export function withDiffs(
  views$: Observable<PromptView>,
): Observable<PromptView> {
  return views$.pipe(
    scan(
      ({ previous }: DiffState, view: PromptView): DiffState => {
        if ("error" in view) return { previous, view };
        const side = sideOrUndefined(view.assembly);
        const diff = previous === undefined || side === undefined
          ? undefined
          : diffSides(previous, side);
        return {
          previous: side,
          view: diff === undefined ? view : { ...view, diff },
        };
      },
      NO_VIEW_YET,
    ),
    map(({ view }) => view),
  );
}

/**
 * The assembly read for a diff, or `undefined` for one that
 * `diffAssemblies` rejects although it renders (a listener added a second
 * tool or section of one name): the view itself is still valid, so it is
 * emitted without a diff (this time and the next) rather than turned into
 * an error.
 */
function sideOrUndefined(assembly: PromptAssembly): DiffSide | undefined {
  try {
    return readSide(assembly, "after");
  } catch {
    return undefined;
  }
}
