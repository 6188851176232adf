/**
 * `Conversation`: the request loop as an object (SPEC 9.1, 9.8). A thin
 * stateful shell around the committed state; the bytes come from the
 * provider's form (adapters/) and the pure rules of this room.
 *
 * @module
 */

import { readGuarded } from "../errors.ts";
import type { AssembleContext, PromptAssembly } from "../types.ts";
import { updateOfTexts } from "../render/runtime_context_update.ts";
import {
  assembleStep,
  busy,
  checkPrompt,
  deepFreeze,
  nothingPending,
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
import { checkedResult } from "./results.ts";
import { sendsPair } from "./deferred.ts";
import { givenResults, stepResults } from "./step_results.ts";
import { pairCalls, pairWasActive, withToolPair } from "./tool_pair.ts";
import {
  explanationAsSent,
  forkLayout,
  forkOf,
  parentSystemOf,
} from "./fork_layout.ts";
import { replay } from "./replay.ts";
import {
  buildFields,
  builtFields,
  readEffort,
  stepPlan,
} from "./step_changes.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import type { PromptCacheReport } from "../cache/report/types.ts";
import { callObserver, type Observed, Observer } from "./observe.ts";
import {
  type ParsedRecording,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordingFork,
  type RecordingHeader,
} from "./recording.ts";
import {
  type ConversationForm,
  type FormBuilder,
  type OtherFormCheck,
  otherFormCheck,
  type ShellForm,
} from "./form.ts";
import { buildRequest, settleRequest } from "./build.ts";
import { keepJson } from "../shared/same_json.ts";
import { RecordingText } from "./recording_text.ts";
import type { KeptStep } from "./kept_steps.ts";
import { Compactor } from "./compactor.ts";
import type { Compaction, CompactOptions } from "./compaction_types.ts";
import type {
  Awaiting,
  Conversation,
  ConversationOptions,
  ConversationPrompt,
  RequestOptions,
  ResumeInfo,
  ToolCall,
  ToolResultOptions,
} from "./types.ts";
import type { ConversationReportOptions } from "./observer_types.ts";

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
  #text = new RecordingText();
  readonly #diagnostics: boolean;
  readonly #observer: Observer;
  readonly #clock: () => number;
  #committed: Committed<M> = EMPTY_STATE;
  #person: unknown[] = [];
  #results = new Map<string, { content: unknown; isError: boolean }>();
  /** The last answer's calls the conversation answers itself (`continues`). */
  #ownAnswers = 0;
  #built: Built<M, Body> | undefined;
  #building = false;
  readonly #compactor: Compactor<M>;
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
    this.#compactor = this.#compactorOf(options.compactAt);
    if (recording === undefined) {
      this.session = session ?? globalThis.crypto.randomUUID();
      this.resumed = undefined;
      this.#fork = fork;
      this.#parentSystem = parentSystemOf(fork, form);
      this.#committed = startOf(fork, this.#builder.changes.tools);
      return;
    }
    const parsed = recording;
    this.session = parsed.header.session;
    this.#fork = parsed.header.fork;
    this.#parentSystem = parentSystemOf(parsed.header.fork, form);
    const replayed = replay(parsed, {
      read: (answer) => form.readAnswer(answer, this.#other),
      tools: this.#builder.changes.tools,
      pair: sendsPair(form, this.#builder),
      form: form as ConversationForm<M, unknown>,
      builder: this.#builder as FormBuilder<M, unknown>,
    });
    this.#committed = replayed.state;
    this.#results = givenResults(this.#form, replayed.state.calls, {
      allowed: replayed.allowed,
      head: replayed.state.head,
      pair: pairWasActive(replayed.state, replayed.allowed),
    });
    this.#ownAnswers = this.#results.size;
    // The lines read are the recording so far, as they were written.
    this.#text = new RecordingText({
      text: parsed.text,
      steps: parsed.steps.length,
    });
    this.#observer.resume(parsed.steps);
    this.#person = this.#compactor.resume(
      replayed.compaction,
      parsed.steps.at(-1),
      replayed.state,
    );
    this.resumed = { steps: parsed.steps.length, truncated: parsed.truncated };
  }

  get messages(): readonly M[] {
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
    const { calls } = this.#committed;
    const given = { id, content, options };
    const state = { calls, results: this.#results, open: this.openCalls };
    this.#results.set(id, checkedResult(this.#form, state, given));
  }

  async request(context?: C, options?: RequestOptions): Promise<Body> {
    if (this.#building) throw busy("request()");
    const bag = readOptionBag(options, "request()");
    const awaiting = readAwaiting(bag?.awaiting, this.#awaiting);
    this.#building = true;
    try {
      const compaction = await this.#compactor.beforeRequest(context);
      if (compaction !== undefined) {
        // compactAt: the summarizing request in place of the step.
        this.#built = undefined;
        return compaction as Body;
      }
      const sentAt = this.#clock();
      const { assembly, explanation } = await assembleStep(
        this.#prompt,
        context,
        this.#diagnostics,
      );
      const built = this.#build(assembly, awaiting, explanation, {
        sentAt,
        output: bag?.output,
      });
      const request = await settleRequest(this.#builder, built.request, sentAt);
      this.#built = { ...built, request };
      return request.body;
    } finally {
      this.#building = false;
    }
  }

  get continues(): boolean {
    return this.#compactor.continues || this.#ownAnswers > 0;
  }

  get summarizing(): boolean {
    return this.#compactor.summarizing;
  }

  async compact(options?: CompactOptions): Promise<Compaction<Body, Answer>> {
    if (this.#building) throw busy("compact()");
    this.#building = true;
    try {
      return await this.#compactor.compact(options) as Compaction<Body, Answer>;
    } finally {
      this.#building = false;
    }
  }

  cancelCompaction(): void {
    if (this.#building) throw busy("cancelCompaction()");
    this.#compactor.cancel();
  }

  record(answer: Answer): ToolCall[] {
    if (this.#building) throw busy("record()");
    if (this.#built === undefined && this.#compactor.recordTriggered(answer)) {
      return [];
    }
    const built = this.#built;
    if (built === undefined) throw nothingPending();
    const answered = readAnswer(answer, this.#form, this.#other);
    const read = built.pair
      ? { ...answered.read, calls: pairCalls(answered.read.calls) }
      : answered.read;
    const before = this.#committed;
    const sent = built.request;
    const observed = this.#observer.observe(answer, built.explanation);
    const time = this.#clock();
    const kept = sent.kept ?? keepJson(sent.head);
    const step = {
      ...this.#compactor.stepFields(read),
      ...stepRecord(before, built, {
        response: answered.response,
        usage: read.usage,
        observed,
        time,
        form: this.#form,
      }, kept.json),
    };
    this.#committed = this.#compactor.committed(
      committedAfter(before, built, read, { steps: step.step, kept }),
      read,
      { head: sent.formHead, awaiting: built.awaiting, ...observed },
    );
    this.#builder.recorded?.({ before: before.state, after: sent.state }, time);
    this.#built = undefined;
    this.#person = this.#person.slice(built.personCount);
    this.#results = givenResults(this.#form, read.calls, {
      allowed: built.allowed,
      head: kept.json,
      pair: built.pair,
    });
    this.#ownAnswers = this.#results.size;
    this.#write(step, observed, {
      body: sent.body,
      explanation: built.explanation,
      sentAt: built.sentAt,
      time,
    });
    return read.calls.filter((call) => !this.#results.has(call.id));
  }

  /** A committed step's line written and observed. */
  #write(
    step: KeptStep,
    observed: Observed,
    request: {
      body: unknown;
      explanation: PromptExplanation | undefined;
      sentAt: number;
      time: number;
    },
  ): void {
    // Only for `onRecord`: `save()` writes its lines from the kept steps.
    const onRecord = this.#onRecord;
    if (onRecord !== undefined) {
      const record = this.#observer.kept.lineOf(step);
      const header = () => this.#headerRecord();
      for (const line of this.#text.linesOf(record, header)) {
        callObserver("onRecord", () => onRecord(line), this.#observer.onError);
      }
    }
    this.#text.committed();
    this.#observer.committed(step, observed, {
      session: this.session,
      header: () => this.#headerRecord(),
      ...request,
    });
  }

  /** The conversation's compactions, given what they need of it. */
  #compactorOf(compactAt: unknown): Compactor<M> {
    return new Compactor<M>({
      form: this.#form as ConversationForm<M, unknown>,
      builder: this.#builder as FormBuilder<M, unknown>,
      clock: this.#clock,
      committed: () => this.#committed,
      commit: (committed) => this.#committed = committed,
      freshHead: async (context, awaiting) => {
        const step = await assembleStep(this.#prompt, context as C, false);
        return this.#build(step.assembly, awaiting, undefined).request
          .formHead;
      },
      read: (answer) => readAnswer(answer, this.#form, this.#other),
      held: () => this.#person,
      write: (step, answer, request) => {
        const observed = this.#observer.observe(answer, undefined);
        const kept = { ...step, reported: observed.reported };
        this.#write(kept, observed, request);
      },
    }, { compactAt, awaiting: this.#awaiting });
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
    return this.#text.save(this.#observer.kept, () => this.#headerRecord());
  }

  fork(
    options: ConversationOptions = {},
  ): Conversation<Body, Answer, Input, Result, M, C> {
    const own = readOptionBag(options, "fork()");
    return new ConversationShell<Body, Answer, Input, Result, M, C>(
      this.#prompt,
      this.#shell,
      {
        awaiting: this.#awaiting,
        header: this.#header,
        diagnostics: this.#diagnostics,
        clock: this.#clock,
        onRequest: this.#observer.onRequest,
        onObserverError: this.#observer.onError,
        ...own,
      },
      undefined,
      forkOf(this.#committed, this.session),
    );
  }

  #headerRecord(): RecordingHeader {
    return {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      form: this.#form.id,
      session: this.session,
      options: {
        ...this.#builder.saved,
        awaiting: this.#awaiting,
        ...(this.#header === undefined ? {} : { header: this.#header }),
        ...(this.#diagnostics ? { diagnostics: true } : {}),
        ...(this.#compactor.compactAt === undefined
          ? {}
          : { compactAt: { inputTokens: this.#compactor.compactAt } }),
      },
      ...(this.#fork === undefined ? {} : { fork: this.#fork }),
    };
  }

  #build(
    assembly: PromptAssembly,
    awaiting: Awaiting,
    explanation: PromptExplanation | undefined,
    { sentAt, output }: { sentAt: number; output?: unknown } = { sentAt: 0 },
  ): Built<M, Body> {
    const committed = this.#committed;
    const results = stepResults(this.#form, committed.calls, {
      results: this.#results,
      assembly,
    });
    const given = readEffort(output, this.#form.functions.start, {
      takes: this.#builder.output === true,
    });
    // The pair is the tool set's own: a step lists (or, inline, adds) it as
    // any tool, and a change of the deferred tools never touches it.
    const pair = sendsPair(this.#form, this.#builder) &&
      (assembly.deferredTools ?? []).length > 0;
    const planned = pair ? withToolPair(assembly) : assembly;
    const plan = stepPlan(committed, planned, this.#builder, given);
    const { step, sections, runtimeText } = plan;
    const { tools, allowed } = step;
    const parentSystem = this.#parentSystem;
    const listed = parentSystem === undefined
      ? sections.assembly
      : forkLayout(sections.assembly, parentSystem);
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
      ...buildFields(plan, committed, results.length + person.length > 0),
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
        (committed.effective !== undefined || committed.steps > 0),
      runtimeText: update === undefined ? committed.runtimeText : runtimeText,
      sentUpdate: update !== undefined,
      allowed,
      pair,
      awaiting,
      // The provenance names the blocks as sent: a fork's laid out.
      explanation: explanationAsSent(explanation, listed, parentSystem),
      sentAt,
      ...builtFields(plan),
    };
  }
}
