/**
 * What a provider form is (issue 45): one object per API the package speaks
 * (`ProviderForm`), and for those a conversation speaks, everything the
 * conversation needs of it (`ConversationForm`): its requests built from
 * the provider-neutral state, its answers read back and recognized, where
 * its marks go. The forms live in `adapters/`, one folder each, in one
 * table; the core reads them through these interfaces and names no
 * provider.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { PromptAssembly } from "../types.ts";
import type { ProviderRules, RuleTable } from "../cache/simulator/rules.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type { CacheStorageReport } from "../cache/report/conversation_findings.ts";
import type { ReadonlyHistory } from "./history.ts";
import type { MarkSites, PrefixSites } from "./marks.ts";
import type { RecordLayout } from "./report_layout.ts";
import type { InlineToolChanges } from "./tool_set.ts";
import type { SectionChange } from "./system_changes.ts";
import type { Awaiting, ToolCall } from "./types.ts";

/** An API's request form, as recordings, reports, spans and the CLI name it. */
export interface ProviderForm {
  /** The form's id: `"anthropic-messages"`, `"openai-chat"`, ... */
  readonly id: string;
  /** Names 0.4 gave it (a usage source, a render format): read, never written. */
  readonly formerNames: readonly string[];
  /** The form in a message: "an Anthropic Messages". */
  readonly title: string;
  /** `gen_ai.provider.name` of its spans (the OpenTelemetry registry's). */
  readonly otelProvider: string;
  /** The cache rules its bodies are simulated and judged under. */
  readonly cache: {
    /** Every rules set its bodies may be judged under. */
    readonly rules: readonly ProviderRules[];
    /** The rules of a conversation with these saved options. */
    rulesOf(saved: Readonly<Record<string, unknown>>): ProviderRules;
    /** A conversation's body is the rules' own body (not call options). */
    readonly liveBodyIsWire: boolean;
  };
  /** A response's usage and cache diagnosis (never throws; `source` is `id`). */
  readUsage(response: unknown): ReportedUsage;
  /** `rxprompt render --format <id>`: its adapter's request fields. */
  render?(assembly: PromptAssembly): unknown;
}

/** One tool result given for a call, in the order of the calls. */
export interface ToolResultInput {
  readonly id: string;
  readonly name: string;
  /** The result's content, as the form checked it. */
  readonly content: unknown;
  readonly isError: boolean;
}

/** What a step's tail (the items it adds to the history) is built from. */
export interface TailInput<M> {
  /** The results of the last answer's calls, in the order of the calls. */
  readonly results: readonly ToolResultInput[];
  /** The person's inputs given since the last request, in order. */
  readonly person: readonly unknown[];
  /** The runtime-context update to send after the last item, if any. */
  readonly update: string | undefined;
  /** With inline tool changes: what this request tells the model. */
  readonly toolChanges?: InlineToolChanges;
  /**
   * The sections changed since the model last read them, told inline (in
   * one system or developer message after the step's other items).
   */
  readonly sectionChanges?: readonly SectionChange[];
  /**
   * With `turnReminders`: the runtime context that holds for this turn,
   * rendered, to send after everything else (shown for this turn only).
   */
  readonly reminder?: string;
  /** A new effort, set inline (the head keeps the first one). */
  readonly effort?: string;
  /**
   * The JSON of every tool an earlier item declared (the form's
   * `declares`), kept by the conversation so that no step walks its
   * history.
   */
  readonly declared: ReadonlySet<string>;
  /**
   * The committed history (read only): read its end by index; walking it
   * makes every step cost the whole history.
   */
  readonly history: ReadonlyHistory<M>;
  /**
   * The step's assembly as the head gets it: a form that answers a search
   * of the deferred tools itself reads them here (SPEC §10.3).
   */
  readonly assembly?: PromptAssembly;
}

/** What a step's head (the body without its history) is built from. */
export interface HeadInput {
  /** The step's assembly with the listed tools and the active names. */
  readonly assembly: PromptAssembly;
  readonly awaiting: Awaiting;
  /** The conversation's session id. */
  readonly session: string;
  /** The form's own state, as committed (`{}` before the first request). */
  readonly state: Readonly<Record<string, unknown>>;
  /** The marks the tools and system may take. */
  readonly prefixBudget: number;
  /** With inline tool changes: what this request tells the model. */
  readonly toolChanges?: InlineToolChanges;
  /** The turn's reminder this request's tail sends, if any. */
  readonly reminder?: string;
  /** The effort the head states (top-level), if any. */
  readonly effort?: string;
  /** The effort this request's tail sets inline, if it changes. */
  readonly effortChange?: string;
  /**
   * A fork's: the texts of its parent's last system parts, which the
   * assembly's sections are laid out on; each shared part ends where the
   * parent's ended.
   */
  readonly parentSystem?: readonly string[];
}

/** A step's head as a form built it. */
export interface FormHead {
  /** The body without its history, as the recording keeps it. */
  readonly recorded: Record<string, unknown>;
  /** What the body is built of besides (the AI SDK's tool set). */
  readonly live?: unknown;
  /** The form's state after this request (saved with it). */
  readonly state: Record<string, unknown>;
}

/** Per request, what the body holds and the head never does. */
export interface BodyExtras<M = unknown> {
  /**
   * With the `diagnostics` option: ask the provider to compare this request
   * with the response `previous` names (`null` on the first request).
   */
  readonly diagnostics?: { readonly previous: string | null };
  /**
   * Whether an item of the list passes `test` (a module-level function;
   * the cache marks aside): the history's items are read once per test
   * over the whole conversation. A form asks this rather than walking the
   * list, which would cost the whole history at every step; absent (a
   * summarizing request's list), it walks the list.
   */
  readonly holds?: (test: (item: M) => boolean) => boolean;
}

/**
 * How the changes of one kind after the first request reach the model:
 * told in the conversation, or the head rebuilt.
 */
export type ChangeMode = "inline" | "rebuild";

/** The `changes` option as a form resolved it. */
export interface ResolvedChanges {
  /** Sections: `"auto"` is inline. */
  readonly sections: ChangeMode;
  /**
   * Tools: `"auto"` rebuilds until the committed history holds a bound
   * block (thinking, reasoning), then goes inline.
   */
  readonly tools: ChangeMode | "auto";
  /** Output settings (effort): as `tools`; `"rebuild"` on a form without a per-message form. */
  readonly output: ChangeMode | "auto";
}

/** One conversation's requests, its options read and checked. */
export interface FormBuilder<M, Body> {
  /** The options a recording's header keeps (plain JSON). */
  readonly saved: Record<string, unknown>;
  /** The rules its marks follow. */
  readonly rules: ProviderRules;
  /** How changes after the first request go (SPEC 10.1), kind by kind. */
  readonly changes: ResolvedChanges;
  /**
   * The form sends runtime context that holds for a turn as a message the
   * provider hides after the turn (`TailInput.reminder`); absent: it goes
   * in the runtime-context update.
   */
  readonly turnReminders?: boolean;
  /** The form takes output settings (`RequestOptions.output`). */
  readonly output?: boolean;
  /**
   * How this conversation sends deferred tools when its options chose
   * (Anthropic's and Responses' `toolSearch: "pair"`); absent, the
   * form's `deferredTools`.
   */
  readonly deferredTools?: "native" | "pair";
  /**
   * With inline changes, a changed definition: a removal and an addition,
   * or the tools block rebuilt.
   */
  readonly redefine: "inline" | "rebuild";
  /** The marks the options give the tools and system. */
  readonly prefixLimit: number;
  /** A request's history mark; `undefined`: the conversation places none. */
  markFor(awaiting: Awaiting): unknown;
  /** The items this step adds, in the API's order. */
  tail(input: TailInput<M>): M[];
  /** The body without its history, and the form's state. */
  head(input: HeadInput): FormHead;
  /**
   * The items a body's list holds before the history (a system
   * message; as many as `MarkSites.leadingItems`); absent, none.
   */
  leading?(head: FormHead): readonly M[];
  /**
   * The whole body: the head, the list (`leading`'s items, then the
   * history, marked), the extras. The list is the body's own: the form
   * puts it in the body as it is, without a copy.
   */
  body(head: FormHead, items: readonly M[], extras: BodyExtras<M>): Body;
  /**
   * A form the provider compacts for (`FormCompaction.by` `"provider"`):
   * the summarizing request's head (the last request's, with the API's
   * compaction asked for) and the items after the history.
   */
  compaction?(
    head: FormHead,
    asked: {
      readonly instructions?: string;
      /** A form's other summarizing request (Responses: `"compact"`). */
      readonly via?: string;
    },
  ): { readonly head: FormHead; readonly tail: M[] };
  /**
   * An asynchronous last look at the head before its body is put together,
   * at the conversation's clock `now`: a resource the request names
   * created, refreshed or replaced (Gemini's `cachedContents`). Absent:
   * the head as built.
   */
  settle?(head: FormHead, now: number): Promise<FormHead>;
  /**
   * A head made again from what a recording kept of it (`recorded`) and
   * the form's state then: a resumed conversation's last request, whose
   * prefix its first compaction sends again. Absent: `{ recorded, state }`
   * (a form whose body is built of the recorded head alone).
   */
  resumedHead?(
    recorded: Record<string, unknown>,
    state: Record<string, unknown>,
  ): FormHead;
  /**
   * A step recorded, at the conversation's clock `now`: the form's state
   * before it and the state it commits. A resource the step no longer
   * names is let go here, not by `settle`: a request built and never
   * recorded (a crash, a retry) leaves the committed state's resources in
   * place for the next request and for a resume. Absent: nothing to do.
   */
  recorded?(
    states: {
      readonly before: Readonly<Record<string, unknown>>;
      readonly after: Readonly<Record<string, unknown>>;
    },
    now: number,
  ): void;
}

/** An answer as a form read it. */
export interface FormAnswer<M> {
  /** The items the answer adds to the history (kept verbatim). */
  readonly messages: M[];
  /** The tool calls it asks for, in order. */
  readonly calls: ToolCall[];
  /** The usage the provider reported, as given (or `null`). */
  readonly usage: unknown;
  /**
   * Whether the answer holds a block bound to its request's prefix
   * (Anthropic thinking, a Responses reasoning item with encrypted
   * content): a later request that edits that prefix is refused or loses it.
   */
  readonly bound?: boolean;
  /**
   * The answer holds the provider's compaction: the history starts again
   * at `messages[compactedFrom]` (what came before it is dropped).
   */
  readonly compactedFrom?: number;
  /** The turn stopped at the provider's compaction: request again. */
  readonly paused?: boolean;
}

/** How a form compacts its conversation (SPEC 10.2). */
export interface FormCompaction<M> {
  /**
   * `"provider"`: the API summarizes (the builder's `compaction`, the
   * answer's `compactedFrom`); `"client"`: one person message asks for the
   * summary and the answer's text is it.
   */
  readonly by: "provider" | "client";
  /** `"client"`: the text of an answer's items. */
  summary?(messages: readonly M[]): string;
  /**
   * `"client"`, where turns must alternate (a person message may not
   * follow another: Converse, Gemini, and the AI SDK, which may send to
   * either): the history a summary starts, from the summarizing request's
   * instruction (its tail) and the summary's text.
   * Absent: one person message, the summary after `SUMMARY_LEAD`.
   */
  start?(instruction: readonly M[], summary: string): M[];
  /**
   * Whether the compaction keeps the tools the conversation told the model
   * of (Anthropic's block carries them); else they are told again.
   */
  readonly keepsTools: boolean;
  /**
   * An item without the parts bound to the prefix they were made on
   * (thinking, reasoning), which a swap carries after a summary; `undefined`
   * when nothing is left of it.
   */
  unbound(item: M): M | undefined;
}

/**
 * Throws `RESPONSE_OF_OTHER_PROVIDER` when another form recognizes the
 * answer first (the walk `startConversation` was given).
 */
export type OtherFormCheck = (answer: unknown) => void;

/** A form a conversation speaks. */
export interface ConversationForm<M = unknown, Body = unknown>
  extends ProviderForm {
  /** Its public functions, for messages. */
  readonly functions: { readonly start: string; readonly resume: string };
  /**
   * Reads and checks the options (`INVALID_CONFIG` naming one); `adapter`,
   * the stateless adapter a form without a runtime import of its optional
   * peer is given by its start functions.
   */
  builder(options: unknown, adapter?: unknown): FormBuilder<M, Body>;
  /**
   * A resume's options: the recording's, then the caller's;
   * `INVALID_CONFIG` where the body's type would change.
   */
  resumeOptions(
    saved: Readonly<Record<string, unknown>>,
    given: Readonly<Record<string, unknown>> | undefined,
  ): Record<string, unknown>;
  /** A person's input checked and copied into parts. */
  personInput(input: unknown): unknown[];
  /** A tool result's content checked and copied. */
  resultContent(content: unknown, id: string): unknown;
  /** Whether an answer has this form's shape (reads no getter that can throw). */
  recognizes(answer: Record<string, unknown>): boolean;
  /** An answer read; a `SystemPromptError` for anything else. */
  readAnswer(answer: unknown, other: OtherFormCheck): FormAnswer<M>;
  /**
   * What a recording keeps of an answer (plain JSON `readAnswer` reads
   * back); with `readsRecord`, an answer of another form is told (`other`)
   * where `readAnswer` would tell it.
   */
  recordOf(answer: unknown, other: OtherFormCheck): unknown;
  /**
   * `recordOf` returns a copy the conversation owns (plain JSON), and
   * `readAnswer` reads that copy: the history's items and the usage are
   * its objects, kept once. Absent: `readAnswer` reads the answer as given
   * and `recordOf` keeps a record of its own.
   */
  readonly readsRecord?: true;
  /**
   * The JSON of each tool `item` declares to the model (an item that adds
   * tools mid-conversation); absent, items declare none.
   */
  declares?(item: M): readonly string[];
  /**
   * How it sends deferred tools (SPEC §10.3): `"native"` (its own fields,
   * built by its head), `"pair"` (the conversation lists the fixed
   * search-and-call pair, `tool_pair.ts`, and answers the search); absent,
   * not at all.
   */
  readonly deferredTools?: "native" | "pair";
  /**
   * What the stored cache entries the steps' states name cost (Gemini's
   * explicit entries), given the recorded options; absent or `undefined`:
   * none.
   */
  storage?(
    steps: readonly {
      readonly state?: Readonly<Record<string, unknown>>;
      readonly time: string;
      readonly sent?: string;
    }[],
    options: Readonly<Record<string, unknown>>,
  ): CacheStorageReport | undefined;
  /** Where marks go on its items. */
  readonly marks: MarkSites<M>;
  /** Where a fork's shared mark goes on its head; absent: none. */
  readonly prefix?: PrefixSites<FormHead>;
  /**
   * The texts of a head's system parts, in order (`[]` for a head of another
   * shape): what a fork lays its system prompt out on.
   */
  systemTexts(head: Readonly<Record<string, unknown>>): string[];
  /** How the report lays the recorded steps out, as its rules' bodies. */
  layout(): RecordLayout;
  /** How it compacts; absent: `compact()` is `COMPACTION_UNSUPPORTED`. */
  readonly compaction?: FormCompaction<M>;
  /**
   * `rxprompt simulate` and `bench:cache`: the README way's options for a
   * thread's conversation, and the SDK's answer for a session's turn.
   */
  readonly simulation?: FormSimulation;
}

/** A session's assistant turn, as `rxprompt simulate` replays it. */
export interface SimulatedTurn {
  readonly content: string;
  readonly toolCalls?: readonly {
    readonly id: string;
    readonly name: string;
    readonly input: unknown;
  }[];
}

/** How `rxprompt simulate` drives a form's conversations. */
export interface FormSimulation {
  /** A thread's conversation options (its session id given). */
  options(
    session: string,
    toolChanges: "rebuild" | "inline",
  ): Record<string, unknown>;
  /** The SDK's answer object for a session's `n`th assistant turn. */
  answer(turn: SimulatedTurn, n: number): unknown;
}

/** What a form's start and resume functions give every conversation. */
export interface FormContext {
  /** The forms an answer is recognized as, in order (the first wins). */
  readonly forms: readonly ConversationForm<never, never>[];
  /** Every provider's rules: a report may follow any. */
  readonly rules: RuleTable;
  /** The form's stateless adapter, for a form that imports none itself. */
  readonly adapter?: unknown;
}

/**
 * The check `form` runs on an answer: `RESPONSE_OF_OTHER_PROVIDER` when the
 * first of `forms` that recognizes it is another form.
 */
export function otherFormCheck(
  form: ConversationForm<never, never>,
  forms: readonly ConversationForm<never, never>[],
): OtherFormCheck {
  return (answer) => {
    if (
      typeof answer !== "object" || answer === null || Array.isArray(answer)
    ) {
      return;
    }
    const first = forms.find((other) =>
      other.recognizes(answer as Record<string, unknown>)
    );
    if (first === undefined || first.id === form.id) return;
    throw new SystemPromptError(
      "RESPONSE_OF_OTHER_PROVIDER",
      `record() was given ${first.title} response; this is ${form.title} ` +
        `conversation. Nothing was recorded.`,
    );
  };
}

/** The form a conversation speaks, with its options read (the shell's). */
export interface ShellForm<M, Body> {
  readonly form: ConversationForm<M, Body>;
  readonly builder: FormBuilder<M, Body>;
  readonly context: FormContext;
}
