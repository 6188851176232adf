/**
 * The append-only check (SPEC 10.1): a request extends the previous request
 * of its conversation, byte for byte but the cache marks. Cheap, because
 * the conversation knows what it appended: the head's keys that must hold
 * are compared as JSON without marks; the history is sent from the
 * append-only store the previous request's items are in (`history.ts`), so
 * only the items a mark was put on (copies, at most a few) can differ, and
 * they are compared as JSON without marks. O(marks), not O(history).
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { Placement, ReadonlyHistory } from "./history.ts";

/** The request before this one, as the check reads it. */
export interface Previous<M> {
  /** Its head as recorded (marks in place), as JSON. */
  readonly head: string;
  /** The committed history, its items the very objects sent. */
  readonly history: ReadonlyHistory<M>;
  /**
   * The head's keys this request must not change: `system` when sections
   * go inline, `tools` when tools do and the tools block is kept.
   */
  readonly keys: readonly string[];
  /**
   * The JSON without marks of the keys its own check read, and the head
   * they were read from: a key read then is not parsed and written again.
   */
  readonly checked?: CheckedHead;
  /** The deferred tools of the assembly it was built of. */
  readonly deferred?: readonly { readonly name: string }[];
}

/** The keys of a head as a check read them: their JSON without marks. */
export interface CheckedHead {
  /** The head's JSON (marks in place) they were read from. */
  readonly head: string;
  readonly json: ReadonlyMap<string, string>;
}

/** This request, as built. */
export interface Sent<M> {
  readonly head: Readonly<Record<string, unknown>>;
  /** The history the request is sent from (marks not in place). */
  readonly history: ReadonlyHistory<M>;
  /** The marked copies put in place of the items at their indexes. */
  readonly placed: readonly Placement<M>[];
  /** The form's mark, as its rules spell it (`cache_control`, ...). */
  readonly markName?: string;
  /**
   * Whether the head writes the previous head's JSON (marks and all): its
   * keys then hold without being compared.
   */
  readonly sameHead?: boolean;
  /**
   * The assembly's deferred tools, when the form's tool search
   * lists them in the tools block (not the pair): a change of the tools
   * block with deferred tools before or now is told as their change.
   */
  readonly deferred?: readonly { readonly name: string }[];
}

/** The keys a cache mark is written under, on every form. */
const MARK_KEYS = new Set([
  "cache_control",
  "prompt_cache_breakpoint",
  "cacheControl",
]);

/**
 * Throws `APPEND_ONLY_VIOLATION` when `sent` does not extend `previous`;
 * returns the JSON without marks of the head's keys it compared (the next
 * request's `checked`, when this head is sent as it is).
 *
 * @throws {SystemPromptError} `APPEND_ONLY_VIOLATION` (a bug in rxprompt),
 * `DEFERRED_TOOLS_CHANGED` (the deferred tools a tools block lists changed)
 */
export function checkAppendOnly<M>(
  previous: Previous<M>,
  sent: Sent<M>,
): ReadonlyMap<string, string> {
  const markless = (value: unknown) =>
    JSON.stringify(unmarked(value, sent.markName)) ?? "";
  const checked = previous.checked?.head === previous.head
    ? previous.checked.json
    : undefined;
  // The same head's keys are those compared last time.
  const compared = sent.sameHead === true
    ? checked ?? new Map<string, string>()
    : compareHeads(previous, sent, { checked, markless });
  checkHistory(previous, sent, markless);
  return compared;
}

/** The head's keys compared without marks: their JSON, as compared. */
function compareHeads<M>(
  previous: Previous<M>,
  sent: Sent<M>,
  { checked, markless }: {
    readonly checked: ReadonlyMap<string, string> | undefined;
    readonly markless: (value: unknown) => string;
  },
): Map<string, string> {
  const compared = new Map<string, string>();
  let before: Record<string, unknown> | undefined;
  for (const key of previous.keys) {
    let was = checked?.get(key);
    if (was === undefined) {
      before ??= JSON.parse(previous.head) as Record<string, unknown>;
      was = markless(before[key]);
    }
    const now = markless(sent.head[key]);
    if (was !== now) {
      if (key === "tools" && deferring(previous, sent)) {
        throw deferredToolsChanged(sent.deferred ?? []);
      }
      throw violation(`head's ${key}`);
    }
    compared.set(key, now);
  }
  return compared;
}

/** The history sent extends the previous request's (marks aside). */
function checkHistory<M>(
  previous: Previous<M>,
  sent: Sent<M>,
  markless: (value: unknown) => string,
): void {
  const { history } = previous;
  // The store is shared: the previous request's last item is the very
  // object this request sends at its index.
  if (
    sent.history.length < history.length ||
    (history.length > 0 &&
      sent.history.at(history.length - 1) !== history.at(-1))
  ) {
    throw violation("history");
  }
  for (const { at, item } of sent.placed) {
    if (at >= history.length) continue;
    const before = history.at(at);
    if (
      item !== before && !sameBesideMarks(item, before, sent.markName) &&
      markless(item) !== markless(before)
    ) {
      throw violation(`history item ${at}`);
    }
  }
}

/**
 * Whether `a` and `b` surely write the same JSON without their marks,
 * read in place: a marked copy shares all but the objects on the mark's
 * path with the item it copies, so this is a few comparisons where the
 * JSON of both was two copies and two texts. `false` when unsure (then the
 * JSON decides): a field JSON leaves out, an object a removed mark would
 * empty, anything but plain data.
 */
function sameBesideMarks(
  a: unknown,
  b: unknown,
  name: string | undefined,
  depth = 0,
): boolean {
  if (a === b) {
    return typeof a !== "number" || Number.isFinite(a);
  }
  if (
    typeof a !== "object" || a === null || typeof b !== "object" ||
    b === null || depth > 64
  ) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      if (!sameBesideMarks(a[index], b[index], name, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b) || !plainData(a) || !plainData(b)) return false;
  const keysA = unmarkedKeys(a, name);
  const keysB = unmarkedKeys(b, name);
  if (
    keysA === undefined || keysB === undefined ||
    keysA.length !== keysB.length
  ) return false;
  for (let index = 0; index < keysA.length; index++) {
    const key = keysA[index];
    if (
      key !== keysB[index] ||
      !sameBesideMarks(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        name,
        depth + 1,
      )
    ) return false;
  }
  return true;
}

/** A plain object JSON writes field by field. */
function plainData(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) &&
    (value as { toJSON?: unknown }).toJSON === undefined;
}

/**
 * An object's keys but its marks, in order; `undefined` (unsure) for a
 * field JSON leaves out, or when removing a mark leaves the object empty.
 */
function unmarkedKeys(
  value: object,
  name: string | undefined,
): string[] | undefined {
  const all = Object.keys(value);
  const kept: string[] = [];
  for (const key of all) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined || typeof inner === "function") return undefined;
    if (MARK_KEYS.has(key) || key === name) continue;
    kept.push(key);
  }
  return kept.length === 0 && all.length > 0 ? undefined : kept;
}

/**
 * `value` without its marks; an object left empty by their removal (the
 * AI SDK's `providerOptions: { anthropic: {} }`) is left out too.
 */
function unmarked(value: unknown, name: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => unmarked(item, name));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (MARK_KEYS.has(key) || key === name || inner === undefined) continue;
    const kept = unmarked(inner, name);
    if (
      typeof inner === "object" && inner !== null && !Array.isArray(inner) &&
      Object.keys(inner).length > 0 &&
      Object.keys(kept as object).length === 0
    ) continue;
    out[key] = kept;
  }
  return out;
}

/**
 * Whether deferred tools are what the tools block would change by: the
 * form lists them there, and this request or the previous one has some.
 */
function deferring<M>(previous: Previous<M>, sent: Sent<M>): boolean {
  return sent.deferred !== undefined &&
    sent.deferred.length + (previous.deferred ?? []).length > 0;
}

/**
 * A change of the deferred tools after the first request, with tool
 * changes told inline: the provider's tool search lists them in the tools
 * block, which no request may edit (a user's choice to make, not a bug).
 */
function deferredToolsChanged(
  now: readonly { readonly name: string }[],
): SystemPromptError {
  return new SystemPromptError(
    "DEFERRED_TOOLS_CHANGED",
    `The deferred tools changed after the conversation's first request ` +
      `(now ${
        now.length === 0
          ? "none"
          : now.map(({ name }) => JSON.stringify(name)).join(", ")
      }) while its tool changes go inline (changes.tools "inline", the ` +
      `default once an answer holds thinking or reasoning): the provider's ` +
      `tool search ` +
      `lists them in the tools block, which no request may edit. Register ` +
      `the deferred tools before the first request and keep them, or give ` +
      `the conversation toolSearch: "pair" (its own search, whose two tools ` +
      `take any change). Nothing was sent.`,
  );
}

function violation(where: string): SystemPromptError {
  return new SystemPromptError(
    "APPEND_ONLY_VIOLATION",
    `The request would change the previous request's ${where} (cache marks ` +
      `aside): every request of a conversation extends the one before. ` +
      `This is a bug in rxprompt; please report it with the recording ` +
      `(conv.save()). Nothing was sent.`,
  );
}
