/**
 * One tool schema from a provider, checked and deep-copied, so an assembly
 * never shares a mutable object with a provider. A helper of the tools kind.
 *
 * @module
 */

import { userCodeFailed } from "../shared/user_code.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { ToolSchema } from "../types.ts";
import {
  copyJsonFields,
  isPlainObject,
  type SeenObjects,
  SymbolKey,
} from "./json_copy.ts";

/** The longest tool name, in UTF-16 code units (SPEC 7.1). */
export const MAX_TOOL_NAME_LENGTH = 128;

const FORBIDDEN_IN_TOOL_NAME = /[\s\p{Cc}]/u;

/**
 * Checks `schema` and returns a deep copy. Each field of `schema` is read
 * once: the copy is made first and the checks read the copy, so a getter
 * cannot pass a check with one value and be copied with another. `source`
 * names the provider in messages (built on failure only); `seen`
 * remembers the provider's objects from one copy to the next.
 *
 * @throws {SystemPromptError} `INVALID_TOOL_SCHEMA` for a bad shape or name,
 * or a symbol key; `PROVIDER_FAILED` for other values that are not plain
 * JSON data.
 */
export function copyToolSchema(
  schema: unknown,
  source: () => string,
  { seen }: { seen: SeenObjects },
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
  return copyToolFields(schema, fields, { name, source, seen });
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
  // Whether parameters is a plain object is settled by the copy (see
  // copyToolFields): it checks each object it has not seen at its place.
  const parameters = fields.parameters;
  if (
    typeof fields.description !== "string" || typeof parameters !== "object" ||
    parameters === null || Array.isArray(parameters)
  ) throw badShape(name, source);
  return name;
}

function badShape(name: string, source: () => string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_TOOL_SCHEMA",
    `Tool ${quote(name)} from the ${source()} needs a string description ` +
      `and an object of parameters (a JSON Schema).`,
  );
}

/** Deep-copies `fields` as plain JSON data, naming the tool in any error. */
function copyToolFields(
  schema: object,
  fields: Record<string, unknown>,
  { name, source, seen }: {
    name: string;
    source: () => string;
    seen: SeenObjects;
  },
): ToolSchema {
  try {
    // The copy checks the prototype of each object it has not seen at its
    // place last time (the schema itself included): a provider returning
    // the same schemas every step pays for no check.
    return copyJsonFields(schema, fields, seen) as unknown as ToolSchema;
  } catch (error) {
    if (!isPlainObject(fields.parameters)) throw badShape(name, source);
    if (error instanceof SymbolKey) {
      throw new SystemPromptError(
        "INVALID_TOOL_SCHEMA",
        `Tool ${quote(name)} from the ${source()} has a symbol key at ` +
          `${error.message}; a tool schema is JSON data, whose keys are ` +
          `strings.`,
      );
    }
    throw userCodeFailed(
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
    throw userCodeFailed(
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
  return isPrintableAscii(name) || !FORBIDDEN_IN_TOOL_NAME.test(name);
}

/** A loop: for names this short, faster than a regular expression. */
function isPrintableAscii(name: string): boolean {
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}
