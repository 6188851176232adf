/**
 * The request layout the README advises ("readme"), as `rxprompt simulate`
 * builds each step's request. Today it is 0.2's advice: the system prompt
 * and tools from the adapters (`cache: true` for Anthropic, markers on the
 * last tool and the prompt blocks), the runtime context as a user message
 * right after the system prompt, then the conversation, its last message
 * marked for Anthropic. When the README's advice changes, this file
 * changes with it (and `examples/sessions/ways.ts` keeps 0.2's copy).
 *
 * @module
 */

import type { PromptAssembly } from "../mod.ts";
import { toMessages } from "../adapters/anthropic.ts";
import { toChatCompletions } from "../adapters/openai.ts";
import type { SessionMessage } from "../src/cache/mod.ts";

/** The wire a way builds for: Anthropic Messages or OpenAI Chat Completions. */
export type WayWire = "anthropic" | "openai";

/** What a way builds one step's request from. */
export interface WayInput {
  readonly wire: WayWire;
  readonly assembly: PromptAssembly;
  /** The same thread's previous assembly, if any. */
  readonly previous?: PromptAssembly;
  /** The thread's conversation, oldest first. */
  readonly messages: readonly SessionMessage[];
  /** Sections the session's author knows to change during it. */
  readonly volatileSections: ReadonlySet<string>;
  /**
   * This way's own memory for this thread and wire, kept across steps (for
   * example where earlier runtime-context updates were inserted, since a
   * later request must repeat them unchanged).
   */
  readonly state: Record<string, unknown>;
}

/** Builds one step's request body. */
export type Way = (input: WayInput) => Record<string, unknown>;

/** The README's way (see the module documentation). */
export const readmeWay: Way = ({ wire, assembly, messages }) => {
  if (wire === "anthropic") {
    const { system, tools, runtimeContext } = toMessages(assembly, {
      cache: true,
    });
    return {
      ...(tools === undefined ? {} : { tools }),
      system,
      messages: [
        ...(runtimeContext === undefined ? [] : [runtimeContext]),
        ...markLast(messages),
      ],
    };
  }
  const { system, tools, runtimeContext } = toChatCompletions(assembly);
  return {
    ...(tools === undefined ? {} : { tools }),
    messages: [
      system,
      ...(runtimeContext === undefined ? [] : [runtimeContext]),
      ...messages,
    ],
  };
};

/**
 * Anthropic messages with a `cache_control` marker on the last one (the
 * conversation's breakpoint, the fourth marker).
 */
export function markLast(
  messages: readonly SessionMessage[],
): Record<string, unknown>[] {
  return messages.map((message, index) =>
    index === messages.length - 1
      ? {
        role: message.role,
        content: [{
          type: "text",
          text: message.content,
          cache_control: { type: "ephemeral" },
        }],
      }
      : { role: message.role, content: message.content }
  );
}
