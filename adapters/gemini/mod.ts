/**
 * `@rxprompt/system-prompt/gemini`: an assembly as the `generateContent`
 * config fields of Google Gemini (`@google/genai`): `systemInstruction`,
 * function declarations and, from the tool gates, the function-calling
 * config. Gemini caches implicitly (a stable prefix is all it needs), so
 * there are no marks to place.
 *
 * No SDK at run time; the types name `@google/genai`'s
 * `FunctionCallingConfigMode` (an enum), so the result type-checks against
 * the SDK's `GenerateContentConfig` without a cast.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toGemini } from "@rxprompt/system-prompt/gemini";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { systemInstruction, tools } = toGemini(await prompt.assemble());
 * console.log(systemInstruction?.parts.length, tools); // 1 undefined
 * // await ai.models.generateContent({ model, contents, config: { systemInstruction, tools } });
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export { toGemini } from "./request.ts";
export { withGeminiRuntimeContext } from "./runtime_context.ts";
export type {
  GeminiFunctionDeclaration,
  GeminiOptions,
  GeminiRequest,
  GeminiTextPart,
  GeminiToolConfig,
} from "./request.ts";
export {
  geminiConversation,
  resumeGeminiConversation,
} from "./conversation.ts";
export type {
  GeminiAnswer,
  GeminiCachedContentsOption,
  GeminiCacheEntry,
  GeminiCacheReport,
  GeminiCaches,
  GeminiContent,
  GeminiConversation,
  GeminiConversationBody,
  GeminiConversationOptions,
  GeminiPart,
} from "./conversation_types.ts";
