/**
 * `@rxprompt/system-prompt/anthropic`: an assembly as the request fields of
 * the Anthropic Messages API, with prompt-cache markers where the prompt's
 * cache breakpoints are.
 *
 * A pure function with no SDK dependency: the result is a plain object whose
 * structural type the `@anthropic-ai/sdk` request types accept without a
 * cast. Tools keep the assembly's (canonical) order; `tools` is omitted when
 * there are none.
 *
 * @example Cache the stable prefix
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toMessages } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toMessages(await prompt.assemble(), { cache: true });
 * console.log(system.at(-1)?.cache_control); // { type: "ephemeral" }
 * console.log(tools); // undefined: no tools registered
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export { toMessages } from "./messages.ts";
export type {
  MessagesCacheControl,
  MessagesOptions,
  MessagesRequest,
  MessagesTextBlock,
  MessagesTool,
} from "./messages.ts";
export type {
  MessagesContentBlock,
  MessagesImageBlock,
  MessagesInputBlock,
  MessagesMessage,
  MessagesReminderMessage,
  MessagesSystemMessage,
  MessagesToolChangeBlock,
  MessagesToolChangeMessage,
} from "./message_types.ts";
export type { MessagesToolSearchTool } from "./deferred.ts";
export type {
  AnthropicCompactEdit,
  AnthropicConversation,
  AnthropicConversationBody,
  AnthropicConversationOptions,
  AnthropicInlineConversationBody,
  AnthropicThinking,
  AnthropicThinkingBinding,
  MessagesAnswer,
  MessagesAnswerBlock,
} from "./conversation_types.ts";
export {
  anthropicConversation,
  resumeAnthropicConversation,
} from "./conversation.ts";
