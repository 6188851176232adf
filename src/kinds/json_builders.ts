/**
 * Compiled object literals for the deep copy of `json_copy.ts`: one builder
 * per list of keys, shared by every registry of the process. A helper of
 * the tools kind.
 *
 * @module
 */

/**
 * Copies a plain object whose own enumerable keys are `keys`, in order,
 * reading each once. A compiled builder is an object literal of one key
 * list: V8 makes its objects from one boilerplate and reads the source's
 * fields by name, several times faster than a loop over the keys.
 */
export type Builder<S> = (
  source: Record<string, unknown>,
  depth: number,
  seen: S,
  keys: readonly string[],
) => Record<string, unknown>;

/** Copies one field's value (the deep copy's item step). */
export type ItemCopier<S> = (value: unknown, depth: number, seen: S) => unknown;

const MAX_BUILDERS = 1024;
/** Objects with more keys are copied key by key. */
const MAX_BUILDER_KEYS = 64;

/**
 * The builder lookup of one item copier. Compiled builders are kept by key
 * list, bounded: once full, another key list is copied key by key, never
 * compiled, so a stream of new shapes costs what it did without the cache.
 */
export function builderCache<S>(
  copyItem: ItemCopier<S>,
): (keys: readonly string[]) => Builder<S> {
  const builders = new Map<string, Builder<S>>();
  /** False once the host forbade compiling (a CSP without unsafe-eval). */
  let compiling = true;

  function copyKeys(
    source: Record<string, unknown>,
    depth: number,
    seen: S,
    keys: readonly string[],
  ): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      object[keys[index]] = copyItem(source[keys[index]], depth, seen);
    }
    return object;
  }

  function compileBuilder(keys: readonly string[]): Builder<S> {
    // JSON string literals are JS string literals; "__proto__" never gets
    // here (the fast copy hands it to the careful one). A string, the most
    // common field of a schema, is taken as it is: calling the item copier
    // for it cost more than the rest of the field's copy.
    const fields = keys.map((key) => {
      const literal = JSON.stringify(key);
      return `${literal}:typeof (v=s[${literal}])==="string"?v:c(v,d,n)`;
    });
    try {
      return new Function(
        "c",
        `return function(s,d,n){var v;return {${fields.join(",")}};}`,
      )(copyItem) as Builder<S>;
    } catch (error) {
      // Only a host that forbids compiling (EvalError) is expected here.
      if (!(error instanceof EvalError)) throw error;
      compiling = false;
      return copyKeys;
    }
  }

  return function builderFor(keys: readonly string[]): Builder<S> {
    if (!compiling || keys.length > MAX_BUILDER_KEYS) return copyKeys;
    const id = JSON.stringify(keys);
    let build = builders.get(id);
    if (build === undefined && builders.size < MAX_BUILDERS) {
      build = compileBuilder(keys);
      builders.set(id, build);
    }
    return build ?? copyKeys;
  };
}
