/**
 * Starting and resuming an Anthropic Messages conversation (SPEC 9.1).
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
  AnthropicConversation,
  AnthropicConversationBody,
  AnthropicConversationOptions,
  AnthropicInlineConversationBody,
} from "./conversation_types.ts";
import { MESSAGES_FORM } from "./form.ts";

/**
 * Starts an Anthropic Messages conversation (SPEC 9.1): each
 * `request()` returns the whole body for `client.beta.messages.create`
 * (with `changes: { tools: "rebuild" }`, for `client.messages.create`), and
 * applies the request loop's rules itself:
 *
 * - every request extends the one before byte for byte (SPEC 10.1): a
 *   section changed after the first request is told in a `role: "system"`
 *   message after the last item (no beta); a tool change rebuilds the
 *   tools block until an answer holds thinking, then goes in such a
 *   message too (`tool_addition` / `tool_removal`, with their betas), so
 *   the preserved-thinking check never refuses a request (`changes`);
 * - the tools and system from `toMessages` with `cache` and
 *   `gating: "keep"`; the tools of the first request stay listed byte for
 *   byte (a dropped tool stays listed and inactive, an added one rebuilds
 *   the list once at its canonical place) and count as stable for marker
 *   selection;
 * - the runtime context after the last item, only when it changed: a
 *   text block after the new message's tool results and person blocks
 *   (or a message of its own), kept in the history;
 * - a `cache_control` marker on the last block; when the step adds more
 *   than 20 blocks, also on the previous request's last block (and the
 *   system and tools get at most 2), within the API's four;
 * - `awaiting: "person"` makes every marker of the request `ttl: "1h"`;
 * - a call of a tool the gates left inactive is answered with a refusal.
 *
 * Errors are `SystemPromptError`s: `INVALID_CONFIG` for bad options, and
 * those of {@linkcode Conversation}'s methods.
 *
 * @param prompt what each step is assembled from
 * @param options the model, `max_tokens` and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: {} }],
 * }));
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 1024 });
 * conv.user("What is in a.ts?");
 * await conv.request(); // send it: await client.messages.create(body)
 * const calls = conv.record({
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["user", "assistant", "user"]
 * await prompt.dispose();
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions & { toolChanges: "inline" },
): AnthropicConversation<C, AnthropicInlineConversationBody>;
/**
 * {@linkcode anthropicConversation} with the tools block rebuilt on every
 * tool change (0.4's default): the generally available body.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const conv = anthropicConversation(new SystemPrompt(), {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 64,
 *   toolChanges: "rebuild",
 * });
 * console.log(conv.openCalls); // []
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options:
    & AnthropicConversationOptions
    & (
      | { toolChanges: "rebuild" }
      | {
        changes: "rebuild" | {
          sections?: "auto" | "inline" | "rebuild";
          tools: "rebuild";
        };
      }
    ),
): AnthropicConversation<C, AnthropicConversationBody>;
/**
 * {@linkcode anthropicConversation} when the tool-change mode is known only
 * at run time.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type AnthropicConversationOptions,
 *   anthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const options: AnthropicConversationOptions = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 64,
 *   toolChanges: Math.random() < 2 ? "inline" : "rebuild",
 * };
 * const conv = anthropicConversation(new SystemPrompt(), options);
 * conv.user("Hi.");
 * console.log("betas" in await conv.request()); // true
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
>;
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  return startConversation(MESSAGES_FORM, prompt, options, FORM_CONTEXT);
}

/**
 * Resumes an Anthropic Messages conversation from its recording (what
 * `save()` returned, or the lines `onRecord` appended), in this process
 * or another: the next request is byte-identical to the one the original
 * would have built (history, runtime context as sent, marks, session,
 * listed tools); a runtime context that differs now goes in as an update
 * after the last item, and system and tools follow the registry through
 * the same change rules. The recording's options apply unless `options`
 * gives them again. A last line cut mid-way is left out (the returned
 * conversation's `resumed.truncated` says so); the recording is never
 * modified.
 *
 * Errors (`SystemPromptError`): `RECORDING_UNPARSABLE` (not a recording,
 * or a line that is not a record), `RECORDING_VERSION` (an unknown format
 * version), `RECORDING_OTHER_PROVIDER` (another provider's recording),
 * `RECORDING_DISCONTINUOUS` (a step that does not continue the ones
 * before it).
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's (`onRecord`, ...)
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   anthropicConversation,
 *   resumeAnthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt();
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64 });
 * conv.user("Hi.");
 * await conv.request();
 * conv.record({ type: "message", role: "assistant", content: [{ type: "text", text: "Hello." }] });
 * const again = resumeAnthropicConversation(prompt, conv.save());
 * console.log(again.session === conv.session, again.messages.length); // true 2
 * ```
 */
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options: Partial<AnthropicConversationOptions> & { toolChanges: "inline" },
): AnthropicConversation<C, AnthropicInlineConversationBody>;
/**
 * {@linkcode resumeAnthropicConversation} of a conversation whose tool
 * changes rebuild the tools block (a recording made with
 * `toolChanges: "inline"` needs that option again: `INVALID_CONFIG`
 * otherwise, so the body's type is the one sent).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   anthropicConversation,
 *   resumeAnthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt();
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64 });
 * console.log(resumeAnthropicConversation(prompt, conv.save()).resumed); // { steps: 0, truncated: false }
 * ```
 */
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options:
    & Partial<AnthropicConversationOptions>
    & (
      | { toolChanges: "rebuild" }
      | {
        changes: "rebuild" | {
          sections?: "auto" | "inline" | "rebuild";
          tools: "rebuild";
        };
      }
    ),
): AnthropicConversation<C, AnthropicConversationBody>;
/**
 * {@linkcode resumeAnthropicConversation} with a `toolChanges` known only
 * at run time, as {@linkcode anthropicConversation} takes it: the body is
 * either shape.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   anthropicConversation,
 *   resumeAnthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const toolChanges = Math.random() < 2 ? "inline" : "rebuild";
 * const prompt = new SystemPrompt();
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64, toolChanges });
 * const again = resumeAnthropicConversation(prompt, conv.save(), { toolChanges });
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<AnthropicConversationOptions>,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
>;
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<AnthropicConversationOptions>,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  return resumeConversation(
    MESSAGES_FORM,
    prompt,
    recording,
    options,
    FORM_CONTEXT,
  );
}
