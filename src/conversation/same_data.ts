/**
 * Whether two of a step's inputs hold the same data, read in place (issue
 * 49): a conversation's steps mostly change nothing but the history, and
 * what a step is built from (the assembly, the committed tools and what
 * the model was told) is then the same data in fresh objects, or the very
 * objects of the step before. The step's plan and head are made again only
 * when it differs (`step_changes.ts`, `head_memo.ts`). Pure.
 *
 * @module
 */

/** Deeper than a step's inputs nest: not the same. */
const MAX_DEPTH = 32;

/**
 * Whether `a` and `b` hold the same data (see the module's doc).
 */
export function holdsSameData(a: unknown, b: unknown): boolean {
  // `for...in` lists a polluted prototype's enumerable keys too.
  for (const _key in EMPTY) return false;
  return sameData(a, b, 0);
}

const EMPTY: object = Object.freeze({});

/**
 * Each depth's keys of the object compared there, reused from one
 * comparison to the next: a step compares a few hundred objects, and a new
 * key list for each was most of its garbage.
 */
const KEYS: string[][] = [];

/**
 * Whether `a` and `b` hold the same data: the same primitives (strings by
 * value), functions by identity, arrays and objects of the same own keys in
 * the same order holding the same data. An object seen as itself is the
 * same without a look inside: the inputs' objects are the conversation's
 * own (the assembly's copies, the held sections, the listed tools), which
 * nothing changes once built. Unsure (another prototype, a deep nesting)
 * is not the same.
 */
function sameData(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null ||
    b === null || depth > MAX_DEPTH
  ) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      if (!sameData(a[index], b[index], depth + 1)) return false;
    }
    return true;
  }
  if (
    Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype ||
    Object.getPrototypeOf(b) !== Object.prototype
  ) return false;
  // Own enumerable keys in order (the prototype is Object's, unpolluted).
  const keys = KEYS[depth] ??= [];
  let count = 0;
  for (const key in a) keys[count++] = key;
  let index = 0;
  for (const key in b) {
    if (index === count || key !== keys[index++]) return false;
  }
  if (index !== count) return false;
  for (index = 0; index < count; index++) {
    const key = keys[index];
    if (
      !sameData(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        depth + 1,
      )
    ) return false;
  }
  return true;
}
