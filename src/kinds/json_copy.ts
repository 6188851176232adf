/**
 * Deep copies of JSON data, as tool schemas need them: plain objects, arrays
 * and JSON scalars only, each field read once, no object shared with the
 * source. A fast copy runs first; anything it does not copy itself (a value
 * to report, a symbol key, a deep nesting) goes to the careful copy, which
 * tracks the path and says what is wrong. A helper of the tools kind.
 *
 * @module
 */

import { type Builder, builderCache } from "./json_builders.ts";

/**
 * Replaces, in `fields` (a fresh shallow copy of `source`), every nested
 * value by its copy, and returns `fields`.
 *
 * @throws {SymbolKey} for a symbol key; a `TypeError` naming the path for
 * a value that is not plain JSON data or a cycle.
 */
export function copyJsonFields(
  source: object,
  fields: Record<string, unknown>,
  seen: SeenObjects,
): Record<string, unknown> {
  try {
    copyFieldsFast(source, fields, seen);
    return fields;
  } catch (error) {
    if (error !== SLOW_PATH) throw error;
    // Something to report, or a deep schema: the careful copy says which.
    if (!isPlainObject(source)) throw notPlainData(source, []);
    return copyFields(source, fields, { path: [], ancestors: [source] });
  }
}

/** Whether `value` is an object of `Object.prototype` or of none. */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Thrown by the fast copy for anything it does not copy itself: a value
 * that is not JSON data, a symbol key, or a nesting deep enough to be a
 * cycle. The careful copy then runs and describes the failure.
 */
const SLOW_PATH: object = Object.freeze({});

/** Deeper than this, the fast copy hands over to the careful one. */
const FAST_DEPTH = 64;

/**
 * What the fast copy remembers of the object at one position of a
 * provider's schemas, from one copy to the next: the object (checked free of
 * symbol keys then), its keys in order, and the builder for that list.
 */
interface Slot {
  object: object | undefined;
  readonly keys: string[];
  build: Builder<SeenObjects> | undefined;
}

/**
 * The objects a provider's schemas were made of at its last copy, in copy
 * order. Checking an object's prototype and looking for symbol keys are the
 * dearest steps of a copy, and a provider usually returns the same schema
 * objects every step: an object found at its previous position is not
 * checked again. Nothing is shared because of it: a symbol key added since
 * is left out (the copy reads string keys, `for...in`), and an object whose
 * prototype was replaced since is copied as plain data, its enumerable
 * inherited keys included. An object with the same keys as the one at its
 * position last time (the same object, or a fresh one of the same shape) is
 * built by the same {@linkcode Builder}.
 *
 * @example
 * ```ts ignore
 * const seen = new SeenObjects();
 * seen.restart(); // before copying one provider's result
 * copyJsonFields(schema, { ...schema }, seen);
 * ```
 */
export class SeenObjects {
  #slots: Slot[] = [];
  #cursor = 0;

  /** Starts a copy of one provider's result. */
  restart(): void {
    this.#slots.length = this.#cursor;
    this.#cursor = 0;
  }

  /**
   * The slot of the next object in copy order.
   *
   * @throws {SLOW_PATH} when `value`, unless it held this position last
   * time, is not a plain object or has a symbol key.
   */
  slotOf(value: object): Slot {
    const position = this.#cursor++;
    const slot = this.#slots[position] ??= {
      object: undefined,
      keys: [],
      build: undefined,
    };
    if (slot.object !== value) {
      if (
        !isPlainObject(value) ||
        Object.getOwnPropertySymbols(value).length !== 0
      ) {
        throw SLOW_PATH;
      }
      slot.object = value;
    }
    return slot;
  }
}

/** The compiled builder of a key list (see `json_builders.ts`). */
const builderFor: (keys: readonly string[]) => Builder<SeenObjects> =
  builderCache(copyItem);

/** True when `Object.prototype` has enumerable keys, which `for...in` lists. */
function prototypePolluted(): boolean {
  for (const _key in EMPTY) return true;
  return false;
}

const EMPTY: object = Object.freeze({});

/**
 * The copy of every assembly: no path or ancestor bookkeeping, each field
 * read once, and only plain objects, arrays and JSON scalars accepted (the
 * careful copy accepts exactly the same).
 */
function copyFieldsFast(
  source: object,
  fields: Record<string, unknown>,
  seen: SeenObjects,
): void {
  if (prototypePolluted()) throw SLOW_PATH;
  // The schema's own slot: its prototype and symbol keys are checked there.
  seen.slotOf(source);
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "object" ? value !== null : !isScalar(value)) {
      fields[key] = copyFast(value, 1, seen);
    }
  }
}

function copyFast(value: unknown, depth: number, seen: SeenObjects): unknown {
  if (typeof value !== "object") {
    if (!isScalar(value)) throw SLOW_PATH;
    return value;
  }
  if (value === null) return value;
  if (depth > FAST_DEPTH) throw SLOW_PATH;
  if (Array.isArray(value)) {
    const array: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      // A string (an enum's values, `required`) is its own copy.
      array[index] = typeof item === "string"
        ? item
        : copyFast(item, depth + 1, seen);
    }
    return array;
  }
  const slot = seen.slotOf(value);
  const keys = slot.keys;
  // Own enumerable string keys only, as a spread reads them (the prototype
  // is unpolluted). A key list that differs from the slot's drops its
  // builder. "__proto__" as an own key needs the careful copy's spread to
  // stay data; a slot's keys never hold it.
  let count = 0;
  for (const key in value) {
    if (keys[count] !== key) {
      if (key === "__proto__") throw SLOW_PATH;
      keys[count] = key;
      slot.build = undefined;
    }
    count++;
  }
  if (keys.length !== count) {
    keys.length = count;
    slot.build = undefined;
  }
  return (slot.build ??= builderFor(keys))(
    value as Record<string, unknown>,
    depth + 1,
    seen,
    keys,
  );
}

function copyItem(item: unknown, depth: number, seen: SeenObjects): unknown {
  return typeof item === "object" && item !== null
    ? copyFast(item, depth, seen)
    : scalar(item);
}

function scalar(value: unknown): unknown {
  if (!isScalar(value)) throw SLOW_PATH;
  return value;
}

/** Thrown for a symbol key; its message is the key's path. */
export class SymbolKey extends Error {}

/**
 * Deep-copies JSON-like data: plain objects, arrays and primitives. Anything
 * else (functions, symbols, bigints, class instances, cycles, symbol keys)
 * throws. `path` holds the keys from the root to `value` and `ancestors` the
 * objects on that path; both are read on failure only.
 */
function copyJson(
  value: unknown,
  path: (string | number)[],
  ancestors: object[],
): unknown {
  if (typeof value !== "object" || value === null) {
    if (
      typeof value === "function" || typeof value === "symbol" ||
      typeof value === "bigint"
    ) {
      throw new TypeError(`${describePath(path)} is a ${typeof value}`);
    }
    return value;
  }
  if (ancestors.includes(value)) {
    throw new TypeError(`${describePath(path)} contains itself (a cycle)`);
  }
  ancestors.push(value);
  let copy: unknown;
  if (Array.isArray(value)) copy = copyArray(value, path, ancestors);
  else if (isPlainObject(value)) {
    // A spread copies the object's own fields in one step (each read once);
    // only nested values need another look.
    copy = copyFields(value, { ...value }, { path, ancestors });
  } else throw notPlainData(value, path);
  ancestors.pop();
  return copy;
}

function copyArray(
  value: readonly unknown[],
  path: (string | number)[],
  ancestors: object[],
): unknown[] {
  const array: unknown[] = new Array(value.length);
  for (let index = 0; index < value.length; index++) {
    const item = value[index];
    if (typeof item === "object" || !isScalar(item)) {
      path.push(index);
      array[index] = copyJson(item, path, ancestors);
      path.pop();
    } else array[index] = item;
  }
  return array;
}

/**
 * Replaces, in `object` (a fresh shallow copy of `source`), every nested
 * value by its copy. Symbol keys of `source` are not JSON: they fail rather
 * than share their value or vanish silently.
 */
function copyFields(
  source: object,
  object: Record<string, unknown>,
  { path, ancestors }: { path: (string | number)[]; ancestors: object[] },
): Record<string, unknown> {
  const symbols = Object.getOwnPropertySymbols(source);
  if (symbols.length !== 0) {
    const key = String(symbols[0]);
    throw new SymbolKey(
      path.length === 0 ? key : `${describePath(path)}[${key}]`,
    );
  }
  for (const key of Object.keys(object)) {
    const item = object[key];
    if (typeof item === "object" ? item !== null : !isScalar(item)) {
      path.push(key);
      object[key] = copyJson(item, path, ancestors);
      path.pop();
    }
  }
  return object;
}

function isScalar(value: unknown): boolean {
  return typeof value !== "function" && typeof value !== "symbol" &&
    typeof value !== "bigint";
}

/** The error for a value that is not plain data, at `path`. */
export function notPlainData(
  value: object,
  path: (string | number)[],
): TypeError {
  let kind = "exotic object";
  try {
    const name = (value as { constructor?: { name?: unknown } }).constructor
      ?.name;
    if (typeof name === "string" && name !== "") kind = name;
  } catch {
    // A hostile object that cannot be described stays "exotic".
  }
  return new TypeError(`${describePath(path)} is a ${kind}, not plain data`);
}

function describePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "the schema";
  return path.map((key) => typeof key === "number" ? `[${key}]` : `.${key}`)
    .join("").replace(/^\./, "");
}
