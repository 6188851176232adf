/**
 * Calling user code safely (a section's text function, a variable or tool
 * provider, a gate, a counter): the one place that turns what it throws
 * into a `PROVIDER_FAILED` error naming it.
 *
 * @module
 */

import { isPromiseLike } from "./util.ts";
import { SystemPromptError } from "../errors.ts";

/**
 * Calls `code` with `context`. What it throws becomes `PROVIDER_FAILED`,
 * naming `what()` (built only on failure) and carrying the error as `cause`.
 * A Promise it returns is `PROVIDER_FAILED` too (user code called during an
 * assembly is synchronous), and is given a handler so that its rejection is
 * never unhandled.
 */
export function callUserCode<C, R>(
  code: (context: C) => R,
  context: C,
  what: () => string,
): R {
  let result: R;
  try {
    result = code(context);
  } catch (error) {
    throw userCodeFailed(`The ${what()} threw`, error);
  }
  if (isPromiseLike(result)) {
    Promise.resolve(result).then(undefined, ignore);
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The ${what()} returned a Promise; providers are synchronous (use an ` +
        `Observable source or resolve before assembly).`,
    );
  }
  return result;
}

function ignore(): void {}

/** What user code returned, for a message: `null`, or its `typeof`. */
export function typeName(value: unknown): string {
  return value === null ? "null" : typeof value;
}

/**
 * `PROVIDER_FAILED` for `error`: `headline`, the error described, then
 * `advice` (what would be valid), with the error as `cause`.
 */
export function userCodeFailed(
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

/**
 * `error` for a message. Never throws, whatever was thrown: an object
 * without a prototype, a throwing `toString` or `message`, a revoked Proxy.
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      return `${String(error.name)}: ${String(error.message)}`;
    }
  } catch {
    // A hostile Error (or Proxy): describe it as a value below.
  }
  try {
    return String(error);
  } catch {
    return typeof error === "object" && error !== null
      ? "an object that cannot be converted to a string"
      : `a ${typeof error}`;
  }
}
