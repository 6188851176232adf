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
  let merged = inputs[0];
  for (let index = 1; index < inputs.length; index++) {
    const list = inputs[index];
    const dropped = shadow ? shadowedIndexes(merged, list) : undefined;
    merged = mergeTwo(merged, list, compare, dropped);
  }
  merges.set(nearest, { inputs, compare, shadow, merged });
  return merged;
}

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

/** The ascending positions in `farther` of the names `nearer` holds. */
function shadowedIndexes<T extends object>(
  farther: readonly T[],
  nearer: readonly T[],
): number[] | undefined {
  const names = new Set<string | undefined>();
  for (const item of nearer) names.add(nameOf(item));
  let dropped: number[] | undefined;
  for (let index = 0; index < farther.length; index++) {
    if (names.has(nameOf(farther[index]))) (dropped ??= []).push(index);
  }
  return dropped;
}

/**
 * Merges sorted `a` and `b` (`a` first on ties), leaving out the items of
 * `a` at the ascending positions `dropped`. Each item of `b` finds its place
 * by binary search, so a short nearer layer merges into a long farther one
 * in few comparisons; the rest is copying.
 */
function mergeTwo<T>(
  a: readonly T[],
  b: readonly T[],
  compare: (a: T, b: T) => number,
  dropped: readonly number[] = [],
): T[] {
  // Sized once: no garbage from growing the array.
  const merged: T[] = new Array(a.length + b.length - dropped.length);
  let at = 0;
  let i = 0;
  let skip = 0;
  for (const next of b) {
    let low = i;
    let high = a.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(next, a[middle]) < 0) high = middle;
      else low = middle + 1;
    }
    for (; i < low; i++) {
      if (dropped[skip] === i) skip++;
      else merged[at++] = a[i];
    }
    merged[at++] = next;
  }
  for (; i < a.length; i++) {
    if (dropped[skip] === i) skip++;
    else merged[at++] = a[i];
  }
  return merged;
}

function nameOf(item: object): string | undefined {
  return (item as { readonly name?: string }).name;
}
