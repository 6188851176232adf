/**
 * Parsing a section text into a {@linkcode Template}: its literals and the
 * names of its references. Internal: not exported from `mod.ts`.
 *
 * Runs in time linear in the text length on every input, including
 * adversarial ones such as megabytes of `{{`.
 *
 * @module
 */

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const LOWER_A = 0x61;
const LOWER_Z = 0x7a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const UNDERSCORE = 0x5f;

/**
 * A section text split at its references: `literals[i]`, then `names[i]`,
 * ..., then the last literal. Parsing stops at the first malformed group,
 * recorded in `failure`, so errors still surface in text order: the
 * references before it are resolved first.
 */
export interface Template {
  readonly literals: readonly string[];
  readonly names: readonly string[];
  readonly failure?: { readonly name: string } | { readonly open: number };
}

/** Splits `text` at its `{{name}}` groups (SPEC §4.5). */
export function parseTemplate(text: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let open = text.indexOf("{{");
  if (open === -1) return { literals: [text], names };
  // Computed once so that deciding "does any `}}` follow this `{{`?" is O(1):
  // a per-`{{` search would make megabytes of `{{` quadratic.
  const lastClose = text.lastIndexOf("}}");
  let copied = 0;
  while (open !== -1) {
    const end = groupEnd(text, open);
    if (end === NOT_CLOSED) {
      if (lastClose >= open + 2) return { literals, names, failure: { open } };
      // No `}}` after this `{{`, so none after any later `{{` either: the
      // rest is ordinary text.
      break;
    }
    if (end === MALFORMED) {
      return { literals, names, failure: { name: malformedName(text, open) } };
    }
    literals.push(text.slice(copied, open));
    names.push(text.slice(open + 2, end));
    copied = end + 2;
    open = text.indexOf("{{", copied);
  }
  literals.push(text.slice(copied));
  return { literals, names };
}

/** {@linkcode groupEnd}: the `{{` is not closed by `}}` before any brace. */
export const NOT_CLOSED = -1;
/** {@linkcode groupEnd}: the group is closed, but its name is malformed. */
export const MALFORMED = -2;

/**
 * Where the `}}` closing the group opened at `open` starts, scanning the
 * group's inside once and checking the name as it goes; or
 * {@linkcode NOT_CLOSED} or {@linkcode MALFORMED}.
 */
export function groupEnd(text: string, open: number): number {
  const length = text.length;
  let end = open + 2;
  let code = text.charCodeAt(end);
  let wellFormed = code >= LOWER_A && code <= LOWER_Z;
  while (end < length && code !== OPEN_BRACE && code !== CLOSE_BRACE) {
    if (
      !((code >= LOWER_A && code <= LOWER_Z) ||
        (code >= DIGIT_0 && code <= DIGIT_9) || code === UNDERSCORE)
    ) wellFormed = false;
    code = text.charCodeAt(++end);
  }
  if (code !== CLOSE_BRACE || text.charCodeAt(end + 1) !== CLOSE_BRACE) {
    return NOT_CLOSED;
  }
  return wellFormed ? end : MALFORMED;
}

/** The inside of a closed group that {@linkcode groupEnd} found malformed. */
export function malformedName(text: string, open: number): string {
  // The group holds no brace, so its first `}` is the one closing it.
  return text.slice(open + 2, text.indexOf("}", open + 2));
}
