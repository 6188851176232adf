/**
 * Where an AI SDK conversation's marks go (issue 45): Anthropic's, as
 * `@ai-sdk/anthropic` reads them from a part's provider options, on the
 * last part of a user or tool message.
 *
 * @module
 */

import type { MarkSites } from "../../src/conversation/marks.ts";
import type { AISDKConversationMessage } from "./conversation_types.ts";

/** `item` with `mark` as the Anthropic provider option (the only one). */
export function marked<T extends object>(item: T, mark: unknown): T {
  return { ...item, providerOptions: { anthropic: { cacheControl: mark } } };
}

/**
 * The last part of a user or tool message (an assistant's are not ours); a
 * system message telling a change passes its mark to the item before.
 */
export const AI_SDK_SITES: MarkSites<AISDKConversationMessage> = {
  leadingItems: 0,
  partCount: (message) =>
    typeof message.content === "string" ? 1 : message.content.length,
  site: (message) =>
    message.role === "system"
      ? "before"
      : typeof message.content === "string" || message.role === "assistant"
      ? undefined
      : { field: "content", parts: message.content },
  setMark: (parts, index, mark) =>
    parts.map((part, at) => at === index ? marked(part as object, mark) : part),
};
