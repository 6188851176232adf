/**
 * The runtime context put in the AI SDK's messages so that a provider
 * whose turns must alternate (Gemini, Bedrock) gets one user turn.
 *
 * @module
 */

import { withContextTurn } from "../_kit/runtime_turn.ts";
import type { AISDKRequest } from "./request.ts";

/**
 * The messages to send with the runtime context {@linkcode toAISDK}
 * returned. Some providers refuse two user turns in a row (`@ai-sdk/google`
 * sends each message as a turn of its own, and Gemini answers 400
 * `INVALID_ARGUMENT`), so when `messages` ends with the user's message the
 * context is added to it as a text part after its content (a string content
 * becomes one text part), in a copy of it; otherwise (empty, or ending with
 * the assistant's or a tool message) the context is a user message of its
 * own. Without a context, a copy of `messages`. The caller's array and
 * messages are never changed. After a `tool` message, `@ai-sdk/google`
 * still sends two user turns (the results, then the context): send the
 * context with the next person's message there, or use
 * `geminiConversation`.
 *
 * Throws `INVALID_CONVERSATION_INPUT` when `messages` is not an array or
 * its last user message's content is neither a string nor an array.
 *
 * @param messages the conversation so far (`ModelMessage[]`)
 * @param runtimeContext `toAISDK(...).runtimeContext`
 * @returns a new list
 *
 * @example The context joins the person's question
 * ```ts
 * import { toAISDK, withAISDKRuntimeContext } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const { runtimeContext } = toAISDK({
 *   sections: [{ name: "identity", order: 0, text: "You review pull requests." }],
 *   tools: [],
 *   variables: {},
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * });
 * const history = [{ role: "user" as const, content: "Review #42." }];
 * const messages = withAISDKRuntimeContext(history, runtimeContext);
 * console.log(messages[0].content);
 * // [{ type: "text", text: "Review #42." }, { type: "text", text: "Today is Monday." }]
 * // await generateText({ model, system, tools, messages });
 * ```
 */
export function withAISDKRuntimeContext<
  M extends { role?: string; content?: unknown },
>(
  messages: readonly M[],
  runtimeContext: AISDKRequest["runtimeContext"],
): (M | NonNullable<AISDKRequest["runtimeContext"]>)[] {
  return withContextTurn<
    M | NonNullable<AISDKRequest["runtimeContext"]>
  >(messages, runtimeContext, {
    key: "content",
    fn: "withAISDKRuntimeContext",
    list: "messages",
    expected: "a string or an array of parts",
    blocks: (held) =>
      typeof held === "string"
        ? [{ type: "text", text: held }]
        : Array.isArray(held)
        ? held
        : undefined,
  });
}
