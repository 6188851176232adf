/**
 * `toolOrder` validation and the canonical ordering of tools.
 *
 * Pure: no state, no RxJS. The same tools produce the same order on every
 * machine, whatever order the providers ran in, because names are compared
 * by UTF-16 code unit, never by locale.
 *
 * @module
 */

import { compareCodeUnits } from "../shared/util.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { ToolSchema } from "../types.ts";

/**
 * The `toolOrder` entry that stands for every tool the order does not list.
 * It must appear exactly once; no tool may carry this name. The tools it
 * stands for are placed by stability (stable, agent, volatile), then by
 * code-unit name, so the tools that change come last.
 *
 * @example
 * ```ts
 * import { SystemPrompt, TOOL_ORDER_REST } from "@rxprompt/system-prompt";
 *
 * // `shell` first, then every other tool by stability and name, then
 * // `finish` last.
 * const prompt = new SystemPrompt({ toolOrder: ["shell", TOOL_ORDER_REST, "finish"] });
 * ```
 */
export const TOOL_ORDER_REST = "<unlisted-tools>";

/** A validated `toolOrder`: each listed name's rank, and the rest's rank. */
export interface ToolOrderPlan {
  /** Listed tool names and their positions in the configured order. */
  readonly ranks: ReadonlyMap<string, number>;
  /** The position of {@linkcode TOOL_ORDER_REST}. */
  readonly restRank: number;
}

/** The inputs of {@linkcode toolPositions} beside the tools themselves. */
export interface OrderToolsOptions {
  /** The compiled `toolOrder`; absent means plain name order. */
  plan?: ToolOrderPlan;
  /**
   * The names the order may legitimately list besides the tools' own (the
   * union of the providers' `knownNames`). A listed name that is neither is
   * an error; a known name that is absent from `tools` is a normal absence.
   */
  knownNames?: ReadonlySet<string>;
}

/**
 * Validates a configured `toolOrder` and compiles it into a plan: every entry
 * a non-empty string, no duplicates, {@linkcode TOOL_ORDER_REST} exactly once.
 *
 * @throws {SystemPromptError} `INVALID_TOOL_ORDER` naming the bad entry.
 */
export function compileToolOrder(toolOrder: unknown): ToolOrderPlan {
  if (!Array.isArray(toolOrder)) {
    throw new SystemPromptError(
      "INVALID_TOOL_ORDER",
      `toolOrder must be an array of tool names that contains ` +
        `TOOL_ORDER_REST (${quote(TOOL_ORDER_REST)}) exactly once; got ` +
        `${quote(toolOrder)}.`,
    );
  }
  const ranks = new Map<string, number>();
  for (let index = 0; index < toolOrder.length; index++) {
    const name: unknown = toolOrder[index];
    if (typeof name !== "string" || name === "") {
      throw new SystemPromptError(
        "INVALID_TOOL_ORDER",
        `toolOrder[${index}] is ${quote(name)}; every entry must be a ` +
          `non-empty tool name or TOOL_ORDER_REST (${quote(TOOL_ORDER_REST)}).`,
      );
    }
    const previous = ranks.get(name);
    if (previous !== undefined) {
      throw new SystemPromptError(
        "INVALID_TOOL_ORDER",
        `toolOrder lists ${quote(name)} twice (at ${previous} and ` +
          `${index}); each entry may appear once.`,
      );
    }
    ranks.set(name, index);
  }
  const restRank = ranks.get(TOOL_ORDER_REST);
  if (restRank === undefined) {
    throw new SystemPromptError(
      "INVALID_TOOL_ORDER",
      `toolOrder must contain TOOL_ORDER_REST (${quote(TOOL_ORDER_REST)}) ` +
        `exactly once, to place the tools it does not list; it has none.`,
    );
  }
  ranks.delete(TOOL_ORDER_REST);
  return { ranks, restRank };
}

/**
 * The canonical order of `tools`, as positions: the index in `tools` of each
 * tool in that order. The same names in the same input order always give the
 * same positions.
 *
 * Without a plan: code-unit order of the names. With one: listed names at
 * their listed position, the others at the rest entry in name order. The
 * registry passes unique names (a nearer layer's tool shadows, and one layer
 * offering a name twice is `DUPLICATE_TOOL`, before ordering); the sort is
 * stable, so repeated names would keep their input order.
 *
 * @throws {SystemPromptError} `RESERVED_TOOL_NAME` when a tool is named
 * {@linkcode TOOL_ORDER_REST}; `UNKNOWN_TOOL_IN_ORDER` when the plan lists
 * names that are neither the tools' own nor in `knownNames`, naming every
 * such entry and the known tools.
 */
export function toolPositions(
  tools: readonly ToolSchema[],
  options: OrderToolsOptions = {},
): number[] {
  const { plan, knownNames } = options;
  for (const tool of tools) {
    if (tool.name === TOOL_ORDER_REST) {
      throw new SystemPromptError(
        "RESERVED_TOOL_NAME",
        `A tool provider returned a tool named ${quote(TOOL_ORDER_REST)}, ` +
          `which is reserved for TOOL_ORDER_REST; rename the tool.`,
      );
    }
  }
  const positions = tools.map((_, position) => position);
  if (plan === undefined) {
    return positions.sort((a, b) =>
      compareCodeUnits(tools[a].name, tools[b].name)
    );
  }
  const { ranks, restRank } = plan;
  // Each tool's rank is looked up once, not in every comparison; the ranks
  // met are the listed names that need no other proof of being known.
  const met: boolean[] = [];
  const rankOf = tools.map((tool) => {
    const rank = ranks.get(tool.name);
    if (rank === undefined) return restRank;
    met[rank] = true;
    return rank;
  });
  checkListedNamesAreKnown(plan, { met, tools, knownNames });
  return positions.sort((a, b) => {
    if (rankOf[a] !== rankOf[b]) return rankOf[a] - rankOf[b];
    return rankOf[a] === restRank
      ? compareCodeUnits(tools[a].name, tools[b].name)
      : 0;
  });
}

/**
 * `ordered` (canonical tools, names unique) with the tools the plan does not
 * list placed by stability, then by their order in `ordered` (which is name
 * order): the listed tools keep their places, the others fill the remaining
 * places. `ranks[i]` is the stability rank of `ordered[i]` (0 stable, 1
 * agent, 2 volatile).
 */
export function restByStability(
  ordered: readonly ToolSchema[],
  { ranks, plan }: {
    ranks: readonly number[];
    plan: ToolOrderPlan | undefined;
  },
): ToolSchema[] {
  const slots: number[] = [];
  for (let index = 0; index < ordered.length; index++) {
    if (plan === undefined || !plan.ranks.has(ordered[index].name)) {
      slots.push(index);
    }
  }
  const rest = slots.slice().sort((a, b) => ranks[a] - ranks[b] || a - b);
  const placed = ordered.slice();
  for (let index = 0; index < slots.length; index++) {
    placed[slots[index]] = ordered[rest[index]];
  }
  return placed;
}

function checkListedNamesAreKnown(
  plan: ToolOrderPlan,
  { met, tools, knownNames }: {
    met: readonly boolean[];
    tools: readonly ToolSchema[];
    knownNames: ReadonlySet<string> | undefined;
  },
): void {
  const unknown: string[] = [];
  for (const [name, rank] of plan.ranks) {
    if (met[rank] !== true && knownNames?.has(name) !== true) {
      unknown.push(name);
    }
  }
  if (unknown.length === 0) return;
  const known = [
    ...new Set([...tools.map((tool) => tool.name), ...knownNames ?? []]),
  ].sort();
  throw new SystemPromptError(
    "UNKNOWN_TOOL_IN_ORDER",
    `toolOrder lists ${unknown.length === 1 ? "a tool" : "tools"} that no ` +
      `tool provider knows: ${unknown.map(quote).join(", ")}; ` +
      (known.length === 0
        ? "no tool provider knows any tool."
        : `known tools: ${known.join(", ")}.`),
  );
}
