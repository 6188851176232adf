/**
 * rxprompt: the registry in the middle of an agent harness that assembles
 * one deterministic system prompt per model step.
 *
 * Plugins register ordered sections, tool-schema providers, prompt variables
 * and assembly listeners, each owned by a lifetime and removed by the exact
 * disposer it returned. Per-agent scopes shadow global registrations for one
 * agent only. `assemble(context)` produces one deterministic assembly per
 * step, and {@linkcode renderPrompt} interpolates its `{{variables}}`
 * strictly.
 *
 * @example Render a prompt
 * ```ts
 * import { renderPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = renderPrompt({
 *   sections: [{ name: "persona", order: 0, text: "You run on {{model}}." }],
 *   tools: [],
 *   variables: { model: "example-model" },
 * });
 * console.log(prompt); // "You run on example-model."
 * ```
 *
 * @module
 */

export {
  SystemPromptError,
  type SystemPromptErrorCode,
  type SystemPromptErrorOptions,
} from "./src/errors.ts";
export type {
  AssembledSection,
  PromptAssembly,
  ToolSchema,
} from "./src/types.ts";
export { renderPrompt } from "./src/render.ts";
export { TOOL_ORDER_REST } from "./src/tool_order.ts";
