/**
 * One side of a `diffAssemblies` call, read once and rendered once: each
 * section interpolated once, the prompt joined from those texts, names
 * indexed. Internal: not exported from `mod.ts`.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import {
  readAssembly,
  type SerializedTool,
  type SideLabel,
  type Variables,
} from "./input.ts";
import { renderPrompt } from "../render/prompt.ts";
import { type ReadonlyTextMap, TextMap } from "../shared/text_map.ts";
import type { AssembledSection } from "../types.ts";

/** A section as it renders (`""` when it vanishes from the prompt). */
export interface RenderedSection {
  readonly name: string;
  readonly order: number;
  readonly rendered: string;
}

/** One side of a diff, read once and rendered once. */
export interface DiffSide {
  readonly sections: readonly RenderedSection[];
  /** Section name → index in `sections`. */
  readonly sectionIndex: ReadonlyTextMap<number>;
  /** Exactly `renderPrompt(assembly)`. */
  readonly prompt: string;
  readonly tools: readonly SerializedTool[];
  /** Tool name → index in `tools`. */
  readonly toolIndex: ReadonlyTextMap<number>;
  /** The deferred tools (`[]` when none). */
  readonly deferred: readonly SerializedTool[];
  /** Deferred tool name → index in `deferred`. */
  readonly deferredIndex: ReadonlyTextMap<number>;
  readonly variables: ReadonlyTextMap<string | undefined>;
  /** The runtime context rendered with the same variables (`""` when none). */
  readonly runtimeContext: string;
  /** The names of the active tools: `activeTools`, or every tool (deferred ones too). */
  readonly active: ReadonlyTextMap<true>;
  /**
   * The runtime context's entries by name, each rendered once (entries that
   * share a name are read as one, their texts joined as the prompt joins).
   */
  readonly contextEntries: ReadonlyTextMap<RenderedSection>;
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
  const raw = readAssembly(assembly, side);
  const sections: RenderedSection[] = [];
  // Names may be any text: a TextMap keeps long ones apart.
  const sectionIndex = new TextMap<number>();
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
    // Each section is interpolated once, here.
    prompt = joined(prompt, rendered);
  }
  const contextEntries = new TextMap<RenderedSection>();
  let runtimeContext = "";
  for (const entry of raw.runtimeContext) {
    const rendered = render([entry], raw.variables, side, "runtime context");
    const same = contextEntries.get(entry.name);
    contextEntries.set(entry.name, {
      name: entry.name,
      order: same?.order ?? entry.order,
      rendered: same === undefined ? rendered : joined(same.rendered, rendered),
    });
    runtimeContext = joined(runtimeContext, rendered);
  }
  const toolIndex = indexTools(raw.tools, side);
  return {
    sections,
    sectionIndex,
    prompt,
    tools: raw.tools,
    toolIndex,
    deferred: raw.deferredTools,
    deferredIndex: indexTools(raw.deferredTools, side, toolIndex),
    variables: textMap(Object.entries(raw.variables)),
    runtimeContext,
    active: textMap(
      (raw.activeTools ??
        [...raw.tools, ...raw.deferredTools].map((tool) => tool.name)).map((
          name,
        ) => [name, true]),
    ),
    contextEntries,
  };
}

/** The join rule of renderPrompt: empty texts vanish, one blank line between. */
function joined(text: string, next: string): string {
  if (next === "") return text;
  return text === "" ? next : `${text}\n\n${next}`;
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

/**
 * Tool name → position; `DUPLICATE_TOOL` for a name listed twice, or (for
 * the deferred tools, given the listed ones' index) both listed and
 * deferred.
 */
function indexTools(
  tools: readonly SerializedTool[],
  side: SideLabel,
  listed?: ReadonlyTextMap<number>,
): TextMap<number> {
  const list = listed === undefined ? "tools" : "deferredTools";
  const index = new TextMap<number>();
  for (let position = 0; position < tools.length; position++) {
    const name = tools[position].name;
    const first = index.has(name)
      ? `${list}[${index.get(name)}]`
      : listed?.has(name)
      ? `tools[${listed.get(name)}]`
      : undefined;
    if (first !== undefined) {
      throw new SystemPromptError(
        "DUPLICATE_TOOL",
        `diffAssemblies: the ${side} assembly lists tool ${quote(name)} ` +
          `twice (${first} and ${list}[${position}]); tool names are ` +
          `unique in a request, deferred tools included.`,
      );
    }
    index.set(name, position);
  }
  return index;
}

function textMap<V>(entries: readonly (readonly [string, V])[]): TextMap<V> {
  const map = new TextMap<V>();
  for (const [key, value] of entries) map.set(key, value);
  return map;
}
