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
  const length = text.length;
  let copied = 0;
  while (open !== -1) {
    // Scan the group's inside once, checking the name as we go.
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
      if (lastClose >= open + 2) return { literals, names, failure: { open } };
      // No `}}` after this `{{`, so none after any later `{{` either: the
      // rest is ordinary text.
      break;
    }
    const name = text.slice(open + 2, end);
    if (!wellFormed) return { literals, names, failure: { name } };
    literals.push(text.slice(copied, open));
    names.push(name);
    copied = end + 2;
    open = text.indexOf("{{", copied);
  }
  literals.push(text.slice(copied));
  return { literals, names };
}
