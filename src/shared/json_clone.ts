/**
 * A deep copy of JSON data that is exactly `JSON.parse(JSON.stringify(x))`
 * without writing the text: an answer's copy at every step (issue 49)
 * wrote and parsed a kilobyte or more of JSON where a walk of its objects
 * shares its strings. Anything whose JSON is not its own shape (a
 * `toJSON`, a class instance, `undefined`, a function, a non-finite
 * number, a `__proto__` key, a deep or cyclic nesting) is copied through
 * JSON, so the answer is always that copy's. Pure.
 *
 * @module
 */

/** Thrown inside the walk for a value it leaves to JSON. */
const THROUGH_JSON: object = Object.freeze({});

/**
 * `JSON.parse(JSON.stringify(value))`, each object and array new, its
 * strings shared (they are immutable).
 *
 * @throws what `JSON.stringify(value)` throws (a cycle, a BigInt, a
 * throwing getter or `toJSON`)
 */
export function jsonClone<T>(value: T): T {
  try {
    return cloned(value, 0, false) as T;
  } catch (error) {
    if (error !== THROUGH_JSON) throw error;
    return JSON.parse(JSON.stringify(value));
  }
}

/**
 * {@linkcode jsonClone}, each object and array of the copy frozen as it is
 * made (a history's items are frozen: one walk, not two) when the copy
 * walked `value`; the copy through JSON is not frozen. A frozen copy nests
 * at most {@linkcode MAX_CLONE_DEPTH} levels ({@linkcode isFrozenClone}).
 *
 * @throws what `JSON.stringify(value)` throws
 */
export function frozenJsonClone<T>(value: T): T {
  try {
    const copy = cloned(value, 0, true);
    if (typeof copy === "object" && copy !== null) FROZEN.add(copy);
    return copy as T;
  } catch (error) {
    if (error !== THROUGH_JSON) throw error;
    return JSON.parse(JSON.stringify(value));
  }
}

/**
 * Whether `value` is a copy {@linkcode frozenJsonClone} made by walking:
 * frozen all the way down, at most {@linkcode MAX_CLONE_DEPTH} deep.
 */
export function isFrozenClone(value: unknown): boolean {
  return typeof value === "object" && value !== null && FROZEN.has(value);
}

/** The deepest nesting a walked copy holds. */
export const MAX_CLONE_DEPTH: number = 100;

const FROZEN = new WeakSet<object>();

function cloned(value: unknown, depth: number, freeze: boolean): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw THROUGH_JSON;
      // JSON writes -0 as 0.
      return value === 0 ? 0 : value;
    case "object":
      break;
    default:
      throw THROUGH_JSON;
  }
  if (value === null) return null;
  if (depth >= MAX_CLONE_DEPTH) throw THROUGH_JSON;
  // A `toJSON` of its own or of a prototype (one polluted too).
  if ((value as { toJSON?: unknown }).toJSON !== undefined) throw THROUGH_JSON;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      copy[index] = cloned(value[index], depth + 1, freeze);
    }
    return freeze ? Object.freeze(copy) : copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw THROUGH_JSON;
  }
  const copy: Record<string, unknown> = {};
  // JSON writes the own enumerable string keys, in this order.
  for (const key of Object.keys(value)) {
    if (key === "__proto__") throw THROUGH_JSON;
    copy[key] = cloned(
      (value as Record<string, unknown>)[key],
      depth + 1,
      freeze,
    );
  }
  return freeze ? Object.freeze(copy) : copy;
}
