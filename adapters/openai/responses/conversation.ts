/**
 * Starting and resuming a Responses conversation (SPEC 9.1).
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
  ResponsesConversation,
  ResponsesConversationOptions,
} from "./conversation_types.ts";
import { RESPONSES_FORM } from "./form.ts";

/**
 * Starts an OpenAI Responses conversation (SPEC 9.1), stateless: each
 * `request()` returns the whole input (the system message first, then the
 * history) for `client.responses.create`, with the rules of
 * {@linkcode chatConversation}: the tools listed first kept byte for byte,
 * `allowed_tools` from the gates, the runtime context as a new user
 * message after the last tool output, explicit marks (with `cache`) on the
 * last item and the previous request's end, `prompt_cache_key` fixed at the
 * first request; when a person answers next, `ttl: "12h"` on the marks and
 * `prompt_cache_options: { ttl: "12h" }`. With `toolChanges: "inline"` the
 * tools block stays the first request's and an added tool goes in an
 * `additional_tools` input item (a changed definition still rebuilds the
 * block).
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { responsesConversation } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You are a support assistant." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "track", description: "Track a parcel.", parameters: { type: "object" } }],
 * }));
 * const conv = responsesConversation(prompt, { model: "gpt-5.6", cache: true });
 * conv.user("Where is my parcel?");
 * await conv.request(); // send it: await client.responses.create(body)
 * const calls = conv.record({
 *   object: "response",
 *   output: [{ type: "function_call", call_id: "c1", name: "track", arguments: "{}" }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "In transit.");
 * const body = await conv.request();
 * console.log(body.input.length); // 4: system, user, function_call, function_call_output
 * await prompt.dispose();
 * ```
 */
export function responsesConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: ResponsesConversationOptions,
): ResponsesConversation<C> {
  return startConversation(RESPONSES_FORM, prompt, options, FORM_CONTEXT);
}

/**
 * Resumes a Responses conversation from its recording, as
 * `resumeAnthropicConversation` does for Anthropic (`./anthropic`); a
 * recording made with `toolChanges: "inline"` needs that option again
 * (`INVALID_CONFIG` otherwise).
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   responsesConversation,
 *   resumeResponsesConversation,
 * } from "@rxprompt/system-prompt/openai";
 *
 * const conv = responsesConversation(new SystemPrompt(), { model: "gpt-5.6" });
 * const again = resumeResponsesConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeResponsesConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ResponsesConversationOptions>,
): ResponsesConversation<C> {
  return resumeConversation(
    RESPONSES_FORM,
    prompt,
    recording,
    options,
    FORM_CONTEXT,
  );
}
