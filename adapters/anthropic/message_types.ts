/**
 * The Messages API's message and content-block shapes a conversation
 * builds (user, assistant, mid-conversation system messages, tool
 * changes, reminders), apart from the stateless adapter's request fields
 * in `messages.ts`. Types only.
 *
 * @module
 */

import type {
  MessagesCacheControl,
  MessagesTextBlock,
  MessagesTool,
} from "./messages.ts";

/**
 * An image in a Messages content block.
 *
 * @example
 * ```ts
 * import type { MessagesImageBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const image: MessagesImageBlock = {
 *   type: "image",
 *   source: { type: "url", url: "https://example.com/a.png" },
 * };
 * ```
 */
export interface MessagesImageBlock {
  /** Always `"image"`. */
  type: "image";
  /** Base64 data or a URL. */
  source:
    | {
      type: "base64";
      media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
      data: string;
    }
    | { type: "url"; url: string };
  /** A cache mark (placed by the conversation only). */
  cache_control?: MessagesCacheControl;
}

/**
 * A block a person's message or a tool result may hold: text or an image.
 *
 * @example
 * ```ts
 * import type { MessagesInputBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesInputBlock = { type: "text", text: "Fix the test." };
 * ```
 */
export type MessagesInputBlock = MessagesTextBlock | MessagesImageBlock;

/**
 * One content block of a conversation message, as the Messages API takes
 * it back. Blocks of the model's answers are kept verbatim (every field
 * the SDK returned, thinking signatures included); the type names the
 * common ones.
 *
 * @example
 * ```ts
 * import type { MessagesContentBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesContentBlock = {
 *   type: "tool_result",
 *   tool_use_id: "toolu_1",
 *   content: "42 lines",
 * };
 * ```
 */
export type MessagesContentBlock =
  | MessagesInputBlock
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | {
    type: "tool_use";
    id: string;
    name: string;
    input: unknown;
    cache_control?: MessagesCacheControl;
  }
  | {
    type: "tool_result";
    tool_use_id: string;
    content?: string | MessagesInputBlock[];
    is_error?: boolean;
    cache_control?: MessagesCacheControl;
  };

/**
 * One message of the conversation's history.
 *
 * @example
 * ```ts
 * import type { MessagesMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const message: MessagesMessage = { role: "user", content: [{ type: "text", text: "Hi." }] };
 * ```
 */
export interface MessagesMessage {
  /** `"user"` or `"assistant"`. */
  role: "user" | "assistant";
  /** Always content blocks: a message keeps the shape it was sent in. */
  content: MessagesContentBlock[];
}

/**
 * A mid-conversation tool change block (`toolChanges: "inline"`): a tool
 * added (its whole definition, or a reference to a tool the first request
 * listed) or removed.
 *
 * @example
 * ```ts
 * import type { MessagesToolChangeBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesToolChangeBlock = {
 *   type: "tool_removal",
 *   tool: { type: "tool_reference", name: "restart_service" },
 * };
 * ```
 */
export type MessagesToolChangeBlock =
  | {
    type: "tool_addition";
    tool:
      | { type: "tool_definition"; definition: MessagesTool }
      | { type: "tool_reference"; name: string };
    cache_control?: MessagesCacheControl;
  }
  | {
    type: "tool_removal";
    tool: { type: "tool_reference"; name: string };
    cache_control?: MessagesCacheControl;
  };

/**
 * A mid-conversation `role: "system"` message (generally available, no
 * beta): the conversation tells the model a section of the system prompt
 * changed, was added or no longer applies, without editing the prompt.
 *
 * @example
 * ```ts
 * import type { MessagesSystemMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const message: MessagesSystemMessage = {
 *   role: "system",
 *   content: [{ type: "text", text: 'The system prompt\'s section "git" now reads:\n\nOn main.' }],
 * };
 * ```
 */
export interface MessagesSystemMessage {
  /** Always `"system"`. */
  role: "system";
  /** One text block per change. */
  content: MessagesTextBlock[];
}

/**
 * A turn's reminder (runtime context with `holds: "turn"`): a
 * `role: "system"` message the API shows for the turn it follows only
 * (`clear_at: "next_user_message"`, beta
 * `mid-conversation-system-clear-at-2026-08-21`); it stays in the history
 * as sent, and never carries the conversation's mark.
 *
 * @example
 * ```ts
 * import type { MessagesReminderMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const reminder: MessagesReminderMessage = {
 *   role: "system",
 *   clear_at: "next_user_message",
 *   content: [{ type: "text", text: "Plan mode: do not edit files." }],
 * };
 * ```
 */
export interface MessagesReminderMessage {
  /** Always `"system"`. */
  role: "system";
  /** Always `"next_user_message"`. */
  clear_at: "next_user_message";
  /** The reminder's text. */
  content: MessagesTextBlock[];
}

/**
 * The `role: "system"` message that carries tool changes into the
 * conversation (`toolChanges: "inline"`), after the tool results.
 *
 * @example
 * ```ts
 * import type { MessagesToolChangeMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const message: MessagesToolChangeMessage = {
 *   role: "system",
 *   content: [{ type: "tool_addition", tool: { type: "tool_reference", name: "shell" } }],
 * };
 * ```
 */
export interface MessagesToolChangeMessage {
  /** Always `"system"`. */
  role: "system";
  /** Section changes (text blocks), then the removals, then the additions. */
  content: (MessagesTextBlock | MessagesToolChangeBlock)[];
  /**
   * A new effort from this turn on (beta
   * `mid-conversation-output-config-2026-07-01`); the top-level one never
   * changes.
   */
  output_config?: { effort: "low" | "medium" | "high" | "xhigh" | "max" };
}
