/**
 * What the conversation's report reads from its recording (SPEC 9.3,
 * 9.8): each committed step's whole body rebuilt from the step's tail,
 * head and marks, what the provider reported, when, and the registration
 * behind a change; and the provenance a step records. Pure: the shell
 * (`conversation.ts`) and `rxprompt report` call it with the wire's reading
 * of an answer.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import {
  aiSdkFields,
  groupMessage,
  groupRole,
  isObject,
  withMark,
} from "./ai_sdk_body.ts";
import {
  type GrowingBody,
  type GrowingRequest,
  wholeBody,
} from "../cache/report/growing.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import { renderPromptBlocks } from "../render/blocks.ts";
import { readReportedUsage } from "../cache/report/reported.ts";
import type {
  ReportedUsage,
  UsageSource,
} from "../cache/report/usage_types.ts";
import type { ReportedRequest } from "../cache/report/types.ts";
import type { CacheProvider } from "../cache/simulator/types.ts";
import type {
  RecordingHeader,
  RecordingOrigin,
  RecordingProvenance,
  RecordingStep,
} from "./recording.ts";

/** The usage reader of each wire. */
const SOURCES: Readonly<Record<string, UsageSource>> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai-chat",
  "openai-responses": "openai-responses",
  "ai-sdk": "ai-sdk",
};

/** The wire's usage source for `readReportedUsage`. */
export function usageSourceOf(provider: string): UsageSource {
  return SOURCES[provider] ?? "anthropic";
}

/**
 * The cache model a recording's wire follows: Anthropic's, OpenAI's
 * explicit breakpoints (the `cache` option) or its automatic cache;
 * `undefined` for the AI SDK, whose request bodies are call options, not
 * a provider's wire (its report reads them as Anthropic bodies:
 * {@linkcode reportProviderOf}).
 */
export function cacheProviderOf(
  header: Pick<RecordingHeader, "provider" | "options">,
): CacheProvider | undefined {
  switch (header.provider) {
    case "anthropic-messages":
      return "anthropic";
    case "openai-chat":
    case "openai-responses":
      return header.options.cache === undefined ? "openai" : "openai-explicit";
    default:
      return undefined;
  }
}

/**
 * The cache model a recording's report follows: the wire's, and
 * Anthropic's for the AI SDK, whose steps the report lays out as the
 * Anthropic bodies `@ai-sdk/anthropic` sends (its marks are Anthropic's).
 */
export function reportProviderOf(
  header: Pick<RecordingHeader, "provider" | "options">,
): CacheProvider {
  return cacheProviderOf(header) ?? "anthropic";
}

/** What a step's usage reads as: kept at record time, else read again. */
export function reportedOf(
  step: RecordingStep,
  source: UsageSource,
): ReportedUsage {
  if (isObject(step.reported) && isObject(step.reported.diagnosis)) {
    return step.reported as unknown as ReportedUsage;
  }
  return readReportedUsage(step.response, source);
}

/** The provenance of an explained assembly's system blocks and tools. */
export function provenanceOf(
  explanation: PromptExplanation,
): RecordingProvenance {
  const origin = (
    entry: PromptExplanation["tools"][number],
  ): RecordingOrigin => ({
    name: entry.name,
    ...(entry.registrar === undefined ? {} : { registrar: entry.registrar }),
    layer: entry.layer,
    ...(entry.scope === undefined ? {} : { scope: entry.scope }),
    ...(entry.stability === undefined ? {} : { stability: entry.stability }),
  });
  const sections = new Map(
    explanation.sections.map((entry) => [entry.name, entry]),
  );
  let blocks: { sections: RecordingOrigin[] }[] = [];
  try {
    blocks = renderPromptBlocks(explanation.assembly).map((block) => ({
      sections: block.sections.map((name) => {
        const found = sections.get(name);
        return found === undefined
          ? { name, layer: "listener" as const }
          : origin(found as PromptExplanation["tools"][number]);
      }),
    }));
  } catch {
    // An assembly that does not render has no blocks to name.
  }
  return { system: blocks, tools: explanation.tools.map(origin) };
}

/**
 * The requests of a recording as `cacheReport` takes them: each step's
 * whole body (its head, the history so far and its tail, the marks put
 * back), its reported usage, its time and the contributor it recorded.
 * `read` gives the messages an answer added to the history (the wire's).
 * An AI SDK step's body is the Anthropic body `@ai-sdk/anthropic` sends.
 *
 * @throws {SystemPromptError} `RECORDING_OTHER_PROVIDER` for a recording
 * of none of the four wires
 */
export function recordedRequests(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  read: (response: unknown) => readonly unknown[],
): ReportedRequest[] {
  return growingRequests(header, steps, read).map((request) => ({
    ...request,
    body: wholeBody(request.body),
  }));
}

/**
 * The requests of a recording as `growingCacheReport` takes them: each
 * step's body as the history the steps share, grown by the step's tail,
 * with the step's marked items and head; its reported usage, its time and
 * the contributor it recorded. Linear in the recording: each message is
 * laid out once (a marked one again for the step that marks it).
 *
 * @throws {SystemPromptError} `RECORDING_OTHER_PROVIDER` for a recording
 * of none of the four wires
 */
export function growingRequests(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  read: (response: unknown) => readonly unknown[],
): GrowingRequest[] {
  const layout = LAYOUTS[header.provider]?.();
  if (layout === undefined) {
    throw new SystemPromptError(
      "RECORDING_OTHER_PROVIDER",
      `A cache report reads a recording of an anthropic-messages, ` +
        `openai-chat, openai-responses or ai-sdk conversation; this one is ` +
        `of a ${JSON.stringify(header.provider)} conversation.`,
    );
  }
  const source = usageSourceOf(header.provider);
  let head: Record<string, unknown> = {};
  const requests: GrowingRequest[] = [];
  for (const step of steps) {
    if (step.head !== undefined) head = step.head;
    const time = Date.parse(step.sent ?? step.time);
    const request: GrowingRequest = {
      body: layout.request(head, step.tail, step.marks),
      usage: reportedOf(step, source),
      thread: header.session,
      ...(Number.isNaN(time) ? {} : { time }),
      ...(step.contributor === undefined
        ? {}
        : { contributor: step.contributor }),
    };
    requests.push(request);
    layout.answered(read(step.response));
  }
  return requests;
}

/** How a wire lays its steps out: the history grown step by step. */
interface Layout {
  /** A step's body: its head, its tail joining the history, its marks. */
  request(
    head: Record<string, unknown>,
    tail: readonly unknown[],
    marks: RecordingStep["marks"],
  ): GrowingBody;
  /** The answer's messages join the history. */
  answered(messages: readonly unknown[]): void;
}

/** Each wire's layout of a recording's steps. */
const LAYOUTS: Readonly<Record<string, () => Layout>> = {
  "anthropic-messages": () => new MessagesLayout("anthropic"),
  "openai-chat": () => new MessagesLayout("chat"),
  "openai-responses": () => new MessagesLayout("responses"),
  "ai-sdk": () => new AiSdkLayout(),
};

/**
 * A wire whose body carries the history as it is: Anthropic's `messages`
 * (the head the rest of the body), OpenAI's `messages` or `input` after
 * the head's system message; a mark goes on its part (`content`, or a
 * Responses item's `output`).
 */
class MessagesLayout implements Layout {
  readonly #wire: "anthropic" | "chat" | "responses";
  #items: unknown[] = [];
  #head: Record<string, unknown> | undefined;
  #fields: Record<string, unknown> = {};
  #system: string | undefined;

  constructor(wire: "anthropic" | "chat" | "responses") {
    this.#wire = wire;
  }

  request(
    head: Record<string, unknown>,
    tail: readonly unknown[],
    marks: RecordingStep["marks"],
  ): GrowingBody {
    if (head !== this.#head) this.#newHead(head);
    for (const message of tail) this.#items.push(message);
    const key = this.#wire === "anthropic"
      ? "cache_control"
      : "prompt_cache_breakpoint";
    const replaced = new Map<number, unknown>();
    for (const { message, block, mark } of marks) {
      const item = replaced.has(message)
        ? replaced.get(message)
        : this.#items[message];
      const marked = markedItem(item, block, { [key]: mark });
      if (marked !== item) replaced.set(message, marked);
    }
    return {
      fields: this.#fields,
      name: this.#wire === "responses" ? "input" : "messages",
      items: this.#items,
      count: this.#items.length,
      replaced,
      extra: [],
    };
  }

  answered(messages: readonly unknown[]): void {
    for (const message of messages) this.#items.push(message);
  }

  #newHead(head: Record<string, unknown>): void {
    this.#head = head;
    if (this.#wire === "anthropic") {
      this.#fields = head;
      return;
    }
    const { system, ...rest } = head;
    this.#fields = rest;
    // The system message is the first item: a new one starts new items.
    const json = JSON.stringify(system) ?? "undefined";
    if (json === this.#system) return;
    this.#system = json;
    this.#items = [system, ...this.#items.slice(1)];
  }
}

/**
 * The AI SDK's steps as the Anthropic bodies `@ai-sdk/anthropic` sends:
 * consecutive messages of one role are one provider message, and the
 * last one is laid out as a last (an assistant's text trimmed), so the
 * history shared between steps is the groups a later one closed; a
 * step's last group, and a group it marks, are its own.
 */
class AiSdkLayout implements Layout {
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
    marks: RecordingStep["marks"],
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
      const after = withMark(before, block, mark);
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

/**
 * The item with `mark` on its part `block` (`content`, or a Responses
 * item's `output`), or the item itself when it has no such part.
 */
function markedItem(
  item: unknown,
  block: number,
  mark: Record<string, unknown>,
): unknown {
  if (!isObject(item)) return item;
  const field = Array.isArray(item.content) ? "content" : "output";
  const parts = item[field];
  if (!Array.isArray(parts) || !isObject(parts[block])) return item;
  const copy = [...parts];
  copy[block] = { ...parts[block], ...mark };
  return { ...item, [field]: copy };
}
