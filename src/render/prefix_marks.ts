/**
 * Which tools and system blocks of a request carry cache marks (SPEC 8.3,
 * 9.2): the candidates in wire order (tools, then system blocks), and which
 * of them to keep within the limit; the stateless adapters and the
 * conversation forms' heads place their marks by it. Pure.
 *
 * @module
 */

/** One item of a request's prefix, in wire order. */
export interface WireItem {
  /** 0 stable, 1 agent, 2 volatile. */
  readonly rank: number;
  /** The item may carry a marker. */
  readonly candidate: boolean;
}

/**
 * Which tools may carry a marker (Anthropic, AI SDK): the last tool of each
 * stability run that is followed by a more volatile tool or by the system
 * prompt, never a volatile one. `ranks` are the tools' stability ranks in
 * wire order.
 */
export function toolCandidates(ranks: readonly number[]): boolean[] {
  return ranks.map((rank, index) =>
    rank < 2 && (index === ranks.length - 1 || ranks[index + 1] > rank)
  );
}

/** What {@linkcode blockItems} reads of a prompt block. */
export interface MarkableBlock {
  readonly stability?: string;
  readonly cacheBreakpoint: boolean;
}

/**
 * The prompt blocks as wire items, ranked by their stability: stable 0,
 * agent 1, volatile 2.
 */
export function blockItems(blocks: readonly MarkableBlock[]): WireItem[] {
  return blocks.map((block) => ({
    rank: block.stability === "volatile"
      ? 2
      : block.stability === "agent"
      ? 1
      : 0,
    candidate: block.cacheBreakpoint,
  }));
}

/**
 * The wire items of a request whose tools may carry markers (Anthropic, AI
 * SDK): the sent tools, by their stability ranks, then the prompt blocks.
 */
export function markableItems(
  toolRanks: readonly number[],
  blocks: readonly MarkableBlock[],
): WireItem[] {
  return [
    ...toolCandidates(toolRanks).map((candidate, index) => ({
      rank: toolRanks[index],
      candidate,
    })),
    ...blockItems(blocks),
  ];
}

/**
 * The indexes of `items` to mark (SPEC 9.2). Only candidates before the
 * first volatile item count: a marker after it would end a prefix holding
 * the volatile bytes, written again every time they change. Every such
 * candidate when they fit in `limit`; otherwise, in this order, the one that
 * ends the prefix every scope shares (the last item of the leading run of
 * stable items: the last stable tool, or the last stable block), the last
 * candidate, the latest of the others (where a sibling scope's prompt is
 * likeliest to part from this one), `forkEnd` when it is a candidate (a
 * conversation's last tool: the prefix a fork that adds a tool shares),
 * then the rest, latest first. Returned in ascending order.
 */
export function selectMarkers(
  items: readonly WireItem[],
  limit: number,
  { forkEnd }: { readonly forkEnd?: number } = {},
): number[] {
  const candidates: number[] = [];
  let sharedEnd = -1;
  for (let index = 0; index < items.length; index++) {
    const { rank, candidate } = items[index];
    if (rank >= 2) break;
    if (rank === 0 && sharedEnd === index - 1) sharedEnd = index;
    if (candidate) candidates.push(index);
  }
  if (candidates.length <= limit) return candidates;
  const kept = new Set<number>();
  const [last, ...earlier] = candidates.toReversed();
  const latestOther = earlier.find((index) => index !== sharedEnd);
  const wanted = [
    ...(candidates.includes(sharedEnd) ? [sharedEnd] : []),
    last,
    ...(latestOther === undefined ? [] : [latestOther]),
    ...(forkEnd !== undefined && candidates.includes(forkEnd) ? [forkEnd] : []),
    ...earlier,
  ];
  for (const index of wanted) {
    if (kept.size === limit) break;
    kept.add(index);
  }
  return [...kept].sort((a, b) => a - b);
}

/**
 * 0.2's rule (`breakpoints: "explicit"`): the latest `limit` of `count`
 * markable items, in ascending order.
 */
export function latestMarkers(count: number, limit: number): number[] {
  const first = Math.max(0, count - limit);
  return Array.from({ length: count - first }, (_, index) => first + index);
}
