/**
 * The request layout the README advises ("readme", its section "The request
 * loop (cache-optimal)"), as `rxprompt simulate` and `deno task
 * bench:cache` build each step's request. Per step:
 *
 * - the tools and the system prompt from the adapters with `cache`
 *   (automatic breakpoints from stability): Anthropic `toMessages` with
 *   `gating: "keep"` (gated tools stay listed; the harness refuses calls
 *   outside `allowedTools`) and `ttl: "1h"` (the next request waits for a
 *   person, who may take longer than five minutes); OpenAI
 *   `toChatCompletions` with `cache: true` (explicit marks, the
 *   `allowed_tools` tool choice from `activeTools`) and `prompt_cache_key`
 *   from `promptCacheKey(assembly, { session: thread })`;
 * - the conversation unchanged, and `runtimeContextUpdate(previous,
 *   current)`, when the runtime context changed, after its last item:
 *   Anthropic, a text block appended to the last user message; OpenAI, a
 *   user message of its own. Kept in the history: later requests repeat it
 *   unchanged, and no earlier message is modified;
 * - a cache marker on the conversation's last block (Anthropic's fourth
 *   marker; OpenAI marks the previous request's end too, since it reads
 *   only at the request's own marks).
 *
 * `examples/sessions/ways.ts` keeps 0.2's advice frozen ("readme-0.2").
 *
 * @module
 */

import { type PromptAssembly, runtimeContextUpdate } from "../mod.ts";
import { toMessages } from "../adapters/anthropic/mod.ts";
import { promptCacheKey, toChatCompletions } from "../adapters/openai/mod.ts";
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
  /** Message index → the runtime-context updates sent after it. */
  updates?: Map<number, string[]>;
  /** The assembly whose runtime context the conversation last received. */
  sent?: PromptAssembly;
  /** The conversation of the previous request. */
  seen?: readonly SessionMessage[];
  /** OpenAI: the index of the message that ended the previous request. */
  lastEnd?: number;
}

/** The README's way (see the module documentation). */
export const readmeWay: Way = (
  { wire, assembly, messages, state, thread },
) => {
  const memory = state as LoopState;
  const before = memory.seen ?? [];
  const grew = before.length <= messages.length &&
    before.every((message, index) =>
      message.role === messages[index].role &&
      message.content === messages[index].content
    );
  if (!grew) {
    // The harness rewrote the conversation (compacted it): what was
    // inserted into it is gone, so the whole runtime context goes again.
    memory.updates = undefined;
    memory.sent = undefined;
    memory.lastEnd = undefined;
  }
  memory.seen = [...messages];
  const updates = memory.updates ??= new Map();
  // The runtime context goes after the last conversation item, only when
  // it changed since it was last sent, and stays there: later requests
  // repeat it unchanged.
  if (messages.length > 0) {
    const update = runtimeContextUpdate(memory.sent, assembly);
    memory.sent = assembly;
    if (update !== undefined) {
      const at = messages.length - 1;
      updates.set(at, [...updates.get(at) ?? [], update]);
    }
  }
  if (wire === "anthropic") {
    const { system, tools } = toMessages(assembly, {
      cache: { ttl: "1h" },
      gating: "keep",
    });
    return {
      ...(tools === undefined ? {} : { tools }),
      system,
      messages: anthropicMessages(messages, updates),
    };
  }
  const { system, tools, tool_choice, prompt_cache_key } = toChatCompletions(
    assembly,
    {
      cache: true,
      promptCacheKey: promptCacheKey(assembly, { session: thread }),
    },
  );
  return {
    ...(tools === undefined ? {} : { tools }),
    ...(tool_choice === undefined ? {} : { tool_choice }),
    prompt_cache_key,
    messages: [system, ...openAIMessages(messages, updates, memory)],
  };
};

const MARK = {
  prompt_cache_breakpoint: { mode: "explicit" },
} as const;

/**
 * The conversation as Anthropic messages: each runtime-context update a
 * text block appended to the user message it was sent with, the last
 * block marked (the conversation's breakpoint, the fourth marker).
 */
function anthropicMessages(
  messages: readonly SessionMessage[],
  updates: ReadonlyMap<number, readonly string[]>,
): Record<string, unknown>[] {
  // Always content blocks: a message reads the same in every request but
  // for the marker, which moves to the latest last block.
  const out: { role: string; content: Record<string, unknown>[] }[] = [];
  messages.forEach((message, index) => {
    out.push({
      role: message.role,
      content: [{ type: "text", text: message.content }],
    });
    const sent = updates.get(index) ?? [];
    if (sent.length === 0) return;
    const blocks = sent.map((text) => ({ type: "text", text }));
    // After the user's blocks (tool results first); after the assistant's
    // message, a user message of its own.
    if (message.role === "user") out[out.length - 1].content.push(...blocks);
    else out.push({ role: "user", content: blocks });
  });
  const last = out.at(-1)?.content;
  if (last !== undefined) {
    last[last.length - 1] = {
      ...last[last.length - 1],
      cache_control: { type: "ephemeral", ttl: "1h" },
    };
  }
  return out;
}

/**
 * The conversation as Chat Completions messages: each runtime-context
 * update a user message of its own after the message it followed. The
 * last message is marked for explicit caching, and so is the one that
 * ended the thread's previous request: OpenAI reads only at the request's
 * own marks, so that mark finds what the previous request wrote.
 */
function openAIMessages(
  messages: readonly SessionMessage[],
  updates: ReadonlyMap<number, readonly string[]>,
  memory: LoopState,
): Record<string, unknown>[] {
  const out: { role: string; content: string }[] = [];
  messages.forEach((message, index) => {
    out.push({ role: message.role, content: message.content });
    for (const update of updates.get(index) ?? []) {
      out.push({ role: "user", content: update });
    }
  });
  const marked = new Set([out.length - 1]);
  if (memory.lastEnd !== undefined) marked.add(memory.lastEnd);
  memory.lastEnd = out.length - 1;
  return out.map((message, index) => ({
    role: message.role,
    content: [
      marked.has(index)
        ? { type: "text", text: message.content, ...MARK }
        : { type: "text", text: message.content },
    ],
  }));
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
