/**
 * One tool schema from a provider, checked and deep-copied, so an assembly
 * never shares a mutable object with a provider. A helper of the tools kind.
 *
 * @module
 */

import { providerFailed } from "../assemble/provider.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { ToolSchema } from "../types.ts";

/** The longest tool name, in UTF-16 code units (SPEC 7.1). */
export const MAX_TOOL_NAME_LENGTH = 128;

const FORBIDDEN_IN_TOOL_NAME = /[\s\p{Cc}]/u;

/**
 * Checks `schema` and returns a deep copy. Each field of `schema` is read
 * once: the copy is made first and the checks read the copy, so a getter
 * cannot pass a check with one value and be copied with another. `source`
 * names the provider in messages (built on failure only).
 *
 * @throws {SystemPromptError} `INVALID_TOOL_SCHEMA` for a bad shape or name,
 * or a symbol key; `PROVIDER_FAILED` for other values that are not plain
 * JSON data.
 */
export function copyToolSchema(
  schema: unknown,
  source: () => string,
): ToolSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${source()} returned ${
        Array.isArray(schema) ? "an array" : quote(schema)
      } as a tool schema; every schema is an object { name, description, ` +
        `parameters }.`,
    );
  }
  const fields = readFields(schema, source);
  const name = checkToolFields(fields, source);
  return copyToolFields(schema, fields, { name, source });
}

/** Throws `INVALID_TOOL_SCHEMA` unless name, description and parameters fit. */
function checkToolFields(
  fields: Record<string, unknown>,
  source: () => string,
): string {
  const name = fields.name;
  if (!isValidToolName(name)) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${source()} returned a tool named ${quote(name)}; a tool name ` +
        `is a non-empty string of at most ${MAX_TOOL_NAME_LENGTH} UTF-16 ` +
        `code units with no whitespace or control characters.`,
    );
  }
  if (
    typeof fields.description !== "string" ||
    !isPlainObject(fields.parameters)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${quote(name)} from the ${source()} needs a string description ` +
        `and an object of parameters (a JSON Schema).`,
    );
  }
  return name;
}

/** Deep-copies `fields` as plain JSON data, naming the tool in any error. */
function copyToolFields(
  schema: object,
  fields: Record<string, unknown>,
  { name, source }: { name: string; source: () => string },
): ToolSchema {
  try {
    if (!isPlainObject(schema)) throw notPlainData(schema, []);
    try {
      copyFieldsFast(schema, fields);
    } catch (error) {
      if (error !== SLOW_PATH) throw error;
      // Something to report, or a deep schema: the careful copy says which.
      copyFields(schema, fields, { path: [], ancestors: [schema] });
    }
    return fields as unknown as ToolSchema;
  } catch (error) {
    if (error instanceof SymbolKey) {
      throw new SystemPromptError(
        "INVALID_TOOL_SCHEMA",
        `Tool ${quote(name)} from the ${source()} has a symbol key at ` +
          `${error.message}; a tool schema is JSON data, whose keys are ` +
          `strings.`,
      );
    }
    throw providerFailed(
      `Tool ${quote(name)} from the ${source()} cannot be copied`,
      error,
      "; a tool schema must be plain JSON data",
    );
  }
}

/** A shallow copy of `schema`'s own fields: one read of each. */
function readFields(
  schema: object,
  source: () => string,
): Record<string, unknown> {
  try {
    return { ...schema };
  } catch (error) {
    throw providerFailed(
      `A tool schema from the ${source()} cannot be read`,
      error,
      "; a tool schema must be plain JSON data",
    );
  }
}

function isValidToolName(name: unknown): name is string {
  if (
    typeof name !== "string" || name === "" ||
    name.length > MAX_TOOL_NAME_LENGTH
  ) {
    return false;
  }
  // Printable ASCII other than the space is always valid; the (slower)
  // Unicode check runs only for names with other characters.
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    if (code <= 0x20 || code >= 0x7f) {
      return !FORBIDDEN_IN_TOOL_NAME.test(name);
    }
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
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
 * The copy of every assembly: no path or ancestor bookkeeping, each field
 * read once, and only plain objects, arrays and JSON scalars accepted (the
 * careful copy accepts exactly the same).
 */
function copyFieldsFast(source: object, fields: Record<string, unknown>): void {
  if (Object.getOwnPropertySymbols(source).length !== 0) throw SLOW_PATH;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "object" ? value !== null : !isScalar(value)) {
      fields[key] = copyFast(value, 1);
    }
  }
}

function copyFast(value: unknown, depth: number): unknown {
  if (typeof value !== "object") {
    if (!isScalar(value)) throw SLOW_PATH;
    return value;
  }
  if (value === null) return value;
  if (depth > FAST_DEPTH) throw SLOW_PATH;
  if (Array.isArray(value)) {
    const array: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      array[index] = copyFast(value[index], depth + 1);
    }
    return array;
  }
  const prototype = Object.getPrototypeOf(value);
  if (
    (prototype !== Object.prototype && prototype !== null) ||
    Object.getOwnPropertySymbols(value).length !== 0
  ) {
    throw SLOW_PATH;
  }
  // A spread copies the shape in one step; only nested values need a look.
  const object: Record<string, unknown> = { ...value };
  for (const key in object) {
    const item = object[key];
    if (typeof item === "object" ? item !== null : !isScalar(item)) {
      object[key] = copyFast(item, depth + 1);
    }
  }
  return object;
}

/** Thrown for a symbol key; its message is the key's path. */
class SymbolKey extends Error {}

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

function notPlainData(value: object, path: (string | number)[]): TypeError {
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
