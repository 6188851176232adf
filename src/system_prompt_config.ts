/**
 * The `SystemPrompt` constructor's options (`SystemPromptConfig`) and the
 * persona's, apart from the registry's kinds in `types.ts`.
 *
 * @module
 */

import type { Stability, TokenBudget } from "./types.ts";

/**
 * The config's `persona` with the section options of the built-in
 * `deployment:persona` section.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt({
 *   persona: { text: "You are a coding agent.", cacheBreakpoint: true },
 * });
 * ```
 */
export interface PersonaConfig {
  /** The persona template (`""` for none). */
  text: string;
  /** A provider may cache the prompt up to and including the persona. */
  cacheBreakpoint?: boolean;
  /** The persona's stability (default `"stable"`: the global layer's). */
  stability?: Stability;
}

/**
 * Options of the `SystemPrompt` constructor.
 *
 * @example
 * ```ts
 * import { type SystemPromptConfig, TOOL_ORDER_REST } from "@rxprompt/system-prompt";
 *
 * const config: SystemPromptConfig = {
 *   persona: "You are a careful reviewer working in {{cwd}}.",
 *   toolOrder: ["read_file", TOOL_ORDER_REST],
 * };
 * ```
 */
export interface SystemPromptConfig {
  /**
   * The deployment's persona template (default `""`), or the template with
   * the section's `cacheBreakpoint` and `stability`.
   */
  persona?: string | PersonaConfig;
  /** Canonical tool order; must contain `TOOL_ORDER_REST` exactly once. */
  toolOrder?: readonly string[];
  /** Register the `harness:identity` section (default `true`). */
  includeHarnessIdentity?: boolean;
  /**
   * Receives what a `change$` subscriber threw and the change it was
   * handling; the registry and the other subscribers go on. Default:
   * `console.error`.
   */
  onSubscriberError?: (error: unknown, change: unknown) => void;
  /**
   * Call the runtime context providers (default `true`); when `false`,
   * every assembly's `runtimeContext` is `[]` after the waterfall.
   */
  includeRuntimeContext?: boolean;
  /**
   * A token budget for every assembly (an `assemble()` call's own `budget`
   * replaces it): sections are pruned until the prompt fits.
   */
  budget?: TokenBudget;
}
