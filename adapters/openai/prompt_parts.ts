/**
 * What the Chat Completions and Responses mappings share: the tool name
 * rule, the allowed tools, the runtime context's message, and the system
 * prompt as marked parts.
 *
 * @module
 */

import {
  type AdapterInput,
  type NameRule,
  promptBlocks,
  WIRE_TOOL_NAME,
} from "../_kit/assembly_input.ts";
import {
  blockItems,
  latestMarkers,
  selectMarkers,
} from "../../src/render/prefix_marks.ts";
import { keyOf } from "./cache_key.ts";
import type { PromptCacheBreakpoint, ReadOpenAIOptions } from "./options.ts";

/**
 * A user-role message carrying the rendered runtime context.
 *
 * @example
 * ```ts
 * import type { UserMessage } from "@rxprompt/system-prompt/openai";
 *
 * const message: UserMessage = { role: "user", content: "Today is Monday." };
 * ```
 */
export interface UserMessage {
  /** Always `"user"`. */
  role: "user";
  /** The rendered runtime context. */
  content: string;
}

export const OPENAI_NAME: NameRule = {
  pattern: WIRE_TOOL_NAME,
  api: "OpenAI API",
};

/** The names of the assembly's tools its `activeTools` allows, in order. */
export function allowedNames(input: AdapterInput): string[] | undefined {
  if (input.activeTools === undefined) return undefined;
  const active = new Set(input.activeTools);
  return input.tools.flatMap((tool) =>
    active.has(tool.name) ? [tool.name] : []
  );
}

/**
 * The system prompt's blocks as parts, the chosen ones marked, and the
 * request's cache key.
 */
export function cachedParts(
  input: AdapterInput,
  read: ReadOpenAIOptions,
): { parts: { text: string; mark?: PromptCacheBreakpoint }[]; key: string } {
  const blocks = promptBlocks(input, { auto: read.auto });
  const marked = read.auto
    ? selectMarkers([
      // OpenAI's tools cannot carry a mark, but a volatile one counts.
      ...input.toolRanks.map((rank) => ({ rank, candidate: false })),
      ...blockItems(blocks),
    ], read.limit).map((index) => index - input.tools.length)
    : latestMarkers(blocks.length, read.limit);
  const chosen = new Set(marked);
  const parts = blocks.map((block, index) =>
    chosen.has(index)
      ? { text: block.text, mark: { ...read.cache! } }
      : { text: block.text }
  );
  // An empty prompt is one empty part, as 0.2 sent an empty string: the
  // API takes no empty content list.
  if (parts.length === 0) parts.push({ text: "" });
  const key = read.promptCacheKey ??
    keyOf(
      input,
      read.auto ? blocks : promptBlocks(input, { auto: true }),
      undefined,
    );
  return { parts, key };
}
