/**
 * A request body as the report and the judgement read it: its blocks
 * through accessors, its marks, and its own fields (the options). A body
 * read whole gives one; a session's request read as the one before and a
 * few more (`growing.ts`) gives one that shares the blocks before, with
 * prefix numbers that tell in one comparison whether two bodies agree up
 * to a block.
 *
 * @module
 */

import type { Block, Marker } from "./blocks.ts";
import type { ProviderRules } from "./rules.ts";

/** A body's blocks and fields (internal). */
export interface BodyView {
  /** The body's own fields (`model`, `tool_choice`, ...); its items aside. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** How many blocks the body has. */
  readonly length: number;
  /** The marked blocks, in order. */
  readonly marks: readonly number[];
  /** OpenAI `prompt_cache_options.mode` is `"explicit"`. */
  readonly explicitMode: boolean;
  block(at: number): Block;
  marker(at: number): Marker | undefined;
  /**
   * The number of the prefix through block `at`, when the views compared
   * were numbered by one index: equal numbers, equal blocks through `at`.
   */
  node?(at: number): number;
  /**
   * The tokens through block `at` as the report's counter counted them,
   * when it counted every block of the body (a view the simulation read).
   */
  through?(at: number): number;
}

/**
 * A body read whole with `rules`.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 * (and whatever a getter of it throws)
 */
export function viewOfBody(body: unknown, rules: ProviderRules): BodyView {
  const { blocks, explicitMode } = rules.readBody(body);
  const marks: number[] = [];
  blocks.forEach((block, at) => {
    if (block.marker !== undefined) marks.push(at);
  });
  return {
    fields: body as Record<string, unknown>,
    length: blocks.length,
    marks,
    explicitMode,
    block: (at) => blocks[at],
    marker: (at) => blocks[at].marker,
  };
}

/**
 * How many leading blocks the two bodies share (marks aside). Numbered
 * bodies compare prefix numbers: a binary search, since bodies that share
 * the prefix through a block share every shorter one.
 */
export function commonBlocks(before: BodyView, after: BodyView): number {
  const length = Math.min(before.length, after.length);
  if (before.node !== undefined && after.node !== undefined) {
    let low = 0;
    let high = length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before.node(middle) === after.node(middle)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
  let index = 0;
  while (index < length) {
    const a = before.block(index);
    const b = after.block(index);
    if (a.key !== b.key || a.part !== b.part) break;
    index += 1;
  }
  return index;
}
