/**
 * Requests as chains of prefixes. Every distinct prefix (a sequence of
 * block keys) gets one number, so that "this prefix was written before" is
 * one map lookup whatever its length: a session's work grows with its
 * blocks, never with the requests before it. Token counts are memoised per
 * distinct text.
 *
 * @module
 */

import { SystemPromptError } from "../../errors.ts";
import { TextMap } from "../../shared/text_map.ts";
import type { Block, Marker } from "./blocks.ts";
import type { BodyView } from "./body_view.ts";
import type { CountTokens } from "./types.ts";

/** The empty prefix. */
export const ROOT = 0;

/**
 * Blocks with the number of the prefix through each and the tokens
 * through each, counted from the run's own start.
 */
export interface Run {
  readonly blocks: readonly Block[];
  readonly nodes: readonly number[];
  readonly cumulative: readonly number[];
}

/** A run of a request: its blocks from `start`, `base` tokens before them. */
interface Part {
  readonly run: Run;
  readonly start: number;
  readonly end: number;
  readonly base: number;
}

/** A request's marks, by block (`undefined`: the block's own mark removed). */
export type MarkOverrides = ReadonlyMap<number, Marker | undefined>;

/**
 * A request read and counted: its blocks, the prefix number and the
 * tokens through each, read through accessors because a session's
 * requests share their runs (a request is the same blocks as the one
 * before and a few more: reading it is the few more, see `growing.ts`).
 */
export class Prepared implements BodyView {
  readonly index: number;
  /** The body's own fields (its items aside). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly time: number;
  /** How many blocks the request has. */
  readonly length: number;
  /** The marked blocks, in order. */
  readonly marks: readonly number[];
  readonly inputTokens: number;
  /** The tokens of the tools and system blocks. */
  readonly promptTokens: number;
  readonly explicitMode: boolean;
  /** OpenAI automatic caching's lifetime asked for by the body, in ms. */
  readonly automaticTtl?: number;
  readonly #parts: readonly Part[];
  readonly #overrides: MarkOverrides | undefined;

  constructor(
    request: {
      index: number;
      time: number;
      fields: Readonly<Record<string, unknown>>;
      explicitMode: boolean;
      automaticTtl?: number;
    },
    runs: readonly { run: Run; length: number }[],
    overrides?: MarkOverrides,
  ) {
    this.index = request.index;
    this.time = request.time;
    this.fields = request.fields;
    this.explicitMode = request.explicitMode;
    if (request.automaticTtl !== undefined) {
      this.automaticTtl = request.automaticTtl;
    }
    const parts: Part[] = [];
    let start = 0;
    let base = 0;
    for (const { run, length } of runs) {
      if (length === 0) continue;
      parts.push({ run, start, end: start + length, base });
      start += length;
      base += run.cumulative[length - 1];
    }
    this.#parts = parts;
    this.#overrides = overrides;
    this.length = start;
    this.inputTokens = base;
    this.marks = this.#marked();
    // The tools and system blocks come first (parseBody reads them so).
    let prompt = 0;
    while (prompt < start && this.block(prompt).part !== "messages") prompt++;
    this.promptTokens = this.through(prompt - 1);
  }

  /** Block `at` (its `marker` as the body that first sent it had it). */
  block(at: number): Block {
    const part = this.#part(at);
    return part.run.blocks[at - part.start];
  }

  /** The cache marker block `at` carries in this request. */
  marker(at: number): Marker | undefined {
    const overrides = this.#overrides;
    if (overrides !== undefined && overrides.has(at)) return overrides.get(at);
    return this.block(at).marker;
  }

  /** The prefix through block `at`. */
  node(at: number): number {
    const part = this.#part(at);
    return part.run.nodes[at - part.start];
  }

  /** The tokens through block `at` (0 before the first block). */
  through(at: number): number {
    if (at < 0) return 0;
    const part = this.#part(at);
    return part.base + part.run.cumulative[at - part.start];
  }

  #part(at: number): Part {
    const parts = this.#parts;
    for (let index = parts.length - 1; index > 0; index--) {
      if (at >= parts[index].start) return parts[index];
    }
    return parts[0];
  }

  /**
   * The marked blocks: a run's blocks rarely carry marks (a session's
   * bodies put them on a few blocks near the end, given as overrides or in
   * a request's own run), so each run keeps its marked blocks aside.
   */
  #marked(): number[] {
    const marks: number[] = [];
    for (const part of this.#parts) {
      for (const at of markedOf(part.run)) {
        if (at >= part.end - part.start) break;
        marks.push(part.start + at);
      }
    }
    const overrides = this.#overrides;
    if (overrides === undefined || overrides.size === 0) return marks;
    const all = new Set(marks);
    for (const at of overrides.keys()) all.add(at);
    return [...all].filter((at) => this.marker(at) !== undefined)
      .sort((a, b) => a - b);
  }
}

/** The marked blocks of each run, found once per run and length. */
const MARKED = new WeakMap<Run, { length: number; marked: number[] }>();

/** The indices of a run's marked blocks (a run only ever grows). */
function markedOf(run: Run): readonly number[] {
  let found = MARKED.get(run);
  if (found === undefined) {
    found = { length: 0, marked: [] };
    MARKED.set(run, found);
  }
  const { blocks } = run;
  for (; found.length < blocks.length; found.length++) {
    if (blocks[found.length].marker !== undefined) {
      found.marked.push(found.length);
    }
  }
  return found.marked;
}

/**
 * Numbers prefixes; remembers which were sent and which were extended.
 * Requests are numbered, simulated and recorded one after the other, so a
 * prefix numbered before the last recorded request ended was sent by an
 * earlier request: "sent before" is a comparison of numbers, and
 * recording a request costs nothing per block.
 */
export class PrefixIndex {
  /** Block key → its number (a TextMap: V8 hashes long keys by length). */
  readonly #keys = new TextMap<number>();
  /** Block number → its tokens. */
  readonly #tokens: number[] = [];
  /** (prefix, block) → the prefix one block longer, keyed by one number. */
  readonly #nodes = new Map<number, number>();
  /** Prefix number → its blocks, less one (the root: -1). */
  readonly #depth: number[] = [-1];
  /** Prefix number → the first prefix numbered after it, one block more. */
  readonly #firstChild: number[] = [0];
  /** The prefixes numbered when the last request was recorded. */
  #sent = 0;
  #requests = 0;

  /**
   * Appends to `into` the prefixes of `blocks[from..to)` after `parent`
   * and the tokens through each, counted on from `total`: each block is
   * counted once per distinct block, found by the block's number (a
   * block's text follows from its key), not by its text again.
   */
  extend(
    parent: number,
    range: { blocks: readonly Block[]; from: number; to: number },
    count: CountTokens,
    into: { nodes: number[]; cumulative: number[]; total: number },
  ): void {
    const { blocks, to } = range;
    let total = into.total;
    for (let at = range.from; at < to; at++) {
      const block = blocks[at];
      let key = this.#keys.get(block.key);
      if (key === undefined) {
        key = this.#keys.size;
        this.#keys.set(block.key, key);
        this.#tokens.push(count(block.text));
      }
      total += this.#tokens[key];
      // Both numbers stay far below 2^26: their pair is a safe integer.
      const edge = parent * EDGE + key;
      let node = this.#nodes.get(edge);
      if (node === undefined) {
        node = this.#nodes.size + 1;
        this.#nodes.set(edge, node);
        this.#depth.push(this.#depth[parent] + 1);
        this.#firstChild.push(0);
        if (this.#firstChild[parent] === 0) this.#firstChild[parent] = node;
      }
      into.nodes.push(node);
      into.cumulative.push(total);
      parent = node;
    }
    into.total = total;
  }

  /** Records a request as sent (after it was simulated). */
  record(): void {
    this.#requests += 1;
    this.#sent = this.#nodes.size;
  }

  /** Whether an earlier request sent this prefix. */
  seen(node: number): boolean {
    return node !== ROOT && node <= this.#sent;
  }

  /** Whether an earlier request sent a block after this prefix. */
  extended(node: number): boolean {
    const child = this.#firstChild[node];
    return child !== 0 && child <= this.#sent;
  }

  /** The position of a prefix's last block in any request holding it. */
  depth(node: number): number {
    return this.#depth[node];
  }

  /** How many requests were recorded. */
  get requests(): number {
    return this.#requests;
  }
}

/** The prefix number's factor in an edge's key (2^26 blocks). */
const EDGE = 2 ** 26;

/** Whether request `request` holds prefix `node`. */
export function holds(
  request: Prepared,
  index: PrefixIndex,
  node: number,
): boolean {
  const at = index.depth(node);
  return at >= 0 && at < request.length && request.node(at) === node;
}

/** `countTokens` memoised per distinct text, its answers checked. */
export function memoised(countTokens: CountTokens): CountTokens {
  const counts = new TextMap<number>();
  return (text) => {
    let count = counts.get(text);
    if (count !== undefined) return count;
    try {
      count = countTokens(text);
    } catch (error) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `countTokens threw for a text of ${text.length} characters; it must ` +
          `return a non-negative integer`,
        { cause: error },
      );
    }
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `countTokens returned ${
          typeof count === "number" ? String(count) : `a ${typeof count}`
        } for a text of ${text.length} characters; it must return a ` +
          `non-negative integer`,
      );
    }
    counts.set(text, count);
    return count;
  };
}

/** Numbers and counts a parsed request (its blocks in one run). */
export function prepare(
  request: {
    index: number;
    time: number;
    fields: Readonly<Record<string, unknown>>;
    blocks: readonly Block[];
    explicitMode: boolean;
    automaticTtl?: number;
  },
  index: PrefixIndex,
  count: CountTokens,
): Prepared {
  const { blocks } = request;
  const run = { blocks, nodes: [], cumulative: [], total: 0 };
  index.extend(ROOT, { blocks, from: 0, to: blocks.length }, count, run);
  return new Prepared(request, [{ run, length: blocks.length }]);
}

/** The tokens through block `index` (0 before the first block). */
export function tokensThrough(request: Prepared, index: number): number {
  return request.through(index);
}

/** The first block not wholly within the first `tokens` tokens, or -1. */
export function firstBlockBeyond(request: Prepared, tokens: number): number {
  let low = 0;
  let high = request.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (request.through(middle) > tokens) high = middle;
    else low = middle + 1;
  }
  return low < request.length ? low : -1;
}

/** The prefix before block `index`. */
export function parentOf(request: Prepared, index: number): number {
  return index === 0 ? ROOT : request.node(index - 1);
}
