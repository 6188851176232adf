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
const BACKSLASH = 0x5c;

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
  /**
   * The last render of a cached template: the values its references had
   * and the text they gave. A prompt renders the same texts with mostly
   * the same values step after step; a match skips the concatenation.
   */
  last?: { readonly values: readonly string[]; readonly rendered: string };
}

/**
 * Splits `text` at its `{{name}}` groups (SPEC §4.5), with the escape of
 * §8.10 applied to the literals: a run of n backslashes right before a `{{`
 * keeps ⌊n/2⌋ of them, and an odd run makes that `{{` literal text.
 */
export function parseTemplate(text: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  const { tail, failure } = scanTemplate(text, (literal, name) => {
    literals.push(literal);
    names.push(name);
  });
  if (failure !== undefined) return { literals, names, failure };
  literals.push(tail);
  return { literals, names };
}

/** How {@linkcode scanTemplate} ended. */
export interface ScanEnd {
  /** The literal after the last reference (empty after a failure). */
  readonly tail: string;
  /** The first malformed or unclosed group, which stopped the scan. */
  readonly failure?: Template["failure"];
}

/**
 * The one scan of a template, in time linear in the text on every input:
 * calls `reference(literal, name)` for each `{{name}}` group in text order,
 * `literal` being the text since the previous group with the escapes
 * applied, and stops at the first malformed or unclosed group. Rendering
 * and parsing both run it, so they agree on every text.
 */
export function scanTemplate(
  text: string,
  reference: (literal: string, name: string) => void,
): ScanEnd {
  let open = text.indexOf("{{");
  if (open === -1) return { tail: text };
  // Where the literal being built resumes copying `text`, and what it holds
  // before that point (escapes already applied).
  let copied = 0;
  let literal = "";
  // False once a `{{` is left unclosed with no `}}` after it: no later `{{`
  // has one either, so the rest holds no reference, only escapes.
  let references = true;
  while (open !== -1) {
    const run = backslashesBefore(text, open, copied);
    if (run > 0) {
      literal += text.slice(copied, open - run) + halfOf(run);
      copied = open;
      if (run % 2 === 1) {
        open = nextOpen(text, open + 2, references);
        continue;
      }
    }
    if (!references) {
      open = nextEscapedOpen(text, open + 2);
      continue;
    }
    const end = groupEnd(text, open);
    if (end === NOT_CLOSED) {
      // Searched only here, once per text at most: a `{{` with no `}}`
      // after it ends the references, so no later group is unclosed again
      // (a search per `{{` would make megabytes of `{{` quadratic).
      if (text.lastIndexOf("}}") >= open + 2) {
        return { tail: "", failure: { open } };
      }
      references = false;
      open = nextEscapedOpen(text, open + 2);
      continue;
    }
    if (end === MALFORMED) {
      return { tail: "", failure: { name: malformedName(text, open) } };
    }
    reference(literal + text.slice(copied, open), text.slice(open + 2, end));
    literal = "";
    copied = end + 2;
    open = text.indexOf("{{", copied);
  }
  return { tail: copied === 0 ? text : literal + text.slice(copied) };
}

/**
 * The length of the run of backslashes that ends right before `open`, not
 * reaching before `from`. Each backslash is read once per text: a run
 * belongs to the one `{{` it precedes.
 */
function backslashesBefore(
  text: string,
  open: number,
  from: number,
): number {
  let start = open;
  while (start > from && text.charCodeAt(start - 1) === BACKSLASH) start--;
  return open - start;
}

/**
 * The next `{{` at or after `from`: any `{{` while references are read, else
 * only one right after a backslash (see {@linkcode nextEscapedOpen}).
 */
function nextOpen(
  text: string,
  from: number,
  references: boolean,
): number {
  return references ? text.indexOf("{{", from) : nextEscapedOpen(text, from);
}

/**
 * The next `{{` at or after `from` that follows a backslash, or -1. Once no
 * `}}` is left, only escapes change the text, and searching for them alone
 * keeps megabytes of `{{` one scan, as before the escape.
 */
function nextEscapedOpen(text: string, from: number): number {
  const at = text.indexOf("\\{{", from);
  return at === -1 ? -1 : at + 1;
}

/** What a run of `run` backslashes before a `{{` renders: half of them. */
function halfOf(run: number): string {
  return run < 2 ? "" : "\\".repeat(run >> 1);
}

/** {@linkcode groupEnd}: the `{{` is not closed by `}}` before any brace. */
const NOT_CLOSED = -1;
/** {@linkcode groupEnd}: the group is closed, but its name is malformed. */
const MALFORMED = -2;

/**
 * Where the `}}` closing the group opened at `open` starts, scanning the
 * group's inside once and checking the name as it goes; or
 * {@linkcode NOT_CLOSED} or {@linkcode MALFORMED}.
 */
function groupEnd(text: string, open: number): number {
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
function malformedName(text: string, open: number): string {
  // The group holds no brace, so its first `}` is the one closing it.
  return text.slice(open + 2, text.indexOf("}", open + 2));
}
