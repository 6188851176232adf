/**
 * Layers: one `BehaviorSubject` of an immutable layer state for the global
 * layer and for each scope key in use, and the change stream that reports
 * every committed transition.
 *
 * @module
 */

import { BehaviorSubject, type Observable, Subject } from "rxjs";
import type {
  AssembleListener,
  PromptChange,
  ScopeKey,
  ToolProvider,
  VariableProvider,
} from "./types.ts";

/** A registered section, as stored in a layer. */
export interface SectionRecord<C> {
  readonly name: string;
  readonly order: number;
  readonly text: string | ((context: C) => string);
}

/** A registered variable, as stored in a layer. */
export interface VariableRecord<C> {
  readonly name: string;
  readonly provider: VariableProvider<C>;
}

/** A registered tool provider, as stored in a layer. */
export interface ToolsRecord<C> {
  readonly provider: ToolProvider<C>;
}

/** A registered listener; `sequence` orders global and scope listeners. */
export interface ListenerRecord<C> {
  readonly listener: AssembleListener<C>;
  readonly sequence: number;
}

/**
 * The registrations of one layer, never mutated: every change makes a new
 * state, so an assembly can hold a snapshot while registrations go on.
 */
export interface LayerState<C> {
  /** Sorted by ascending order, then by code-unit order of the name. */
  readonly sections: readonly SectionRecord<C>[];
  readonly variables: readonly VariableRecord<C>[];
  readonly tools: readonly ToolsRecord<C>[];
  /** In registration order. */
  readonly listeners: readonly ListenerRecord<C>[];
}

const EMPTY_LAYER: LayerState<unknown> = Object.freeze({
  sections: [],
  variables: [],
  tools: [],
  listeners: [],
});

/** The state of a layer with no registrations (one shared frozen object). */
export function emptyLayer<C>(): LayerState<C> {
  return EMPTY_LAYER as LayerState<C>;
}

function isEmpty<C>(state: LayerState<C>): boolean {
  return state.sections.length === 0 && state.variables.length === 0 &&
    state.tools.length === 0 && state.listeners.length === 0;
}

/** Render order of sections: ascending `order`, then code-unit `name`. */
export function compareSections<C>(
  a: SectionRecord<C>,
  b: SectionRecord<C>,
): number {
  if (a.order !== b.order) return a.order - b.order;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** `state` with `record` inserted at its render position. */
export function withSection<C>(
  state: LayerState<C>,
  record: SectionRecord<C>,
): LayerState<C> {
  const sections = state.sections;
  let index = sections.length;
  while (index > 0 && compareSections(sections[index - 1], record) > 0) {
    index--;
  }
  return {
    ...state,
    sections: [...sections.slice(0, index), record, ...sections.slice(index)],
  };
}

/** `state` with `record` appended to the list under `key`. */
export function withAppended<C, K extends "variables" | "tools" | "listeners">(
  state: LayerState<C>,
  key: K,
  record: LayerState<C>[K][number],
): LayerState<C> {
  return { ...state, [key]: [...state[key], record] };
}

/** `state` without `record` (compared by identity) in the list under `key`. */
export function without<
  C,
  K extends "sections" | "variables" | "tools" | "listeners",
>(
  state: LayerState<C>,
  key: K,
  record: LayerState<C>[K][number],
): LayerState<C> {
  return {
    ...state,
    [key]: (state[key] as readonly unknown[]).filter((item) => item !== record),
  };
}

/**
 * The layers of one registry. Each layer is a `BehaviorSubject`; a scope
 * layer exists only while it holds registrations, so a disposed scope leaves
 * nothing behind and a later registrar for the same key starts clean.
 */
export class Layers<C> {
  readonly #global = new BehaviorSubject(emptyLayer<C>());
  readonly #scopes = new Map<ScopeKey, BehaviorSubject<LayerState<C>>>();
  readonly #changes = new Subject<PromptChange>();

  /** Every committed change, emitted synchronously after the commit. */
  readonly change$: Observable<PromptChange> = this.#changes.asObservable();

  /** The current state of the global layer, or of `scope`'s layer. */
  state(scope?: ScopeKey): LayerState<C> {
    if (scope === undefined) return this.#global.value;
    return this.#scopes.get(scope)?.value ?? emptyLayer();
  }

  /** How many scope layers exist. */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /**
   * Applies `update` to a layer's state, commits the result, then emits
   * `change`. If `update` throws, nothing is committed or emitted.
   */
  commit(
    scope: ScopeKey | undefined,
    update: (state: LayerState<C>) => LayerState<C>,
    change: PromptChange,
  ): void {
    if (scope === undefined) {
      this.#global.next(update(this.#global.value));
    } else {
      const layer = this.#scopes.get(scope);
      const next = update(layer?.value ?? emptyLayer());
      if (!isEmpty(next)) {
        if (layer === undefined) {
          this.#scopes.set(scope, new BehaviorSubject(next));
        } else layer.next(next);
      } else if (layer !== undefined) {
        this.#scopes.delete(scope);
        layer.next(next);
        layer.complete();
      }
    }
    this.#changes.next(change);
  }

  /** Emits a change that no layer transition carries (an invalidation). */
  emit(change: PromptChange): void {
    this.#changes.next(change);
  }

  /** Completes every layer and the change stream. */
  complete(): void {
    for (const layer of this.#scopes.values()) layer.complete();
    this.#scopes.clear();
    this.#global.complete();
    this.#changes.complete();
  }
}
