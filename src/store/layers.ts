/**
 * Layers: one `BehaviorSubject` of an immutable layer state for the global
 * layer and for each scope key in use. The layers guard their own
 * invariants (one owner per name and layer), hand out snapshots for
 * `assemble` and observable combinations of states for `watch`, and report
 * every committed transition on `change$`.
 *
 * @module
 */

import {
  BehaviorSubject,
  combineLatest,
  defer,
  EMPTY,
  finalize,
  map,
  type Observable,
  Subject,
} from "rxjs";
import { describeScope, quote, SystemPromptError } from "../errors.ts";
import type { Kind, RecordBase } from "../kinds/kind.ts";
import { type KindName, KINDS } from "../kinds/table.ts";
import {
  emptyLayer,
  isEmpty,
  type LayerState,
  type Registration,
  touched,
  withoutRegistration,
  withRegistration,
} from "./layer_state.ts";
import { NameTable } from "./name_table.ts";
import type { ScopeKey } from "../types.ts";
import type { PromptChange } from "../change_types.ts";

export {
  emptyLayer,
  type LayerState,
  type Registration,
  withoutRegistration,
  withRegistration,
};

/** One layer as a snapshot holds it. */
export interface SnapshotLayer {
  readonly state: LayerState;
  /** The layer's scope key; `undefined` is the global layer. */
  readonly scope: ScopeKey | undefined;
}

/**
 * The layers one assembly reads, farthest first: the global layer, then the
 * scope's layer (a scope chain will add the layers in between).
 */
export type Snapshot = readonly SnapshotLayer[];

function kindOf(registration: Registration): Kind<RecordBase> {
  return KINDS[registration.kind] as Kind<RecordBase>;
}

function changeOf(
  type: "register" | "unregister" | "update",
  registration: Registration,
  scope: ScopeKey | undefined,
): PromptChange {
  const kind = kindOf(registration);
  const change: PromptChange = { type, kind: kind.change };
  const name = registration.record.name;
  if (kind.unique !== undefined && name !== undefined) change.name = name;
  if (scope !== undefined) change.scope = scope;
  return change;
}

/** A scope's subject and how many watchers hold it open. */
interface ScopeLayer {
  readonly subject: BehaviorSubject<LayerState>;
  watchers: number;
}

/**
 * The layers of one registry. A scope layer exists while it holds
 * registrations or is watched, so a disposed scope leaves nothing behind
 * and a later registrar for the same key starts clean.
 */
export class Layers {
  readonly #global = new BehaviorSubject(emptyLayer());
  readonly #scopes = new Map<ScopeKey, ScopeLayer>();
  readonly #changes = new Subject<PromptChange>();
  readonly #invalidations = new Subject<void>();
  /**
   * Per layer (`undefined`: global) and unique kind, its records by name:
   * the duplicate check is one lookup, whatever the layer's size.
   */
  readonly #names = new Map<ScopeKey | undefined, NameIndex>();
  #completed = false;

  /** Every committed change, emitted synchronously after the commit. */
  readonly change$: Observable<PromptChange> = this.#changes.asObservable();

  /** Every `invalidate()`: "a provider's underlying value changed". */
  readonly invalidation$: Observable<void> = this.#invalidations
    .asObservable();

  /** The current state of the global layer, or of `scope`'s layer. */
  state(scope?: ScopeKey): LayerState {
    if (scope === undefined) return this.#global.value;
    return this.#scopes.get(scope)?.subject.value ?? emptyLayer();
  }

  /** How many scope layers exist. */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /**
   * Adds `registration` to a layer and emits its `register` change. Checks
   * the layer's invariants first: a failed add leaves no trace. `beforeCommit`
   * runs once the checks pass (the registrar takes ownership there, so a
   * change subscriber that disposes it cannot strand the registration).
   *
   * @throws {SystemPromptError} the kind's duplicate code for a name the
   * layer already holds.
   */
  add<T>(
    scope: ScopeKey | undefined,
    registration: Registration,
    beforeCommit: () => T,
  ): T {
    const state = this.state(scope);
    const names = this.#uniqueNames(scope, registration);
    const result = beforeCommit();
    this.#commit(scope, withRegistration(state, registration));
    const { record } = registration;
    if (names !== undefined) names.add(record);
    this.#changes.next(changeOf("register", registration, scope));
    return result;
  }

  /** Throws what `add` would throw, changing nothing (live: before subscribing). */
  assertCanAdd(scope: ScopeKey | undefined, registration: Registration): void {
    const unique = kindOf(registration).unique;
    const name = registration.record.name;
    if (unique === undefined || name === undefined) return;
    if (this.#names.get(scope)?.[registration.kind]?.has(name)) {
      throw duplicate(unique, name, scope);
    }
  }

  /** A live value changed: a new state of its layer, then `update`. */
  update(scope: ScopeKey | undefined, registration: Registration): void {
    this.#touch(scope);
    this.#changes.next(changeOf("update", registration, scope));
  }

  /** `invalidate()` of a scope registrar: only that layer's watchers. */
  invalidateScope(scope: ScopeKey): void {
    this.#touch(scope);
    this.#changes.next({ type: "invalidate", scope });
  }

  /** A new state object with the same records: a transition for watchers. */
  #touch(scope: ScopeKey | undefined): void {
    const subject = scope === undefined
      ? this.#global
      : this.#scopes.get(scope)?.subject;
    if (subject !== undefined && !subject.closed) {
      subject.next(touched(subject.value));
    }
  }

  /** Removes `registration` from a layer, then emits its `unregister` change. */
  remove(scope: ScopeKey | undefined, registration: Registration): void {
    const next = withoutRegistration(this.state(scope), registration);
    this.#commit(scope, next);
    const index = this.#names.get(scope);
    if (index !== undefined) {
      const { kind, record } = registration;
      if (record.name !== undefined) index[kind]?.remove(record);
      if (isEmpty(next)) this.#names.delete(scope);
    }
    this.#changes.next(changeOf("unregister", registration, scope));
  }

  /**
   * The name index `registration` joins, if its kind has unique names.
   *
   * @throws {SystemPromptError} the kind's duplicate code for a name the
   * layer already holds.
   */
  #uniqueNames(
    scope: ScopeKey | undefined,
    registration: Registration,
  ): NameTable<RecordBase> | undefined {
    const unique = kindOf(registration).unique;
    const name = registration.record.name;
    if (unique === undefined || name === undefined) return undefined;
    let index = this.#names.get(scope);
    if (index === undefined) this.#names.set(scope, index = {});
    const names = index[registration.kind] ??= new NameTable();
    if (names.has(name)) throw duplicate(unique, name, scope);
    return names;
  }

  /** The latest states of the global layer and of `scopes`' layers. */
  snapshot(scopes: readonly ScopeKey[]): Snapshot {
    const snapshot: SnapshotLayer[] = [{
      state: this.#global.value,
      scope: undefined,
    }];
    for (const scope of scopes) {
      snapshot.push({ state: this.state(scope), scope });
    }
    return snapshot;
  }

  /**
   * The same snapshot as an observable: the combination of the layers'
   * subjects, emitting on each transition of any of them. Completes with
   * the layers.
   */
  snapshot$(scopes: readonly ScopeKey[]): Observable<Snapshot> {
    const layers = [
      this.#global.asObservable(),
      ...scopes.map((scope) => this.#layer$(scope)),
    ];
    return combineLatest(layers).pipe(
      map((states) =>
        states.map((state, index): SnapshotLayer => ({
          state,
          scope: index === 0 ? undefined : scopes[index - 1],
        }))
      ),
    );
  }

  /** `scope`'s subject, held open while subscribed. */
  #layer$(scope: ScopeKey): Observable<LayerState> {
    return defer(() => {
      if (this.#completed) return EMPTY;
      let layer = this.#scopes.get(scope);
      if (layer === undefined) {
        layer = { subject: new BehaviorSubject(emptyLayer()), watchers: 0 };
        this.#scopes.set(scope, layer);
      }
      const held = layer;
      held.watchers++;
      return held.subject.pipe(finalize(() => {
        held.watchers--;
        this.#dropIfUnused(scope, held);
      }));
    });
  }

  #commit(scope: ScopeKey | undefined, next: LayerState): void {
    if (scope === undefined) {
      this.#global.next(next);
      return;
    }
    const layer = this.#scopes.get(scope);
    if (layer === undefined) {
      if (isEmpty(next)) return;
      this.#scopes.set(scope, {
        subject: new BehaviorSubject(next),
        watchers: 0,
      });
      return;
    }
    layer.subject.next(next);
    this.#dropIfUnused(scope, layer);
  }

  #dropIfUnused(scope: ScopeKey, layer: ScopeLayer): void {
    if (
      layer.watchers === 0 && isEmpty(layer.subject.value) &&
      this.#scopes.get(scope) === layer
    ) {
      this.#scopes.delete(scope);
      layer.subject.complete();
    }
  }

  /** Emits a change that no layer commit carries (a bind or unbind). */
  announce(change: PromptChange): void {
    this.#changes.next(change);
  }

  /** Emits an invalidation on `invalidation$` and on `change$`. */
  invalidate(): void {
    this.#invalidations.next();
    this.#changes.next({ type: "invalidate" });
  }

  /** Completes every layer and both streams. */
  complete(): void {
    this.#completed = true;
    for (const layer of this.#scopes.values()) layer.subject.complete();
    this.#scopes.clear();
    this.#names.clear();
    this.#global.complete();
    this.#invalidations.complete();
    this.#changes.complete();
  }
}

/** A layer's records of each unique kind, by name. */
type NameIndex = { [K in KindName]?: NameTable<RecordBase> };

function duplicate(
  unique: NonNullable<Kind<RecordBase>["unique"]>,
  name: string,
  scope: ScopeKey | undefined,
): SystemPromptError {
  const where = scope === undefined
    ? `the global layer; a name has one owner per layer. Dispose the ` +
      `existing registration first, or override it for one agent through ` +
      `a scope registrar (prompt.scope(agent)).`
    : `${describeScope(scope)}; a name has one owner per layer. Dispose ` +
      `the existing registration first.`;
  return new SystemPromptError(
    unique.code,
    `${unique.noun} ${quote(name)} is already registered in ${where}`,
  );
}
