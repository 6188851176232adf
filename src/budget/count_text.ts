/**
 * The counter's one call on a text (SPEC 8.9): `countTokens` checked to be a
 * function, called through the one `PROVIDER_FAILED` path, and its answer
 * checked to be a whole number of tokens. The memo and `explain()` count
 * through it.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { callUserCode } from "../shared/user_code.ts";

/**
 * Counts the tokens of one text: a non-negative integer.
 *
 * @example
 * ```ts
 * import type { CountTokens } from "@rxprompt/system-prompt";
 *
 * // A rough estimate; a real tokenizer (o200k_base, cl100k) is exact.
 * const quarter: CountTokens = (text) => Math.ceil(text.length / 4);
 * ```
 */
export type CountTokens = (text: string) => number;

/**
 * Calls the counter once on `text` and checks its answer (`explain()`
 * counts through it too).
 *
 * @throws {SystemPromptError} `PROVIDER_FAILED` when the counter throws or
 * answers anything but a non-negative integer.
 */
export function countText(
  countTokens: CountTokens,
  text: string,
  what: () => string,
): number {
  const tokens: unknown = callUserCode(
    countTokens,
    text,
    () => `token counter (countTokens) on ${what()}`,
  );
  if (Number.isSafeInteger(tokens) && (tokens as number) >= 0) {
    return tokens as number;
  }
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `The token counter (countTokens) returned ${quote(tokens)} for ` +
      `${what()}; it must return a whole number of tokens, 0 or more.`,
  );
}

/**
 * `countTokens`, checked to be a function.
 *
 * @throws {SystemPromptError} `INVALID_PROVIDER` naming `where`.
 */
export function checkCounter(countTokens: unknown, where: string): CountTokens {
  if (typeof countTokens === "function") return countTokens as CountTokens;
  throw new SystemPromptError(
    "INVALID_PROVIDER",
    `The token counter${where} must be a function (text: string) => number; ` +
      `got ${quote(countTokens)}.`,
  );
}
