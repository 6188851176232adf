/**
 * What the Chat Completions and Responses conversations share: the
 * adapter options they pass through, their cache marks, a call's arguments.
 *
 * @module
 */

import type { WireMark } from "../../src/conversation/wire.ts";
import type { ChatConversationOptions } from "./chat_conversation_types.ts";
import {
  type OpenAIOptions,
  type PromptCacheBreakpoint,
  readOpenAIOptions,
} from "./options.ts";

/** A call's arguments parsed, or the text as it came when it is not JSON. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The adapter options a conversation passes through, checked. */
export function adapterOptions(
  options: Record<string, unknown> | ChatConversationOptions,
  form: string,
): OpenAIOptions {
  const adapter: OpenAIOptions = {};
  for (
    const key of [
      "maxCacheBreakpoints",
      "breakpoints",
      "toolChoiceMode",
      "strict",
    ] as const
  ) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) (adapter as Record<string, unknown>)[key] = value;
  }
  readOpenAIOptions(adapter, form);
  return adapter;
}

/**
 * The OpenAI forms' marks: on the last item and on the previous request's
 * end, each on the last part of `partsOf(item)` (items the model wrote
 * carry none). Returns the marked copy and where the marks went.
 */
export function markOpenAIEnds<T>(
  history: readonly T[],
  previousLength: number,
  mark: PromptCacheBreakpoint | undefined,
  partsOf: (item: T) => { key: string; parts: unknown[] } | undefined,
): { items: T[]; marks: WireMark[] } {
  const items = [...history];
  const marks: WireMark[] = [];
  if (mark === undefined) return { items, marks };
  const ends = previousLength > 0 && previousLength < history.length
    ? [previousLength - 1, history.length - 1]
    : [history.length - 1];
  for (const at of ends) {
    const found = partsOf(items[at]);
    if (found === undefined || found.parts.length === 0) continue;
    const parts = [...found.parts];
    const block = parts.length - 1;
    parts[block] = {
      ...parts[block] as Record<string, unknown>,
      prompt_cache_breakpoint: { ...mark },
    };
    items[at] = { ...items[at], [found.key]: parts };
    marks.push({ message: at + 1, block, mark: { ...mark } });
  }
  return { items, marks };
}
