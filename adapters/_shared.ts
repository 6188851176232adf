/**
 * What every wire adapter shares: the assembly's shape check, the tool
 * checks, and the rendering of the system prompt and the runtime context.
 * Internal: not a subpath export.
 *
 * @module
 */

import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  SystemPromptError,
  type ToolSchema,
} from "../mod.ts";
import { quote } from "../src/errors.ts";

/** An assembly as the adapters read it: `runtimeContext` may be absent. */
export type AdapterAssembly = PromptAssembly & {
  runtimeContext?: readonly AssembledSection[];
};

/** The rule most model APIs apply to a tool's name. */
export const WIRE_TOOL_NAME: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** The registry's own rule for a tool name (SPEC 7.1). */
const CORE_TOOL_NAME_LENGTH = 128;
const CORE_TOOL_NAME_FORBIDDEN = /[\s\p{Cc}]/u;

/** The wire rule a tool name must follow, and the API that imposes it. */
export interface NameRule {
  readonly pattern: RegExp;
  readonly api: string;
}

/**
 * Checks the parts of `assembly` an adapter reads and returns them, so a
 * hostile assembly fails with a `SystemPromptError` rather than a TypeError.
 */
export function readAssembly(assembly: AdapterAssembly): {
  tools: readonly ToolSchema[];
  runtimeContext: readonly AssembledSection[];
} {
  if (typeof assembly !== "object" || assembly === null) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `An adapter needs an assembly { sections, tools, variables }; got ` +
        `${quote(assembly)}.`,
    );
  }
  const { sections, tools, variables, runtimeContext = [] } = assembly;
  checkSections(sections, "sections");
  if (!Array.isArray(tools)) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `An assembly's tools must be an array of { name, description, ` +
        `parameters }; got ${quote(tools)}.`,
    );
  }
  if (typeof variables !== "object" || variables === null) {
    throw new SystemPromptError(
      "INVALID_VARIABLE_VALUE",
      `An assembly's variables must be an object of strings (or undefined); ` +
        `got ${quote(variables)}.`,
    );
  }
  checkSections(runtimeContext, "runtimeContext");
  return { tools, runtimeContext };
}

function checkSections(
  sections: unknown,
  key: "sections" | "runtimeContext",
): asserts sections is readonly AssembledSection[] {
  if (!Array.isArray(sections)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `An assembly's ${key} must be an array of { name, order, text }; got ` +
        `${quote(sections)}.`,
    );
  }
  for (let index = 0; index < sections.length; index++) {
    const section: unknown = sections[index];
    if (typeof section !== "object" || section === null) {
      throw new SystemPromptError(
        "INVALID_SECTION",
        `Entry ${index} of the assembly's ${key} is ${quote(section)}; ` +
          `every entry must be an object { name, order, text }.`,
      );
    }
  }
}

/**
 * Checks every tool: a well-formed schema, a name that follows the core
 * rule and `rule` (when given), and no name twice (a listener may add one).
 */
export function checkTools(
  tools: readonly ToolSchema[],
  rule?: NameRule,
): void {
  const seen = new Set<string>();
  for (let index = 0; index < tools.length; index++) {
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
  }
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
        `must match ${rule.pattern.source} (1 to 64 ASCII letters, digits, ` +
        `"_" or "-").`,
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
 * The runtime context rendered with the assembly's variables, as the
 * user-role message every API takes; `undefined` when it renders empty.
 */
export function runtimeMessage(
  assembly: AdapterAssembly,
  runtimeContext: readonly AssembledSection[],
): { role: "user"; content: string } | undefined {
  if (runtimeContext.length === 0) return undefined;
  const content = renderPrompt({
    sections: [...runtimeContext],
    tools: [],
    variables: assembly.variables,
  });
  return content === "" ? undefined : { role: "user", content };
}

/** How many cache markers a request may carry, checked. */
export function cacheBreakpointLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_CACHE_BREAKPOINTS;
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 0 ||
    value > API_CACHE_BREAKPOINTS
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `maxCacheBreakpoints is ${quote(value)}; it must be an integer from 0 ` +
        `to ${API_CACHE_BREAKPOINTS} (the API allows ` +
        `${API_CACHE_BREAKPOINTS} per request; the default, ` +
        `${DEFAULT_CACHE_BREAKPOINTS}, leaves one for the conversation).`,
    );
  }
  return value;
}

const API_CACHE_BREAKPOINTS = 4;
const DEFAULT_CACHE_BREAKPOINTS = 3;

/** Anthropic's cache marker, checked from the `cache` option. */
export type CacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" };

/**
 * The cache marker the `cache` option asks for, or `undefined` for no
 * caching.
 */
export function cacheControlOf(cache: unknown): CacheControl | undefined {
  if (cache === undefined || cache === false) return undefined;
  if (cache === true) return { type: "ephemeral" };
  const ttl = isJsonObject(cache) ? cache.ttl : undefined;
  if (ttl === "5m" || ttl === "1h") return { type: "ephemeral", ttl };
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `cache is ${quote(cache)}${
      isJsonObject(cache) ? ` with ttl ${quote(ttl)}` : ""
    }; it must be true, false, or { ttl: "5m" } / { ttl: "1h" }.`,
  );
}

/** The adapter's options, checked to be an object (or absent). */
export function optionsOf<T extends object>(
  options: T | undefined,
): Partial<T> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `An adapter's options must be an object; got ${quote(options)}.`,
    );
  }
  return options;
}
