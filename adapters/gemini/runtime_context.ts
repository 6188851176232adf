/**
 * The runtime context put in a Gemini contents list so that it still
 * alternates between the user and the model.
 *
 * @module
 */

import { withContextTurn } from "../_kit/runtime_turn.ts";
import type { GeminiRequest } from "./request.ts";

/**
 * The contents to send with the runtime context {@linkcode toGemini}
 * returned: Gemini refuses two user turns in a row (400
 * `INVALID_ARGUMENT`: "Please ensure that multiturn requests alternate
 * between user and model."), so when `contents` ends with the user's turn
 * (the person's question, the function responses) the context's text part
 * is added after that turn's parts, in a copy of it; when it is empty or
 * ends with the model's, the context is a user turn of its own. Without a
 * context, a copy of `contents`. The caller's array and turns are never
 * changed, so the next step's history does not hold this step's context.
 *
 * Throws `INVALID_CONVERSATION_INPUT` when `contents` is not an array or
 * its last user turn has no `parts` array.
 *
 * @param contents the conversation so far (the SDK's `Content[]`)
 * @param runtimeContext `toGemini(...).runtimeContext`
 * @returns a new list that alternates as the contents did
 *
 * @example The context joins the person's question
 * ```ts
 * import { toGemini, withGeminiRuntimeContext } from "@rxprompt/system-prompt/gemini";
 *
 * const { runtimeContext } = toGemini({
 *   sections: [{ name: "identity", order: 0, text: "You review pull requests." }],
 *   tools: [],
 *   variables: {},
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * });
 * const history = [{ role: "user", parts: [{ text: "Review #42." }] }];
 * const contents = withGeminiRuntimeContext(history, runtimeContext);
 * console.log(contents.length); // 1
 * console.log(contents[0].parts); // [{ text: "Review #42." }, { text: "Today is Monday." }]
 * console.log(history[0].parts.length); // 1: the history is unchanged
 * // await ai.models.generateContent({ model, contents, config: { systemInstruction, tools } });
 * ```
 */
export function withGeminiRuntimeContext<
  C extends { role?: string; parts?: readonly unknown[] },
>(
  contents: readonly C[],
  runtimeContext: GeminiRequest["runtimeContext"],
): (C | NonNullable<GeminiRequest["runtimeContext"]>)[] {
  return withContextTurn<C | NonNullable<GeminiRequest["runtimeContext"]>>(
    contents,
    runtimeContext,
    { key: "parts", fn: "withGeminiRuntimeContext", list: "contents" },
  );
}
