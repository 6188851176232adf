/**
 * Reads one assembly given to `diffAssemblies`: every field once, validated,
 * into plain data. Internal: not exported from `mod.ts`.
 *
 * Reading once matters: an assembly may carry getters or proxies (a listener
 * built it), and the diff must describe one consistent value of each side.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection } from "../types.ts";

/** Which argument of `diffAssemblies` a side is, for error messages. */
export type SideLabel = "before" | "after";

/** A tool as it goes on the wire: its name and its JSON. */
export interface SerializedTool {
  readonly name: string;
  readonly json: string;
}

/** Variable values, in a null-prototype object. */
export type Variables = Record<string, string | undefined>;

/** An assembly as plain, validated data. */
export interface RawAssembly {
  readonly sections: AssembledSection[];
  readonly tools: SerializedTool[];
  /** `[]` when the assembly has no deferred tools. */
  readonly deferredTools: SerializedTool[];
  readonly variables: Variables;
  /** `[]` when the assembly has no runtime context. */
  readonly runtimeContext: AssembledSection[];
  /** Absent when every tool is active. */
  readonly activeTools?: readonly string[];
}

/**
 * Where reading has got to, so that a throwing getter can be located. Kept
 * as parts: the path string is built only for an error message.
 */
interface Cursor {
  readonly side: SideLabel;
  key?: string;
  index?: number;
  variable?: string;
}

function pathOf(cursor: Cursor): string {
  let path: string = cursor.side;
  if (cursor.key !== undefined) path += `.${cursor.key}`;
  if (cursor.index !== undefined) path += `[${cursor.index}]`;
  if (cursor.variable !== undefined) path += `.${cursor.variable}`;
  return path;
}

/**
 * Reads and validates one assembly.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY`, `INVALID_SECTION`,
 * `INVALID_TOOL_SCHEMA` or `INVALID_VARIABLE_VALUE`, naming the side and the
 * path; a getter or proxy that throws is `INVALID_ASSEMBLY` with its error
 * as `cause`.
 */
export function readAssembly(
  assembly: unknown,
  side: SideLabel,
): RawAssembly {
  const cursor: Cursor = { side };
  try {
    if (!isObject(assembly)) {
      throw invalid(
        side,
        `is ${kindOf(assembly)}; expected an assembly object with ` +
          `sections, tools and variables`,
      );
    }
    return {
      variables: readVariables(assembly, cursor),
      sections: readList(assembly, "sections", cursor, readSection),
      tools: readList(assembly, "tools", cursor, readTool),
      deferredTools: readList(assembly, "deferredTools", cursor, readTool),
      runtimeContext: readList(assembly, "runtimeContext", cursor, readSection),
      activeTools: readActiveTools(assembly, cursor),
    };
  } catch (error) {
    if (error instanceof SystemPromptError) throw error;
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `diffAssemblies: reading ${pathOf(cursor)} threw (see cause); an ` +
        `assembly must be plain readable data.`,
      { cause: error },
    );
  }
}

function readVariables(assembly: object, cursor: Cursor): Variables {
  cursor.key = "variables";
  const variables = (assembly as { variables?: unknown }).variables;
  if (!isObject(variables) || Array.isArray(variables)) {
    throw invalid(
      pathOf(cursor),
      `is ${kindOf(variables)}; expected an object of variable values`,
    );
  }
  // A null-prototype copy: own keys stay own, `{{constructor}}` stays unknown.
  const copy: Variables = Object.create(null);
  for (const name of Object.keys(variables)) {
    cursor.variable = name;
    const value = (variables as Record<string, unknown>)[name];
    if (value !== undefined && typeof value !== "string") {
      throw new SystemPromptError(
        "INVALID_VARIABLE_VALUE",
        `diffAssemblies: variable ${quote(name)} of the ${cursor.side} ` +
          `assembly is ${kindOf(value)}; a variable's value is a string or ` +
          `undefined.`,
      );
    }
    copy[name] = value;
  }
  cursor.variable = undefined;
  return copy;
}

/** `activeTools`, when present: an array of names. */
function readActiveTools(
  assembly: object,
  cursor: Cursor,
): string[] | undefined {
  cursor.key = "activeTools";
  cursor.index = undefined;
  const list = (assembly as { activeTools?: unknown }).activeTools;
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    throw invalid(
      pathOf(cursor),
      `is ${kindOf(list)}; expected an array of tool names (or no key)`,
    );
  }
  const names: string[] = [];
  for (let index = 0; index < list.length; index++) {
    cursor.index = index;
    const name: unknown = list[index];
    if (typeof name !== "string") {
      throw invalid(pathOf(cursor), `is ${kindOf(name)}; expected a tool name`);
    }
    names.push(name);
  }
  return names;
}

/** Reads `assembly[key]` as a list, one entry at a time. */
function readList<T>(
  assembly: object,
  key: "sections" | "runtimeContext" | "tools" | "deferredTools",
  cursor: Cursor,
  readEntry: (entry: unknown, cursor: Cursor) => T,
): T[] {
  cursor.key = key;
  cursor.index = undefined;
  const list = (assembly as Record<string, unknown>)[key];
  // 0.1-shaped assemblies have no runtime context, and most assemblies no
  // deferred tools: read them as [].
  if (
    list === undefined && (key === "runtimeContext" || key === "deferredTools")
  ) return [];
  if (!Array.isArray(list)) {
    throw invalid(pathOf(cursor), `is ${kindOf(list)}; expected an array`);
  }
  const entries: T[] = [];
  for (let index = 0; index < list.length; index++) {
    cursor.index = index;
    entries.push(readEntry(list[index], cursor));
  }
  return entries;
}

function readSection(section: unknown, cursor: Cursor): AssembledSection {
  if (!isObject(section)) {
    throw invalidSection(cursor, `is ${kindOf(section)}; expected a section`);
  }
  const { name, order, text } = section as Record<string, unknown>;
  if (typeof name !== "string") {
    throw invalidSection(cursor, `has a name of type ${kindOf(name)}`);
  }
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw invalidSection(cursor, `has order ${quote(order)}`, name);
  }
  if (typeof text !== "string") {
    throw invalidSection(cursor, `has text of type ${kindOf(text)}`, name);
  }
  return { name, order, text };
}

function readTool(tool: unknown, cursor: Cursor): SerializedTool {
  if (!isObject(tool) || Array.isArray(tool)) {
    throw invalidTool(cursor, `is ${kindOf(tool)}`);
  }
  const name = (tool as { name?: unknown }).name;
  if (typeof name !== "string") {
    throw invalidTool(cursor, `has a name of type ${kindOf(name)}`);
  }
  return { name, json: serialize(tool, cursor, name) };
}

function serialize(tool: unknown, cursor: Cursor, name: string): string {
  let json: unknown;
  try {
    json = JSON.stringify(tool);
  } catch (error) {
    const problem = "cannot be serialized to JSON (see cause)";
    throw invalidTool(cursor, problem, name, error);
  }
  if (typeof json !== "string") {
    throw invalidTool(cursor, "serializes to no JSON", name);
  }
  return json;
}

function invalid(path: string, problem: string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `diffAssemblies: ${path} ${problem}.`,
  );
}

/** The entry's path, with its name when it has one. */
function where(cursor: Cursor, name?: string): string {
  return name === undefined
    ? pathOf(cursor)
    : `${pathOf(cursor)} (${quote(name)})`;
}

function invalidSection(
  cursor: Cursor,
  problem: string,
  name?: string,
): SystemPromptError {
  return new SystemPromptError(
    "INVALID_SECTION",
    `diffAssemblies: ${where(cursor, name)} ${problem}; a section is ` +
      `{ name: string, order: finite number, text: string }.`,
  );
}

function invalidTool(
  cursor: Cursor,
  problem: string,
  name?: string,
  cause?: unknown,
): SystemPromptError {
  return new SystemPromptError(
    "INVALID_TOOL_SCHEMA",
    `diffAssemblies: ${where(cursor, name)} ${problem}; a tool is a JSON ` +
      `object with a string name.`,
    cause === undefined ? undefined : { cause },
  );
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** Describes a value's kind for a message; never touches its properties. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
