/**
 * `@rxprompt/system-prompt/openai`: an assembly as the request fields of the
 * OpenAI Chat Completions and Responses APIs.
 *
 * Pure functions with no SDK dependency: the results are plain objects whose
 * structural types the `openai` package's own request types accept without
 * a cast. Tools keep the assembly's (canonical) order and their schemas are
 * passed through unchanged; `tools` is omitted when there are none.
 *
 * @example Chat Completions
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toChatCompletions(await prompt.assemble());
 * const request = {
 *   model: "gpt-5",
 *   messages: [system, { role: "user" as const, content: "Review #42." }],
 *   tools,
 * };
 * console.log(request.messages[0].role); // "system"
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export type {
  OpenAICacheOptions,
  OpenAIOptions,
  OpenAIPlainOptions,
  PromptCacheBreakpoint,
} from "./options.ts";
export type { UserMessage } from "./prompt_parts.ts";
export { toChatCompletions } from "./chat/chat.ts";
export type {
  CachedChatCompletionsRequest,
  ChatCompletionsRequest,
  ChatCompletionsTool,
  ChatTextPart,
  ChatToolChoice,
} from "./chat/chat.ts";
export { toResponses } from "./responses/responses.ts";
export type {
  ResponsesDeferredFunction,
  ResponsesNamespaceTool,
  ResponsesToolSearchTool,
} from "./responses/deferred.ts";
export type {
  CachedResponsesRequest,
  ResponsesRequest,
  ResponsesTextPart,
  ResponsesTool,
  ResponsesToolChoice,
} from "./responses/responses.ts";
export { promptCacheKey } from "./cache_key.ts";
export type { PromptCacheKeyOptions } from "./cache_key.ts";
export type {
  ChatAnswer,
  ChatConversation,
  ChatConversationBody,
  ChatConversationMessage,
  ChatConversationOptions,
  ChatConversationStreamingBody,
  ChatUserPart,
} from "./chat/conversation_types.ts";
export {
  chatConversation,
  resumeChatConversation,
} from "./chat/conversation.ts";
export type {
  ResponsesAnswer,
  ResponsesConversation,
  ResponsesConversationBody,
  ResponsesConversationItem,
  ResponsesConversationOptions,
} from "./responses/conversation_types.ts";
export {
  responsesConversation,
  resumeResponsesConversation,
} from "./responses/conversation.ts";
