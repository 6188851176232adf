/**
 * Starting and resuming a Chat Completions conversation (SPEC 9.1).
 *
 * @module
 */

import type { AssembleContext } from "../../../mod.ts";
import type { ConversationPrompt } from "../../../src/conversation/types.ts";
import {
  resumeConversation,
  startConversation,
} from "../../../src/conversation/start.ts";
import { FORM_CONTEXT } from "../../forms.ts";
import type {
  ChatConversation,
  ChatConversationBody,
  ChatConversationOptions,
  ChatConversationStreamingBody,
} from "./conversation_types.ts";
import { CHAT_FORM } from "./form.ts";

/**
 * Starts an OpenAI Chat Completions conversation (SPEC 9.1): each
 * `request()` returns the whole body for `client.chat.completions.create`,
 * with the request loop's rules applied: the tools listed first stay
 * byte-identical (a dropped tool stays listed, outside `allowed_tools`);
 * the `allowed_tools` tool choice from the gates; the runtime context, when
 * it changed, as a new user message after the last tool result; with
 * `cache`, explicit marks on the last item and on the end of the previous
 * request (OpenAI reads only at a request's own marks), `ttl: "12h"` on
 * every mark when a person answers next; `prompt_cache_key` fixed at the
 * first request (one session per conversation); with `stream: true`,
 * `stream_options.include_usage`.
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You are a support assistant." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "track", description: "Track a parcel.", parameters: { type: "object" } }],
 * }));
 * const conv = chatConversation(prompt, { model: "gpt-5.6", cache: true });
 * conv.user("Where is my parcel?");
 * await conv.request(); // send it: await client.chat.completions.create(body)
 * const calls = conv.record({
 *   object: "chat.completion",
 *   choices: [{
 *     message: {
 *       role: "assistant",
 *       content: null,
 *       tool_calls: [{ id: "c1", type: "function", function: { name: "track", arguments: "{}" } }],
 *     },
 *   }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "In transit.");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["system", "user", "assistant", "tool"]
 * await prompt.dispose();
 * ```
 */
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions & { stream: true },
): ChatConversation<C, ChatConversationStreamingBody>;
/**
 * {@linkcode chatConversation} without streaming.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * conv.user("Hi.");
 * console.log("stream" in await conv.request()); // false
 * ```
 */
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions & { stream?: false },
): ChatConversation<C>;
/**
 * {@linkcode chatConversation} with a `stream` known only at run time: the
 * body is either shape.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const stream = Math.random() < 2;
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5", stream });
 * conv.user("Hi.");
 * console.log("stream" in await conv.request()); // true
 * ```
 */
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions,
): ChatConversation<C, ChatConversationBody | ChatConversationStreamingBody>;
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions,
): ChatConversation<C, ChatConversationBody | ChatConversationStreamingBody> {
  return startConversation(CHAT_FORM, prompt, options, FORM_CONTEXT);
}

/**
 * Resumes a Chat Completions conversation from its recording, as
 * `resumeAnthropicConversation` does for Anthropic (`./anthropic`): the
 * next request is byte-identical to the one the original would have built,
 * `prompt_cache_key` included; the recording's options apply unless
 * `options` gives them again.
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation, resumeChatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * const again = resumeChatConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options: Partial<ChatConversationOptions> & { stream: true },
): ChatConversation<C, ChatConversationStreamingBody>;
/**
 * {@linkcode resumeChatConversation} of a conversation without streaming
 * (a recording made with `stream: true` needs `stream` given again:
 * `INVALID_CONFIG` otherwise, so the body's type is the one sent).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation, resumeChatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * console.log(resumeChatConversation(new SystemPrompt(), conv.save()).resumed?.steps); // 0
 * ```
 */
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ChatConversationOptions> & { stream?: false },
): ChatConversation<C>;
/**
 * {@linkcode resumeChatConversation} with a `stream` known only at run
 * time, as {@linkcode chatConversation} takes it.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation, resumeChatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const stream = Math.random() < 2;
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5", stream });
 * const again = resumeChatConversation(new SystemPrompt(), conv.save(), { stream });
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ChatConversationOptions>,
): ChatConversation<C, ChatConversationBody | ChatConversationStreamingBody>;
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ChatConversationOptions>,
): ChatConversation<C, ChatConversationBody | ChatConversationStreamingBody> {
  return resumeConversation(
    CHAT_FORM,
    prompt,
    recording,
    options,
    FORM_CONTEXT,
  );
}
