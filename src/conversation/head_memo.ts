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
import { holdsSameData } from "./same_data.ts";

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
  if (last !== undefined && holdsSameData(input, last.input)) {
    return { input, head: last.head };
  }
  const head = builder.head(input);
  deepFreeze(head.recorded);
  return { input, head };
}
