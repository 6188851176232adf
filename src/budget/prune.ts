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
  termsOf: TermsOf = NO_TERMS,
): PromptAssembly {
  const counted = tokensOf(assembly, plan.memo);
  const { maxTokens } = plan;
  if (counted.total <= maxTokens) return assembly;
  const sections = assembly.sections;
  const ranked = rankedCandidates(sections, counted, termsOf, maxTokens);
  const dropped = new Uint8Array(sections.length);
  const pruned: { name: string; tokens: number }[] = [];
  let total = counted.total;
  for (let at = 0; at < ranked.length && total > maxTokens; at++) {
    const index = ranked[at].index;
    const tokens = counted.sections[index];
    dropped[index] = 1;
    pruned.push({ name: sections[index].name, tokens });
    total -= tokens;
  }
  const kept: AssembledSection[] = [];
  for (let index = 0; index < sections.length; index++) {
    if (dropped[index] === 0) kept.push(sections[index]);
  }
  return { ...assembly, sections: kept, pruned };
}

/** A section that may be pruned, with what ranks it. */
interface Candidate {
  readonly index: number;
  readonly tier: number;
  readonly priority: number;
  readonly order: number;
  readonly name: string;
}

/**
 * The sections that may be pruned, in pruning order, after checking that
 * pruning them all fits the budget.
 */
function rankedCandidates(
  sections: readonly AssembledSection[],
  counted: CountedAssembly,
  termsOf: TermsOf,
  maxTokens: number,
): Candidate[] {
  const candidates: Candidate[] = [];
  const required: { name: string; tokens: number }[] = [];
  let floor = 0;
  for (const tokens of counted.tools) floor += tokens;
  const toolTokens = floor;
  for (let index = 0; index < sections.length; index++) {
    const tokens = counted.sections[index];
    // A section that renders empty costs nothing and is never pruned; a
    // counter answering 0 for a text still lets it be pruned in turn.
    if (counted.rendered[index] === "") continue;
    const section = sections[index];
    const terms = termsOf(section.name) ?? DEFAULT_TERMS;
    if (terms.required) {
      floor += tokens;
      required.push({ name: section.name, tokens });
      continue;
    }
    candidates.push({
      index,
      tier: tierOf(section),
      priority: terms.priority,
      order: section.order,
      name: section.name,
    });
  }
  if (floor > maxTokens) {
    throw budgetExceeded({ floor, toolTokens, required, maxTokens });
  }
  return candidates.sort(comparePruning);
}

/** Volatile sections go first (0), then agent (1), then stable (2). */
function tierOf(section: AssembledSection): number {
  const stability = (section as { stability?: unknown }).stability;
  return stability === "volatile" ? 0 : stability === "agent" ? 1 : 2;
}

/** Pruning order: tier, lower priority, later order, larger name. */
function comparePruning(a: Candidate, b: Candidate): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.priority !== b.priority) return a.priority < b.priority ? -1 : 1;
  if (a.order !== b.order) return a.order > b.order ? -1 : 1;
  return compareCodeUnits(b.name, a.name);
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
