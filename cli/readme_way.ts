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

import { type PromptAssembly, runtimeContextUpdate } from "../mod.ts";
import { toMessages } from "../adapters/anthropic.ts";
import { promptCacheKey, toChatCompletions } from "../adapters/openai.ts";
import type { SessionMessage } from "../src/cache/mod.ts";

/** The wire a way builds for: Anthropic Messages or OpenAI Chat Completions. */
export type WayWire = "anthropic" | "openai";

/** What a way builds one step's request from. */
export interface WayInput {
  readonly wire: WayWire;
  /** The conversation the step belongs to. */
  readonly thread: string;
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

/** What the README's way remembers per thread and wire. */
interface LoopState {
  /** Message index → the runtime-context update sent with it. */
  updates?: Map<number, string>;
}

/** The README's way (see the module documentation). */
export const readmeWay: Way = (
  { wire, assembly, previous, messages, state, thread },
) => {
  const memory = state as LoopState;
  const updates = memory.updates ??= new Map();
  // The runtime context goes after the last conversation item, only when
  // it changed, and stays there: later requests repeat it unchanged.
  const update = runtimeContextUpdate(previous, assembly);
  if (update !== undefined && messages.length > 0) {
    updates.set(messages.length - 1, update);
  }
  if (wire === "anthropic") {
    const { system, tools } = toMessages(assembly, {
      cache: true,
      gating: "keep",
    });
    return {
      ...(tools === undefined ? {} : { tools }),
      system,
      messages: anthropicMessages(messages, updates),
    };
  }
  const { system, tools, tool_choice } = toChatCompletions(assembly, {
    cache: true,
    promptCacheKey: promptCacheKey(assembly, { session: thread }),
  });
  return {
    ...(tools === undefined ? {} : { tools }),
    ...(tool_choice === undefined ? {} : { tool_choice }),
    messages: [system, ...openAIMessages(messages, updates)],
  };
};

const MARK = { prompt_cache_breakpoint: { mode: "explicit" } } as const;

/**
 * The conversation as Anthropic messages: each runtime-context update a
 * text block appended to the user message it was sent with, the last
 * block marked (the conversation's breakpoint, the fourth marker).
 */
function anthropicMessages(
  messages: readonly SessionMessage[],
  updates: ReadonlyMap<number, string>,
): Record<string, unknown>[] {
  return messages.map((message, index) => {
    const update = updates.get(index);
    const last = index === messages.length - 1;
    if (update === undefined && !last) {
      return { role: message.role, content: message.content };
    }
    const blocks: Record<string, unknown>[] = [
      { type: "text", text: message.content },
    ];
    if (update !== undefined) {
      // An update after an assistant message would be a new user message;
      // the sessions' requests end with the user's turn.
      blocks.push({ type: "text", text: update });
    }
    if (last) {
      blocks[blocks.length - 1] = {
        ...blocks[blocks.length - 1],
        cache_control: { type: "ephemeral" },
      };
    }
    return { role: message.role, content: blocks };
  });
}

/**
 * The conversation as Chat Completions messages: each runtime-context
 * update a user message of its own after the message it followed, the
 * last message's text marked for explicit caching.
 */
function openAIMessages(
  messages: readonly SessionMessage[],
  updates: ReadonlyMap<number, string>,
): Record<string, unknown>[] {
  const out: { role: string; content: string }[] = [];
  messages.forEach((message, index) => {
    out.push({ role: message.role, content: message.content });
    const update = updates.get(index);
    if (update !== undefined) out.push({ role: "user", content: update });
  });
  return out.map((message, index) =>
    index === out.length - 1
      ? {
        role: message.role,
        content: [{ type: "text", text: message.content, ...MARK }],
      }
      : message
  );
}

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
