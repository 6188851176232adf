/**
 * A step's head, built by its form only when what it is built from
 * changed (issue 49): a conversation's steps mostly change nothing but the
 * history, and building the head (the adapter reading the assembly, the
 * system blocks and tools written again) was a sixth of a step at 200
 * messages. The head a form built is frozen, so that the next request can
 * send the same objects: nothing the body is given to changes them. Pure.
 *
 * @module
 */

import type { FormBuilder, FormHead, HeadInput } from "./form.ts";
import { deepFreeze } from "./checks.ts";

/** A head as its form built it (frozen), and the input it was built from. */
export interface BuiltHead {
  readonly input: HeadInput;
  readonly head: FormHead;
}

/**
 * The head of `input`: `last`'s when `input` holds the same data as the
 * input `last` was built from (the form's head is a function of its
 * input), else the form's, its recorded body frozen.
 */
export function headFrom(
  builder: Pick<FormBuilder<unknown, unknown>, "head">,
  input: HeadInput,
  last: BuiltHead | undefined,
): BuiltHead {
  if (last !== undefined && sameData(input, last.input, 0)) {
    return { input, head: last.head };
  }
  const head = builder.head(input);
  deepFreeze(head.recorded);
  return { input, head };
}

/** Deeper than a head's input nests: built again. */
const MAX_DEPTH = 32;

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
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    if (
      key !== others[index] ||
      !sameData(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        depth + 1,
      )
    ) return false;
  }
  return true;
}
