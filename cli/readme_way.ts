/**
 * The request layout the README advises ("readme"), as `rxprompt simulate`
 * and `deno task bench:cache` build each step's request: through the
 * conversation object (SPEC 9.1, 9.8), one per thread and wire,
 * `anthropicConversation` for Anthropic Messages and `chatConversation`
 * with `cache: true` for OpenAI Chat Completions; Bedrock Converse and
 * Gemini, which have no conversation object yet, the stateless adapters'
 * way (`readme_way_stateless.ts`). The conversation applies
 * every rule of the request loop itself (runtime context after the last
 * item only when it changed, the conversation's marks, lifetimes from
 * `awaiting`, gates with the tools block kept, `prompt_cache_key`, tool
 * changes); this module only feeds it the session's turns:
 *
 * - the thread's new messages since the previous step, in order: an
 *   assistant turn is the answer to the pending request (`record()`, its
 *   tool calls as the provider's own blocks), a user turn's tool results
 *   go to `toolResult()` and its text to `user()`;
 * - then `request(context, { awaiting })` builds the step's body; on
 *   OpenAI the conversation has `promptCacheRetention: "24h"` as well as
 *   `cache: true`, so the same bodies serve both OpenAI rules: a request
 *   awaiting a person asks for automatic caching's extended retention and
 *   gets 12-hour explicit marks.
 *
 * A conversation the session rewrote (compacted) starts a new conversation.
 * On the first step after a restart (`resumed`), each conversation is saved
 * and resumed from its recording, as a harness that restarts would.
 *
 * `examples/sessions/ways.ts` keeps 0.2's advice frozen ("readme-0.2").
 *
 * @module
 */

import { type PromptAssembly, SystemPromptError } from "../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../adapters/anthropic/mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../adapters/openai/mod.ts";
import type {
  CacheProvider,
  SessionMessage,
  SessionRequest,
  SessionToolCall,
} from "../adapters/cache/mod.ts";
import { statelessWay } from "./readme_way_stateless.ts";

/**
 * The wire a way builds for: Anthropic Messages, OpenAI Chat Completions,
 * Bedrock Converse or Gemini `generateContent`.
 */
export type WayWire = "anthropic" | "openai" | "bedrock" | "gemini";

/** Every wire, in the order the runner builds them. */
export const WAY_WIRES: readonly WayWire[] = [
  "anthropic",
  "openai",
  "bedrock",
  "gemini",
];

/** The wire whose bodies a provider's rules read. */
export function wireOf(provider: CacheProvider): WayWire {
  return WIRE_OF[provider];
}

const WIRE_OF: Readonly<Record<CacheProvider, WayWire>> = {
  anthropic: "anthropic",
  openai: "openai",
  "openai-explicit": "openai",
  bedrock: "bedrock",
  gemini: "gemini",
};

/** What a way builds one step's request from. */
export interface WayInput {
  readonly wire: WayWire;
  /** The conversation the step belongs to. */
  readonly thread: string;
  readonly assembly: PromptAssembly;
  /** The same thread's previous assembly, if any. */
  readonly previous?: PromptAssembly;
  /**
   * The thread's conversation, oldest first, as plain text (tool calls and
   * results written into each turn's content).
   */
  readonly messages: readonly SessionMessage[];
  /** What the step returned (its messages with their tool rounds). */
  readonly request: SessionRequest;
  /** Sections the session's author knows to change during it. */
  readonly volatileSections: ReadonlySet<string>;
  /**
   * This way's own memory for this thread and wire, kept across steps (for
   * example the conversation object).
   */
  readonly state: Record<string, unknown>;
  /** The harness restarted before this step (its saved state resumed). */
  readonly resumed?: boolean;
}

/**
 * Builds one step's request body; `undefined` for a wire the way does not
 * build (the frozen ways predate Bedrock and Gemini).
 */
export type Way = (
  input: WayInput,
) =>
  | Record<string, unknown>
  | undefined
  | Promise<Record<string, unknown> | undefined>;

/** The part of a conversation the way drives (every provider form has it). */
interface Driven {
  user(input: string): void;
  toolResult(
    id: string,
    content: string,
    options?: { isError?: boolean },
  ): void;
  request(
    context?: unknown,
    options?: { awaiting?: "person" | "agent" },
  ): Promise<unknown>;
  record(answer: unknown): unknown;
  save(): string;
}

/** What the README's way remembers per thread and wire. */
interface LoopState {
  conversation?: Driven;
  /** The messages the conversation has been given. */
  seen?: readonly SessionMessage[];
  /** A request was built and waits for its answer. */
  pending?: boolean;
  /** Who answers next, as the pending request said. */
  awaiting?: "person" | "agent";
  /** Of `seen`, the messages the conversation has committed. */
  committed?: number;
  /** The conversation's recording, when resumed in another process. */
  recording?: string;
  /** The assembly the conversation's next request() reads. */
  assembly?: PromptAssembly;
  toolChanges?: "rebuild" | "inline";
  /** Answers synthesised so far (their ids). */
  answers?: number;
}

/** Options of {@linkcode readmeWayWith}. */
export interface ReadmeWayOptions {
  /** Anthropic tool changes when a step does not say (default `"rebuild"`). */
  toolChanges?: "rebuild" | "inline";
}

const MODEL = { anthropic: "claude-sonnet-4-5", openai: "gpt-5.6" } as const;

/** The README's way with `options` (see the module documentation). */
export function readmeWayWith(options: ReadmeWayOptions = {}): Way {
  return async (input) => {
    if (input.wire === "bedrock" || input.wire === "gemini") {
      // No conversation object yet: the adapters, the loop by hand.
      return statelessWay(input.wire, input);
    }
    const memory = input.state as LoopState;
    const toolChanges = input.request.toolChanges ?? memory.toolChanges ??
      options.toolChanges ?? "rebuild";
    const messages = input.request.messages;
    const before = memory.seen ?? [];
    const grew = before.length <= messages.length &&
      before.every((message, index) => same(message, messages[index]));
    const saved = memory.recording !== undefined && input.resumed === true;
    if (!grew || (memory.conversation === undefined && !saved)) {
      // The first step, or the harness rewrote the conversation (compacted
      // it): a new conversation, which sends the whole runtime context.
      memory.conversation = start(input, memory, toolChanges);
      memory.seen = [];
      memory.committed = 0;
      memory.pending = false;
      memory.toolChanges = toolChanges;
    } else if (toolChanges !== memory.toolChanges) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `The step asks for toolChanges "${toolChanges}", but thread ` +
          `"${input.thread}" started with "${memory.toolChanges}"; a ` +
          `conversation's tool changes are fixed by its first step.`,
      );
    } else if (input.resumed === true) {
      // The harness restarted while its last request was in flight: the
      // conversation resumes from what it recorded, is given that
      // request's inputs again and rebuilds it (a retry: the same body).
      memory.conversation = resume(input.wire, memory, toolChanges);
      const inputs = memory.seen!.slice(memory.committed ?? 0);
      memory.assembly = input.previous ?? input.assembly;
      if (memory.pending === true) {
        for (const message of inputs) give(memory.conversation, message);
        await memory.conversation.request(undefined, {
          awaiting: memory.awaiting,
        });
      }
    }
    memory.assembly = input.assembly;
    const conversation = memory.conversation!;
    const seen = memory.seen!.length;
    for (const [at, message] of messages.slice(seen).entries()) {
      if (message.role === "assistant") {
        // An answer needs a request: a history the session starts with is
        // replayed through requests that are not sent.
        if (memory.pending !== true) await conversation.request();
        conversation.record(answerOf(input.wire, message, memory));
        memory.pending = false;
        memory.committed = seen + at + 1;
        continue;
      }
      give(conversation, message);
    }
    memory.seen = [...messages];
    const awaiting = input.request.awaiting ?? "agent";
    const body = await conversation.request(undefined, { awaiting });
    memory.pending = true;
    memory.awaiting = awaiting;
    return body as Record<string, unknown>;
  };
}

/**
 * A way's memory (`WayInput.state`) as plain JSON, its conversation as the
 * recording `save()` returns: what a harness keeps to resume in another
 * process (`runSession`'s `resumeAt` and `states`).
 */
export function savedState(
  state: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const { conversation, assembly: _assembly, ...rest } = state as LoopState;
  return JSON.parse(JSON.stringify({
    ...rest,
    ...(conversation === undefined ? {} : { recording: conversation.save() }),
  }));
}

/** A user turn's tool results and text, as inputs of the next request. */
function give(conversation: Driven, message: SessionMessage): void {
  for (const result of message.toolResults ?? []) {
    conversation.toolResult(result.id, result.content, {
      isError: result.isError ?? false,
    });
  }
  if (message.content !== "" || message.toolResults === undefined) {
    conversation.user(message.content);
  }
}

/** The README's way (see the module documentation). */
export const readmeWay: Way = readmeWayWith();

/** A prompt whose assembly is the step's, assembled once by the runner. */
function promptOf(memory: LoopState): {
  assemble(): Promise<PromptAssembly>;
} {
  return { assemble: () => Promise.resolve(memory.assembly!) };
}

function start(
  { wire, thread }: WayInput,
  memory: LoopState,
  toolChanges: "rebuild" | "inline",
): Driven {
  const prompt = promptOf(memory);
  // A session id of the thread's own: runs of a session build the same
  // bytes (OpenAI's prompt_cache_key included).
  const session = `simulate-${thread}`;
  if (wire === "anthropic") {
    const options = { model: MODEL.anthropic, max_tokens: 4096, session };
    return (toolChanges === "inline"
      ? anthropicConversation(prompt, { ...options, toolChanges })
      : anthropicConversation(prompt, options)) as unknown as Driven;
  }
  return chatConversation(prompt, {
    model: MODEL.openai,
    cache: true,
    promptCacheRetention: "24h",
    session,
  }) as unknown as Driven;
}

/** The conversation saved to its recording and resumed from it. */
function resume(
  wire: "anthropic" | "openai",
  memory: LoopState,
  toolChanges: "rebuild" | "inline",
): Driven {
  const saved = memory.recording ?? memory.conversation!.save();
  memory.recording = undefined;
  const prompt = promptOf(memory);
  if (wire === "anthropic") {
    return (toolChanges === "inline"
      ? resumeAnthropicConversation(prompt, saved, { toolChanges })
      : resumeAnthropicConversation(prompt, saved)) as unknown as Driven;
  }
  return resumeChatConversation(prompt, saved) as unknown as Driven;
}

function same(a: SessionMessage, b: SessionMessage | undefined): boolean {
  return b !== undefined && a.role === b.role && a.content === b.content &&
    JSON.stringify(a.toolCalls) === JSON.stringify(b.toolCalls) &&
    JSON.stringify(a.toolResults) === JSON.stringify(b.toolResults);
}

/** The SDK's answer object for an assistant turn of the session. */
function answerOf(
  wire: "anthropic" | "openai",
  message: SessionMessage,
  memory: LoopState,
): unknown {
  const n = memory.answers = (memory.answers ?? 0) + 1;
  const calls: readonly SessionToolCall[] = message.toolCalls ?? [];
  if (wire === "anthropic") {
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: MODEL.anthropic,
      content: [
        ...(message.content === ""
          ? []
          : [{ type: "text", text: message.content }]),
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
  }
  return {
    id: `chatcmpl_${n}`,
    object: "chat.completion",
    model: MODEL.openai,
    choices: [{
      index: 0,
      finish_reason: calls.length === 0 ? "stop" : "tool_calls",
      message: {
        role: "assistant",
        content: message.content === "" ? null : message.content,
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
}

/**
 * The thread's messages as plain text, for the ways that send text only:
 * an assistant turn's tool calls and a user turn's tool results written
 * into its content.
 */
export function plainMessages(
  messages: readonly SessionMessage[],
): SessionMessage[] {
  return messages.map((message) => {
    const calls = (message.toolCalls ?? []).map((call) =>
      `[call ${call.id} ${call.name} ${JSON.stringify(call.input)}]`
    );
    const results = (message.toolResults ?? []).map((result) =>
      `[result ${result.id}${result.isError === true ? " (error)" : ""}]\n` +
      result.content
    );
    if (calls.length === 0 && results.length === 0) {
      return { role: message.role, content: message.content };
    }
    const parts = message.role === "assistant"
      ? [message.content, ...calls]
      : [...results, message.content];
    return {
      role: message.role,
      content: parts.filter((part) => part !== "").join("\n"),
    };
  });
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
