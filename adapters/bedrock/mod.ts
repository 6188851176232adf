/**
 * `@rxprompt/system-prompt/bedrock`: an assembly as the request fields of
 * the Amazon Bedrock Converse API (`ConverseCommand`,
 * `ConverseStreamCommand` of `@aws-sdk/client-bedrock-runtime`), with
 * `cachePoint` blocks where the prompt's cache breakpoints are.
 *
 * A pure function with no SDK dependency: the result is a plain object
 * whose structural type the SDK's `ConverseCommandInput` accepts without a
 * cast. Tools keep the assembly's (canonical) order; `toolConfig` is
 * omitted when there are none.
 *
 * @example Cache the stable prefix
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toConverse } from "@rxprompt/system-prompt/bedrock";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, toolConfig } = toConverse(await prompt.assemble(), { cache: true });
 * console.log(system.at(-1)); // { cachePoint: { type: "default" } }
 * console.log(toolConfig); // undefined: no tools registered
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export { toConverse } from "./converse.ts";
export { withConverseRuntimeContext } from "./runtime_context.ts";
export type {
  ConverseCachePoint,
  ConverseJson,
  ConverseOptions,
  ConverseRequest,
  ConverseSystemBlock,
  ConverseTextMessage,
  ConverseTool,
} from "./converse.ts";
export {
  converseConversation,
  resumeConverseConversation,
} from "./conversation.ts";
export type {
  ConverseAnswer,
  ConverseBlock,
  ConverseConversation,
  ConverseConversationBody,
  ConverseConversationOptions,
  ConverseMessage,
  ConverseResultContent,
  ConverseStreamEvent,
} from "./conversation_types.ts";
