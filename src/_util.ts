/**
 * Tiny helpers shared by several rooms. Internal: not exported from `mod.ts`.
 *
 * @module
 */

/**
 * Whether `value` is a thenable. Functions count: a callable object with a
 * `then` method is awaited like any other thenable.
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function";
}

/** Locale-independent comparison by UTF-16 code units. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
