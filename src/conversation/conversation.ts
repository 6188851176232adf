/**
 * `Conversation`: the request loop as an object (SPEC 9.1, 9.8). A thin
 * stateful shell around the committed state; the bytes come from the
 * provider's wire (adapters/) and the pure rules of this room.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { renderRuntimeContext } from "../render/prompt.ts";
import { updateOfTexts } from "../render/runtime_context_update.ts";
import {
  listedAssembly,
  type ListedTool,
  nextToolSet,
  refusalText,
} from "./tool_set.ts";
import {
  type ParsedRecording,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordingHeader,
  recordingLine,
  type RecordingStep,
} from "./recording.ts";
import type {
  Awaiting,
  ConversationWire,
  ToolCall,
  WireBuilt,
  WireResult,
} from "./wire.ts";

/**
 * What a conversation assembles its system prompt and tools from: a
 * `SystemPrompt` (or anything with its `assemble`).
 *
 * @example
 * ```ts
 * import { type ConversationPrompt, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt: ConversationPrompt = new SystemPrompt();
 * await prompt.assemble();
 * ```
 */
export interface ConversationPrompt<
  C extends AssembleContext = AssembleContext,
> {
  /** Assembles one step (`SystemPrompt.assemble`). */
  assemble(context?: C): Promise<PromptAssembly>;
}

/**
 * The options every form of the conversation takes.
 *
 * @example
 * ```ts
 * import type { ConversationOptions } from "@rxprompt/system-prompt";
 *
 * const lines: string[] = [];
 * const options: ConversationOptions = {
 *   awaiting: "person",
 *   onRecord: (line) => lines.push(line),
 * };
 * ```
 */
export interface ConversationOptions {
  /**
   * Who answers next, when `request()` does not say (default `"agent"`):
   * `"person"` gives every cache mark of the request a long lifetime.
   */
  awaiting?: Awaiting;
  /** The session id (default: a random UUID); OpenAI's cache-key session. */
  session?: string;
  /**
   * The first line of a runtime-context update (default
   * `"Runtime context (replaces any earlier runtime context):"`).
   */
  header?: string;
  /**
   * Called with each line of the recording as it is committed (the header
   * first), each ending with a newline: append them to a file or a row.
   */
  onRecord?: (line: string) => void;
}

/**
 * Options of {@linkcode Conversation.request}.
 *
 * @example
 * ```ts
 * import type { RequestOptions } from "@rxprompt/system-prompt";
 *
 * const options: RequestOptions = { awaiting: "person" };
 * ```
 */
export interface RequestOptions {
  /** Who answers the request after this one (default: the option's). */
  awaiting?: Awaiting;
}

/**
 * How a resumed conversation was read.
 *
 * @example
 * ```ts
 * import type { ResumeInfo } from "@rxprompt/system-prompt";
 *
 * const info: ResumeInfo = { steps: 3, truncated: false };
 * ```
 */
export interface ResumeInfo {
  /** The committed steps read. */
  readonly steps: number;
  /** The recording's last line was cut mid-way and left out. */
  readonly truncated: boolean;
}

/** The committed state: everything the next request's bytes depend on. */
interface Committed<M> {
  readonly history: readonly M[];
  readonly previousLength: number;
  readonly runtimeText: string;
  readonly listed: readonly ListedTool[] | undefined;
  /** The calls of the last answer, in order. */
  readonly calls: readonly ToolCall[];
  readonly steps: number;
  readonly head: string | undefined;
  readonly state: Readonly<Record<string, unknown>>;
}

/** A body built and not yet recorded. */
interface Built<M, Body> {
  readonly wire: WireBuilt<M, Body>;
  readonly personCount: number;
  readonly listed: readonly ListedTool[];
  readonly toolsChanged: boolean;
  readonly runtimeText: string;
  readonly sentUpdate: boolean;
  readonly allowed: string[] | undefined;
  readonly awaiting: Awaiting;
}

const EMPTY_STATE: Committed<never> = {
  history: [],
  previousLength: 0,
  runtimeText: "",
  listed: undefined,
  calls: [],
  steps: 0,
  head: undefined,
  state: {},
};

/**
 * One agent conversation: keeps the history as sent and builds each
 * step's whole request body (system, tools, messages, cache marks), cache
 * optimal, for one provider. Made by the provider forms:
 * `anthropicConversation` (`./anthropic`), `chatConversation` (`./openai`),
 * and resumed from a recording by `resumeAnthropicConversation` /
 * `resumeChatConversation`.
 *
 * `request()` builds the next body without committing it (a retry builds
 * it again from the same state); `record(answer)` commits it with the
 * answer and returns the tool calls to run. Person messages (`user()`) and
 * tool results (`toolResult()`) are inputs of the next request.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You are terse." });
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 256 });
 * conv.user("Hello.");
 * const body = await conv.request();
 * console.log(body.messages.length); // 1
 * await prompt.dispose();
 * ```
 */
export interface Conversation<
  Body,
  Answer,
  Input,
  Result,
  Message,
  C extends AssembleContext = AssembleContext,
> {
  /** The conversation's session id (kept across save and resume). */
  readonly session: string;
  /** Set on a resumed conversation: how its recording was read. */
  readonly resumed: ResumeInfo | undefined;
  /** The committed history, as sent (cache marks removed); frozen. */
  readonly messages: readonly Message[];
  /** The calls of the last answer still waiting for a result. */
  readonly openCalls: readonly ToolCall[];
  /** A person's message (text or content blocks): an input of the next request. */
  user(input: Input): void;
  /**
   * The result of one tool call of the last answer: an input of the next
   * request. Results go in the order of the calls, whatever order they are
   * given in; `isError` marks a failure.
   */
  toolResult(id: string, content: Result, options?: ToolResultOptions): void;
  /**
   * Builds the next request's whole body from the committed state, the
   * inputs given since, and this step's assembly. Nothing is committed
   * until `record()`: calling it again (a retry) builds from the same
   * state.
   */
  request(context?: C, options?: RequestOptions): Promise<Body>;
  /**
   * Commits the last body `request()` built with the model's answer (the
   * SDK's own response object) and returns the tool calls to run. Calls of
   * tools the gates left inactive are answered by the conversation itself
   * with a refusal and are not returned.
   */
  record(answer: Answer): ToolCall[];
  /**
   * The whole recording so far (JSON lines: the header, then one line per
   * committed step): what the resume functions read back.
   */
  save(): string;
}

/**
 * Options of {@linkcode Conversation.toolResult}.
 *
 * @example
 * ```ts
 * import type { ToolResultOptions } from "@rxprompt/system-prompt";
 *
 * const options: ToolResultOptions = { isError: true };
 * ```
 */
export interface ToolResultOptions {
  /** The call failed: the content says why. Default `false`. */
  isError?: boolean;
}

/** The shell behind every provider form (internal). */
export class ConversationShell<
  Body,
  Answer,
  Input,
  Result,
  M = unknown,
  C extends AssembleContext = AssembleContext,
> implements Conversation<Body, Answer, Input, Result, M, C> {
  readonly #prompt: ConversationPrompt<C>;
  readonly #wire: ConversationWire<M, Body>;
  readonly #awaiting: Awaiting;
  readonly #header: string | undefined;
  readonly #onRecord: ((line: string) => void) | undefined;
  readonly #lines: string[] = [];
  #committed: Committed<M> = EMPTY_STATE;
  #person: unknown[] = [];
  #results = new Map<string, { content: unknown; isError: boolean }>();
  #built: Built<M, Body> | undefined;
  #building = false;
  readonly session: string;
  readonly resumed: ResumeInfo | undefined;

  constructor(
    prompt: ConversationPrompt<C>,
    wire: ConversationWire<M, Body>,
    options: ConversationOptions = {},
    recording?: ParsedRecording,
  ) {
    this.#prompt = prompt;
    this.#wire = wire;
    this.#awaiting = readAwaiting(options.awaiting, "agent");
    this.#header = options.header;
    this.#onRecord = options.onRecord;
    if (recording === undefined) {
      this.session = options.session ?? globalThis.crypto.randomUUID();
      this.resumed = undefined;
      return;
    }
    const parsed = recording;
    this.session = parsed.header.session;
    this.#committed = this.#replay(parsed);
    this.#lines.push(recordingLine(parsed.header));
    for (const step of parsed.steps) this.#lines.push(recordingLine(step));
    this.resumed = { steps: parsed.steps.length, truncated: parsed.truncated };
  }

  get messages(): readonly M[] {
    return this.#committed.history;
  }

  get openCalls(): readonly ToolCall[] {
    return this.#committed.calls.filter((call) => !this.#results.has(call.id));
  }

  user(input: Input): void {
    this.#person.push(...this.#wire.personInput(input));
  }

  toolResult(id: string, content: Result, options?: ToolResultOptions): void {
    const call = this.#committed.calls.find((open) => open.id === id);
    if (call === undefined) {
      const open = this.openCalls.map((c) => JSON.stringify(c.id));
      throw new SystemPromptError(
        "UNKNOWN_TOOL_CALL",
        `No call of the last answer has id ${JSON.stringify(id)}; the calls ` +
          `waiting for a result are ${
            open.length === 0 ? "none" : open.join(", ")
          }.`,
      );
    }
    if (this.#results.has(id)) {
      throw new SystemPromptError(
        "DUPLICATE_TOOL_RESULT",
        `Call ${JSON.stringify(id)} (tool ${
          JSON.stringify(call.name)
        }) already has a result; each call gets one.`,
      );
    }
    const isError = options?.isError ?? false;
    if (typeof isError !== "boolean") {
      throw new SystemPromptError(
        "INVALID_CONVERSATION_INPUT",
        `toolResult's isError must be true or false; got ${String(isError)}.`,
      );
    }
    this.#results.set(id, {
      content: this.#wire.resultContent(content, id),
      isError,
    });
  }

  async request(context?: C, options?: RequestOptions): Promise<Body> {
    if (this.#building) {
      throw new SystemPromptError(
        "CONVERSATION_BUSY",
        `request() was called while another request() of this ` +
          `conversation was still being built; await it first.`,
      );
    }
    const awaiting = readAwaiting(options?.awaiting, this.#awaiting);
    this.#building = true;
    try {
      const assembly = await this.#prompt.assemble(context);
      const built = this.#build(assembly, awaiting);
      this.#built = built;
      return built.wire.body;
    } finally {
      this.#building = false;
    }
  }

  record(answer: Answer): ToolCall[] {
    if (this.#building) {
      throw new SystemPromptError(
        "CONVERSATION_BUSY",
        `record() was called while request() was still building the body; ` +
          `await request(), send its body, then record the answer.`,
      );
    }
    const built = this.#built;
    if (built === undefined) {
      throw new SystemPromptError(
        "NOTHING_PENDING",
        `record() has no request to commit the answer to; call request(), ` +
          `send the body it returns, then record its answer.`,
      );
    }
    const read = this.#wire.read(answer);
    const before = this.#committed;
    const wire = built.wire;
    const head = JSON.stringify(wire.head);
    const state = JSON.stringify(wire.state);
    const step: RecordingStep = {
      step: before.steps + 1,
      at: before.history.length,
      tail: wire.tail,
      marks: wire.marks,
      ...(head === before.head ? {} : { head: wire.head }),
      ...(built.toolsChanged ? { tools: [...built.listed] } : {}),
      ...(state === JSON.stringify(before.state) ? {} : { state: wire.state }),
      ...(built.sentUpdate ? { runtimeContext: built.runtimeText } : {}),
      ...(built.allowed === undefined ? {} : { allowedTools: built.allowed }),
      awaiting: built.awaiting,
      response: this.#wire.recordOf?.(answer) ?? copy(answer),
      usage: read.usage ?? null,
      time: new Date().toISOString(),
    };
    const lines = before.steps === 0 && this.#lines.length === 0
      ? [recordingLine(this.#headerRecord()), recordingLine(step)]
      : [recordingLine(step)];
    this.#committed = {
      history: [
        ...before.history,
        ...wire.tail,
        ...read.messages.map(deepFreeze),
      ],
      previousLength: before.history.length + wire.tail.length,
      runtimeText: built.runtimeText,
      listed: built.listed,
      calls: read.calls,
      steps: step.step,
      head,
      state: wire.state,
    };
    this.#built = undefined;
    this.#person = this.#person.slice(built.personCount);
    this.#results = this.#refusals(read.calls, built.allowed);
    this.#lines.push(...lines);
    for (const line of lines) this.#onRecord?.(line);
    return read.calls.filter((call) => !this.#results.has(call.id));
  }

  save(): string {
    if (this.#lines.length === 0) return recordingLine(this.#headerRecord());
    return this.#lines.join("");
  }

  /** The refusals the conversation itself gives calls of inactive tools. */
  #refusals(
    calls: readonly ToolCall[],
    allowed: readonly string[] | undefined,
  ): Map<string, { content: unknown; isError: boolean }> {
    const results = new Map<string, { content: unknown; isError: boolean }>();
    if (allowed === undefined) return results;
    const active = new Set(allowed);
    for (const call of calls) {
      if (!active.has(call.name)) {
        const text = refusalText(call.name, allowed);
        results.set(call.id, {
          content: this.#wire.resultContent(text, call.id),
          isError: true,
        });
      }
    }
    return results;
  }

  #headerRecord(): RecordingHeader {
    return {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      provider: this.#wire.provider,
      session: this.session,
      options: {
        ...this.#wire.options,
        awaiting: this.#awaiting,
        ...(this.#header === undefined ? {} : { header: this.#header }),
      },
    };
  }

  #build(assembly: PromptAssembly, awaiting: Awaiting): Built<M, Body> {
    const committed = this.#committed;
    const missing = committed.calls.filter((call) =>
      !this.#results.has(call.id)
    );
    if (missing.length > 0) {
      throw new SystemPromptError(
        "TOOL_RESULTS_MISSING",
        `The last answer's tool calls ${
          missing.map((call) => `${JSON.stringify(call.id)} (${call.name})`)
            .join(", ")
        } have no result; give each one with toolResult(id, content) ` +
          `(an error result with { isError: true }) before the next request.`,
      );
    }
    const results: WireResult[] = committed.calls.map((call) => ({
      id: call.id,
      name: call.name,
      ...this.#results.get(call.id)!,
    }));
    const tools = nextToolSet(committed.listed, assembly);
    const listed = listedAssembly(assembly, tools);
    const runtimeText = renderRuntimeContext(assembly);
    const update = updateOfTexts(
      committed.runtimeText,
      runtimeText,
      this.#header,
    );
    const person = [...this.#person];
    const wire = this.#wire.build({
      assembly: listed,
      history: committed.history,
      previousLength: committed.previousLength,
      results,
      person,
      update,
      awaiting,
      session: this.session,
      state: committed.state,
    });
    wire.tail.forEach(deepFreeze);
    return {
      wire,
      personCount: person.length,
      listed: tools.listed,
      toolsChanged: tools.changed,
      runtimeText: update === undefined ? committed.runtimeText : runtimeText,
      sentUpdate: update !== undefined,
      allowed: listed.activeTools,
      awaiting,
    };
  }

  /** The committed state a recording describes, checked as it is read. */
  #replay(parsed: ParsedRecording): Committed<M> {
    let state: Committed<M> = EMPTY_STATE;
    let allowed: string[] | undefined;
    for (const step of parsed.steps) {
      if (step.at !== state.history.length) {
        throw new SystemPromptError(
          "RECORDING_DISCONTINUOUS",
          `Step ${step.step} of the recording starts at message ${step.at}, ` +
            `but the steps before it hold ${state.history.length} messages: ` +
            `its history does not continue its own earlier requests.`,
        );
      }
      let read;
      try {
        read = this.#wire.read(step.response);
      } catch (error) {
        throw new SystemPromptError(
          "RECORDING_UNPARSABLE",
          `Step ${step.step} of the recording holds a response this ` +
            `conversation cannot read.`,
          { cause: error },
        );
      }
      const tail = (step.tail as M[]).map(deepFreeze);
      state = {
        history: [...state.history, ...tail, ...read.messages.map(deepFreeze)],
        previousLength: state.history.length + tail.length,
        runtimeText: step.runtimeContext ?? state.runtimeText,
        listed: step.tools ?? state.listed,
        calls: read.calls,
        steps: step.step,
        head: step.head === undefined ? state.head : JSON.stringify(step.head),
        state: step.state ?? state.state,
      };
      allowed = step.allowedTools;
    }
    this.#results = this.#refusals(state.calls, allowed);
    return state;
  }
}

function readAwaiting(value: unknown, fallback: Awaiting): Awaiting {
  if (value === undefined) return fallback;
  if (value === "person" || value === "agent") return value;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `awaiting is ${
      JSON.stringify(value) ?? String(value)
    }; it must be "person" (the next request waits for a person: long-lived ` +
      `cache marks) or "agent" (the default).`,
  );
}

/** `value`, frozen with everything it holds (the history is read-only). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** A deep copy through JSON: what is kept is exactly what is sent. */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

export type { Awaiting, ToolCall };
