/**
 * Starting and resuming an AI SDK conversation (SPEC 9.1).
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type { ConversationPrompt } from "../../src/conversation/types.ts";
import {
  resumeConversation,
  startConversation,
} from "../../src/conversation/start.ts";
import type { FormContext } from "../../src/conversation/form.ts";
import { FORM_CONTEXT } from "../forms.ts";
import type {
  AISDKConversation,
  AISDKConversationOptions,
} from "./conversation_types.ts";
import { AI_SDK_FORM } from "./form.ts";
import { aiSdkRequest } from "./request.ts";

/** The forms, and the request the AI SDK form builds its steps with. */
const CONTEXT: FormContext = { ...FORM_CONTEXT, adapter: aiSdkRequest };

/**
 * Starts an AI SDK conversation (SPEC 9.1): each `request()` returns the
 * options of one `generateText` (or `streamText`) call: `system`, `tools`
 * (every listed tool, `gating: "keep"`, no `execute`: the conversation
 * returns the calls to run) and `messages`, with the request loop's rules
 * applied as on Anthropic (Anthropic `cacheControl` provider options, the
 * runtime context after the last item only when it changed, the listed
 * tools kept, calls of inactive tools refused). One call per request: the
 * SDK's own multi-step loop (`stopWhen`) would bypass the marks.
 *
 * @param prompt what each step is assembled from
 * @param options the conversation's options (each has a default)
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { aiSdkConversation } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
 * }));
 * const conv = aiSdkConversation(prompt);
 * conv.user("What is in a.ts?");
 * await conv.request(); // await generateText({ model, ...body })
 * const calls = conv.record({
 *   response: {
 *     messages: [{
 *       role: "assistant",
 *       content: [{ type: "tool-call", toolCallId: "t1", toolName: "read_file", input: {} }],
 *     }],
 *   },
 * });
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["user", "assistant", "tool"]
 * await prompt.dispose();
 * ```
 */
export function aiSdkConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options?: AISDKConversationOptions,
): AISDKConversation<C> {
  return startConversation(
    AI_SDK_FORM,
    prompt,
    options === undefined ? {} : options,
    CONTEXT,
  );
}

/**
 * Resumes an AI SDK conversation from its recording, as
 * `resumeAnthropicConversation` does for Anthropic (`./anthropic`).
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
 *   aiSdkConversation,
 *   resumeAiSdkConversation,
 * } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const conv = aiSdkConversation(new SystemPrompt());
 * const again = resumeAiSdkConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeAiSdkConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: AISDKConversationOptions,
): AISDKConversation<C> {
  return resumeConversation(
    AI_SDK_FORM,
    prompt,
    recording,
    options,
    CONTEXT,
  );
}
