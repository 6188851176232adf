/**
 * The conversation's small checks and copies: its options read, the history
 * frozen, answers copied through JSON. Pure.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { Awaiting } from "./wire.ts";

/** An optional option of the given type, or `INVALID_CONFIG` naming it. */
export function readOptional<V>(
  value: V | undefined,
  name: string,
  type: "string" | "function",
): V | undefined {
  if (value === undefined || typeof value === type) return value;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `The conversation's ${name} is ${typeof value}; it must be a ${type}, or be left out.`,
  );
}

/** A boolean option, checked (`false` when left out). */
export function readFlag(value: unknown, name: string): boolean {
  if (value === undefined || typeof value === "boolean") return value === true;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `The conversation's ${name} is ${typeof value}; it must be true or ` +
      `false, or be left out.`,
  );
}

/** A time of the conversation's clock as ISO 8601 (now, if not a time). */
export function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime())
    ? new Date().toISOString()
    : date.toISOString();
}

export function readAwaiting(value: unknown, fallback: Awaiting): Awaiting {
  if (value === undefined) return fallback;
  if (value === "person" || value === "agent") return value;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `awaiting is ${
      JSON.stringify(value) ?? String(value)
    }; it must be "person" (the next request waits for a person: long-lived ` +
      `cache marks) or "agent" (the default).`,
  );
}

/** `value`, frozen with everything it holds (the history is read-only). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** A deep copy through JSON: what is kept is exactly what is sent. */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}
