/**
 * Whether a value writes the same JSON as a kept one, without writing it:
 * the one check of "are these still the same bytes?" (issue 45). A
 * conversation compares the tools it lists with each assembly's, a budget
 * each step's tool list with the last one counted; `JSON.stringify` of 20
 * tools was most of either step's own cost.
 *
 * A kept value is read once into a flat plan of tokens, and a comparison
 * walks the other value along it; at its 16th comparison the plan is
 * compiled into straight code reading each field by name (several times
 * faster: each read sees one shape of object step after step). What the
 * plan cannot tell (a value JSON writes otherwise than it holds: a
 * `toJSON`, `undefined`, a class instance) is compared through
 * `JSON.stringify`, so the answer is always that comparison's. Pure, but
 * for the process's cache of compiled plans.
 *
 * @module
 */

/** A value's JSON kept, to tell whether another value writes the same. */
export interface KeptJson {
  /** The kept value's JSON. */
  readonly json: string;
  /** Its plan (empty: compared through `JSON.stringify` only). */
  readonly tokens: readonly unknown[];
  /** The plan compiled, once it is worth it. */
  compiled: Compiled | undefined;
  /** The comparisons made before it was compiled. */
  uses: number;
}

/**
 * Keeps `value`'s JSON (read once: what becomes of `value` afterwards
 * changes nothing).
 *
 * @throws what `JSON.stringify(value)` throws
 */
export function keepJson(value: unknown): KeptJson {
  const json = JSON.stringify(value);
  const tokens: unknown[] = [];
  try {
    plan(value, tokens, 0);
  } catch (error) {
    if (!(error instanceof Unplannable)) throw error;
    return { json, tokens: [], compiled: undefined, uses: 0 };
  }
  return { json, tokens, compiled: COMPILED.get(json), uses: 0 };
}

/**
 * `JSON.stringify(value) === kept.json`, without the string where the
 * plan can tell.
 *
 * @throws what `JSON.stringify(value)` throws
 */
export function writesSameJson(value: unknown, kept: KeptJson): boolean {
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

/**
 * {@linkcode writesSameJson} over a list, element by element: whether
 * `values` is an array of as many elements, each writing its kept JSON.
 *
 * @throws what `JSON.stringify` of an element throws
 */
export function writesSameJsonList(
  values: unknown,
  kept: readonly KeptJson[],
): boolean {
  if (
    !Array.isArray(values) || values.length !== kept.length ||
    (values as { toJSON?: unknown }).toJSON !== undefined
  ) return false;
  for (let index = 0; index < kept.length; index++) {
    if (!writesSameJson(values[index], kept[index])) return false;
  }
  return true;
}

/** A comparison's verdicts: the same bytes, sure others, not sure. */
const SAME = 0;
const DIFFERENT = -1;
const UNSURE = -2;

/** A comparison with one kept value: `SAME`, `DIFFERENT` or `UNSURE`. */
type Compiled = (value: unknown) => number;

const OBJECT = Symbol("object");
const ARRAY = Symbol("array");

/** A value the plan does not hold (compared through its JSON). */
class Unplannable extends Error {}

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

/** Deeper than real tool definitions: compared through JSON. */
const MAX_DEPTH = 64;

function compiledFor(kept: KeptJson): Compiled | undefined {
  if (kept.tokens.length > MAX_COMPILED_TOKENS) return undefined;
  if (COMPILED.size >= MAX_COMPILED) return COMPILED.get(kept.json);
  let compiled = COMPILED.get(kept.json);
  if (compiled === undefined) {
    // From the JSON: the value as it was kept, whatever became of it.
    compiled = compiledComparison(JSON.parse(kept.json));
    if (compiled !== undefined) COMPILED.set(kept.json, compiled);
  }
  return compiled;
}

/** A string, a finite number, a boolean or null: JSON writes it as held. */
function writtenAsHeld(value: unknown): boolean {
  return typeof value === "string" || typeof value === "boolean" ||
    value === null || (typeof value === "number" && Number.isFinite(value));
}

function plan(value: unknown, tokens: unknown[], depth: number): void {
  if (writtenAsHeld(value)) {
    tokens.push(value);
    return;
  }
  if (
    typeof value !== "object" || depth > MAX_DEPTH ||
    (value as { toJSON?: unknown }).toJSON !== undefined
  ) throw new Unplannable();
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
    ) return mismatch(value);
    // JSON writes what an own toJSON returns, enumerable or not.
    if ((value as { toJSON?: unknown }).toJSON !== undefined) return UNSURE;
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
    if (!Array.isArray(value) || depth > MAX_DEPTH) return mismatch(value);
    if (
      value.length !== tokens[at + 1] ||
      (value as { toJSON?: unknown }).toJSON !== undefined
    ) return UNSURE;
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
  return mismatch(value);
}

/** After a mismatch: `DIFFERENT` when `value` is written as it is held. */
function mismatch(value: unknown): number {
  return writtenAsHeld(value) ? DIFFERENT : UNSURE;
}

function plainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether `Object.prototype` has a `toJSON` (JSON would write every plain
 * object through it). An enumerable key it has needs no check: `for...in`
 * lists it after an object's own keys, and the comparison is then unsure.
 */
function prototypePolluted(): boolean {
  return (EMPTY as { toJSON?: unknown }).toJSON !== undefined;
}

const EMPTY: object = Object.freeze({});

/** False once the host forbade compiling (a CSP without unsafe-eval). */
let compiling = true;

/**
 * The comparison with `kept` compiled, or `undefined` when the host
 * forbids compiling. `kept` is JSON data (strings, finite numbers,
 * booleans, null, arrays and plain objects), as `plan` checked. Each
 * object's checks are written where it is read, not called: a shared
 * helper would see every shape at its one property read, which then
 * stays slow.
 */
function compiledComparison(kept: unknown): Compiled | undefined {
  if (!compiling) return undefined;
  const lines: string[] = [];
  let names = 0;
  const emit = (held: unknown, at: string): void => {
    if (writtenAsHeld(held)) {
      // JSON literals are JS literals; 0 also matches -0 (both written 0).
      lines.push(`if(${at}!==${JSON.stringify(held)})return m(${at});`);
      return;
    }
    if (Array.isArray(held)) {
      lines.push(
        `if(!Array.isArray(${at}))return m(${at});`,
        `if(${at}.length!==${held.length}||${at}.toJSON!==undefined)` +
          `return ${UNSURE};`,
      );
      held.forEach((item, index) => {
        const name = `v${names++}`;
        lines.push(`var ${name}=${at}[${index}];`);
        emit(item, name);
      });
      return;
    }
    const fields = held as Record<string, unknown>;
    const keys = Object.keys(fields);
    // An object JSON writes field by field: of Object's prototype chain
    // and without a toJSON (a Date, a boxed string, a class instance or a
    // null-prototype object is unsure). Another order or key is other
    // bytes, unless a field is one JSON leaves out (then unsure); an
    // enumerable key of the prototype comes after the own ones (unsure).
    const cases = keys.map((key, index) =>
      `case ${index}:if(k!==${JSON.stringify(key)})return ${UNSURE};break;`
    );
    lines.push(
      `if(typeof ${at}!=="object"||${at}===null||Array.isArray(${at}))` +
        `return m(${at});`,
      `if(${at}.constructor!==O||${at}.toJSON!==undefined)return ${UNSURE};`,
      `i=0;for(k in ${at}){switch(i++){${
        cases.join("")
      }default:return ${UNSURE};}}`,
      `if(i!==${keys.length})return ${UNSURE};`,
    );
    for (const key of keys) {
      const name = `v${names++}`;
      lines.push(`var ${name}=${at}[${JSON.stringify(key)}];`);
      emit(fields[key], name);
    }
  };
  emit(kept, "x");
  try {
    return new Function(
      "m",
      "O",
      `return function(x){var i,k;${lines.join("")}return ${SAME};}`,
    )(mismatch, Object) as Compiled;
  } catch (error) {
    // Only a host that forbids compiling (EvalError) is expected here.
    if (!(error instanceof EvalError)) throw error;
    compiling = false;
    return undefined;
  }
}
