/**
 * Deferred tools on Anthropic Messages (SPEC §10.3): the tool search tool
 * listed first, each deferred tool with `defer_loading: true` after the
 * listed ones and never a cache mark, and the tools a search found read
 * back from the answers' `tool_search_tool_result` blocks (kept verbatim
 * in the history, like thinking blocks, and never marked).
 *
 * @module
 */

import { quote, SystemPromptError } from "../../src/errors.ts";
import type { PromptAssembly } from "../../src/types.ts";
import {
  type MessagesCacheControl,
  type MessagesTool,
  toTool,
} from "./messages.ts";

/**
 * The tool search tool a conversation lists when it has deferred tools:
 * BM25 (the model writes words) or regex (the model writes a pattern).
 *
 * @example
 * ```ts
 * import type { MessagesToolSearchTool } from "@rxprompt/system-prompt/anthropic";
 *
 * const search: MessagesToolSearchTool = {
 *   type: "tool_search_tool_bm25_20251119",
 *   name: "tool_search_tool_bm25",
 * };
 * ```
 */
export type MessagesToolSearchTool =
  & (
    | {
      type: "tool_search_tool_bm25_20251119";
      name: "tool_search_tool_bm25";
    }
    | {
      type: "tool_search_tool_regex_20251119";
      name: "tool_search_tool_regex";
    }
  )
  & {
    /** Never set by the conversation (a mark falls on a later tool). */
    cache_control?: MessagesCacheControl;
  };

/** The answer blocks of a server-run tool search: never marked. */
export const SEARCH_BLOCKS: ReadonlySet<string> = new Set([
  "server_tool_use",
  "tool_search_tool_result",
]);

/**
 * The conversation option `toolSearch` read: `"bm25"` by default;
 * `"pair"` is the fixed search-and-call pair instead of Anthropic's search.
 */
export function readToolSearch(
  value: unknown,
  form: string,
): "bm25" | "regex" | "pair" {
  if (value === undefined || value === "bm25") return "bm25";
  if (value === "regex" || value === "pair") return value;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `${form}'s toolSearch is ${
      quote(value)
    }; it must be "bm25" (the default), "regex" or "pair".`,
  );
}

/** The search tool of a `toolSearch` option. */
export function searchToolOf(kind: "bm25" | "regex"): MessagesToolSearchTool {
  return kind === "regex"
    ? {
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex",
    }
    : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };
}

/**
 * A head's tools with the assembly's deferred tools: the search tool
 * first (inside the cached prefix), the listed tools as built (their
 * marks chosen over them only), then each deferred tool in canonical
 * order with `defer_loading: true` and no `cache_control` (a tool with
 * both is a 400). Without deferred tools, `listed` as it is.
 */
export function withDeferredTools(
  listed: MessagesTool[] | undefined,
  assembly: Pick<PromptAssembly, "deferredTools">,
  kind: "bm25" | "regex",
): (MessagesTool | MessagesToolSearchTool)[] | undefined {
  const deferred = assembly.deferredTools ?? [];
  if (deferred.length === 0) return listed;
  return [
    searchToolOf(kind),
    ...listed ?? [],
    ...deferred.map((tool): MessagesTool => ({
      ...toTool(tool),
      defer_loading: true,
    })),
  ];
}

/** Whether a head's tool may take a cache mark. */
export function markableTool(tool: Record<string, unknown>): boolean {
  return tool.defer_loading !== true &&
    !(typeof tool.type === "string" && tool.type.startsWith("tool_search_"));
}

/**
 * The deferred tools an answer's content loaded, in order: the
 * `tool_name`s of its `tool_search_tool_result` references.
 */
export function foundIn(content: readonly unknown[]): string[] {
  const found: string[] = [];
  for (const block of content) {
    const result = block as { type?: unknown; content?: unknown };
    if (result.type !== "tool_search_tool_result") continue;
    const inner = result.content as { tool_references?: unknown } | null;
    const references = inner?.tool_references;
    if (!Array.isArray(references)) continue;
    for (const reference of references) {
      const name = (reference as { tool_name?: unknown } | null)?.tool_name;
      if (typeof name === "string" && !found.includes(name)) found.push(name);
    }
  }
  return found;
}
