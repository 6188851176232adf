/**
 * `@rxprompt/system-prompt/ai-sdk`: an assembly as the `system` and `tools`
 * options of the Vercel AI SDK (`generateText`, `streamText`, agents).
 *
 * Built with the AI SDK's own `tool()` and `jsonSchema()`, so `ai` (6 or 7)
 * is a peer dependency of this subpath only.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toAISDK } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toAISDK(await prompt.assemble());
 * console.log(typeof system, Object.keys(tools)); // "string" []
 * // await generateText({ model, system, tools, prompt: "Review #42." });
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export { toAISDK } from "./request.ts";
export { withAISDKRuntimeContext } from "./runtime_context.ts";
export type { AISDKOptions, AISDKRequest } from "./request.ts";
export type {
  AISDKAnswer,
  AISDKConversation,
  AISDKConversationBody,
  AISDKConversationMessage,
  AISDKConversationOptions,
} from "./conversation_types.ts";
export type { AISDKServerCompactionOptions } from "./compaction.ts";
export { aiSdkConversation, resumeAiSdkConversation } from "./conversation.ts";
