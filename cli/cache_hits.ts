/**
 * Which of the Anthropic cache markers of the later request still hit the
 * cache the earlier request wrote. Anthropic caches only at marked
 * boundaries, so a long unchanged prefix of characters is worth only the
 * marked blocks that end inside it.
 *
 * @module
 */

import { toMessages } from "../adapters/anthropic/mod.ts";
import type { PromptAssembly } from "../mod.ts";

/** One cache marker of a request, in wire order (tools, then system). */
export interface MarkerHit {
  /** `tools` (the marker on the last tool) or `system block N` (1-based). */
  readonly marker: string;
  /** Whether the earlier request wrote the same prefix up to this marker. */
  readonly hit: boolean;
}

/**
 * The markers `toMessages(after, { cache: true })` sets, each with whether
 * it still hits: the tools marker when the tools are unchanged; a system
 * block's marker when, besides, the system prompt is unchanged up to the
 * block's end and the earlier request had a marker at that same end.
 * `undefined` when either assembly cannot be sent (the adapter throws).
 */
export function markerHits(
  before: PromptAssembly,
  after: PromptAssembly,
  stable: { toolsStable: boolean; promptStablePrefix: number },
): MarkerHit[] | undefined {
  let old, now;
  try {
    old = toMessages(before, { cache: true });
    now = toMessages(after, { cache: true });
  } catch {
    return undefined;
  }
  const hits: MarkerHit[] = [];
  const toolMarked = now.tools?.at(-1)?.cache_control !== undefined;
  if (toolMarked) hits.push({ marker: "tools", hit: stable.toolsStable });
  const written = new Set(markedEnds(old.system));
  let end = 0;
  for (const [index, block] of now.system.entries()) {
    end += block.text.length;
    if (block.cache_control === undefined) continue;
    hits.push({
      marker: `system block ${index + 1}`,
      hit: stable.toolsStable && end <= stable.promptStablePrefix &&
        written.has(end),
    });
  }
  return hits;
}

function markedEnds(
  system: readonly { text: string; cache_control?: unknown }[],
): number[] {
  const ends: number[] = [];
  let end = 0;
  for (const block of system) {
    end += block.text.length;
    if (block.cache_control !== undefined) ends.push(end);
  }
  return ends;
}

/** `2 of 3 (tools, system block 1)`: the markers that still hit. */
export function describeHits(hits: readonly MarkerHit[]): string {
  const hit = hits.filter((marker) => marker.hit).map((m) => m.marker);
  return `${hit.length} of ${hits.length}` +
    (hit.length === 0 ? "" : ` (${hit.join(", ")})`);
}
