/**
 * A private snapshot of JSON data, and a check that tells whether a live
 * value still writes the same JSON. The budget counts each tool's
 * `JSON.stringify` tokens at every step; an agent loop's tools rarely
 * change, but every assembly holds fresh copies that a listener may have
 * changed, so they must be looked at.
 *
 * The check answers `true` only when `JSON.stringify(live)` would give the
 * text the snapshot was parsed from: same keys in the same order, the same
 * primitives, no `toJSON`. Anything else it answers `false` (also what it
 * cannot read), and the caller writes the JSON as before.
 *
 * The check is compiled for its snapshot (straight-line code reading each
 * field by name: W1's 20 tools in about 2.3 µs, against 8 µs to write their
 * JSON and 5 µs for a generic walk), like the tool copies of
 * `src/kinds/json_builders.ts`; a host that forbids compiling, or a
 * snapshot too large or too deep to compile, gets the generic walk.
 *
 * Pure: no state but whether the host allows compiling.
 *
 * @module
 */

/** A snapshot of JSON data: whether a live value writes the same text. */
export interface JsonSnapshot {
  /** Throws what reading `live` throws. */
  readonly matches: (live: unknown) => boolean;
}

/** Larger JSON texts are walked, not compiled. */
const MAX_COMPILED_CHARS = 64 * 1024;
/** Deeper data is walked, not compiled. */
const MAX_COMPILED_DEPTH = 32;

/** False once the host forbade compiling (a CSP without unsafe-eval). */
let compiling = true;

/** The snapshot of `json`, a text `JSON.stringify` wrote. */
export function jsonSnapshot(json: string): JsonSnapshot {
  const data: unknown = JSON.parse(json);
  if (compiling && json.length <= MAX_COMPILED_CHARS) {
    const compiled = compiledMatcher(data);
    if (compiled !== undefined) return { matches: compiled };
  }
  const node = nodeOf(data);
  return { matches: (live) => same(live, node) };
}

/**
 * Whether `JSON.stringify(live)` is the text `snapshot` was parsed from;
 * `false` when unsure, or when reading `live` throws.
 */
export function writesSnapshot(
  live: unknown,
  snapshot: JsonSnapshot,
): boolean {
  try {
    return snapshot.matches(live);
  } catch {
    // A getter, a Proxy or a depth the stack does not hold: the caller's
    // JSON.stringify says what is wrong, if anything.
    return false;
  }
}

/**
 * Whether `live` is a plain object whose enumerable keys (inherited ones
 * included) are `keys`, in order, and which has no `toJSON`.
 */
function isObjectOf(live: unknown, keys: readonly string[]): boolean {
  if (
    typeof live !== "object" || live === null || Array.isArray(live) ||
    (live as { toJSON?: unknown }).toJSON !== undefined
  ) return false;
  let at = 0;
  // for-in also lists inherited enumerable keys, which JSON leaves out:
  // one of those makes the key lists differ, which only costs the check.
  for (const key in live) {
    if (at === keys.length || key !== keys[at]) return false;
    at++;
  }
  return at === keys.length;
}

function isArrayOf(live: unknown, length: number): boolean {
  return Array.isArray(live) && live.length === length &&
    (live as { toJSON?: unknown }).toJSON === undefined;
}

/**
 * One function checking `data`'s every field by name, or `undefined` when
 * `data` is too deep or the host forbids compiling. Keys and strings enter
 * the code as JSON string literals, which are JavaScript string literals.
 * Each object's checks are written out where it is read, not called: a
 * shared helper would see every shape of the data at its one property read
 * and `for-in`, which then stay slow (megamorphic).
 */
function compiledMatcher(
  data: unknown,
): ((live: unknown) => boolean) | undefined {
  const lines: string[] = [];
  let names = 0;
  function check(expression: string, value: unknown, depth: number): boolean {
    if (typeof value !== "object" || value === null) {
      lines.push(`if(${expression}!==${JSON.stringify(value)})return false;`);
      return true;
    }
    if (depth > MAX_COMPILED_DEPTH) return false;
    const name = `v${names++}`;
    lines.push(`const ${name}=${expression};`);
    if (Array.isArray(value)) {
      lines.push(
        `if(!Array.isArray(${name})||${name}.length!==${value.length}||` +
          `${name}.toJSON!==undefined)return false;`,
      );
      return value.every((item, index) =>
        check(`${name}[${index}]`, item, depth + 1)
      );
    }
    const keys = Object.keys(value);
    lines.push(objectCheck(name, keys));
    return keys.every((key) =>
      check(
        `${name}[${JSON.stringify(key)}]`,
        (value as Record<string, unknown>)[key],
        depth + 1,
      )
    );
  }
  if (!check("l", data, 0)) return undefined;
  try {
    return new Function(`return function(l){${lines.join("")}return true;};`)();
  } catch (error) {
    // Only a host that forbids compiling (EvalError) is expected here.
    if (!(error instanceof EvalError)) throw error;
    compiling = false;
    return undefined;
  }
}

/**
 * The code checking that `name` holds a plain object whose enumerable keys
 * are `keys` in order, without `toJSON` (see {@linkcode isObjectOf}).
 */
function objectCheck(name: string, keys: readonly string[]): string {
  const cases = keys.map((key, at) =>
    `case ${at}:if(k!==${JSON.stringify(key)})return false;break;`
  );
  return `if(typeof ${name}!=="object"||${name}===null||` +
    `Array.isArray(${name})||${name}.toJSON!==undefined)return false;` +
    `{let n=0;for(const k in ${name}){switch(n++){${cases.join("")}` +
    `default:return false;}}if(n!==${keys.length})return false;}`;
}

/** An object of the walked snapshot: its keys in JSON order, and values. */
class ObjectNode {
  constructor(
    readonly keys: readonly string[],
    readonly values: readonly JsonNode[],
  ) {}
}

/** A walked snapshot: a primitive, an array of nodes, or an object node. */
type JsonNode =
  | string
  | number
  | boolean
  | null
  | readonly JsonNode[]
  | ObjectNode;

function nodeOf(data: unknown): JsonNode {
  if (typeof data !== "object" || data === null) return data as JsonNode;
  if (Array.isArray(data)) return data.map(nodeOf);
  const keys = Object.keys(data);
  return new ObjectNode(
    keys,
    keys.map((key) => nodeOf((data as Record<string, unknown>)[key])),
  );
}

function same(live: unknown, node: JsonNode): boolean {
  if (typeof node !== "object" || node === null) return live === node;
  if (node instanceof ObjectNode) {
    const { keys, values } = node;
    if (!isObjectOf(live, keys)) return false;
    for (let at = 0; at < keys.length; at++) {
      if (!same((live as Record<string, unknown>)[keys[at]], values[at])) {
        return false;
      }
    }
    return true;
  }
  const items = node as readonly JsonNode[];
  if (!isArrayOf(live, items.length)) return false;
  for (let at = 0; at < items.length; at++) {
    if (!same((live as unknown[])[at], items[at])) return false;
  }
  return true;
}
