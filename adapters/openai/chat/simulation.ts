/**
 * How `rxprompt simulate` drives an OpenAI Chat Completions conversation:
 * the README way's options (`cache: true` and `promptCacheRetention:
 * "24h"`, so the same bodies serve both OpenAI rules) and a session turn
 * as the SDK's `ChatCompletion`.
 *
 * @module
 */

import type { FormSimulation } from "../../../src/conversation/form.ts";

const MODEL = "gpt-5.6";

/** The Chat Completions form's simulation. */
export const CHAT_SIMULATION: FormSimulation = {
  options: (session) => ({
    model: MODEL,
    cache: true,
    promptCacheRetention: "24h",
    session,
  }),
  answer: (turn, n) => {
    const calls = turn.toolCalls ?? [];
    return {
      id: `chatcmpl_${n}`,
      object: "chat.completion",
      model: MODEL,
      choices: [{
        index: 0,
        finish_reason: calls.length === 0 ? "stop" : "tool_calls",
        message: {
          role: "assistant",
          content: turn.content === "" ? null : turn.content,
          ...(calls.length === 0 ? {} : {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: {
                name: call.name,
                arguments: JSON.stringify(call.input),
              },
            })),
          }),
        },
      }],
    };
  },
};
