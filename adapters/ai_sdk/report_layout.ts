/**
 * How the report lays an AI SDK conversation's recorded steps out (issue
 * 49): as the Anthropic bodies `@ai-sdk/anthropic` sends, each message of
 * the history grouped once.
 *
 * @module
 */

import type { GrowingBody } from "../../src/cache/report/growing.ts";
import type { MarkSites } from "../../src/conversation/marks.ts";
import type { RecordingMark } from "../../src/conversation/recording.ts";
import {
  markedItem,
  type RecordLayout,
} from "../../src/conversation/report_layout.ts";
import {
  aiSdkFields,
  groupMessage,
  groupRole,
  isObject,
} from "./anthropic_body.ts";
import { AI_SDK_SITES } from "./marks.ts";

/**
 * The AI SDK's steps as the Anthropic bodies `@ai-sdk/anthropic` sends:
 * consecutive messages of one role are one provider message, and the
 * last one is laid out as a last (an assistant's text trimmed), so the
 * history shared between steps is the groups a later one closed; a
 * step's last group, and a group it marks, are its own.
 */
export class AiSdkLayout implements RecordLayout {
  readonly #history: unknown[] = [];
  /** Each group: its role and messages, and its item (-1: nothing sent). */
  readonly #groups: {
    role: "user" | "assistant";
    messages: Json[];
    indices: number[];
    item: number;
  }[] = [];
  /** The group of each message of the history (-1: not a message). */
  readonly #groupOf: number[] = [];
  /** The closed groups' provider messages. */
  readonly #items: unknown[] = [];
  /** How many groups are closed (laid out in `#items`). */
  #closed = 0;
  #head: Record<string, unknown> | undefined;
  #fields: Record<string, unknown> = {};

  request(
    head: Record<string, unknown>,
    tail: readonly unknown[],
    marks: readonly RecordingMark[],
  ): GrowingBody {
    if (head !== this.#head) {
      this.#head = head;
      // The messages hold their place, after the system, as the provider
      // lays the body out (a whole body is the fields with the messages).
      const { system, ...tools } = aiSdkFields(head);
      this.#fields = { system, messages: undefined, ...tools };
    }
    this.answered(tail);
    const groups = this.#groups;
    const last = groups.length - 1;
    // Every group but the last is closed: its provider message is shared.
    for (; this.#closed < last; this.#closed++) {
      const group = groups[this.#closed];
      const item = groupMessage(group, false);
      group.item = item === undefined ? -1 : this.#items.push(item) - 1;
    }
    const marked = new Map<number, unknown>();
    for (const { message, block, mark } of marks) {
      const before = marked.has(message)
        ? marked.get(message)
        : this.#history[message];
      const after = markedItem(
        before,
        block,
        mark,
        AI_SDK_SITES as MarkSites<unknown>,
      );
      if (after !== before) marked.set(message, after);
    }
    const touched = new Set<number>();
    for (const message of marked.keys()) {
      const group = this.#groupOf[message];
      if (group !== undefined && group >= 0) touched.add(group);
    }
    const replaced = new Map<number, unknown>();
    for (const index of touched) {
      const group = groups[index];
      if (index === last || group.item < 0) continue;
      const item = groupMessage(markedGroup(group, marked), false);
      if (item !== undefined) replaced.set(group.item, item);
    }
    const extra: unknown[] = [];
    if (last >= 0) {
      const item = groupMessage(markedGroup(groups[last], marked), true);
      if (item !== undefined) extra.push(item);
    }
    return {
      fields: this.#fields,
      name: "messages",
      items: this.#items,
      count: this.#items.length,
      replaced,
      extra,
    };
  }

  answered(messages: readonly unknown[]): void {
    for (const message of messages) {
      const at = this.#history.push(message) - 1;
      if (!isObject(message)) {
        this.#groupOf.push(-1);
        continue;
      }
      const role = groupRole(message);
      const last = this.#groups.at(-1);
      if (last?.role === role) {
        last.messages.push(message);
        last.indices.push(at);
      } else {
        // -2: not laid out yet (the group is open).
        this.#groups.push({
          role,
          messages: [message],
          indices: [at],
          item: -2,
        });
      }
      this.#groupOf.push(this.#groups.length - 1);
    }
  }
}

type Json = Record<string, unknown>;

/** A group with its marked messages in place of its own. */
function markedGroup(
  group: { role: "user" | "assistant"; messages: Json[]; indices: number[] },
  marked: ReadonlyMap<number, unknown>,
): { role: "user" | "assistant"; messages: Json[] } {
  if (!group.indices.some((at) => marked.has(at))) return group;
  return {
    role: group.role,
    messages: group.messages.map((message, at) =>
      (marked.get(group.indices[at]) as Json | undefined) ?? message
    ),
  };
}
