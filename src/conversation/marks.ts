/**
 * The conversation's mark policy (SPEC 9.2, 9.8), decided once for every
 * provider form: which history items carry a cache mark (the request's
 * end, and the previous request's when the step added more than the
 * provider looks back over), how many marks are left for the prefix, and
 * where a fork's first request marks the prefix it shares with its
 * parent. A form says only where its items keep their parts and how a
 * mark is set (`MarkSites`); which tools and system blocks carry marks is
 * `src/render/prefix_marks.ts`'s. Pure.
 *
 * @module
 */

import type { RecordingMark } from "./recording.ts";

/** Where a form's history items carry marks, and how one is set. */
export interface MarkSites<M> {
  /** Body items before the history in the list marks index (a system message). */
  readonly leadingItems: number;
  /** An item's parts, as the lookback counts them. */
  partCount(item: M): number;
  /**
   * Where an item may carry a mark: its parts and the field holding them;
   * `"before"` (the mark goes on the item before it); or nowhere.
   */
  site(
    item: M,
  ):
    | { readonly field: string; readonly parts: readonly unknown[] }
    | "before"
    | undefined;
  /** `parts` with `mark` on part `index` (a copy). */
  setMark(parts: readonly unknown[], index: number, mark: unknown): unknown[];
}

/** A head's prefix items, as a fork's shared mark reads them. */
export interface PrefixItems {
  /** Each item's JSON without its mark. */
  readonly json: readonly string[];
  /** Whether each item may carry a mark. */
  readonly markable: readonly boolean[];
  /** Whether each item carries one. */
  readonly marked: readonly boolean[];
}

/** Where a form's head keeps its prefix, and how marks are put on it. */
export interface PrefixSites<H> {
  /** The prefix of a head as recorded (the parent's, or this request's). */
  of(recorded: Readonly<Record<string, unknown>>): PrefixItems;
  /**
   * `head` with marks on exactly the items `marked` (indexes of `of`'s):
   * an item marked already keeps its own, the others get `mark`.
   */
  withMarks(head: H, marked: ReadonlySet<number>, mark: unknown): H;
}

/**
 * The history with the request's marks (SPEC 9.8): the last item, and the
 * previous request's last item when the step added more parts than the
 * provider looks back over (`lookbackBlocks`; 0: whenever the step added
 * any). Each mark goes on the last part of its item, or of the item before
 * an item that defers to it; an item with no site carries none. No mark:
 * the history as it is. `history` is the caller's own list (the request's):
 * a marked item is replaced in it by a copy, the item itself never changed.
 */
export function markHistoryEnds<M>(
  history: M[],
  previousLength: number,
  mark: unknown,
  lookbackBlocks: number,
  sites: MarkSites<M>,
): { items: M[]; marks: RecordingMark[] } {
  const items = history;
  const marks: RecordingMark[] = [];
  if (mark === undefined) return { items, marks };
  const ends = [history.length - 1];
  if (previousLength > 0 && previousLength < history.length) {
    let added = 0;
    if (lookbackBlocks > 0) {
      for (let index = previousLength; index < history.length; index++) {
        added += sites.partCount(history[index]);
      }
    }
    if (lookbackBlocks === 0 || added > lookbackBlocks) {
      ends.unshift(previousLength - 1);
    }
  }
  for (let at of ends) {
    let found = sites.site(items[at]);
    while (found === "before" && at > 0) found = sites.site(items[--at]);
    const message = at + sites.leadingItems;
    if (
      found === undefined || found === "before" || found.parts.length === 0 ||
      marks.some((placed) => placed.message === message)
    ) continue;
    const block = found.parts.length - 1;
    const parts = sites.setMark(found.parts, block, copyOf(mark));
    items[at] = { ...items[at], [found.field]: parts };
    marks.push({ message, block, mark: copyOf(mark) });
  }
  return { items, marks };
}

/**
 * The marks left for a request's prefix after its history's: within the
 * provider's limit, at most `prefixLimit` for the adapter's own choice,
 * and all that is left for a fork's shared mark.
 */
export function markBudget(
  markerLimit: number | undefined,
  historyMarks: number,
  prefixLimit: number,
): { prefix: number; fork: number } {
  if (markerLimit === undefined) {
    return { prefix: prefixLimit, fork: prefixLimit };
  }
  const left = markerLimit - historyMarks;
  return { prefix: Math.min(prefixLimit, left), fork: left };
}

/**
 * A fork's first request (SPEC 9.8): its head with a mark at the end of
 * the longest prefix (tools, then system parts) it shares with its
 * parent's last request, so sibling forks read what it writes there. An
 * end that cannot carry a mark, or carries one, changes nothing; over
 * `limit` marks, the mark closest before the end gives way (the lookback
 * from the end reaches its prefix), else the next one after it.
 */
export function markSharedPrefix<H>(
  head: H,
  recorded: Readonly<Record<string, unknown>>,
  parent: Readonly<Record<string, unknown>>,
  { mark, limit }: { readonly mark: unknown; readonly limit: number },
  sites: PrefixSites<H>,
): H {
  const own = sites.of(recorded);
  const before = sites.of(parent);
  let shared = 0;
  while (
    shared < own.json.length && shared < before.json.length &&
    own.json[shared] === before.json[shared]
  ) shared++;
  const end = shared - 1;
  const marked = own.marked.flatMap((is, index) => is ? [index] : []);
  if (end < 0 || !own.markable[end] || own.marked[end] || limit < 1) {
    return head;
  }
  const all = [...marked, end].sort((a, b) => a - b);
  if (all.length > limit) {
    const yielding = all.filter((index) => index < end).at(-1) ??
      all.find((index) => index > end)!;
    all.splice(all.indexOf(yielding), 1);
  }
  return sites.withMarks(head, new Set(all), mark);
}

/** A mark's own copy, for each place it goes. */
function copyOf(mark: unknown): unknown {
  return typeof mark === "object" && mark !== null ? { ...mark } : mark;
}
