/**
 * Layers: one `BehaviorSubject` of an immutable layer state for the global
 * layer and for each scope key in use, and the change stream that reports
 * every committed transition.
 *
 * @module
 */

import { BehaviorSubject, type Observable, Subject } from "rxjs";
import { compareCodeUnits } from "./_util.ts";
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
  return compareCodeUnits(a.name, b.name);
}

/** One registration as a layer stores it, tagged with its kind. */
export type Registration<C> =
  | { readonly kind: "section"; readonly record: SectionRecord<C> }
  | { readonly kind: "variable"; readonly record: VariableRecord<C> }
  | { readonly kind: "tools"; readonly record: ToolsRecord<C> }
  | { readonly kind: "listener"; readonly record: ListenerRecord<C> };

/** `state` with `registration` added (sections at their render position). */
export function withRegistration<C>(
  state: LayerState<C>,
  registration: Registration<C>,
): LayerState<C> {
  switch (registration.kind) {
    case "section": {
      const { sections } = state;
      const record = registration.record;
      let index = sections.length;
      while (index > 0 && compareSections(sections[index - 1], record) > 0) {
        index--;
      }
      return {
        ...state,
        sections: sections.toSpliced(index, 0, record),
      };
    }
    case "variable":
      return {
        ...state,
        variables: [...state.variables, registration.record],
      };
    case "tools":
      return { ...state, tools: [...state.tools, registration.record] };
    case "listener":
      return {
        ...state,
        listeners: [...state.listeners, registration.record],
      };
  }
}

/** `state` without `registration`'s record (compared by identity). */
export function withoutRegistration<C>(
  state: LayerState<C>,
  registration: Registration<C>,
): LayerState<C> {
  const record: unknown = registration.record;
  switch (registration.kind) {
    case "section":
      return {
        ...state,
        sections: state.sections.filter((item) => item !== record),
      };
    case "variable":
      return {
        ...state,
        variables: state.variables.filter((item) => item !== record),
      };
    case "tools":
      return { ...state, tools: state.tools.filter((item) => item !== record) };
    case "listener":
      return {
        ...state,
        listeners: state.listeners.filter((item) => item !== record),
      };
  }
}

function changeOf<C>(
  type: "register" | "unregister",
  registration: Registration<C>,
  scope: ScopeKey | undefined,
): PromptChange {
  const change: PromptChange = { type, kind: registration.kind };
  const record = registration.record;
  if ("name" in record) change.name = record.name;
  if (scope !== undefined) change.scope = scope;
  return change;
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

  /** Adds `registration` to a layer, then emits its `register` change. */
  add(scope: ScopeKey | undefined, registration: Registration<C>): void {
    this.#commit(scope, withRegistration(this.state(scope), registration));
    this.#changes.next(changeOf("register", registration, scope));
  }

  /** Removes `registration` from a layer, then emits its `unregister` change. */
  remove(scope: ScopeKey | undefined, registration: Registration<C>): void {
    this.#commit(scope, withoutRegistration(this.state(scope), registration));
    this.#changes.next(changeOf("unregister", registration, scope));
  }

  #commit(scope: ScopeKey | undefined, next: LayerState<C>): void {
    if (scope === undefined) {
      this.#global.next(next);
      return;
    }
    const layer = this.#scopes.get(scope);
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
