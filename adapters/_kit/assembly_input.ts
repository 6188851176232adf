/**
 * What every stateless adapter reads of an assembly: the assembly read once
 * (through the renderers' own reader), the tools checked against the API's
 * name rule, the rendering of the system prompt, its blocks and the runtime
 * context. Internal: not a subpath export.
 *
 * @module
 */

import {
  type AssembledSection,
  type PromptAssembly,
  type PromptBlock,
  SystemPromptError,
  type ToolSchema,
} from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import {
  type AssemblyParts,
  readAssembly,
  readingAssembly,
} from "../../src/render/assembly_shape.ts";
import { autoBreakpoints, blocksOf } from "../../src/render/blocks.ts";
import { rankOf } from "../../src/shared/stability.ts";
import { promptOf, runtimeContextOf } from "../../src/render/prompt.ts";
import {
  WIRE_TOOL_NAME,
  WIRE_TOOL_NAME_SAYS,
} from "../../src/shared/tool_name.ts";

/** An assembly as the adapters read it: `runtimeContext` may be absent. */
export type AdapterAssembly = PromptAssembly & {
  runtimeContext?: readonly AssembledSection[];
};

export { WIRE_TOOL_NAME };

/** The registry's own rule for a tool name (SPEC 7.1). */
const CORE_TOOL_NAME_LENGTH = 128;
const CORE_TOOL_NAME_FORBIDDEN = /[\s\p{Cc}]/u;

/** The wire rule a tool name must follow, and the API that imposes it. */
export interface NameRule {
  readonly pattern: RegExp;
  readonly api: string;
  /** The rule in words (default: that of {@linkcode WIRE_TOOL_NAME}). */
  readonly says?: string;
}

/** A tool read once: the values checked are the values sent. */
export interface ReadTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** An assembly read once by an adapter, its tools checked. */
export interface AdapterInput {
  /** The assembly's keys, read through the renderers' own reader. */
  readonly parts: AssemblyParts;
  /** The tools, each field read once and checked. */
  readonly tools: readonly ReadTool[];
  /** Each tool's stability rank (0 stable, 1 agent, 2 volatile). */
  readonly toolRanks: readonly number[];
  /** The gates' active tools, when the assembly has them. */
  readonly activeTools: readonly string[] | undefined;
}

const ADAPTER_LISTS = ["sections", "tools", "runtimeContext"] as const;

/**
 * `map(input)` on the assembly read once, through the reader `renderPrompt`
 * uses, with its tools checked (`rule`, when given, is the wire rule of a
 * tool name). A non-assembly is `INVALID_ASSEMBLY`, as in `renderPrompt`;
 * whatever a getter or Proxy of the assembly throws, while it is read or
 * while `map` reads it, is `INVALID_ASSEMBLY` naming `adapter`, with the
 * thrown value as `cause`.
 */
export function withAssembly<T>(
  assembly: unknown,
  options: { adapter: string; rule?: NameRule },
  map: (input: AdapterInput) => T,
): T {
  const { adapter, rule } = options;
  return readingAssembly(() => {
    const parts = readAssembly(assembly, adapter, ADAPTER_LISTS);
    const tools = readTools(parts.tools, rule);
    const { toolStability, activeTools } = assembly as PromptAssembly;
    return map({
      parts,
      tools,
      toolRanks: readToolRanks(toolStability, tools),
      activeTools: readActiveTools(activeTools),
    });
  }, adapter);
}

/**
 * Each tool's stability rank from `toolStability` (read once per tool; an
 * absent object or key is stable). `INVALID_ASSEMBLY` for a value that is
 * not a stability.
 */
function readToolRanks(
  toolStability: unknown,
  tools: readonly ReadTool[],
): number[] {
  if (toolStability === undefined) return tools.map(() => 0);
  if (typeof toolStability !== "object" || toolStability === null) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's toolStability is ${quote(toolStability)}; it must be ` +
        `an object mapping tool names to "agent" or "volatile", or be left ` +
        `out.`,
    );
  }
  return tools.map(({ name }) => {
    if (!Object.hasOwn(toolStability, name)) return 0;
    const value = (toolStability as Record<string, unknown>)[name];
    const rank = rankOf(value);
    if (rank !== -1) return rank;
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's toolStability gives tool ${quote(name)} stability ` +
        `${quote(value)}; a tool's stability is "agent" or "volatile" (leave ` +
        `a stable tool out).`,
    );
  });
}

/**
 * The assembly's `activeTools` read once into a plain array, or `undefined`
 * when absent; `INVALID_ASSEMBLY` unless it is an array of strings.
 */
function readActiveTools(activeTools: unknown): string[] | undefined {
  if (activeTools === undefined) return undefined;
  const invalid = () =>
    new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's activeTools must be an array of tool names, or be ` +
        `left out (every tool active); got ${quote(activeTools)}.`,
    );
  if (!Array.isArray(activeTools)) throw invalid();
  const read: string[] = [];
  const length = activeTools.length;
  for (let index = 0; index < length; index++) {
    const name: unknown = activeTools[index];
    if (typeof name !== "string") throw invalid();
    read.push(name);
  }
  return read;
}

/** The rendered system prompt of an assembly read once. */
export function systemPrompt(input: AdapterInput): string {
  return promptOf(input.parts);
}

/** The prompt blocks of an assembly read once, automatic or 0.2's. */
export function promptBlocks(
  input: AdapterInput,
  { auto }: { auto: boolean },
): PromptBlock[] {
  return blocksOf(input.parts, { auto });
}

/** The `breakpoints` option: whether it asks for automatic cuts. */
export { autoBreakpoints };

/**
 * Reads every tool once and checks it: a well-formed schema, a name that
 * follows the core rule and `rule` (when given), and no name twice (a
 * listener may add one).
 */
function readTools(
  tools: readonly unknown[],
  rule: NameRule | undefined,
): ReadTool[] {
  const seen = new Set<string>();
  const read: ReadTool[] = [];
  const length = tools.length;
  for (let index = 0; index < length; index++) {
    const tool: unknown = tools[index];
    if (typeof tool !== "object" || tool === null) {
      throw new SystemPromptError(
        "INVALID_TOOL_SCHEMA",
        `Tool ${index} of the assembly is ${quote(tool)}; every tool must ` +
          `be an object { name, description, parameters }.`,
      );
    }
    const { name, description, parameters } = tool as ToolSchema;
    checkName(name, index, rule);
    if (typeof description !== "string") {
      throw new SystemPromptError(
        "INVALID_TOOL_SCHEMA",
        `Tool ${
          quote(name)
        } has a description of type ${typeof description}; ` +
          `a description must be a string ("" for none).`,
      );
    }
    if (!isJsonObject(parameters)) {
      throw new SystemPromptError(
        "INVALID_TOOL_SCHEMA",
        `Tool ${quote(name)} has parameters ${quote(parameters)}; the ` +
          `parameters must be a JSON Schema object, for example ` +
          `{ "type": "object", "properties": {} }.`,
      );
    }
    if (seen.has(name)) {
      throw new SystemPromptError(
        "DUPLICATE_TOOL",
        `Tool ${quote(name)} appears twice in the assembly (a listener may ` +
          `have added it); an API request needs unique tool names, so ` +
          `remove or rename one of them.`,
      );
    }
    seen.add(name);
    read.push({ name, description, parameters });
  }
  return read;
}

function checkName(
  name: unknown,
  index: number,
  rule: NameRule | undefined,
): asserts name is string {
  if (typeof name === "string" && rule !== undefined) {
    if (rule.pattern.test(name)) return;
    throw new SystemPromptError(
      "INVALID_TOOL_NAME",
      `Tool ${quote(name)} cannot be sent to the ${rule.api}: a tool name ` +
        `must match ${rule.pattern.source} (${
          rule.says ?? WIRE_TOOL_NAME_SAYS
        }).`,
    );
  }
  if (
    typeof name !== "string" || name === "" ||
    name.length > CORE_TOOL_NAME_LENGTH || CORE_TOOL_NAME_FORBIDDEN.test(name)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${index} of the assembly has name ${quote(name)}; a tool name ` +
        `must be a non-empty string of at most ${CORE_TOOL_NAME_LENGTH} ` +
        `characters with no whitespace or control characters.`,
    );
  }
}

/** A plain JSON object (what a JSON Schema document is), not an array. */
export function isJsonObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A tool's parameters as the object schema the Anthropic and Bedrock APIs
 * require: a schema without `type` gets `type: "object"`; any other `type`
 * throws `INVALID_TOOL_SCHEMA` naming the tool, the API (`api`) and its
 * field (`field`).
 */
export function objectSchema(
  { name, parameters }: ReadTool,
  { api, field }: { api: string; field: string },
): { type: "object"; [key: string]: unknown } {
  if (!Object.hasOwn(parameters, "type")) {
    return { type: "object", ...parameters };
  }
  const type = parameters.type;
  if (type !== "object") {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${quote(name)} has parameters of type ${quote(type)}; the ` +
        `${api} takes an object schema as ${field} (type "object", or no ` +
        `type at all).`,
    );
  }
  return parameters as { type: "object"; [key: string]: unknown };
}

/**
 * The runtime context rendered with the assembly's variables, as the
 * user-role message every API takes; `undefined` when it renders empty.
 */
export function runtimeMessage(
  input: AdapterInput,
): { role: "user"; content: string } | undefined {
  const content = runtimeContextText(input);
  return content === undefined ? undefined : { role: "user", content };
}

/**
 * The runtime context rendered with the assembly's variables, or
 * `undefined` when it renders empty.
 */
export function runtimeContextText(input: AdapterInput): string | undefined {
  const content = runtimeContextOf(input.parts);
  return content === "" ? undefined : content;
}
