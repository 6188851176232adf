/**
 * Whether a value serializes to the same JSON bytes as a kept one,
 * without building the string: the tool definitions a conversation lists
 * are compared with the assembly's at every step, and `JSON.stringify` of
 * them was most of a step's own cost. The kept value is read once into a
 * flat plan of tokens; a comparison walks the other value along it, or,
 * once the plan is used often, runs the plan compiled. Pure (but for the
 * process's cache of compiled plans).
 *
 * @module
 */

import {
  type Compiled,
  compiledComparison,
  DIFFERENT,
  SAME,
  UNSURE,
  writtenAsHeld,
} from "./same_json_compiled.ts";

/** A kept value's JSON bytes, as a plan to compare other values with. */
export interface JsonPlan {
  readonly tokens: readonly unknown[];
  /** The kept value's JSON, for what the plan cannot compare. */
  readonly json: string;
  /** The plan compiled (`same_json_compiled.ts`), once it is worth it. */
  compiled: Compiled | undefined;
  /** The comparisons made before it was compiled. */
  uses: number;
}

const OBJECT = Symbol("object");
const ARRAY = Symbol("array");

/** A value the plan does not hold (compared through its JSON). */
class Unplannable extends Error {}

/** The plan of `value` (JSON data read once; kept by the caller). */
export function planOf(value: unknown): JsonPlan {
  const json = JSON.stringify(value);
  const tokens: unknown[] = [];
  try {
    plan(value, tokens, 0);
  } catch (error) {
    if (!(error instanceof Unplannable)) throw error;
    return { tokens: [], json, compiled: undefined, uses: 0 };
  }
  return { tokens, json, compiled: COMPILED.get(json), uses: 0 };
}

/**
 * Compiling costs about what 5–10 walks do: a plan is compiled at its
 * `COMPILE_AFTER`th comparison (a short conversation never pays for it),
 * and kept by its JSON for every later plan of the same value (the same
 * tools in the next conversation), up to `MAX_COMPILED` values.
 */
const COMPILE_AFTER = 16;
const MAX_COMPILED = 1024;
const COMPILED = new Map<string, Compiled>();

/** A larger plan is walked: V8 optimizes small functions only. */
const MAX_COMPILED_TOKENS = 1024;

function compiledFor(kept: JsonPlan): Compiled | undefined {
  if (kept.tokens.length > MAX_COMPILED_TOKENS) return undefined;
  if (COMPILED.size >= MAX_COMPILED) return COMPILED.get(kept.json);
  let compiled = COMPILED.get(kept.json);
  if (compiled === undefined) {
    // From the JSON: the plan's value as it was read, whatever became of it.
    compiled = compiledComparison(JSON.parse(kept.json));
    if (compiled !== undefined) COMPILED.set(kept.json, compiled);
  }
  return compiled;
}

/** Deeper than real tool definitions: compared through JSON. */
const MAX_DEPTH = 64;

function plan(value: unknown, tokens: unknown[], depth: number): void {
  if (writtenAsHeld(value)) {
    tokens.push(value);
    return;
  }
  if (typeof value !== "object" || depth > MAX_DEPTH) throw new Unplannable();
  if (Array.isArray(value)) {
    tokens.push(ARRAY, value.length);
    for (let index = 0; index < value.length; index++) {
      plan(value[index], tokens, depth + 1);
    }
    return;
  }
  if (!plainObject(value!)) throw new Unplannable();
  const keys = Object.keys(value!);
  tokens.push(OBJECT, keys.length);
  for (const key of keys) {
    tokens.push(key);
    plan((value as Record<string, unknown>)[key], tokens, depth + 1);
  }
}

/** Whether `JSON.stringify(value)` is the planned value's JSON. */
export function sameAsPlan(value: unknown, kept: JsonPlan): boolean {
  if (kept.tokens.length !== 0 && !prototypePolluted()) {
    let compiled = kept.compiled;
    if (compiled === undefined && ++kept.uses === COMPILE_AFTER) {
      compiled = kept.compiled = compiledFor(kept);
    }
    const verdict = compiled === undefined
      ? Math.min(walk(value, kept.tokens, 0, 0), SAME)
      : compiled(value);
    if (verdict === SAME) return true;
    if (verdict === DIFFERENT) return false;
  }
  return JSON.stringify(value) === kept.json;
}

/** The token after `value`'s, or `DIFFERENT` / `UNSURE`. */
function walk(
  value: unknown,
  tokens: readonly unknown[],
  at: number,
  depth: number,
): number {
  const token = tokens[at];
  if (token === OBJECT) {
    if (
      typeof value !== "object" || value === null || Array.isArray(value) ||
      !plainObject(value) || depth > MAX_DEPTH
    ) return writtenAsHeld(value) ? DIFFERENT : UNSURE;
    const count = tokens[at + 1] as number;
    let next = at + 2;
    let seen = 0;
    for (const key in value) {
      // JSON writes the fields in this order: another order or key is
      // other bytes, unless a field is one JSON leaves out (unsure).
      if (seen === count || tokens[next] !== key) return UNSURE;
      seen++;
      const field = (value as Record<string, unknown>)[key];
      // A scalar held as planned is written as planned (a plan's markers
      // are its own symbols, no field's value).
      if (field === tokens[next + 1] && typeof field !== "object") {
        next += 2;
        continue;
      }
      next = walk(field, tokens, next + 1, depth + 1);
      if (next < 0) return next;
    }
    return seen === count ? next : UNSURE;
  }
  if (token === ARRAY) {
    if (!Array.isArray(value) || depth > MAX_DEPTH) {
      return writtenAsHeld(value) ? DIFFERENT : UNSURE;
    }
    if (value.length !== tokens[at + 1]) return UNSURE;
    let next = at + 2;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (item === tokens[next] && typeof item !== "object") {
        next++;
        continue;
      }
      next = walk(item, tokens, next, depth + 1);
      if (next < 0) return next;
    }
    return next;
  }
  // A string, a finite number (0 and -0 are both written 0), a boolean
  // or null: the same bytes exactly when strictly equal.
  if (value === token) return at + 1;
  return writtenAsHeld(value) ? DIFFERENT : UNSURE;
}

function plainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether `Object.prototype` has a `toJSON` (JSON would write every plain
 * object through it). An enumerable key it has needs no check: `for...in`
 * lists it after an object's own keys, and the walk is then unsure.
 */
function prototypePolluted(): boolean {
  return (EMPTY as { toJSON?: unknown }).toJSON !== undefined;
}

const EMPTY: object = Object.freeze({});
