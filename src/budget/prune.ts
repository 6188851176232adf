/**
 * Priority pruning under a token budget (SPEC 8.9): the last step of an
 * assembly, after the waterfall and the complete-section replacement.
 *
 * Sections leave the prompt until it fits: every volatile section before
 * any agent one, every agent one before any stable one; within a tier the
 * lowest `priority` first, ties by later `order`, then code-unit name
 * descending. A `required` section and a section that renders empty never
 * leave; tools count but never leave (gates do that). Because the volatile
 * tier goes first, which other sections leave depends only on them, the
 * required volatile ones, the tools and the budget: a growing volatile
 * section never moves the cached prefix.
 *
 * Pure: the memo only saves counter calls.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { compareCodeUnits } from "../shared/util.ts";
import { readingAssembly } from "../render/assembly_shape.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import { type CountedAssembly, tokensOf } from "./count.ts";
import type { TokenMemo } from "./token_memo.ts";

/** A validated budget with its registry's memo for its counter. */
export interface BudgetPlan {
  readonly maxTokens: number;
  readonly memo: TokenMemo;
}

/** What a registered section says about pruning; absent = the defaults. */
export interface SectionTerms {
  /** Higher is kept longer (default 0). */
  readonly priority: number;
  /** Never pruned (default false). */
  readonly required: boolean;
}

/**
 * The registered terms of the sections that have any, by name. A map is
 * not changed once passed: a budget's next step may reuse what it read.
 */
export type TermsByName = ReadonlyMap<string, SectionTerms>;

const DEFAULT_TERMS: SectionTerms = { priority: 0, required: false };
const NO_TERMS: TermsByName = new Map();

/** How many of the largest required sections a `BUDGET_EXCEEDED` names. */
const NAMED = 3;

/** Options of {@linkcode pruneToBudget}. */
export interface PruneOptions {
  /** The registered terms of the sections (default: none has any). */
  readonly terms?: TermsByName;
  /** Called with why each section went, when any did (`explain()`). */
  readonly explain?: (pruning: Pruning) => void;
}

/**
 * `assembly` with as few sections pruned as the budget needs, in the order
 * above, and `pruned` listing them `{ name, tokens }` in pruning order; the
 * assembly itself (no `pruned` key) when it fits as it is.
 *
 * @throws {SystemPromptError} `BUDGET_EXCEEDED` when the required sections
 * and the tools alone exceed the budget; the render errors of
 * `renderPrompt`; `PROVIDER_FAILED` for a failing counter.
 */
export function pruneToBudget(
  assembly: PromptAssembly,
  plan: BudgetPlan,
  { terms = NO_TERMS, explain }: PruneOptions = {},
): PromptAssembly {
  // What a listener's getter or Proxy throws is typed, as in the renderers.
  const counted = readingAssembly(
    () => tokensOf(assembly, plan.memo),
    "The token budget",
  );
  const { maxTokens } = plan;
  if (counted.total <= maxTokens) return assembly;
  const sections = assembly.sections;
  const last = rankings.get(plan.memo);
  const candidates = candidatesOf(sections, {
    counted,
    terms,
    maxTokens,
    last: last?.terms === terms ? last.candidates : undefined,
  });
  const ranked = rankingOf(candidates, last);
  const decision = last !== undefined && last.candidates === candidates &&
      last.counted.sections === counted.sections &&
      last.counted.total === counted.total && last.maxTokens === maxTokens
    ? last.decision
    : decide(candidates, { ranked, counted, maxTokens });
  if (last?.decision !== decision) {
    rankings.set(plan.memo, {
      candidates,
      terms,
      ranked,
      counted,
      maxTokens,
      decision,
    });
  }
  const { names, indexes } = candidates;
  const pruned: { name: string; tokens: number }[] = new Array(decision.cut);
  for (let at = 0; at < decision.cut; at++) {
    pruned[at] = {
      name: names[ranked[at]],
      tokens: counted.sections[indexes[ranked[at]]],
    };
  }
  const keep = decision.kept;
  const kept: AssembledSection[] = new Array(keep.length);
  for (let at = 0; at < keep.length; at++) kept[at] = sections[keep[at]];
  explain?.({
    maxTokens,
    total: counted.total,
    sections: pruned.map(({ name, tokens }, at) => ({
      name,
      tokens,
      stability: TIERS[candidates.tiers[ranked[at]]],
      priority: candidates.priorities[ranked[at]],
    })),
  });
  return { ...assembly, sections: kept, pruned };
}

/** Why each section of `assembly.pruned` went, for `explain()`. */
export interface Pruning {
  /** The budget. */
  readonly maxTokens: number;
  /** The tokens of the prompt before pruning. */
  readonly total: number;
  /** In pruning order. */
  readonly sections: readonly {
    readonly name: string;
    readonly tokens: number;
    readonly stability: "stable" | "agent" | "volatile";
    readonly priority: number;
  }[];
}

const TIERS = ["volatile", "agent", "stable"] as const;

/** The sections that may be pruned, as parallel lists. */
interface Candidates {
  /** Each one's index in the assembly's sections. */
  readonly indexes: number[];
  readonly tiers: number[];
  readonly priorities: number[];
  readonly orders: number[];
  readonly names: string[];
}

/**
 * The last pruning of a memo's budget: its candidates, their ranking and
 * what was cut, reused while they hold (an agent loop's steady step).
 */
interface Ranking {
  readonly candidates: Candidates;
  /** The terms the candidates were read with. */
  readonly terms: TermsByName;
  readonly ranked: readonly number[];
  readonly counted: CountedAssembly;
  readonly maxTokens: number;
  readonly decision: Decision;
}

/** How many ranked candidates go, and the indexes of the sections kept. */
interface Decision {
  readonly cut: number;
  readonly kept: readonly number[];
}

/** The fewest ranked candidates whose pruning fits the budget. */
function decide(
  { indexes }: Candidates,
  { ranked, counted, maxTokens }: {
    ranked: readonly number[];
    counted: CountedAssembly;
    maxTokens: number;
  },
): Decision {
  const length = counted.sections.length;
  const dropped: boolean[] = new Array(length);
  let total = counted.total;
  let cut = 0;
  for (; cut < ranked.length && total > maxTokens; cut++) {
    const index = indexes[ranked[cut]];
    dropped[index] = true;
    total -= counted.sections[index];
  }
  const kept: number[] = new Array(length - cut);
  let count = 0;
  for (let index = 0; index < length; index++) {
    if (dropped[index] !== true) kept[count++] = index;
  }
  return { cut, kept };
}

const rankings = new WeakMap<TokenMemo, Ranking>();

/**
 * The sections that may be pruned, in the assembly's order, after checking
 * that pruning them all fits the budget. An agent loop prunes among the
 * same sections with the same keys at every step: while they equal the
 * `last` ones (read with the same `terms`), nothing is written, a name
 * found in its place is not looked up again, and `last` itself is the
 * answer.
 */
function candidatesOf(
  sections: readonly AssembledSection[],
  { counted, terms: termsByName, maxTokens, last }: {
    counted: CountedAssembly;
    terms: TermsByName;
    maxTokens: number;
    last: Candidates | undefined;
  },
): Candidates {
  const length = sections.length;
  // Written only once a candidate differs from `last`'s at its position.
  let fresh = last === undefined ? candidateLists(length) : undefined;
  let count = 0;
  let required: { name: string; tokens: number }[] | undefined;
  let floor = 0;
  for (const tokens of counted.tools) floor += tokens;
  const toolTokens = floor;
  for (let index = 0; index < length; index++) {
    // A section that renders empty costs nothing and is never pruned; a
    // counter answering 0 for a text still lets it be pruned in turn.
    if (counted.empty[index]) continue;
    const section = sections[index];
    const name = section.name;
    // A candidate in its place last time, by the same name, has the same
    // terms: no lookup.
    const inPlace = fresh === undefined && last!.indexes[count] === index &&
      last!.names[count] === name;
    let priority: number;
    if (inPlace) priority = last!.priorities[count];
    else {
      const terms = termsByName.get(name) ?? DEFAULT_TERMS;
      if (terms.required) {
        const tokens = counted.sections[index];
        floor += tokens;
        (required ??= []).push({ name, tokens });
        continue;
      }
      priority = terms.priority;
    }
    const tier = tierOf(section);
    const order = section.order;
    if (
      fresh === undefined &&
      (!inPlace || last!.tiers[count] !== tier || last!.orders[count] !== order)
    ) fresh = prefixOf(last!, count, length);
    if (fresh !== undefined) {
      fresh.indexes[count] = index;
      fresh.tiers[count] = tier;
      fresh.priorities[count] = priority;
      fresh.orders[count] = order;
      fresh.names[count] = name;
    }
    count++;
  }
  if (floor > maxTokens) {
    throw budgetExceeded({
      floor,
      toolTokens,
      required: required ?? [],
      maxTokens,
    });
  }
  if (fresh === undefined) {
    return count === last!.indexes.length
      ? last!
      : prefixOf(last!, count, count);
  }
  for (const list of Object.values(fresh)) list.length = count;
  return fresh;
}

/** Candidate lists of `length` empty places. */
function candidateLists(length: number): Candidates {
  return {
    indexes: new Array(length),
    tiers: new Array(length),
    priorities: new Array(length),
    orders: new Array(length),
    names: new Array(length),
  };
}

/** Fresh candidate lists of `length` holding the first `count` of `from`'s. */
function prefixOf(from: Candidates, count: number, length: number): Candidates {
  const fresh = candidateLists(length);
  for (let at = 0; at < count; at++) {
    fresh.indexes[at] = from.indexes[at];
    fresh.tiers[at] = from.tiers[at];
    fresh.priorities[at] = from.priorities[at];
    fresh.orders[at] = from.orders[at];
    fresh.names[at] = from.names[at];
  }
  return fresh;
}

/**
 * The candidates' positions in pruning order, sorted when the keys differ
 * from the `last` ranking's (a steady budget sorts nothing).
 */
function rankingOf(
  candidates: Candidates,
  last: Ranking | undefined,
): readonly number[] {
  if (
    last !== undefined &&
    (last.candidates === candidates || sameKeys(last.candidates, candidates))
  ) return last.ranked;
  const { tiers, priorities, orders, names } = candidates;
  const ranked = Array.from({ length: tiers.length }, (_, at) => at);
  ranked.sort((a, b) => {
    if (tiers[a] !== tiers[b]) return tiers[a] - tiers[b];
    if (priorities[a] !== priorities[b]) {
      return priorities[a] < priorities[b] ? -1 : 1;
    }
    if (orders[a] !== orders[b]) return orders[a] > orders[b] ? -1 : 1;
    return compareCodeUnits(names[b], names[a]);
  });
  return ranked;
}

function sameKeys(last: Candidates, now: Candidates): boolean {
  const count = now.tiers.length;
  if (last.tiers.length !== count) return false;
  for (let at = 0; at < count; at++) {
    if (
      last.tiers[at] !== now.tiers[at] ||
      last.priorities[at] !== now.priorities[at] ||
      last.orders[at] !== now.orders[at] ||
      last.names[at] !== now.names[at]
    ) return false;
  }
  return true;
}

/** Volatile sections go first (0), then agent (1), then stable (2). */
function tierOf(section: AssembledSection): number {
  const stability = (section as { stability?: unknown }).stability;
  return stability === "volatile" ? 0 : stability === "agent" ? 1 : 2;
}

function budgetExceeded(
  { floor, toolTokens, required, maxTokens }: {
    floor: number;
    toolTokens: number;
    required: { name: string; tokens: number }[];
    maxTokens: number;
  },
): SystemPromptError {
  if (toolTokens > maxTokens) {
    return new SystemPromptError(
      "BUDGET_EXCEEDED",
      `The tools alone take ${toolTokens} tokens (their JSON), over the ` +
        `budget of ${maxTokens} tokens (maxTokens); tools are never pruned ` +
        `by the budget: raise maxTokens, or leave tools out (a gate).`,
    );
  }
  const largest = required
    .sort((a, b) => b.tokens - a.tokens || compareCodeUnits(a.name, b.name))
    .slice(0, NAMED)
    .map(({ name, tokens }) => `${quote(name)} (${tokens})`);
  return new SystemPromptError(
    "BUDGET_EXCEEDED",
    `The required sections and the tools take ${floor} tokens, over the ` +
      `budget of ${maxTokens} tokens (maxTokens); the largest required ` +
      `sections: ${largest.join(", ")}; the tools take ${toolTokens}. Raise ` +
      `maxTokens, or make fewer sections required.`,
  );
}
