/**
 * How `rxprompt simulate` drives an Anthropic Messages conversation: the
 * README way's options and a session turn as the SDK's `Message`.
 *
 * @module
 */

import type { FormSimulation } from "../../src/conversation/form.ts";

const MODEL = "claude-sonnet-4-5";

/** The Messages form's simulation. */
export const MESSAGES_SIMULATION: FormSimulation = {
  options: (session, toolChanges) => ({
    model: MODEL,
    max_tokens: 4096,
    session,
    ...(toolChanges === "inline" ? { toolChanges } : {}),
  }),
  answer: (turn, n) => {
    const calls = turn.toolCalls ?? [];
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [
        ...(turn.content === "" ? [] : [{ type: "text", text: turn.content }]),
        ...calls.map((call) => ({
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: call.input,
        })),
      ],
      stop_reason: calls.length === 0 ? "end_turn" : "tool_use",
      stop_sequence: null,
      usage: null,
    };
  },
};
