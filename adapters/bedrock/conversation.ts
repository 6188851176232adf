/**
 * Starting and resuming an Amazon Bedrock Converse conversation (SPEC
 * 10.5).
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type { ConversationPrompt } from "../../src/conversation/types.ts";
import {
  resumeConversation,
  startConversation,
} from "../../src/conversation/start.ts";
import { FORM_CONTEXT } from "../forms.ts";
import type {
  ConverseConversation,
  ConverseConversationOptions,
} from "./conversation_types.ts";
import { CONVERSE_FORM } from "./form.ts";

/**
 * Starts an Amazon Bedrock Converse conversation (SPEC 10.5): each
 * `request()` returns the whole input of `ConverseCommand` (or
 * `ConverseStreamCommand`: the same fields), with the request loop's rules
 * applied as on Anthropic:
 *
 * - `system` and `toolConfig` from `toConverse` with `cache` and
 *   `gating: "keep"`; the tools of the first request stay listed byte for
 *   byte (a call of a tool the gates left inactive is answered with a
 *   refusal);
 * - the runtime context after the last item, only when it changed;
 * - a `cachePoint` block after the last block of the request and, when
 *   the step adds more than 20 blocks, after the previous request's last
 *   one, within Bedrock's four (`system` and `toolConfig` get the rest, at
 *   most `maxCacheBreakpoints`);
 * - `awaiting: "person"` gives every cache point `ttl: "1h"` (one
 *   lifetime per request: they never increase from `toolConfig` to
 *   `system` to `messages`, as Bedrock requires).
 *
 * `record()` takes the `ConverseResponse`, or every event of the stream
 * (`for await (const event of response.stream!) events.push(event)`); the
 * report reads `cacheReadInputTokens` and `cacheWriteInputTokens`.
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { converseConversation } from "@rxprompt/system-prompt/bedrock";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: {} }],
 * }));
 * const conv = converseConversation(prompt, { modelId: "anthropic.claude-sonnet-4-5" });
 * conv.user("What is in a.ts?");
 * await conv.request(); // send it: await client.send(new ConverseCommand(body))
 * const calls = conv.record({
 *   output: {
 *     message: {
 *       role: "assistant",
 *       content: [{ toolUse: { toolUseId: "t1", name: "read_file", input: { path: "a.ts" } } }],
 *     },
 *   },
 *   stopReason: "tool_use",
 * });
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["user", "assistant", "user"]
 * console.log(body.messages[2].content.at(-1)); // { cachePoint: { type: "default" } }
 * await prompt.dispose();
 * ```
 */
export function converseConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: ConverseConversationOptions,
): ConverseConversation<C> {
  return startConversation(CONVERSE_FORM, prompt, options, FORM_CONTEXT);
}

/**
 * Resumes a Bedrock Converse conversation from its recording: the next
 * request is byte-identical to the one the original would have built; the
 * recording's options apply unless `options` gives them again.
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { converseConversation, resumeConverseConversation } from "@rxprompt/system-prompt/bedrock";
 *
 * const conv = converseConversation(new SystemPrompt(), { modelId: "anthropic.claude-sonnet-4-5" });
 * const again = resumeConverseConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeConverseConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ConverseConversationOptions>,
): ConverseConversation<C> {
  return resumeConversation(
    CONVERSE_FORM,
    prompt,
    recording,
    options,
    FORM_CONTEXT,
  );
}
