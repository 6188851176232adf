/**
 * The data shapes shared by the pure core and the registry.
 *
 * @module
 */

/**
 * One section of an assembly: resolved text, not yet interpolated.
 *
 * @example
 * ```ts
 * import type { AssembledSection } from "@rxprompt/system-prompt";
 *
 * const section: AssembledSection = { name: "tools:shell", order: 110, text: "Use {{cwd}}." };
 * ```
 */
export interface AssembledSection {
  /** Unique name within one assembly, for example `"tools:shell"`. */
  name: string;
  /** Ascending render position; ties are broken by code-unit order of `name`. */
  order: number;
  /** The section's template text; `{{name}}` references are resolved at render. */
  text: string;
}

/**
 * A tool as the model sees it.
 *
 * @example
 * ```ts
 * import type { ToolSchema } from "@rxprompt/system-prompt";
 *
 * const shell: ToolSchema = {
 *   name: "shell",
 *   description: "Run a shell command.",
 *   parameters: { type: "object", properties: { command: { type: "string" } } },
 * };
 * ```
 */
export interface ToolSchema {
  /** The tool's name, the key of `toolOrder`. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of the tool's input. */
  parameters: Record<string, unknown>;
}

/**
 * The result of one `assemble()`: sections in render order (not yet
 * interpolated), tools in canonical order, and resolved variables.
 *
 * @example
 * ```ts
 * import { type PromptAssembly, renderPrompt } from "@rxprompt/system-prompt";
 *
 * const assembly: PromptAssembly = {
 *   sections: [{ name: "persona", order: 0, text: "You run on {{model}}." }],
 *   tools: [],
 *   variables: { model: "example-model" },
 * };
 * console.log(renderPrompt(assembly)); // "You run on example-model."
 * ```
 */
export interface PromptAssembly {
  /** Sections in render order. */
  sections: AssembledSection[];
  /** Tools in canonical order. */
  tools: ToolSchema[];
  /**
   * Resolved variables. A key whose value is `undefined` is registered but
   * has no value for this assembly; referencing it fails at render.
   */
  variables: Record<string, string | undefined>;
}
