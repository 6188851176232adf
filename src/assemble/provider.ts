/**
 * Calling user code safely: the one place that turns what a provider throws
 * into a `PROVIDER_FAILED` error naming the provider.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";

/**
 * Calls `provider` with `context`. What it throws becomes `PROVIDER_FAILED`,
 * naming `what()` (built only on failure) and carrying the error as `cause`.
 */
export function callProvider<C, R>(
  provider: (context: C) => R,
  context: C,
  what: () => string,
): R {
  try {
    return provider(context);
  } catch (error) {
    throw providerFailed(`The ${what()} threw`, error);
  }
}

/**
 * `PROVIDER_FAILED` for `error`: `headline`, the error described, then
 * `advice` (what would be valid), with the error as `cause`.
 */
export function providerFailed(
  headline: string,
  error: unknown,
  advice = "",
): SystemPromptError {
  return new SystemPromptError(
    "PROVIDER_FAILED",
    `${headline}: ${describeError(error)}${advice}.`,
    { cause: error },
  );
}

function describeError(error: unknown): string {
  return error instanceof Error
    ? `${error.name}: ${error.message}`
    : String(error);
}
