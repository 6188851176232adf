/**
 * The conversation's small checks and copies: its options and prompt read,
 * the history frozen, answers copied through JSON and checked. Pure.
 *
 * @module
 */

import {
  frozenJsonClone,
  isFrozenClone,
  jsonClone,
  MAX_CLONE_DEPTH,
} from "../shared/json_clone.ts";
import { readGuarded, SystemPromptError } from "../errors.ts";
import { readAssembly, readingAssembly } from "../render/assembly_shape.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import type { Awaiting, ConversationPrompt, ToolCall } from "./types.ts";

/**
 * An options object read once into a plain one (its own enumerable keys,
 * as a spread reads them), so nothing later reads a getter or Proxy: what
 * one throws is `INVALID_CONFIG` naming `owner`'s option, with the thrown
 * value as `cause`. Anything but an object is returned as is, for the
 * caller's own check.
 */
export function readOptionBag<T>(options: T, owner: string): T {
  if (typeof options !== "object" || options === null) return options;
  const keys = readGuarded(
    () => Object.keys(options),
    "INVALID_CONFIG",
    () =>
      `${owner}'s options could not be read (a Proxy threw, or it is ` +
      `revoked); pass a plain object.`,
  );
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    copy[key] = readGuarded(
      () => (options as Record<string, unknown>)[key],
      "INVALID_CONFIG",
      () =>
        `${owner}'s option ${JSON.stringify(key)} could not be read (its ` +
        `getter or Proxy threw); pass a plain value.`,
    );
  }
  return copy as T;
}

/**
 * Checks a conversation's prompt: an object whose `assemble` is a function
 * (and `explain`, when present), or `INVALID_CONFIG`.
 */
export function checkPrompt(prompt: unknown): void {
  const invalid = (detail: string, cause?: unknown) =>
    new SystemPromptError(
      "INVALID_CONFIG",
      `The conversation's prompt ${detail}; pass a SystemPrompt (or an ` +
        `object with an assemble(context) method).`,
      cause === undefined ? undefined : { cause },
    );
  if (typeof prompt !== "object" || prompt === null) {
    throw invalid(`is ${prompt === null ? "null" : typeof prompt}`);
  }
  let methods: { assemble: unknown; explain: unknown };
  try {
    const { assemble, explain } = prompt as Record<string, unknown>;
    methods = { assemble, explain };
  } catch (error) {
    throw invalid("could not be read (a getter or Proxy threw)", error);
  }
  if (typeof methods.assemble !== "function") {
    throw invalid(`has no assemble method (it is ${typeof methods.assemble})`);
  }
  if (
    methods.explain !== undefined && typeof methods.explain !== "function"
  ) {
    throw invalid(`has an explain that is ${typeof methods.explain}`);
  }
}

/**
 * One step's assembly from the prompt: `explain(context)`'s with
 * `diagnostics` (when the prompt has it), else `assemble(context)`'s.
 * What the prompt's code throws or rejects with comes out unchanged; a
 * result that cannot be awaited or is not an assembly is
 * `INVALID_ASSEMBLY`.
 */
export async function assembleStep<C extends AssembleContext>(
  prompt: ConversationPrompt<C>,
  context: C | undefined,
  diagnostics: boolean,
): Promise<{ assembly: PromptAssembly; explanation?: PromptExplanation }> {
  const where = "The conversation's prompt";
  // `await` turns a `then` that throws into a rejection like the prompt's
  // own: read it first.
  const awaited = <T>(pending: Promise<T>, method: string): Promise<T> =>
    readGuarded(
      () => {
        void pending?.then;
        return pending;
      },
      "INVALID_ASSEMBLY",
      () =>
        `${where}'s ${method}() returned something that cannot be awaited ` +
        `(a Proxy threw); it must return a promise of an assembly.`,
    );
  const explanation = diagnostics && prompt.explain
    ? await awaited(prompt.explain(context), "explain")
    : undefined;
  const assembly = explanation === undefined
    ? await awaited(prompt.assemble(context), "assemble")
    : readingAssembly(() => explanation.assembly, `${where}'s explain()`);
  readingAssembly(
    () =>
      readAssembly(assembly, where, ["sections", "tools", "runtimeContext"]),
    where,
  );
  return explanation === undefined ? { assembly } : { assembly, explanation };
}

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

/**
 * How deep an answer, an input or a recording's line may nest: the
 * conversation freezes, copies and writes them with recursive code (the
 * engine's `JSON.stringify` among it), so deeper values are refused with
 * a code rather than overflowing the stack.
 */
export const MAX_JSON_DEPTH = 1_000;

/**
 * Whether `value` (plain JSON) nests deeper than `limit` objects and
 * arrays. Iterative: any depth is measured.
 */
export function nestsTooDeep(
  value: unknown,
  limit: number = MAX_JSON_DEPTH,
): boolean {
  if (typeof value !== "object" || value === null) return false;
  // Two stacks, not a pair per object: a step walks every answer.
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const next = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const inner of Object.values(next)) {
      if (typeof inner === "object" && inner !== null) {
        pending.push(inner);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * An answer read by the wire, and what the recording keeps of it (plain
 * JSON), checked: `INVALID_RESPONSE` for an answer the wire refuses, one
 * that cannot be read or copied, one whose calls share an id, or one that
 * nests deeper than {@linkcode MAX_JSON_DEPTH}; `other` tells an answer of
 * another form (both of the form's functions are given it). A form that
 * reads its record (`readsRecord`: its `recordOf` is a copy the
 * conversation owns, {@linkcode copyAnswer} or its own) reads that copy, so
 * the answer is copied once and the history's items share the copy; which
 * form it is of is told from the answer as given (a class's getters are not
 * in its copy).
 */
export function readAnswer<A extends { messages: unknown; calls: ToolCall[] }>(
  answer: unknown,
  form: {
    readAnswer(answer: unknown, other: (answer: unknown) => void): A;
    recordOf(answer: unknown, other: (answer: unknown) => void): unknown;
    readonly readsRecord?: boolean;
  },
  other: (answer: unknown) => void,
): { read: A; response: unknown } {
  const unreadable = () =>
    `record() could not read the answer (a getter or Proxy threw, it is ` +
    `not JSON, or it nests too deep); pass the SDK's answer object.`;
  const guarded = <T>(read: () => T) =>
    readGuarded(read, "INVALID_RESPONSE", unreadable);
  let answered: A;
  let response: unknown;
  if (form.readsRecord === true) {
    // The record tells an answer of another form first (`copyAnswer`).
    response = guarded(() => form.recordOf(answer, other));
    answered = guarded(() => form.readAnswer(response, () => {}));
    checkDistinctCalls(answered.calls);
  } else {
    answered = guarded(() => form.readAnswer(answer, other));
    checkDistinctCalls(answered.calls);
    response = guarded(() => form.recordOf(answer, other));
  }
  // A walked copy nests less deep than the limit, and a form that reads
  // it takes its messages from it (at most a level around them).
  const walked = form.readsRecord === true && isFrozenClone(response) &&
    MAX_CLONE_DEPTH + 1 < MAX_JSON_DEPTH;
  if (
    !walked && (nestsTooDeep(answered.messages) || nestsTooDeep(response))
  ) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `The answer nests deeper than ${MAX_JSON_DEPTH} levels; nothing was ` +
        `recorded.`,
    );
  }
  return { read: answered, response };
}

/** A person's input or a result, checked against {@linkcode MAX_JSON_DEPTH}. */
export function shallowEnough<T>(input: T, what: string): T {
  if (!nestsTooDeep(input)) return input;
  throw new SystemPromptError(
    "INVALID_CONVERSATION_INPUT",
    `${what} nests deeper than ${MAX_JSON_DEPTH} levels; pass flatter content.`,
  );
}

/**
 * Checks that an answer's calls have distinct ids (one result answers one
 * call): `INVALID_RESPONSE` naming the id given twice.
 */
export function checkDistinctCalls(calls: readonly ToolCall[]): void {
  const ids = new Set<string>();
  for (const call of calls) {
    if (ids.has(call.id)) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The answer has two tool calls with id ${JSON.stringify(call.id)}; ` +
          `each call needs an id of its own, which its result names. ` +
          `Nothing was recorded.`,
      );
    }
    ids.add(call.id);
  }
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

/**
 * The record of a form that keeps the whole answer (its `recordOf`): the
 * answer's JSON copy, an answer of another form told first (`other`).
 */
export function copyAnswer(
  answer: unknown,
  other: (answer: unknown) => void,
): unknown {
  other(answer);
  // Frozen as it is copied: its items join the history, which is frozen.
  return frozenJsonClone(answer);
}

/**
 * A deep copy as JSON has it (`JSON.parse(JSON.stringify(value))`, its
 * text not written): what is kept is exactly what is sent.
 */
export function copy<T>(value: T): T {
  return jsonClone(value);
}

/** `CONVERSATION_BUSY` for `what` called while a body is being built. */
export function busy(what: string): SystemPromptError {
  return new SystemPromptError(
    "CONVERSATION_BUSY",
    `${what} was called while request() or compact() was still building a ` +
      `body; await it, send the body, then record the answer.`,
  );
}

/** `record()` with no request built to commit its answer to. */
export function nothingPending(): SystemPromptError {
  return new SystemPromptError(
    "NOTHING_PENDING",
    `record() has no request to commit the answer to; call request(), ` +
      `send the body it returns, then record its answer.`,
  );
}
