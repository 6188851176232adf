/**
 * How `rxprompt simulate` drives a Gemini conversation: the README way's
 * options (implicit caching) and a session turn as the SDK's
 * `GenerateContentResponse`.
 *
 * @module
 */

import type { FormSimulation } from "../../src/conversation/form.ts";

const MODEL = "gemini-3-flash";

/** The Gemini form's simulation. */
export const GEMINI_SIMULATION: FormSimulation = {
  options: (session) => ({ model: MODEL, session }),
  answer: (turn, n) => {
    const calls = turn.toolCalls ?? [];
    return {
      candidates: [{
        content: {
          role: "model",
          parts: [
            ...(turn.content === "" ? [] : [{ text: turn.content }]),
            ...calls.map((call) => ({
              functionCall: { id: call.id, name: call.name, args: call.input },
            })),
          ],
        },
        finishReason: "STOP",
        index: 0,
      }],
      modelVersion: MODEL,
      responseId: `gemini-${n}`,
    };
  },
};
