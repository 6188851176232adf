/**
 * How `rxprompt simulate` drives a Bedrock Converse conversation: the
 * README way's options and a session turn as the SDK's `ConverseResponse`.
 *
 * @module
 */

import type { FormSimulation } from "../../src/conversation/form.ts";

/** The Converse form's simulation. */
export const CONVERSE_SIMULATION: FormSimulation = {
  options: (session) => ({
    modelId: "anthropic.claude-sonnet-4-5",
    maxTokens: 4096,
    session,
  }),
  answer: (turn) => {
    const calls = turn.toolCalls ?? [];
    return {
      output: {
        message: {
          role: "assistant",
          content: [
            ...(turn.content === "" ? [] : [{ text: turn.content }]),
            ...calls.map((call) => ({
              toolUse: {
                toolUseId: call.id,
                name: call.name,
                input: call.input,
              },
            })),
          ],
        },
      },
      stopReason: calls.length === 0 ? "end_turn" : "tool_use",
      usage: null,
    };
  },
};
