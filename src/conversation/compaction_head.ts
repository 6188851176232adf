/**
 * The system prompt after a compaction (SPEC 10.1 on 10.2): kept, with the
 * section changes since it restated after the summary, or rebuilt from the
 * sections as they are now, whichever sends fewer new bytes. Pure.
 *
 * The first request after a compaction writes the summary and what follows
 * anyway. Kept, it reads the whole system prompt and writes the restated
 * changes once; every later request reads both the head's stale texts and
 * the changes. Rebuilt, it writes the system prompt from the first changed
 * section on once; every later request reads only the current texts. The
 * rebuild costs no more on the first request when its rewrite is no longer
 * than the restatement, and less on every later one, so that is the rule
 * (characters stand for tokens: both sides are the same kind of text).
 * The tools block is always kept: a provider's compaction states its tool
 * changes against it (Anthropic's `tool_changes`), and the other forms
 * restate the tools given inline as changes from it.
 *
 * @module
 */

import {
  changeText,
  type HeldSection,
  type SectionChange,
} from "./system_changes.ts";

/**
 * Whether a head with nothing to keep it (the first request after a
 * compaction, a fork's first) is built again from `now` rather than keep
 * `head` and restate `changes` (the changes of `now` against the head):
 * when the restatement is at least as long as the system prompt's
 * rewrite, from the first section that differs to its end.
 */
export function rewriteIsShorter(
  head: readonly HeldSection[],
  now: readonly HeldSection[],
  changes: readonly SectionChange[],
): boolean {
  if (changes.length === 0) return false;
  const restated = changes.reduce(
    (length, change) => length + changeText(change).length,
    0,
  );
  let first = 0;
  while (
    first < head.length && first < now.length &&
    sameSection(head[first], now[first])
  ) first++;
  const rewritten = now.slice(first).reduce(
    (length, section) => length + section.text.length,
    0,
  );
  return rewritten <= restated;
}

/** Whether a section renders the same in both heads (its bytes and place). */
function sameSection(a: HeldSection, b: HeldSection): boolean {
  return a.name === b.name && a.text === b.text &&
    a.cacheBreakpoint === b.cacheBreakpoint && a.stability === b.stability;
}
