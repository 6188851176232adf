/**
 * A token budget as given (config `budget`, or `assemble(context, { budget
 * })`), validated into a {@linkcode BudgetPlan} with its registry's memo.
 *
 * @module
 */

import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import { checkCounter, type CountTokens } from "./count_text.ts";
import { TokenMemo } from "./token_memo.ts";
import type { BudgetPlan } from "./prune.ts";

/**
 * One registry's token memos, one per counter function: the counter is
 * called once per distinct text while the text is unchanged, across every
 * assembly of the registry with that counter.
 */
export class TokenMemos {
  readonly #memos = new WeakMap<CountTokens, TokenMemo>();

  /** The memo of `countTokens`, made on first use. */
  memoOf(countTokens: CountTokens): TokenMemo {
    let memo = this.#memos.get(countTokens);
    if (memo === undefined) {
      memo = new TokenMemo(countTokens);
      this.#memos.set(countTokens, memo);
    }
    return memo;
  }
}

/**
 * `budget` checked and bound to its memo in `memos`; `undefined` for no
 * budget. `where` names the budget's origin for messages (`"config budget"`,
 * `"assemble()'s budget"`).
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a budget that is not an
 * object, cannot be read, or whose `maxTokens` is not a finite number above
 * 0; `INVALID_PROVIDER` when `countTokens` is not a function.
 */
export function budgetPlanOf(
  budget: unknown,
  memos: TokenMemos,
  where: string,
): BudgetPlan | undefined {
  if (budget === undefined) return undefined;
  if (typeof budget !== "object" || budget === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The ${where} must be an object { maxTokens, countTokens }; got ` +
        `${quote(budget)}.`,
    );
  }
  const { maxTokens, countTokens } = readGuarded(
    () => {
      const { maxTokens, countTokens } = budget as Record<string, unknown>;
      return { maxTokens, countTokens };
    },
    "INVALID_CONFIG",
    () =>
      `Reading the ${where} threw; it must be a plain object ` +
      `{ maxTokens, countTokens }.`,
  );
  if (
    typeof maxTokens !== "number" || !Number.isFinite(maxTokens) ||
    maxTokens <= 0
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The ${where} has maxTokens ${quote(maxTokens)}; it must be a finite ` +
        `number of tokens above 0.`,
    );
  }
  const counter = checkCounter(countTokens, ` (countTokens) of the ${where}`);
  return { maxTokens, memo: memos.memoOf(counter) };
}
