/**
 * The registry's pipeline runs: `assemble`'s and `explain`'s one-shot run on
 * a snapshot of the context's layers, and `watch`'s stream of views that
 * re-runs the assembly after each burst of changes.
 *
 * @module
 */

import {
  asapScheduler,
  asyncScheduler,
  combineLatest,
  debounceTime,
  defer,
  EMPTY,
  finalize,
  Observable,
  startWith,
  subscribeOn,
  switchMap,
  tap,
} from "rxjs";
import { SystemPromptError } from "../errors.ts";
import type { BuildOptions } from "../kinds/kind.ts";
import type { Layers, Snapshot } from "../store/layers.ts";
import { chainSnapshot$, type ScopeBindings } from "../store/scopes.ts";
import type { ToolOrderPlan } from "../kinds/tool_order.ts";
import type { BudgetPlan } from "../budget/prune.ts";
import type { AssembleContext, PromptAssembly, ScopeKey } from "../types.ts";
import type { PromptView } from "../change_types.ts";
import type { Pipeline } from "./build.ts";
import { readContext } from "./context.ts";
import { view$, withDiffs } from "./view.ts";

/** What a pipeline run reads from its registry. */
export interface PipelineSource {
  readonly layers: Layers;
  readonly scopes: ScopeBindings;
  readonly toolOrder: ToolOrderPlan | undefined;
  readonly includeRuntimeContext: boolean;
  /** The config's token budget, if any. */
  readonly budget?: BudgetPlan;
  /** True once the registry started disposing. */
  readonly disposed: () => boolean;
}

/** What a pipeline runs on: the layers' states and the build options. */
export interface PipelineInput {
  readonly snapshot: Snapshot;
  readonly options: BuildOptions;
}

/**
 * Validates `context` and reads what a run on it needs: `snapshot` (a
 * watcher's combined layer states) or the latest states of the layers the
 * context's scope chain reads.
 *
 * @throws {SystemPromptError} `INVALID_CONTEXT`, `INVALID_SCOPE_KEY` or
 * `DISPOSED`.
 */
export function pipelineInput(
  source: PipelineSource,
  context: AssembleContext,
  snapshot?: Snapshot,
): PipelineInput {
  const { scope } = readContext(context);
  if (source.disposed()) {
    throw new SystemPromptError(
      "DISPOSED",
      `Cannot assemble: the registry is disposed.`,
    );
  }
  return {
    snapshot: snapshot ??
      source.layers.snapshot(
        scope === undefined ? [] : source.scopes.chainOf(scope),
      ),
    options: {
      toolOrder: source.toolOrder,
      suppressRuntimeContext: !source.includeRuntimeContext,
      budget: source.budget,
    },
  };
}

/**
 * Validates `context`, then runs `pipeline` on its
 * {@linkcode pipelineInput}, on each subscription.
 */
export function runPipeline$<T>(
  source: PipelineSource,
  context: AssembleContext,
  { pipeline, snapshot }: { pipeline: Pipeline<T>; snapshot?: Snapshot },
): Observable<T> {
  // Not defer(): a plain Observable skips defer's conversion of what the
  // factory returns, on the path of every assemble() call.
  return new Observable<T>((subscriber) => {
    const input = pipelineInput(source, context, snapshot);
    return pipeline(input.snapshot, context, input.options)
      .subscribe(subscriber);
  });
}

/**
 * `watch`'s views of `context`: `assembly$` on the states of the layers the
 * context reads, re-run after each burst of changes and invalidations.
 */
export function watchViews$<C extends AssembleContext>(
  source: PipelineSource,
  context: C,
  assembly$: (context: C, snapshot: Snapshot) => Observable<PromptAssembly>,
): Observable<PromptView> {
  // An unreadable or invalid scope watches the global layer: each view
  // then reports the context's error, as assemble() would.
  const scope = scopeOrUndefined(context);
  const { layers, scopes } = source;
  // The states of the layers this context reads (following its chain as
  // binds change it), and invalidations; a burst of transitions coalesces
  // into one view.
  return defer(() => {
    // A change that arrives while this watcher's assembly runs (a provider
    // that invalidates or registers during its own assembly) re-assembles
    // after a macrotask: in microtasks it would starve the event loop for
    // as long as the provider keeps doing it.
    let assembling = false;
    let late = false;
    return combineLatest([
      chainSnapshot$(layers, scopes, scope),
      layers.invalidation$.pipe(startWith(undefined)),
    ]).pipe(
      tap(() => late ||= assembling),
      debounceTime(0, asapScheduler),
      switchMap(([snapshot]) => {
        if (source.disposed()) return EMPTY;
        const view = view$(context, (derived) => {
          assembling = true;
          return assembly$(derived, snapshot).pipe(
            finalize(() => assembling = false),
          );
        });
        if (!late) return view;
        late = false;
        return view.pipe(subscribeOn(asyncScheduler));
      }),
      withDiffs,
    );
  });
}

function scopeOrUndefined(context: unknown): ScopeKey | undefined {
  try {
    return readContext(context).scope;
  } catch {
    return undefined;
  }
}
