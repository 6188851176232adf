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

/** A list read by index: the history followed by the tail, not copied. */
export interface ItemsAt<M> {
  readonly length: number;
  at(index: number): M | undefined;
}

/**
 * Where the request's marks go (SPEC 9.8): the last item, and the previous
 * request's last item when the step added more parts than the provider
 * looks back over (`lookbackBlocks`; 0: whenever the step added any).
 * Each mark goes on the last part of its item, or of the item before an
 * item that defers to it; an item with no site carries none. No mark:
 * nothing placed. Reads `items` by index from `previousLength` on (and
 * back over items that defer), so it costs the step's new items; each
 * marked item is a copy (`placed`), the item itself never changed.
 */
export function planHistoryMarks<M>(
  items: ItemsAt<M>,
  previousLength: number,
  mark: unknown,
  lookbackBlocks: number,
  sites: MarkSites<M>,
): { placed: { at: number; item: M }[]; marks: RecordingMark[] } {
  const placed: { at: number; item: M }[] = [];
  const marks: RecordingMark[] = [];
  if (mark === undefined) return { placed, marks };
  const length = items.length;
  const ends = [length - 1];
  if (previousLength > 0 && previousLength < length) {
    let added = 0;
    if (lookbackBlocks > 0) {
      for (let index = previousLength; index < length; index++) {
        added += sites.partCount(items.at(index) as M);
      }
    }
    if (lookbackBlocks === 0 || added > lookbackBlocks) {
      ends.unshift(previousLength - 1);
    }
  }
  for (let at of ends) {
    if (at < 0) continue;
    let found = sites.site(items.at(at) as M);
    while (found === "before" && at > 0) {
      found = sites.site(items.at(--at) as M);
    }
    const message = at + sites.leadingItems;
    if (
      found === undefined || found === "before" || found.parts.length === 0 ||
      marks.some((placed) => placed.message === message)
    ) continue;
    const block = found.parts.length - 1;
    const parts = sites.setMark(found.parts, block, copyOf(mark));
    placed.push({ at, item: { ...items.at(at) as M, [found.field]: parts } });
    marks.push({ message, block, mark: copyOf(mark) });
  }
  return { placed, marks };
}

/**
 * The history with the request's marks (`planHistoryMarks`'s placements
 * made in `history`, the caller's own list).
 */
export function markHistoryEnds<M>(
  history: M[],
  previousLength: number,
  mark: unknown,
  lookbackBlocks: number,
  sites: MarkSites<M>,
): { items: M[]; marks: RecordingMark[] } {
  const { placed, marks } = planHistoryMarks(
    history,
    previousLength,
    mark,
    lookbackBlocks,
    sites,
  );
  for (const { at, item } of placed) history[at] = item;
  return { items: history, marks };
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
