/**
 * What a session step returns, checked (SPEC 8.8, 9.7, 9.8): the messages
 * array itself, or `{ messages, thread?, scope?, context?, time?,
 * awaiting?, toolChanges?, changes? }`, each message `{ role, content, toolCalls?,
 * toolResults? }` (a tool round: an assistant turn's calls, then a user
 * turn with their results).
 * Anything else, an unknown key included, is one `INVALID_CONFIG` naming
 * the step; each field is read once.
 *
 * @module
 */

import { SystemPromptError } from "../mod.ts";
import type { SessionMessage, SessionRequest } from "../adapters/cache/mod.ts";
import { describeError } from "./cli_error.ts";

/** The keys a step's request may have. */
const KEYS: readonly string[] = [
  "messages",
  "thread",
  "scope",
  "context",
  "time",
  "awaiting",
  "toolChanges",
  "changes",
];

const SHAPE = "a step returns the messages array, or { messages, thread?, " +
  "scope?, context?, time?, awaiting?, toolChanges?, changes? }";

/**
 * Runs `step` and reads its request: a promise is awaited; a result whose
 * `then` cannot be read (a revoked Proxy) is `INVALID_CONFIG` too. What the
 * step throws or rejects with passes unchanged.
 */
export async function runStep(
  step: (index: number) => unknown,
  index: number,
): Promise<SessionRequest> {
  const returned = step(index);
  let then: unknown;
  try {
    then = (returned as { then?: unknown } | null | undefined)?.then;
  } catch {
    return readStepResult(returned, index);
  }
  return readStepResult(
    typeof then === "function" ? await returned : returned,
    index,
  );
}

/**
 * The request step `index` returned, read once into a plain object.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` naming the step and what is
 * wrong (with what reading the result threw as `cause`)
 */
export function readStepResult(value: unknown, index: number): SessionRequest {
  try {
    return requestOf(value, index);
  } catch (error) {
    if (error instanceof SystemPromptError) throw error;
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `Step ${index} returned a value that cannot be read ` +
        `(${describeError(error)}); ${SHAPE}.`,
      { cause: error },
    );
  }
}

/** Throws what reading `value` throws; the caller types it. */
function requestOf(value: unknown, index: number): SessionRequest {
  const invalid = (what: string) =>
    new SystemPromptError(
      "INVALID_CONFIG",
      `Step ${index} returned ${what}; ${SHAPE}.`,
    );
  if (Array.isArray(value)) return { messages: messagesOf(value, invalid) };
  if (typeof value !== "object" || value === null) {
    throw invalid(shown(value));
  }
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) throw invalid(`an unknown key ${shown(key)}`);
    fields[key] = (value as Record<string, unknown>)[key];
  }
  const {
    messages,
    thread,
    scope,
    context,
    time,
    awaiting,
    toolChanges,
    changes,
  } = fields;
  if (!Array.isArray(messages)) {
    throw invalid(`messages that are ${shown(messages)}, not an array`);
  }
  const request: SessionRequest = { messages: messagesOf(messages, invalid) };
  if (thread !== undefined) {
    if (typeof thread !== "string") {
      throw invalid(`a thread that is ${shown(thread)}, not a string`);
    }
    request.thread = thread;
  }
  // A scope key is any value; assemble() checks it.
  if (scope !== undefined) request.scope = scope as SessionRequest["scope"];
  if (context !== undefined) {
    if (typeof context !== "object" || context === null) {
      throw invalid(`a context that is ${shown(context)}, not an object`);
    }
    request.context = context;
  }
  if (time !== undefined) {
    if (typeof time !== "number" || !Number.isFinite(time)) {
      throw invalid(`a time that is ${shown(time)}, not a finite number of ms`);
    }
    request.time = time;
  }
  if (awaiting !== undefined) {
    if (awaiting !== "person" && awaiting !== "agent") {
      throw invalid(
        `an awaiting that is ${shown(awaiting)}, not "person" or "agent"`,
      );
    }
    request.awaiting = awaiting;
  }
  if (toolChanges !== undefined) {
    if (toolChanges !== "rebuild" && toolChanges !== "inline") {
      throw invalid(
        `a toolChanges that is ${shown(toolChanges)}, not "rebuild" or ` +
          `"inline"`,
      );
    }
    request.toolChanges = toolChanges;
  }
  if (changes !== undefined) {
    if (changes !== "auto" && changes !== "inline" && changes !== "rebuild") {
      throw invalid(
        `a changes that is ${shown(changes)}, not "auto", "inline" or ` +
          `"rebuild"`,
      );
    }
    request.changes = changes;
  }
  return request;
}

/** The list copied, each message an object with a string `role`. */
function messagesOf(
  messages: readonly unknown[],
  invalid: (what: string) => SystemPromptError,
): SessionMessage[] {
  const copy = [...messages];
  copy.forEach((message, position) => {
    if (
      typeof message !== "object" || message === null ||
      typeof (message as { role?: unknown }).role !== "string"
    ) {
      throw invalid(
        `messages[${position}] that is ${shown(message)}, not a message ` +
          `{ role, content }`,
      );
    }
    const { role, toolCalls, toolResults } = message as Record<
      string,
      unknown
    >;
    const where = `messages[${position}]`;
    if (toolCalls !== undefined) {
      if (role !== "assistant" || !Array.isArray(toolCalls)) {
        throw invalid(
          `${where}.toolCalls that is not an array on an assistant turn`,
        );
      }
      toolCalls.forEach((call, at) => {
        const { id, name, input } = (call ?? {}) as Record<string, unknown>;
        if (
          typeof id !== "string" || typeof name !== "string" ||
          typeof input !== "object" || input === null || Array.isArray(input)
        ) {
          throw invalid(
            `${where}.toolCalls[${at}] that is not { id, name, input } ` +
              `(two strings and an object)`,
          );
        }
      });
    }
    if (toolResults !== undefined) {
      if (role !== "user" || !Array.isArray(toolResults)) {
        throw invalid(
          `${where}.toolResults that is not an array on a user turn`,
        );
      }
      toolResults.forEach((result, at) => {
        const { id, content, isError } = (result ?? {}) as Record<
          string,
          unknown
        >;
        if (
          typeof id !== "string" || typeof content !== "string" ||
          (isError !== undefined && typeof isError !== "boolean")
        ) {
          throw invalid(
            `${where}.toolResults[${at}] that is not { id, content, ` +
              `isError? } (two strings and a boolean)`,
          );
        }
      });
    }
  });
  return copy as SessionMessage[];
}

/** A value for the message, never its content beyond a short string. */
function shown(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (typeof value === "object" && value !== null) return "an object";
  if (typeof value === "function") return "a function";
  return String(value);
}
