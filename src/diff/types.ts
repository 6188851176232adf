/**
 * The shape of a `diffAssemblies` result, apart from the function so that
 * the change and view types can name it without importing the diff.
 *
 * @module
 */

/**
 * What changed between two assemblies (see {@linkcode diffAssemblies}).
 * Every list of names is in code-unit order.
 *
 * @example
 * ```ts
 * import type { PromptDiff } from "@rxprompt/system-prompt";
 *
 * function explain(diff: PromptDiff): string {
 *   if (diff.identical) return "same request";
 *   return diff.cache.brokenBy === undefined
 *     ? "same cached prefix; only the runtime context changed"
 *     : `cache broken by ${diff.cache.brokenBy}`;
 * }
 * ```
 */
export interface PromptDiff {
  /** Tools (names, JSON and order), deferred tools, active tools, rendered prompt and runtime context are all the same. */
  identical: boolean;
  /** The tool list, compared by name and by JSON. */
  tools: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose JSON differs. */
    changed: string[];
    /** Whether the tools present on both sides come in a different relative order. */
    reordered: boolean;
    /** The first index where the two tool lists differ; absent when they are equal. */
    firstChanged?: number;
  };
  /**
   * The deferred tools (`assembly.deferredTools`), compared by name and
   * JSON; present when either side has deferred tools. A change makes
   * `identical` false and leaves `cache` alone: a deferred tool is outside
   * the cached prefix. A tool that moved between `tools` and
   * `deferredTools` shows in both lists.
   */
  deferredTools?: {
    /** Names deferred only after. */
    added: string[];
    /** Names deferred only before. */
    removed: string[];
    /** Names deferred on both sides whose JSON differs. */
    changed: string[];
  };
  /**
   * The tools the model may call (`assembly.activeTools`; absent means
   * every tool of that side is active). A change makes `identical` false
   * and leaves `cache` alone: the tools block is the same.
   */
  activeTools: {
    /** Names active only after. */
    added: string[];
    /** Names active only before. */
    removed: string[];
  };
  /** The sections, compared by name, `order` and rendered text. */
  sections: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose rendered text or `order` differs. */
    changed: string[];
    /** The section at the first position where the two section lists differ. */
    firstChanged?: string;
  };
  /** The variables, compared by name and value. */
  variables: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose value differs (`undefined` counts as a value). */
    changed: string[];
  };
  /**
   * The runtime context's entries (`assembly.runtimeContext`, `[]` when
   * absent), compared by name, rendered text and `order`. Not part of the
   * cache: it travels after the cached prefix.
   */
  runtimeContext: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose rendered text or `order` differs. */
    changed: string[];
  };
  /** The rendered system prompts, in UTF-16 code units. */
  prompt: {
    /** The first offset where the prompts differ; absent when they are equal. */
    firstChangedOffset?: number;
    /** The length of the prompts' common prefix. */
    stablePrefix: number;
  };
  /** The cache key's view: tools first, then the system prompt. */
  cache: {
    /** Whether the tool list is byte-for-byte the same. */
    toolsStable: boolean;
    /** `prompt.stablePrefix` when the tools are stable, else `0`. */
    promptStablePrefix: number;
    /** The earliest change in wire order: `"tool:NAME"` or `"section:NAME"`. */
    brokenBy?: string;
  };
}
