/**
 * Tiny helpers shared by several rooms. Internal: not exported from `mod.ts`.
 *
 * @module
 */

/**
 * Whether `value` is a thenable. Functions count: a callable object with a
 * `then` method is awaited like any other thenable. Never throws: a value
 * whose `then` cannot be read (a revoked Proxy, a throwing getter) is not a
 * thenable.
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  try {
    return typeof (value as PromiseLike<unknown>).then === "function";
  } catch {
    return false;
  }
}

/**
 * Whether `value` is a revoked Proxy (of a function or an object): it stays
 * `typeof "function"` but can never be called or read. Calls no trap:
 * `Array.isArray` throws for a revoked Proxy and looks through a live one to
 * its target without asking the handler.
 */
export function isRevokedProxy(value: unknown): boolean {
  if (typeof value !== "object" && typeof value !== "function") return false;
  try {
    Array.isArray(value);
    return false;
  } catch {
    return true;
  }
}

/** Locale-independent comparison by UTF-16 code units. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Merges lists that are each sorted by `compare` into one sorted list. Equal
 * items keep the order of their lists (an earlier list first), so a merge of
 * sorted layers is as deterministic as its inputs.
 *
 * With `shadowByName`, the lists are layers farthest-first and a nearer
 * list shadows: an item is left out when a later list holds an item of the
 * same name. A lone non-empty list is returned as it is, without a copy;
 * the result is shared and must not be mutated.
 */
export function mergeSorted<T extends object>(
  lists: readonly (readonly T[])[],
  compare: (a: T, b: T) => number,
  options: { shadowByName?: boolean } = {},
): readonly T[] {
  const shadow = options.shadowByName === true;
  const inputs = lists.filter((list) => list.length > 0);
  if (inputs.length <= 1) return inputs[0] ?? [];
  // Lists are immutable layer states: the merge of the same lists is
  // computed once and reused until one of them changes.
  const nearest = inputs[inputs.length - 1];
  const cached = merges.get(nearest);
  if (
    cached !== undefined && cached.compare === compare &&
    cached.shadow === shadow && sameItems(cached.inputs, inputs)
  ) {
    return cached.merged as readonly T[];
  }
  const visible = shadow ? unshadowed(inputs) : inputs;
  const merged = mergeAll(visible, compare);
  merges.set(nearest, { inputs, compare, shadow, merged });
  return merged;
}

/**
 * Each list without the items a later list shadows (one of the same name),
 * computed nearest first with one set of the names seen so far: linear in
 * the items, whatever the number of lists. A list that loses nothing is
 * kept as it is.
 */
function unshadowed<T extends object>(
  lists: readonly (readonly T[])[],
): (readonly T[])[] {
  const kept: (readonly T[])[] = new Array(lists.length);
  const nearer = new Set<string | undefined>();
  const shadowed = (item: T) => nearer.has(nameOf(item));
  for (let index = lists.length - 1; index >= 0; index--) {
    const list = lists[index];
    kept[index] = nearer.size > 0 && list.some(shadowed)
      ? list.filter((item) => !shadowed(item))
      : list;
    // The farthest list shadows nothing: its names need no entry.
    if (index > 0) { for (const item of list) nearer.add(nameOf(item)); }
  }
  return kept;
}

/**
 * Merges the lists into one. A few lists (the usual global layer and a
 * scope or two) merge one after the other, each a two-way merge; many
 * lists (a chain of thousands of layers) are concatenated and sorted once,
 * stably, so equal items keep their lists' order: merging thousands of
 * lists one after the other would copy the growing result once per list,
 * quadratic in the layers, and a tree of merges allocates a copy per level.
 */
function mergeAll<T>(
  lists: readonly (readonly T[])[],
  compare: (a: T, b: T) => number,
): readonly T[] {
  const inputs = lists.filter((list) => list.length > 0);
  if (inputs.length <= 1) return inputs[0] ?? [];
  if (inputs.length > FOLDED_LISTS) return inputs.flat().sort(compare);
  let merged = inputs[0];
  for (let index = 1; index < inputs.length; index++) {
    merged = mergeTwo(merged, inputs[index], compare);
  }
  return merged;
}

/** Up to this many lists merge one after the other. */
const FOLDED_LISTS = 8;

/** A computed merge, keyed by its nearest input list. */
interface CachedMerge {
  readonly inputs: readonly (readonly object[])[];
  readonly compare: unknown;
  readonly shadow: boolean;
  readonly merged: readonly object[];
}

const merges = new WeakMap<readonly object[], CachedMerge>();

function sameItems(
  a: readonly unknown[],
  b: readonly unknown[],
): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (a[index] !== b[index]) return false;
  }
  return true;
}

/**
 * Merges sorted `a` and `b` (`a` first on ties). When `b` is much shorter,
 * each of its items finds its place by binary search, so a short nearer
 * layer merges into a long farther one in few comparisons; otherwise one
 * linear pass compares neighbours. The rest is copying.
 */
function mergeTwo<T>(
  a: readonly T[],
  b: readonly T[],
  compare: (a: T, b: T) => number,
): T[] {
  // Sized once: no garbage from growing the array.
  const merged: T[] = new Array(a.length + b.length);
  let at = 0;
  let i = 0;
  if (b.length * SEARCH_RATIO <= a.length) {
    for (const next of b) {
      let low = i;
      let high = a.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compare(next, a[middle]) < 0) high = middle;
        else low = middle + 1;
      }
      while (i < low) merged[at++] = a[i++];
      merged[at++] = next;
    }
  } else {
    let j = 0;
    while (i < a.length && j < b.length) {
      merged[at++] = compare(b[j], a[i]) < 0 ? b[j++] : a[i++];
    }
    while (j < b.length) merged[at++] = b[j++];
  }
  while (i < a.length) merged[at++] = a[i++];
  return merged;
}

/**
 * How much longer `a` must be for binary search to pay: a search costs
 * about log2(a.length) comparisons per item of `b`, a linear pass about one
 * per item of both.
 */
const SEARCH_RATIO = 16;

function nameOf(item: object): string | undefined {
  return (item as { readonly name?: string }).name;
}
