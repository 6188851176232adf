/**
 * The runtime context put in a Converse message list so that it still
 * alternates between the user and the assistant.
 *
 * @module
 */

import { withContextTurn } from "../_kit/runtime_turn.ts";
import type { ConverseTextMessage } from "./converse.ts";

/**
 * The messages to send with the runtime context {@linkcode toConverse}
 * returned: Converse refuses two user messages in a row
 * (`ValidationException: A conversation must alternate between user and
 * assistant roles`), so when `messages` ends with the user's message (the
 * person's question, the tool results) the context's text block is added
 * after that message's blocks, in a copy of it; when it is empty or ends
 * with the assistant's, the context is a user message of its own. Without a
 * context, a copy of `messages`. The caller's array and messages are never
 * changed, so the next step's history does not hold this step's context.
 *
 * Throws `INVALID_CONVERSATION_INPUT` when `messages` is not an array or
 * its last user message has no `content` array.
 *
 * @param messages the conversation so far (the SDK's `Message[]`)
 * @param runtimeContext `toConverse(...).runtimeContext`
 * @returns a new list that alternates as the messages did
 *
 * @example The context joins the person's question
 * ```ts
 * import { toConverse, withConverseRuntimeContext } from "@rxprompt/system-prompt/bedrock";
 *
 * const { runtimeContext } = toConverse({
 *   sections: [{ name: "identity", order: 0, text: "You review pull requests." }],
 *   tools: [],
 *   variables: {},
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * });
 * const history = [{ role: "user" as const, content: [{ text: "Review #42." }] }];
 * const messages = withConverseRuntimeContext(history, runtimeContext);
 * console.log(messages.length); // 1
 * console.log(messages[0].content); // [{ text: "Review #42." }, { text: "Today is Monday." }]
 * console.log(history[0].content.length); // 1: the history is unchanged
 * // await client.send(new ConverseCommand({ modelId, system, toolConfig, messages }));
 * ```
 */
export function withConverseRuntimeContext<
  M extends { role?: string; content?: readonly unknown[] },
>(
  messages: readonly M[],
  runtimeContext: ConverseTextMessage | undefined,
): (M | ConverseTextMessage)[] {
  return withContextTurn<M | ConverseTextMessage>(messages, runtimeContext, {
    key: "content",
    fn: "withConverseRuntimeContext",
    list: "messages",
  });
}
