/**
 * Comparing two lists by name and by position, for `diffAssemblies`.
 * Internal: not exported from `mod.ts`.
 *
 * @module
 */

import type { ReadonlyTextMap } from "../shared/text_map.ts";
import { compareCodeUnits } from "../shared/util.ts";

/** Anything with a name: a section or a tool. */
export interface Named {
  readonly name: string;
}

/** The names only after, only before, and changed, of two lists. */
export interface NameChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * Names only after, only before, and on both sides where `differs`, each in
 * code-unit order. The maps are keyed by name (an index or a value).
 */
export function compareByName<V>(
  before: ReadonlyTextMap<V>,
  after: ReadonlyTextMap<V>,
  differs: (was: V, is: V) => boolean,
): NameChanges {
  const changes: NameChanges = { added: [], removed: [], changed: [] };
  for (const [name, was] of before) {
    if (!after.has(name)) changes.removed.push(name);
    else if (differs(was, after.get(name)!)) changes.changed.push(name);
  }
  for (const name of after.keys()) {
    if (!before.has(name)) changes.added.push(name);
  }
  changes.added.sort(compareCodeUnits);
  changes.removed.sort(compareCodeUnits);
  changes.changed.sort(compareCodeUnits);
  return changes;
}

/**
 * The name to blame at the first differing position `index`: the entry
 * removed there, else the entry now there, else (the list got shorter) the
 * entry that was there.
 */
export function culprit(
  index: number,
  before: readonly Named[],
  afterNames: { has(name: string): boolean },
  after: readonly Named[],
): string {
  if (index < before.length && !afterNames.has(before[index].name)) {
    return before[index].name;
  }
  return index < after.length ? after[index].name : before[index].name;
}

/** The first index where `same` fails or one list ends first, if any. */
export function firstDifference(
  beforeLength: number,
  afterLength: number,
  same: (index: number) => boolean,
): number | undefined {
  const shorter = Math.min(beforeLength, afterLength);
  for (let index = 0; index < shorter; index++) {
    if (!same(index)) return index;
  }
  return beforeLength === afterLength ? undefined : shorter;
}
