/**
 * `Conversation`: the request loop as an object (SPEC 9.1, 9.8). A thin
 * stateful shell around the committed state; the bytes come from the
 * provider's form (adapters/) and the pure rules of this room.
 *
 * @module
 */

import { readGuarded, SystemPromptError } from "../errors.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { renderRuntimeContext } from "../render/prompt.ts";
import { updateOfTexts } from "../render/runtime_context_update.ts";
import {
  assembleStep,
  checkPrompt,
  deepFreeze,
  isoOf,
  readAnswer,
  readAwaiting,
  readFlag,
  readOptional,
  readOptionBag,
  shallowEnough,
} from "./checks.ts";
import {
  type Built,
  type Committed,
  committedAfter,
  EMPTY_STATE,
  startOf,
  stepRecord,
} from "./state.ts";
import { refusalText } from "./tool_set.ts";
import { forkLayout } from "./fork_layout.ts";
import { replay, toolStep } from "./replay.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import type { PromptCacheReport } from "../cache/report/types.ts";
import { callObserver, Observer } from "./observe.ts";
import {
  type ParsedRecording,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordingFork,
  type RecordingHeader,
  recordingLine,
} from "./recording.ts";
import {
  type ConversationForm,
  type FormBuilder,
  type FormContext,
  type OtherFormCheck,
  otherFormCheck,
  type ToolResultInput,
} from "./form.ts";
import { buildRequest } from "./build.ts";
import type {
  Awaiting,
  Conversation,
  ConversationOptions,
  ConversationPrompt,
  ConversationReportOptions,
  RequestOptions,
  ResumeInfo,
  ToolCall,
  ToolResultOptions,
} from "./types.ts";

/** The form a conversation speaks, with its options read. */
export interface ShellForm<M, Body> {
  readonly form: ConversationForm<M, Body>;
  readonly builder: FormBuilder<M, Body>;
  readonly context: FormContext;
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
  readonly #shell: ShellForm<M, Body>;
  readonly #form: ConversationForm<M, Body>;
  readonly #builder: FormBuilder<M, Body>;
  readonly #other: OtherFormCheck;
  readonly #awaiting: Awaiting;
  readonly #header: string | undefined;
  readonly #onRecord: ((line: string) => void) | undefined;
  /**
   * The recording so far, appended to line by line: `save()` returns it
   * as it is, without joining the lines again.
   */
  #recording = "";
  readonly #diagnostics: boolean;
  readonly #observer: Observer;
  readonly #clock: () => number;
  #committed: Committed<M> = EMPTY_STATE;
  #person: unknown[] = [];
  #results = new Map<string, { content: unknown; isError: boolean }>();
  #built: Built<M, Body> | undefined;
  #building = false;
  readonly session: string;
  readonly resumed: ResumeInfo | undefined;

  readonly #fork: RecordingFork | undefined;
  /** A fork's: its parent's last system parts, its own laid out on them. */
  readonly #parentSystem: readonly string[] | undefined;

  constructor(
    prompt: ConversationPrompt<C>,
    shell: ShellForm<M, Body>,
    options: ConversationOptions = {},
    recording?: ParsedRecording,
    fork?: RecordingFork,
  ) {
    checkPrompt(prompt);
    this.#prompt = prompt;
    this.#shell = shell;
    this.#form = shell.form;
    this.#builder = shell.builder;
    this.#other = otherFormCheck(
      shell.form as ConversationForm<never, never>,
      shell.context.forms,
    );
    const form = shell.form;
    this.#awaiting = readAwaiting(options.awaiting, "agent");
    this.#header = readOptional(options.header, "header", "string");
    this.#onRecord = readOptional(options.onRecord, "onRecord", "function");
    const session = readOptional(options.session, "session", "string");
    this.#diagnostics = readFlag(options.diagnostics, "diagnostics");
    this.#observer = new Observer(form as ConversationForm, {
      onRequest: readOptional(options.onRequest, "onRequest", "function"),
      onError: readOptional(
        options.onObserverError,
        "onObserverError",
        "function",
      ),
    });
    this.#clock = readOptional(options.clock, "clock", "function") ??
      Date.now;
    if (recording === undefined) {
      this.session = session ?? globalThis.crypto.randomUUID();
      this.resumed = undefined;
      this.#fork = fork;
      this.#parentSystem = parentSystemOf(fork, form);
      this.#committed = startOf(fork, this.#builder);
      return;
    }
    const parsed = recording;
    this.session = parsed.header.session;
    this.#fork = parsed.header.fork;
    this.#parentSystem = parentSystemOf(parsed.header.fork, form);
    const replayed = replay(parsed, {
      read: (answer) => form.readAnswer(answer, this.#other),
      inline: this.#builder.toolChanges === "inline",
      ...(form.declares === undefined ? {} : { declares: form.declares }),
    });
    this.#committed = replayed.state;
    this.#results = this.#refusals(replayed.state.calls, replayed.allowed);
    // The lines read are the recording so far, as they were written.
    this.#recording = parsed.text;
    this.#observer.resume(parsed.steps);
    this.resumed = { steps: parsed.steps.length, truncated: parsed.truncated };
  }

  get messages(): readonly M[] {
    // A frozen copy, made once per step: the store is appended in place.
    return this.#committed.history.snapshot();
  }

  get openCalls(): readonly ToolCall[] {
    return this.#committed.calls.filter((call) => !this.#results.has(call.id));
  }

  user(input: Input): void {
    const blocks = readGuarded(
      () => this.#form.personInput(input),
      "INVALID_CONVERSATION_INPUT",
      () => `user() could not read its input; pass plain JSON content.`,
    );
    this.#person.push(...shallowEnough(blocks, "user()'s input"));
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
        }) already has a result (given before, or the conversation's own ` +
          `refusal of an inactive tool); each call gets one. The calls ` +
          `waiting for a result are in openCalls.`,
      );
    }
    const isError = readOptionBag(options, "toolResult()")?.isError ?? false;
    if (typeof isError !== "boolean") {
      throw new SystemPromptError(
        "INVALID_CONVERSATION_INPUT",
        `toolResult's isError must be true or false; got ${String(isError)}.`,
      );
    }
    const copied = readGuarded(
      () => this.#form.resultContent(content, id),
      "INVALID_CONVERSATION_INPUT",
      () =>
        `toolResult(${
          JSON.stringify(id)
        }) could not read its content; pass plain JSON content.`,
    );
    this.#results.set(id, {
      content: shallowEnough(copied, `toolResult(${JSON.stringify(id)})`),
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
    const awaiting = readAwaiting(
      readOptionBag(options, "request()")?.awaiting,
      this.#awaiting,
    );
    this.#building = true;
    try {
      const sentAt = this.#clock();
      const { assembly, explanation } = await assembleStep(
        this.#prompt,
        context,
        this.#diagnostics,
      );
      const built = this.#build(assembly, awaiting, explanation, sentAt);
      this.#built = built;
      return built.request.body;
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
    const { read, response } = readAnswer(
      (value) => this.#form.readAnswer(value, this.#other),
      (value) => this.#form.recordOf(value),
      answer,
    );
    const before = this.#committed;
    const sent = built.request;
    const observed = this.#observer.observe(answer, built.explanation);
    const time = this.#clock();
    const head = JSON.stringify(built.request.head);
    const step = stepRecord(before, built, {
      response,
      usage: read.usage ?? null,
      observed,
      time: isoOf(time),
    }, head);
    const lines = before.steps === 0 && this.#recording === ""
      ? [recordingLine(this.#headerRecord()), recordingLine(step)]
      : [recordingLine(step)];
    this.#committed = committedAfter(before, built, read, {
      steps: step.step,
      head,
    });
    this.#built = undefined;
    this.#person = this.#person.slice(built.personCount);
    this.#results = this.#refusals(read.calls, built.allowed);
    const onRecord = this.#onRecord;
    for (const line of lines) {
      this.#recording += line;
      if (onRecord === undefined) continue;
      callObserver("onRecord", () => onRecord(line), this.#observer.onError);
    }
    this.#observer.committed(step, observed, {
      session: this.session,
      header: this.#headerRecord(),
      body: sent.body,
      explanation: built.explanation,
      sentAt: built.sentAt,
      time,
    });
    return read.calls.filter((call) => !this.#results.has(call.id));
  }

  report(options: ConversationReportOptions): PromptCacheReport {
    return this.#observer.report(
      this.#headerRecord(),
      (response) => this.#form.readAnswer(response, this.#other).messages,
      readOptionBag(options, "report()"),
      this.#shell.context.rules,
    );
  }

  save(): string {
    if (this.#recording === "") return recordingLine(this.#headerRecord());
    return this.#recording;
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
          content: this.#form.resultContent(text, call.id),
          isError: true,
        });
      }
    }
    return results;
  }

  fork(
    options: ConversationOptions = {},
  ): Conversation<Body, Answer, Input, Result, M, C> {
    const own = readOptionBag(options, "fork()");
    const committed = this.#committed;
    const head = committed.head === undefined
      ? undefined
      : JSON.parse(committed.head);
    return new ConversationShell<Body, Answer, Input, Result, M, C>(
      this.#prompt,
      this.#shell,
      {
        awaiting: this.#awaiting,
        ...(this.#header === undefined ? {} : { header: this.#header }),
        diagnostics: this.#diagnostics,
        clock: this.#clock,
        ...(this.#observer.onRequest === undefined
          ? {}
          : { onRequest: this.#observer.onRequest }),
        onObserverError: this.#observer.onError,
        ...own,
      },
      undefined,
      {
        session: this.session,
        listed: [...committed.listed ?? []],
        state: { ...committed.state },
        ...(head === undefined ? {} : { head }),
      },
    );
  }

  #headerRecord(): RecordingHeader {
    return {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      provider: this.#form.id,
      session: this.session,
      options: {
        ...this.#builder.saved,
        awaiting: this.#awaiting,
        ...(this.#header === undefined ? {} : { header: this.#header }),
        ...(this.#diagnostics ? { diagnostics: true } : {}),
      },
      ...(this.#fork === undefined ? {} : { fork: this.#fork }),
    };
  }

  #build(
    assembly: PromptAssembly,
    awaiting: Awaiting,
    explanation: PromptExplanation | undefined,
    sentAt: number,
  ): Built<M, Body> {
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
    const results: ToolResultInput[] = committed.calls.map((call) => ({
      id: call.id,
      name: call.name,
      ...this.#results.get(call.id)!,
    }));
    const step = toolStep(committed, assembly, this.#builder);
    const { tools, allowed } = step;
    const parentSystem = this.#parentSystem;
    const listed = parentSystem === undefined
      ? step.listed
      : forkLayout(step.listed, parentSystem);
    const runtimeText = renderRuntimeContext(assembly);
    const update = updateOfTexts(
      committed.runtimeText,
      runtimeText,
      this.#header,
    );
    const person = [...this.#person];
    const request = buildRequest(this.#form, this.#builder, {
      assembly: listed,
      history: committed.history,
      declared: committed.declaredJson,
      previousLength: committed.previousLength,
      results,
      person,
      update,
      awaiting,
      session: this.session,
      state: committed.state,
      toolChanges: tools.inline === undefined ? undefined : {
        ...tools.inline.changes,
        ...(allowed === undefined ? {} : { allowed }),
      },
      ...(this.#diagnostics
        ? { diagnostics: { previous: this.#observer.previousId } }
        : {}),
      ...(committed.steps === 0 && this.#fork?.head !== undefined
        ? { sharedWith: this.#fork.head }
        : {}),
      ...(parentSystem === undefined ? {} : { parentSystem }),
    });
    request.tail.forEach(deepFreeze);
    return {
      request,
      personCount: person.length,
      listed: tools.listed,
      toolsChanged: tools.changed,
      effective: tools.inline?.effective,
      effectiveChanged: tools.inline?.changed === true &&
        committed.effective !== undefined,
      runtimeText: update === undefined ? committed.runtimeText : runtimeText,
      sentUpdate: update !== undefined,
      allowed,
      awaiting,
      // The provenance names the blocks as sent: a fork's laid out.
      explanation: explanation === undefined || parentSystem === undefined
        ? explanation
        : {
          ...explanation,
          assembly: { ...explanation.assembly, sections: listed.sections },
        },
      sentAt,
    };
  }
}

/** The texts of a fork's parent's last system parts, if it is a fork. */
function parentSystemOf(
  fork: RecordingFork | undefined,
  form: Pick<ConversationForm, "systemTexts">,
): readonly string[] | undefined {
  return fork?.head === undefined ? undefined : form.systemTexts(fork.head);
}
