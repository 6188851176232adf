/**
 * What the example sessions share: a conversation per thread that grows by
 * a user turn and an assistant turn per step, and tool schemas of a
 * realistic size.
 *
 * @module
 */

import type { ToolSchema } from "../../mod.ts";
import type { SessionMessage } from "../../adapters/cache/mod.ts";
import { assistantTurn, seeded, type Topic, userTurn } from "./_text.ts";

/** The conversations of a session, one per thread, from one seed. */
export class Conversations {
  readonly #random: () => number;
  readonly #threads = new Map<string, SessionMessage[]>();

  constructor(seed: number) {
    this.#random = seeded(seed);
  }

  /** Adds a user turn and an assistant turn to `thread`; its messages. */
  turn(thread: string, topic: Topic): SessionMessage[] {
    const messages = this.#threads.get(thread) ?? [];
    this.#threads.set(thread, messages);
    messages.push({ role: "user", content: userTurn(this.#random, topic) });
    messages.push({
      role: "assistant",
      content: assistantTurn(this.#random, topic),
    });
    // The request carries the thread so far; the last assistant turn is
    // the answer to it, so it is sent as part of the next step.
    return [...messages.slice(0, -1)];
  }
}

/** A tool schema with a description and parameters of a realistic size. */
export function tool(
  name: string,
  description: string,
  properties: Record<string, string>,
): ToolSchema {
  return {
    name,
    description,
    parameters: {
      type: "object",
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, about]) => [
          key,
          { type: "string", description: about },
        ]),
      ),
      required: Object.keys(properties).slice(0, 1),
    },
  };
}

/** The ISO date `days` after 2026-12-01. */
export function date(days: number): string {
  return new Date(Date.UTC(2026, 11, 1 + days)).toISOString().slice(0, 10);
}
