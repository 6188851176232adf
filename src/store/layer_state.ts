/**
 * Layer states: the registrations of one layer, by kind, never mutated.
 * Every change makes a new state that shares all but one chunk and one
 * page of the changed list with the state before it (see
 * `sorted_chunks.ts`), so a registration costs about the same in a layer of
 * 1,000 or of 100,000, and an assembly can hold a snapshot while
 * registrations go on.
 *
 * @module
 */

import type { Kind, RecordBase } from "../kinds/kind.ts";
import {
  KIND_NAMES,
  type KindName,
  KINDS,
  type RecordOf,
} from "../kinds/table.ts";
import { SortedChunks } from "./sorted_chunks.ts";

/**
 * The registrations of one layer, by kind, never mutated. Each list is in
 * its kind's stored order (sections in render order, variables by name, the
 * others in registration order).
 */
export type LayerState = { readonly [K in KindName]: readonly RecordOf<K>[] };

/** One registration as a layer stores it, tagged with its kind. */
export type Registration = {
  [K in KindName]: { readonly kind: K; readonly record: RecordOf<K> };
}[KindName];

type Lists = { readonly [K in KindName]: SortedChunks<RecordBase> };

const LISTS = Symbol("lists");

/**
 * The kinds a stored state holds no record of, one bit per kind of
 * `KIND_NAMES`: an assembly of a long scope chain asks every layer about
 * every kind, and most kinds are empty in most layers; the answer is then
 * in the state object itself, without reading the kind's list.
 */
const EMPTY_KINDS = Symbol("emptyKinds");

/** A state made here: its lists, read as arrays through the prototype. */
interface StoredState {
  readonly [LISTS]: Lists;
  readonly [EMPTY_KINDS]: number;
}

const STORED_STATE: object = Object.create(null);
for (const name of KIND_NAMES) {
  Object.defineProperty(STORED_STATE, name, {
    enumerable: true,
    get(this: StoredState): readonly RecordBase[] {
      return this[LISTS][name].array;
    },
  });
}

const EMPTY_LAYER: LayerState = Object.freeze(
  Object.fromEntries(
    KIND_NAMES.map((name) => [name, []]),
  ) as unknown as LayerState,
);

/** The state of a layer with no registrations (one shared frozen object). */
export function emptyLayer(): LayerState {
  return EMPTY_LAYER;
}

/** Whether `state` holds a record of kind `name`. */
export function holds(state: LayerState, name: KindName): boolean {
  const empty = (state as Partial<StoredState>)[EMPTY_KINDS];
  if (empty === undefined) return state[name].length > 0;
  return (empty & KIND_BITS[name]) === 0;
}

const KIND_BITS = Object.fromEntries(
  KIND_NAMES.map((name, index) => [name, 1 << index]),
) as Record<KindName, number>;

/** Whether `state` holds no registration. */
export function isEmpty(state: LayerState): boolean {
  const lists = (state as Partial<StoredState>)[LISTS];
  return KIND_NAMES.every((name) =>
    (lists === undefined ? state[name].length : lists[name].size) === 0
  );
}

/** `state` with `registration` added at its kind's stored position. */
export function withRegistration(
  state: LayerState,
  registration: Registration,
): LayerState {
  const lists = listsOf(state);
  const { kind, record } = registration;
  return stateOf({
    ...lists,
    [kind]: lists[kind].insert(record, compareOf(kind)),
  });
}

/** `state` without `registration`'s record (compared by identity). */
export function withoutRegistration(
  state: LayerState,
  registration: Registration,
): LayerState {
  const lists = listsOf(state);
  const { kind, record } = registration;
  const next = lists[kind].remove(record, compareOf(kind));
  return next === lists[kind] ? state : stateOf({ ...lists, [kind]: next });
}

/**
 * A new state object holding the same records: a transition for watchers when
 * a live value changed.
 */
export function touched(state: LayerState): LayerState {
  return stateOf({ ...listsOf(state) });
}

function compareOf(kind: KindName): (a: RecordBase, b: RecordBase) => number {
  return (KINDS[kind] as Kind<RecordBase>).compare ?? compareSequence;
}

/** Registration order. */
function compareSequence(a: RecordBase, b: RecordBase): number {
  return a.sequence - b.sequence;
}

function listsOf(state: LayerState): Lists {
  const stored = (state as Partial<StoredState>)[LISTS];
  if (stored !== undefined) return stored;
  // A state built elsewhere (the empty one, or a test's): sorted arrays.
  return Object.fromEntries(
    KIND_NAMES.map((name) => [
      name,
      SortedChunks.from(state[name] as readonly RecordBase[]),
    ]),
  ) as unknown as Lists;
}

function stateOf(lists: Lists): LayerState {
  if (KIND_NAMES.every((name) => lists[name].size === 0)) return EMPTY_LAYER;
  const state = Object.create(STORED_STATE);
  state[LISTS] = lists;
  let empty = 0;
  for (const name of KIND_NAMES) {
    if (lists[name].size === 0) empty |= KIND_BITS[name];
  }
  state[EMPTY_KINDS] = empty;
  return Object.freeze(state);
}
