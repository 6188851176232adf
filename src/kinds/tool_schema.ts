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
 * Checks `schema` and returns a deep copy. `source` names the provider in
 * messages (built on failure only).
 *
 * @throws {SystemPromptError} `INVALID_TOOL_SCHEMA` for a bad shape or name;
 * `PROVIDER_FAILED` for parameters that are not plain JSON data.
 */
export function copyToolSchema(
  schema: unknown,
  source: () => string,
): ToolSchema {
  const candidate = schema as Partial<ToolSchema> | null;
  if (typeof candidate !== "object" || candidate === null) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${source()} returned ${quote(candidate)} as a tool schema; ` +
        `every schema is an object { name, description, parameters }.`,
    );
  }
  const name = candidate.name;
  if (!isValidToolName(name)) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${source()} returned a tool named ${quote(name)}; a tool name ` +
        `is a non-empty string of at most ${MAX_TOOL_NAME_LENGTH} UTF-16 ` +
        `code units with no whitespace or control characters.`,
    );
  }
  if (
    typeof candidate.description !== "string" ||
    !isPlainObject(candidate.parameters)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${quote(name)} from the ${source()} needs a string description ` +
        `and an object of parameters (a JSON Schema).`,
    );
  }
  try {
    return copyJson(candidate, [], []) as ToolSchema;
  } catch (error) {
    throw providerFailed(
      `Tool ${quote(name)} from the ${source()} cannot be copied`,
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
 * Deep-copies JSON-like data: plain objects, arrays and primitives. Anything
 * else (functions, symbols, bigints, class instances, cycles) throws. `path`
 * holds the keys from the root to `value`; it is only read on failure.
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
  const copy = Array.isArray(value)
    ? copyArray(value, path, ancestors)
    : copyObject(value, path, ancestors);
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
    path.push(index);
    array[index] = copyJson(value[index], path, ancestors);
    path.pop();
  }
  return array;
}

function copyObject(
  value: object,
  path: (string | number)[],
  ancestors: object[],
): Record<string, unknown> {
  if (!isPlainObject(value)) {
    const kind = value.constructor?.name ?? "exotic object";
    throw new TypeError(`${describePath(path)} is a ${kind}, not plain data`);
  }
  // A spread copies the object's shape in one step; only nested values
  // need a look.
  const object: Record<string, unknown> = { ...value };
  for (const key in object) {
    const item = object[key];
    if (
      (typeof item === "object" && item !== null) ||
      typeof item === "function" || typeof item === "symbol" ||
      typeof item === "bigint"
    ) {
      path.push(key);
      object[key] = copyJson(item, path, ancestors);
      path.pop();
    }
  }
  return object;
}

function describePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "the schema";
  return path.map((key) => typeof key === "number" ? `[${key}]` : `.${key}`)
    .join("").replace(/^\./, "");
}
