/**
 * Assembly as one observable pipeline: a snapshot of the layers' states →
 * the initial assembly (each kind adds its part, in the table's order) →
 * the listener waterfall (RxJS stages) → the registry's finish. Holds no
 * state: the registry passes in the snapshot it read from the layers'
 * `BehaviorSubject`s.
 *
 * @module
 */

import { type MonoTypeOperatorFunction, Observable } from "rxjs";
import type {
  BuildNotes,
  BuildOptions,
  Kind,
  KindLayer,
  RecordBase,
} from "../kinds/kind.ts";
import { isSystemPromptError, quote, SystemPromptError } from "../errors.ts";
import { describeError } from "../shared/user_code.ts";
import { listenersOf } from "../kinds/listener.ts";
import {
  type BudgetPlan,
  pruneToBudget,
  type SectionTerms,
} from "../budget/prune.ts";
import {
  settleStability,
  type SettleStabilityOptions,
} from "../kinds/stability.ts";
import {
  KIND_NAMES,
  type KindName,
  KINDS,
  type RecordOf,
} from "../kinds/table.ts";
import { holds } from "../store/layer_state.ts";
import type { Snapshot } from "../store/layers.ts";
import type {
  AssembleContext,
  AssembleListener,
  PromptAssembly,
} from "../types.ts";
import { waterfall$ } from "./waterfall.ts";
import { type ActiveToolsWatch, watchActiveTools } from "./active_tools.ts";

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
  options: BuildOptions = {},
): Observable<PromptAssembly> {
  const signal = context.signal;
  // The build, then the waterfall's stages, then the last stages (see
  // lastStages): one Observable, so a step pays for no stage it does not
  // run.
  const assembled$ = new Observable<PromptAssembly>((subscriber) => {
    const initial = initialOf(snapshot, context, options);
    if (initial.listeners.length === 0) {
      // Nothing to wait for: the initial assembly is the result.
      subscriber.next(lastStages(initial.assembly, initial));
      subscriber.complete();
      return;
    }
    // The waterfall answers this subscriber itself: no observer between.
    waterfall$(initial.listeners, initial.assembly, {
      context,
      signal,
      observe: initial.gated.observe,
      finish: (result) => lastStages(result, initial),
    }).subscribe(subscriber);
  });
  return signal === undefined ? assembled$ : assembled$.pipe(abortOn(signal));
}

/** The build's result: what the waterfall starts from, and what it keeps. */
interface Initial {
  readonly assembly: PromptAssembly;
  /** The listeners, each watched for changes of `activeTools`. */
  readonly listeners: readonly AssembleListener<unknown>[];
  /** The one effective complete section, restored after the waterfall. */
  readonly complete: PromptAssembly["sections"][number] | undefined;
  /** Runtime context is off: `[]` after the waterfall. */
  readonly suppress: boolean;
  /** The variables' stabilities, for the effective stability after it. */
  readonly stability: SettleStabilityOptions;
  /** Checks the final `activeTools`. */
  readonly gated: ActiveToolsWatch;
  /** The sections' budget terms, for pruning. */
  readonly terms: ReadonlyMap<string, SectionTerms> | undefined;
  /** The token budget the result is pruned to, if any. */
  readonly budget: BudgetPlan | undefined;
  /** `explain`'s trace, told what the budget pruned. */
  readonly trace: BuildOptions["trace"];
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
  const notes: BuildNotes = {};
  const assembly = buildAssembly(snapshot, context, { ...built, notes });
  options.trace?.built?.(assembly, notes);
  const listeners = listenersOf(layersOf(snapshot, "listener"));
  const gated = watchActiveTools(listeners, {
    draft: assembly,
    known: notes.knownToolNames,
  });
  const { variables, builtTexts } = notes;
  return {
    assembly,
    listeners,
    complete: notes.complete,
    suppress,
    stability: {
      variables,
      built: variables !== undefined &&
          builtTexts?.sections === assembly.sections
        ? builtTexts
        : undefined,
    },
    gated,
    terms: notes.terms,
    budget: options.budget,
    trace: options.trace,
  };
}

/**
 * The last stages: `result` {@linkcode finish}ed, its `activeTools`
 * checked, pruned to the budget. A listeners' result is read once, into a
 * copy the stages share, so a getter that answers differently (or throws)
 * on a later read cannot reach them; what reading it throws is
 * `INVALID_LISTENER_RESULT`. What the stages throw on purpose
 * (`BUDGET_EXCEEDED`, `UNKNOWN_TOOL_IN_GATE`) is the assembly's error.
 */
function lastStages(result: PromptAssembly, initial: Initial): PromptAssembly {
  return readingResult(() => {
    const read = initial.listeners.length === 0 ? result : readOnce(result);
    return withinBudget(initial.gated.check(finish(read, initial)), initial);
  });
}

/** The fields of an assembly the last stages read. */
const ASSEMBLY_KEYS = [
  "sections",
  "tools",
  "deferredTools",
  "deferredSources",
  "variables",
  "runtimeContext",
  "toolStability",
  "activeTools",
  "pruned",
] as const;

/**
 * The listeners' result, each field read once: its own enumerable fields
 * (a spread, which keeps the object's shape for the stages after it), and
 * the assembly's fields it holds otherwise (not enumerable, inherited by a
 * class instance, answered by a Proxy).
 *
 * @throws {SystemPromptError} `INVALID_LISTENER_RESULT` naming the field
 * whose read threw, with what it threw as `cause`
 */
function readOnce(result: PromptAssembly): PromptAssembly {
  try {
    const copy: PromptAssembly = { ...result };
    const fields = copy as unknown as Record<string, unknown>;
    for (const key of ASSEMBLY_KEYS) {
      if (Object.hasOwn(fields, key)) continue;
      const value = result[key];
      if (value !== undefined) fields[key] = value;
    }
    return copy;
  } catch (error) {
    const key = throwingKey(result);
    throw new SystemPromptError(
      "INVALID_LISTENER_RESULT",
      `Reading ${
        key === undefined ? "the fields" : quote(key)
      } of the listeners' assembly threw (${describeError(error)}); ` +
        `listeners must leave plain data { sections, tools, variables, ` +
        `runtimeContext?, activeTools?, toolStability? }.`,
      { cause: error },
    );
  }
}

/**
 * The first field of `result` whose read throws, read again one at a time
 * (on failure only); `undefined` when none throws now or the keys cannot
 * be listed.
 */
function throwingKey(result: PromptAssembly): string | undefined {
  const source = result as unknown as Record<string, unknown>;
  let keys: string[];
  try {
    keys = [...Object.keys(source), ...ASSEMBLY_KEYS];
  } catch {
    return undefined;
  }
  for (const key of keys) {
    try {
      source[key];
    } catch {
      return key;
    }
  }
  return undefined;
}

/**
 * `read()`, where what a getter or Proxy of the listeners' result throws
 * (a revoked Proxy among the sections, a throwing `toolStability`) is
 * `INVALID_LISTENER_RESULT` with the thrown value as `cause`.
 */
function readingResult(read: () => PromptAssembly): PromptAssembly {
  try {
    return read();
  } catch (error) {
    if (isSystemPromptError(error)) throw error;
    throw new SystemPromptError(
      "INVALID_LISTENER_RESULT",
      unreadableResult(error),
      { cause: error },
    );
  }
}

function unreadableResult(error: unknown): string {
  return `The listeners' assembly could not be read when they were done (a ` +
    `getter or Proxy of it or of its sections, runtimeContext or ` +
    `toolStability threw: ${describeError(error)}); listeners must leave ` +
    `plain data: sections and runtimeContext of { name, order, text, ` +
    `stability? }, toolStability mapping tool names to "agent" or ` +
    `"volatile".`;
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
  options: BuildOptions,
) => Observable<T>;

/**
 * The waterfall's result with what the registry restores after it: the one
 * complete section, an empty runtime context when it is off, and the
 * `runtimeContext` key a 0.1-shaped listener result lacks; then the
 * effective stability of what is left (SPEC §8.13.2).
 */
function finish(
  result: PromptAssembly,
  { complete, suppress, stability, listeners }: Initial,
): PromptAssembly {
  // The build settles what it writes: only listeners can unsettle it.
  const settle = listeners.length === 0 ? same : settleStability;
  const clear = suppress && result.runtimeContext?.length !== 0;
  if (complete === undefined && !clear && result.runtimeContext !== undefined) {
    return settle(result, stability);
  }
  const finished = { ...result, runtimeContext: result.runtimeContext ?? [] };
  if (complete !== undefined) finished.sections = [complete];
  if (clear) finished.runtimeContext = [];
  return settle(finished, stability);
}

function same(assembly: PromptAssembly): PromptAssembly {
  return assembly;
}

/** The finished assembly pruned to the budget, the last step of a build. */
function withinBudget(
  assembly: PromptAssembly,
  { budget, terms, trace }: Initial,
): PromptAssembly {
  if (budget === undefined) return assembly;
  return pruneToBudget(assembly, budget, { terms, explain: trace?.pruned });
}

/**
 * The registry's contribution: each kind's part, in the table's order;
 * what the kinds note for the stages after the build goes to
 * `options.notes`.
 */
export function buildAssembly(
  snapshot: Snapshot,
  context: unknown,
  options: BuildOptions & { readonly notes?: BuildNotes } = {},
): PromptAssembly {
  const kindOptions = options.notes === undefined
    ? { ...options, notes: {} }
    : options as BuildOptions & { readonly notes: BuildNotes };
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
    kind.build?.(layersOf(snapshot, name), context, draft, kindOptions);
  }
  return draft;
}

/**
 * The snapshot's layers as `name` sees them, or none at all when no layer
 * holds a record of it: most kinds are empty in most layers of a long scope
 * chain, and a list of empty layers would cost one object per layer per
 * kind per assembly.
 */
function layersOf<K extends KindName>(
  snapshot: Snapshot,
  name: K,
): readonly KindLayer<RecordOf<K>>[] {
  let index = 0;
  while (index < snapshot.length && !holds(snapshot[index].state, name)) {
    index++;
  }
  if (index === snapshot.length) return NO_LAYERS;
  return snapshot.map(({ state, scope }) => ({
    records: state[name] as readonly RecordOf<K>[],
    scope,
  }));
}

const NO_LAYERS: readonly never[] = Object.freeze([]);
