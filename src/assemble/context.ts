/**
 * The assembly context: its validation (the same for `assemble()` and
 * `watch()`), and the context `watch()` derives for each view.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembleContext, ScopeKey } from "../types.ts";

/** What an assembly reads from its context, each field read once. */
export interface ContextFields {
  readonly scope: ScopeKey | undefined;
  readonly signal: AbortSignal | undefined;
}

/**
 * Checks `context` and reads its `scope` and `signal` once.
 *
 * @throws {SystemPromptError} `INVALID_CONTEXT` for a context that is not
 * an object, an unreadable field, or a `signal` that is not an AbortSignal;
 * `INVALID_SCOPE_KEY` for a `null` scope.
 */
export function readContext(context: unknown): ContextFields {
  if (typeof context !== "object" || context === null) {
    throw new SystemPromptError(
      "INVALID_CONTEXT",
      `The assembly context must be an object ({ scope?, signal?, ... }); ` +
        `got ${quote(context)}.`,
    );
  }
  const scope = readField(context as AssembleContext, "scope");
  if (scope === null) {
    throw new SystemPromptError(
      "INVALID_SCOPE_KEY",
      `The context's scope must not be null; leave it out for the global ` +
        `layer, or use a scope key (usually the agent object or its id).`,
    );
  }
  const signal = readField(context as AssembleContext, "signal");
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new SystemPromptError(
      "INVALID_CONTEXT",
      `The context's signal must be an AbortSignal (or left out); got ` +
        `${quote(signal)}.`,
    );
  }
  return { scope: scope as ScopeKey | undefined, signal };
}

function readField(
  context: AssembleContext,
  field: "scope" | "signal",
): unknown {
  try {
    return context[field];
  } catch (error) {
    throw new SystemPromptError(
      "INVALID_CONTEXT",
      `Reading the context's ${field} threw; the context's scope and signal ` +
        `must be readable.`,
      { cause: error },
    );
  }
}

/** An AbortSignal of this realm or another (a polyfill, another global). */
function isAbortSignal(value: unknown): value is AbortSignal {
  try {
    if (typeof AbortSignal === "function" && value instanceof AbortSignal) {
      return true;
    }
    const candidate = value as Partial<AbortSignal> | null;
    return typeof candidate === "object" && candidate !== null &&
      typeof candidate.aborted === "boolean" &&
      typeof candidate.addEventListener === "function" &&
      typeof candidate.removeEventListener === "function";
  } catch {
    return false;
  }
}

/**
 * The context a `watch()` view passes to providers and listeners: an
 * object whose prototype is the caller's context, so reads of its fields
 * (getters included) reach the caller's object, with its own `signal`.
 * A class instance's private fields are not reachable through it.
 */
export function deriveContext<C extends AssembleContext>(
  context: C,
  signal: AbortSignal,
): C {
  return Object.create(context, {
    signal: { value: signal, enumerable: true, configurable: true },
  }) as C;
}
