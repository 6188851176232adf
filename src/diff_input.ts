/**
 * Reads one side of a `diffAssemblies` call: every field once, validated,
 * into plain data, then rendered once. Internal: not exported from `mod.ts`.
 *
 * Reading once matters: an assembly may carry getters or proxies (a listener
 * built it), and the diff must describe one consistent value of each side.
 *
 * @module
 */

import { quote, SystemPromptError } from "./errors.ts";
import { renderPrompt } from "./render/prompt.ts";
import type { AssembledSection } from "./types.ts";

/** Which argument of `diffAssemblies` a side is, for error messages. */
export type SideLabel = "before" | "after";

/** A section as it renders (`""` when it vanishes from the prompt). */
export interface RenderedSection {
  readonly name: string;
  readonly order: number;
  readonly rendered: string;
}

/** A tool as it goes on the wire: its name and its JSON. */
export interface SerializedTool {
  readonly name: string;
  readonly json: string;
}

/** One side of a diff, read once and rendered once. */
export interface DiffSide {
  readonly sections: readonly RenderedSection[];
  /** Section name → index in `sections`. */
  readonly sectionIndex: ReadonlyMap<string, number>;
  /** Exactly `renderPrompt(assembly)`. */
  readonly prompt: string;
  readonly tools: readonly SerializedTool[];
  /** Tool name → index in `tools`. */
  readonly toolIndex: ReadonlyMap<string, number>;
  readonly variables: ReadonlyMap<string, string | undefined>;
  /** The runtime context rendered with the same variables (`""` when none). */
  readonly runtimeContext: string;
}

type Variables = Record<string, string | undefined>;

interface RawSide {
  readonly sections: AssembledSection[];
  readonly tools: SerializedTool[];
  readonly variables: Variables;
  readonly runtimeContext: AssembledSection[];
}

/**
 * Reads, validates and renders one assembly.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY`, `INVALID_SECTION`,
 * `INVALID_TOOL_SCHEMA`, `INVALID_VARIABLE_VALUE`, `DUPLICATE_SECTION` or
 * `DUPLICATE_TOOL` for a bad shape, or the render error's own code when a
 * section cannot be rendered; every message starts with the side.
 */
export function readSide(assembly: unknown, side: SideLabel): DiffSide {
  const raw = readRaw(assembly, side);
  const sections: RenderedSection[] = [];
  const sectionIndex = new Map<string, number>();
  let prompt = "";
  for (const section of raw.sections) {
    if (sectionIndex.has(section.name)) {
      throw new SystemPromptError(
        "DUPLICATE_SECTION",
        `diffAssemblies: the ${side} assembly has two sections named ` +
          `${quote(section.name)}; section names are unique in an assembly.`,
      );
    }
    sectionIndex.set(section.name, sections.length);
    const rendered = render([section], raw.variables, side, "prompt");
    sections.push({ name: section.name, order: section.order, rendered });
    // The join rule of renderPrompt: empty sections vanish, one blank line
    // between the rest. Each section is interpolated once, here.
    if (rendered !== "") {
      prompt = prompt === "" ? rendered : `${prompt}\n\n${rendered}`;
    }
  }
  const context = "runtime context";
  const runtimeContext = render(
    raw.runtimeContext,
    raw.variables,
    side,
    context,
  );
  return {
    sections,
    sectionIndex,
    prompt,
    tools: raw.tools,
    toolIndex: indexTools(raw.tools, side),
    variables: new Map(Object.entries(raw.variables)),
    runtimeContext,
  };
}

function render(
  sections: AssembledSection[],
  variables: Variables,
  side: SideLabel,
  part: string,
): string {
  try {
    return renderPrompt({ sections, tools: [], variables });
  } catch (error) {
    if (!(error instanceof SystemPromptError)) throw error;
    throw new SystemPromptError(
      error.code,
      `diffAssemblies: the ${side} assembly's ${part} cannot be rendered: ` +
        error.message,
      { cause: error },
    );
  }
}

function indexTools(
  tools: readonly SerializedTool[],
  side: SideLabel,
): Map<string, number> {
  const index = new Map<string, number>();
  for (let position = 0; position < tools.length; position++) {
    const name = tools[position].name;
    if (index.has(name)) {
      throw new SystemPromptError(
        "DUPLICATE_TOOL",
        `diffAssemblies: the ${side} assembly lists tool ${quote(name)} ` +
          `twice (tools[${index.get(name)}] and tools[${position}]); tool ` +
          `names are unique in a request.`,
      );
    }
    index.set(name, position);
  }
  return index;
}

/** Where reading has got to, so that a throwing getter can be located. */
interface Cursor {
  readonly side: SideLabel;
  path: string;
}

function readRaw(assembly: unknown, side: SideLabel): RawSide {
  const cursor: Cursor = { side, path: side };
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
      runtimeContext: readList(assembly, "runtimeContext", cursor, readSection),
    };
  } catch (error) {
    if (error instanceof SystemPromptError) throw error;
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `diffAssemblies: reading ${cursor.path} threw (see cause); an ` +
        `assembly must be plain readable data.`,
      { cause: error },
    );
  }
}

function readVariables(assembly: object, cursor: Cursor): Variables {
  const side = cursor.side;
  cursor.path = `${side}.variables`;
  const variables = (assembly as { variables?: unknown }).variables;
  if (!isObject(variables) || Array.isArray(variables)) {
    throw invalid(
      cursor.path,
      `is ${kindOf(variables)}; expected an object of variable values`,
    );
  }
  // A null-prototype copy: own keys stay own, `{{constructor}}` stays unknown.
  const copy: Variables = Object.create(null);
  for (const name of Object.keys(variables)) {
    cursor.path = `${side}.variables.${name}`;
    const value = (variables as Record<string, unknown>)[name];
    if (value !== undefined && typeof value !== "string") {
      throw new SystemPromptError(
        "INVALID_VARIABLE_VALUE",
        `diffAssemblies: variable ${quote(name)} of the ${side} assembly ` +
          `is ${kindOf(value)}; a variable's value is a string or undefined.`,
      );
    }
    copy[name] = value;
  }
  return copy;
}

/** Reads `assembly[key]` as a list, one entry at a time. */
function readList<T>(
  assembly: object,
  key: "sections" | "runtimeContext" | "tools",
  cursor: Cursor,
  readEntry: (entry: unknown, path: string) => T,
): T[] {
  const side = cursor.side;
  cursor.path = `${side}.${key}`;
  const list = (assembly as Record<string, unknown>)[key];
  // 0.1-shaped assemblies have no runtime context: read it as [].
  if (list === undefined && key === "runtimeContext") return [];
  if (!Array.isArray(list)) {
    throw invalid(cursor.path, `is ${kindOf(list)}; expected an array`);
  }
  const entries: T[] = [];
  for (let index = 0; index < list.length; index++) {
    const path = `${side}.${key}[${index}]`;
    cursor.path = path;
    entries.push(readEntry(list[index], path));
  }
  return entries;
}

function readSection(section: unknown, path: string): AssembledSection {
  if (!isObject(section)) {
    throw invalidSection(path, `is ${kindOf(section)}; expected a section`);
  }
  const { name, order, text } = section as Record<string, unknown>;
  if (typeof name !== "string") {
    throw invalidSection(path, `has a name of type ${kindOf(name)}`);
  }
  const where = `${path} (${quote(name)})`;
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw invalidSection(where, `has order ${quote(order)}`);
  }
  if (typeof text !== "string") {
    throw invalidSection(where, `has text of type ${kindOf(text)}`);
  }
  return { name, order, text };
}

function readTool(tool: unknown, path: string): SerializedTool {
  if (!isObject(tool) || Array.isArray(tool)) {
    throw invalidTool(path, `is ${kindOf(tool)}`);
  }
  const name = (tool as { name?: unknown }).name;
  if (typeof name !== "string") {
    throw invalidTool(path, `has a name of type ${kindOf(name)}`);
  }
  return { name, json: serialize(tool, `${path} (${quote(name)})`) };
}

function serialize(tool: unknown, where: string): string {
  let json: unknown;
  try {
    json = JSON.stringify(tool);
  } catch (error) {
    throw invalidTool(where, "cannot be serialized to JSON (see cause)", error);
  }
  if (typeof json !== "string") {
    throw invalidTool(where, "serializes to no JSON");
  }
  return json;
}

function invalid(path: string, problem: string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `diffAssemblies: ${path} ${problem}.`,
  );
}

const SECTION_SHAPE = "{ name: string, order: finite number, text: string }";

function invalidSection(path: string, problem: string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_SECTION",
    `diffAssemblies: ${path} ${problem}; a section is ${SECTION_SHAPE}.`,
  );
}

function invalidTool(
  path: string,
  problem: string,
  cause?: unknown,
): SystemPromptError {
  return new SystemPromptError(
    "INVALID_TOOL_SCHEMA",
    `diffAssemblies: ${path} ${problem}; a tool is a JSON object with a ` +
      `string name.`,
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
