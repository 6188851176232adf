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
import { type CountedAssembly, type TokenMemo, tokensOf } from "./count.ts";

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

/** The registered terms of the section named `name`, if it has any. */
export type TermsOf = (name: string) => SectionTerms | undefined;

const DEFAULT_TERMS: SectionTerms = { priority: 0, required: false };
const NO_TERMS: TermsOf = () => undefined;

/** How many of the largest required sections a `BUDGET_EXCEEDED` names. */
const NAMED = 3;

/** Options of {@linkcode pruneToBudget}. */
export interface PruneOptions {
  /** The registered terms of each section (default: none has any). */
  readonly termsOf?: TermsOf;
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
  { termsOf = NO_TERMS, explain }: PruneOptions = {},
): PromptAssembly {
  // What a listener's getter or Proxy throws is typed, as in the renderers.
  const counted = readingAssembly(
    () => tokensOf(assembly, plan.memo),
    "The token budget",
  );
  const { maxTokens } = plan;
  if (counted.total <= maxTokens) return assembly;
  const sections = assembly.sections;
  const candidates = candidatesOf(sections, counted, termsOf, maxTokens);
  const ranked = rankingOf(candidates, plan.memo);
  const { names, indexes } = candidates;
  // A plain array: a typed one costs more to make than these few stores.
  const dropped: boolean[] = new Array(sections.length);
  const pruned: { name: string; tokens: number }[] = [];
  let total = counted.total;
  for (let at = 0; at < ranked.length && total > maxTokens; at++) {
    const index = indexes[ranked[at]];
    const tokens = counted.sections[index];
    dropped[index] = true;
    pruned.push({ name: names[ranked[at]], tokens });
    total -= tokens;
  }
  const kept: AssembledSection[] = new Array(sections.length - pruned.length);
  let keptCount = 0;
  for (let index = 0; index < sections.length; index++) {
    if (dropped[index] !== true) kept[keptCount++] = sections[index];
  }
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
 * The sections that may be pruned, in the assembly's order, after checking
 * that pruning them all fits the budget.
 */
function candidatesOf(
  sections: readonly AssembledSection[],
  counted: CountedAssembly,
  termsOf: TermsOf,
  maxTokens: number,
): Candidates {
  const length = sections.length;
  const candidates: Candidates = {
    indexes: new Array(length),
    tiers: new Array(length),
    priorities: new Array(length),
    orders: new Array(length),
    names: new Array(length),
  };
  let count = 0;
  const required: { name: string; tokens: number }[] = [];
  let floor = 0;
  for (const tokens of counted.tools) floor += tokens;
  const toolTokens = floor;
  for (let index = 0; index < length; index++) {
    // A section that renders empty costs nothing and is never pruned; a
    // counter answering 0 for a text still lets it be pruned in turn.
    if (counted.empty[index]) continue;
    const section = sections[index];
    const name = section.name;
    const terms = termsOf(name) ?? DEFAULT_TERMS;
    if (terms.required) {
      const tokens = counted.sections[index];
      floor += tokens;
      required.push({ name, tokens });
      continue;
    }
    candidates.indexes[count] = index;
    candidates.tiers[count] = tierOf(section);
    candidates.priorities[count] = terms.priority;
    candidates.orders[count] = section.order;
    candidates.names[count] = name;
    count++;
  }
  if (count !== length) {
    candidates.indexes.length = count;
    candidates.tiers.length = count;
    candidates.priorities.length = count;
    candidates.orders.length = count;
    candidates.names.length = count;
  }
  if (floor > maxTokens) {
    throw budgetExceeded({ floor, toolTokens, required, maxTokens });
  }
  return candidates;
}

/** The last ranking a memo's budget computed, reused while its keys hold. */
interface Ranking {
  readonly tiers: readonly number[];
  readonly priorities: readonly number[];
  readonly orders: readonly number[];
  readonly names: readonly string[];
  readonly ranked: readonly number[];
}

const rankings = new WeakMap<TokenMemo, Ranking>();

/**
 * The candidates' positions in pruning order. An agent loop prunes the
 * same sections with the same keys at every step: when the keys equal the
 * last ranking's (one linear pass), its order is reused, so a steady budget
 * costs no sort.
 */
function rankingOf(candidates: Candidates, memo: TokenMemo): readonly number[] {
  const last = rankings.get(memo);
  if (last !== undefined && sameKeys(last, candidates)) return last.ranked;
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
  rankings.set(memo, { tiers, priorities, orders, names, ranked });
  return ranked;
}

function sameKeys(last: Ranking, now: Candidates): boolean {
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
