/**
 * The conversation's state: what is committed (everything the next
 * request's bytes depend on) and what a built request holds until it is
 * recorded, and the step's record and the state after it. Plain data.
 *
 * @module
 */

import type { PromptExplanation } from "../explain/explanation.ts";
import { declaredTools, type ListedTool } from "./tool_set.ts";
import type { RecordingFork } from "./recording.ts";
import { copy, deepFreeze } from "./checks.ts";
import { type KeptStep, keptTime } from "./kept_steps.ts";
import type { Observed } from "./observe.ts";
import type { Awaiting, ToolCall } from "./types.ts";
import type { BuiltRequest } from "./build.ts";
import type { ChangeMode, ConversationForm } from "./form.ts";
import type { HeldSection, SectionChange, Told } from "./system_changes.ts";
import { History } from "./history.ts";
import type { CheckedHead } from "./append_only.ts";
import type { BuiltHead } from "./head_memo.ts";
import type { KeptJson } from "../shared/same_json.ts";

/** The committed state: everything the next request's bytes depend on. */
export interface Committed<M> {
  /**
   * The history as sent, marks removed: a length over the store the
   * conversation's later states share (appending from an older state
   * copies it; see `history.ts`).
   */
  readonly history: History<M>;
  readonly previousLength: number;
  readonly runtimeText: string;
  readonly listed: readonly ListedTool[] | undefined;
  /** With inline tool changes: the tools the model has. */
  readonly effective: readonly ListedTool[] | undefined;
  /**
   * With inline tool changes: every tool the model was given, its latest
   * definition (a dropped tool it may get back).
   */
  readonly declared?: readonly ListedTool[];
  /** The JSON of every tool the history's items declared (`declares`). */
  readonly declaredJson: ReadonlySet<string>;
  /** The calls of the last answer, in order. */
  readonly calls: readonly ToolCall[];
  readonly steps: number;
  readonly head: string | undefined;
  /** The head's keys its request's append-only check read (`head` theirs). */
  readonly checked?: CheckedHead;
  /** `head` kept (its `json`), to tell the next head that writes the same. */
  readonly kept?: KeptJson;
  /** The last request's head as the form built it, and what from. */
  readonly lastHead?: BuiltHead;
  /** The last request's plan (`stepPlan`'s), and what from. */
  readonly lastPlan?: PlanMemo;
  /** The head `kept` is of, when it is the form's (frozen) head itself. */
  readonly keptOf?: object;
  readonly state: Readonly<Record<string, unknown>>;
  /** With sections inline: what the model has been told of them. */
  readonly told?: Told;
  /**
   * A fork's, before its first request: the sections its parent's head was
   * built of (the first head shares them, the changes since told).
   */
  readonly parentHead?: readonly HeldSection[];
  /**
   * Whether the history holds a block bound to its prefix (thinking,
   * encrypted reasoning): `"auto"` tool changes go inline from then on.
   */
  readonly bound?: boolean;
  /** The effort the head states, and the one the model was told last. */
  readonly effort?: { readonly head?: string; readonly told: string };
  /**
   * A compaction was swapped in and no request sent since: what the model
   * was told inline before it is gone with the summarized messages.
   */
  readonly compacted?: true;
  /**
   * With `compacted`: the compaction's start holds a block bound to its
   * prefix (the provider compacted inside a step whose answer then
   * thought): the head is kept as it was, never built again.
   */
  readonly boundStart?: true;
  /**
   * Read back from a recording, nothing committed since: the options given
   * to the resume may shape the head anew (`cache`, say), so the next
   * request's head is not held to the recorded one (its history is).
   */
  readonly resumed?: boolean;
}

/**
 * A step's plan as the state keeps it: `step_changes.ts` makes it (its
 * `StepPlan`) and alone reads it.
 */
export interface PlanMemo {
  /** What the plan was made from. */
  readonly from: unknown;
}

/** A body built and not yet recorded. */
export interface Built<M, Body> {
  readonly request: BuiltRequest<M, Body>;
  readonly personCount: number;
  readonly listed: readonly ListedTool[];
  readonly toolsChanged: boolean;
  readonly effective: readonly ListedTool[] | undefined;
  readonly effectiveChanged: boolean;
  readonly runtimeText: string;
  readonly sentUpdate: boolean;
  readonly allowed: string[] | undefined;
  /** Whether the request listed the search-and-call pair (`tool_pair.ts`). */
  readonly pair: boolean;
  readonly awaiting: Awaiting;
  /** With `diagnostics`: `explain()` of the step's assembly. */
  readonly explanation: PromptExplanation | undefined;
  /** When the body was built (ms, the conversation's clock). */
  readonly sentAt: number;
  /** With sections inline: what the model knows once this is sent. */
  readonly told?: Told;
  /** The sections this request's head was first built of (recorded). */
  readonly headSections?: readonly HeldSection[];
  /** The section changes this request tells the model. */
  readonly sectionChanges?: readonly SectionChange[];
  /** The effort after this request. */
  readonly effort?: { readonly head?: string; readonly told: string };
  /** The step's plan (the next step's, when made from the same). */
  readonly plan?: PlanMemo;
}

export const EMPTY_STATE: Committed<never> = {
  history: History.empty(),
  previousLength: 0,
  runtimeText: "",
  listed: undefined,
  effective: undefined,
  declaredJson: new Set(),
  calls: [],
  steps: 0,
  head: undefined,
  state: {},
};

/** A conversation's committed state before its first step (a fork's start). */
export function startOf<M>(
  fork: RecordingFork | undefined,
  tools: ChangeMode | "auto",
): Committed<M> {
  if (fork === undefined) return EMPTY_STATE;
  return {
    ...EMPTY_STATE,
    listed: fork.listed,
    effective: tools === "inline" ? fork.listed : undefined,
    state: fork.state,
    ...(fork.headSections === undefined
      ? {}
      : { parentHead: fork.headSections }),
  };
}

/** What a step's answer gave, as the recording keeps it. */
export interface AnswerRecord {
  /** What the recording keeps of the answer (the form's `recordOf`). */
  readonly response: unknown;
  /** The usage the form read of the answer (or its record). */
  readonly usage: unknown;
  readonly observed: Observed;
  /** When the answer was recorded (the conversation's clock). */
  readonly time: number;
  /** How the form keeps its answers. */
  readonly form: Pick<ConversationForm, "readsRecord" | "recordOf">;
}

/**
 * The recording's line of a built request and its answer (`head`, the
 * request's head as JSON), as the conversation keeps it (`KeptStep`).
 */
export function stepRecord<M, Body>(
  before: Committed<M>,
  built: Built<M, Body>,
  answer: AnswerRecord,
  head: string,
): KeptStep {
  const sent = built.request;
  const { observed, form } = answer;
  // The record's own usage, or a copy: the line is written when asked
  // for, and the SDK's object stays the caller's to change.
  const owned = form.readsRecord === true;
  const usage = owned ? answer.usage ?? null : copy(answer.usage ?? null);
  return {
    step: before.steps + 1,
    at: before.history.length,
    tail: sent.tail,
    marks: sent.marks,
    ...(head === before.head ? {} : { head: sent.head }),
    ...(built.toolsChanged || before.steps === 0
      ? { tools: [...built.listed] }
      : {}),
    ...(built.effectiveChanged
      ? { inlineTools: [...built.effective ?? []] }
      : {}),
    ...((sent.state === before.state ||
        JSON.stringify(sent.state) === JSON.stringify(before.state)) &&
        before.steps > 0
      ? {}
      : { state: sent.state }),
    ...(built.sentUpdate ? { runtimeContext: built.runtimeText } : {}),
    ...(built.headSections === undefined
      ? {}
      : { headSections: [...built.headSections] }),
    ...(built.sectionChanges === undefined || built.sectionChanges.length === 0
      ? {}
      : { sectionChanges: [...built.sectionChanges] }),
    ...(built.effort === undefined ||
        JSON.stringify(built.effort) === JSON.stringify(before.effort)
      ? {}
      : { effort: { ...built.effort } }),
    ...(built.allowed === undefined ? {} : { allowedTools: built.allowed }),
    awaiting: built.awaiting,
    response: answer.response,
    usage,
    reported: observed.readAgain === true ? undefined : observed.reported,
    ...(observed.provenance === undefined
      ? {}
      : { provenance: observed.provenance }),
    ...(observed.contributor === undefined
      ? {}
      : { contributor: observed.contributor }),
    sent: keptTime(built.sentAt),
    time: keptTime(answer.time),
  };
}

/** The committed state once `step` is recorded with its answer. */
export function committedAfter<M, Body>(
  before: Committed<M>,
  built: Built<M, Body>,
  read: {
    readonly messages: readonly M[];
    readonly calls: ToolCall[];
    readonly bound?: boolean;
  },
  { steps, kept }: { readonly steps: number; readonly kept: KeptJson },
): Committed<M> {
  const sent = built.request;
  return {
    // O(new items): the tail and the answer join the shared store.
    history: before.history.append(sent.tail, read.messages.map(deepFreeze)),
    previousLength: before.history.length + sent.tail.length,
    runtimeText: built.runtimeText,
    listed: built.listed,
    effective: built.effective,
    declared: declaredTools(before.declared, built.effective),
    declaredJson: sent.declared,
    calls: read.calls,
    steps,
    head: kept.json,
    kept,
    lastHead: sent.builtHead,
    ...(built.plan === undefined ? {} : { lastPlan: built.plan }),
    ...(sent.head === sent.builtHead.head.recorded
      ? { keptOf: sent.head }
      : {}),
    ...(sent.checked === undefined
      ? {}
      : { checked: { head: kept.json, json: sent.checked } }),
    state: sent.state,
    ...(built.told === undefined ? {} : { told: built.told }),
    ...(built.effort === undefined ? {} : { effort: built.effort }),
    bound: before.bound === true || read.bound === true,
  };
}
