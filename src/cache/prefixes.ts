/**
 * Requests as chains of prefixes. Every distinct prefix (a sequence of
 * block keys) gets one number, so that "this prefix was written before" is
 * one map lookup whatever its length: a session's work grows with its
 * blocks, never with the requests before it. Token counts are memoised per
 * distinct text.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { TextMap } from "../shared/text_map.ts";
import type { Block } from "./blocks.ts";
import type { CountTokens } from "./types.ts";

/** The empty prefix. */
export const ROOT = 0;

/** A request read and counted. */
export interface Prepared {
  readonly index: number;
  readonly time: number;
  readonly blocks: readonly Block[];
  /** `nodes[i]`: the prefix through block `i`. */
  readonly nodes: readonly number[];
  /** `cumulative[i]`: the tokens through block `i`. */
  readonly cumulative: readonly number[];
  readonly inputTokens: number;
  /** The tokens of the tools and system blocks. */
  readonly promptTokens: number;
  readonly explicitMode: boolean;
  /** OpenAI automatic caching's lifetime asked for by the body, in ms. */
  readonly automaticTtl?: number;
}

/** Numbers prefixes; remembers which were sent and which were extended. */
export class PrefixIndex {
  /** Block key → its number (a TextMap: V8 hashes long keys by length). */
  readonly #keys = new TextMap<number>();
  /** Block number → its tokens. */
  readonly #tokens: number[] = [];
  readonly #nodes = new Map<string, number>();
  /** 1 for a prefix some earlier request sent (by prefix number). */
  readonly #seen: number[] = [0];
  /** 1 for a prefix some earlier request sent a block after. */
  readonly #extended: number[] = [0];
  #requests = 0;

  /**
   * The numbers of `blocks`' prefixes, and each block's tokens: counted
   * once per distinct block, found by the block's number (a block's text
   * follows from its key), not by its text again.
   */
  chain(
    blocks: readonly Block[],
    count: CountTokens,
  ): { nodes: number[]; tokens: number[] } {
    const nodes: number[] = [];
    const tokens: number[] = [];
    let parent = ROOT;
    for (const block of blocks) {
      let key = this.#keys.get(block.key);
      if (key === undefined) {
        key = this.#keys.size;
        this.#keys.set(block.key, key);
        this.#tokens.push(count(block.text));
      }
      tokens.push(this.#tokens[key]);
      const edge = `${parent},${key}`;
      let node = this.#nodes.get(edge);
      if (node === undefined) {
        node = this.#nodes.size + 1;
        this.#nodes.set(edge, node);
        this.#seen.push(0);
        this.#extended.push(0);
      }
      nodes.push(node);
      parent = node;
    }
    return { nodes, tokens };
  }

  /** Records a request as sent (after it was simulated). */
  record(request: Prepared): void {
    this.#requests += 1;
    let parent = ROOT;
    for (const node of request.nodes) {
      this.#extended[parent] = 1;
      this.#seen[node] = 1;
      parent = node;
    }
  }

  /** Whether an earlier request sent this prefix. */
  seen(node: number): boolean {
    return this.#seen[node] === 1;
  }

  /** Whether an earlier request sent a block after this prefix. */
  extended(node: number): boolean {
    return this.#extended[node] === 1;
  }

  /** How many requests were recorded. */
  get requests(): number {
    return this.#requests;
  }
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

/** Numbers and counts a parsed request. */
export function prepare(
  request: {
    index: number;
    time: number;
    blocks: readonly Block[];
    explicitMode: boolean;
    automaticTtl?: number;
  },
  index: PrefixIndex,
  count: CountTokens,
): Prepared {
  const { nodes, tokens } = index.chain(request.blocks, count);
  const cumulative: number[] = [];
  let total = 0;
  let prompt = 0;
  request.blocks.forEach((block, at) => {
    total += tokens[at];
    if (block.part !== "messages") prompt += tokens[at];
    cumulative.push(total);
  });
  return {
    ...request,
    nodes,
    cumulative,
    inputTokens: total,
    promptTokens: prompt,
  };
}

/** The tokens through block `index` (0 before the first block). */
export function tokensThrough(request: Prepared, index: number): number {
  return index < 0 ? 0 : request.cumulative[index];
}

/** The first block not wholly within the first `tokens` tokens, or -1. */
export function firstBlockBeyond(request: Prepared, tokens: number): number {
  const { cumulative } = request;
  let low = 0;
  let high = cumulative.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle] > tokens) high = middle;
    else low = middle + 1;
  }
  return low < cumulative.length ? low : -1;
}

/** The prefix before block `index`. */
export function parentOf(request: Prepared, index: number): number {
  return index === 0 ? ROOT : request.nodes[index - 1];
}
