/**
 * Compaction that rides the cache (SPEC 10.2): the summarizing request
 * built from the live request's exact prefix plus one instruction, with no
 * cache write for its own tail; the history a compaction's answer starts;
 * and the swap, which carries the steps taken while a compaction ran after
 * its summary. Pure: the shell (`conversation.ts`) holds the state.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
  FormCompaction,
  FormHead,
} from "./form.ts";
import { markHistoryEnds } from "./marks.ts";
import { History, type ReadonlyHistory } from "./history.ts";
import { declaredAfter } from "./build.ts";
import type { RecordingMark } from "./recording.ts";
import { toldOf } from "./system_changes.ts";
import type { Committed } from "./state.ts";

/** A summarizing request's tail declares no tools. */
const NONE_DECLARED: ReadonlySet<string> = new Set();

/** What a client-side summary asks for, unless `instructions` say otherwise. */
export const DEFAULT_SUMMARY_INSTRUCTION =
  "Summarize the conversation so far for your own later use: the task, " +
  "the decisions taken and why, the files and facts that matter, what was " +
  "done and what is left. Answer with the summary only.";

/** The first line of a client-side summary in the history that follows it. */
export const SUMMARY_LEAD = "Summary of the conversation so far:";

/** A summarizing request as built. */
export interface CompactionRequest<M> {
  /** The whole body to send. */
  readonly body: unknown;
  /** The items it adds after the history: the instruction, or none. */
  readonly tail: M[];
  /** Its marks (the previous request's end only: a read, no write). */
  readonly marks: RecordingMark[];
  /** The body without its history, as the recording keeps it. */
  readonly head: Record<string, unknown>;
  /**
   * A client-side summary on a form the provider compacts for
   * (`via: "summary"`): its answer's text starts the history.
   */
  readonly summary?: true;
}

/** What a summarizing request is built from. */
export interface CompactionInput<M> {
  /** The head the last request sent (or this step's, before any). */
  readonly head: FormHead;
  /** The committed history. */
  readonly history: ReadonlyHistory<M>;
  /** How many items the last request sent. */
  readonly previousLength: number;
  /** The last request's history mark (its lifetime kept). */
  readonly mark: unknown;
  readonly instructions: string | undefined;
  /** A form's other summarizing request (Responses: `"compact"`). */
  readonly via?: string;
}

/** A form's compaction, or `COMPACTION_UNSUPPORTED`. */
export function compactionOf<M>(
  form: ConversationForm<M, unknown>,
): FormCompaction<M> {
  if (form.compaction !== undefined) return form.compaction;
  throw new SystemPromptError(
    "COMPACTION_UNSUPPORTED",
    `${form.title} conversation cannot compact: its form has no compaction.`,
  );
}

/**
 * The summarizing request: the last request's head and the committed
 * history, marked only where the last request ended (its entry exists: the
 * mark reads it and writes nothing), then the instruction (client-side) or
 * the API's compaction parameter, unmarked.
 */
export function compactionRequest<M>(
  form: ConversationForm<M, unknown>,
  builder: FormBuilder<M, unknown>,
  input: CompactionInput<M>,
): CompactionRequest<M> {
  const compaction = compactionOf(form);
  const summary = input.via === "summary" && compaction.by === "provider";
  if (summary && compaction.summary === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `compact()'s via is "summary"; ${form.title} conversation has no ` +
        `client-side summary: leave via out.`,
    );
  }
  if (
    input.via !== undefined && input.via !== "summary" &&
    compaction.by === "client"
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `compact()'s via is ${
        JSON.stringify(input.via)
      }; ${form.title} conversation has one summarizing request: leave via out.`,
    );
  }
  const ended = Math.min(input.previousLength, input.history.length);
  const marked = markHistoryEnds(
    input.history.slice(0, ended),
    0,
    ended === 0 ? undefined : input.mark,
    0,
    form.marks,
  );
  const history = [...marked.items, ...input.history.slice(ended)];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `compact() has no history to summarize: record a step first.`,
    );
  }
  const asked = compaction.by === "provider" && !summary
    ? builder.compaction!(input.head, {
      ...(input.instructions === undefined
        ? {}
        : { instructions: input.instructions }),
      ...(input.via === undefined ? {} : { via: input.via }),
    })
    : {
      head: input.head,
      tail: builder.tail({
        results: [],
        person: form.personInput(
          input.instructions ?? DEFAULT_SUMMARY_INSTRUCTION,
        ),
        update: undefined,
        declared: NONE_DECLARED,
        history: input.history,
      }),
    };
  // A summarizing request is rare: its list is built whole, the form's
  // leading items first (the body takes the list as it is).
  const leading = builder.leading?.(asked.head) ?? [];
  return {
    body: builder.body(
      asked.head,
      [...leading, ...history, ...asked.tail],
      {},
    ),
    tail: asked.tail,
    marks: marked.marks,
    head: asked.head.recorded,
    ...(summary ? { summary: true as const } : {}),
  };
}

/**
 * The history a compaction's answer starts: the provider's items from its
 * compaction on, or the client-side summary (one person message, or the
 * form's `start` from the summarizing request's `instruction`).
 */
export function compactedHistory<M>(
  form: ConversationForm<M, unknown>,
  builder: FormBuilder<M, unknown>,
  answer: {
    readonly read: FormAnswer<M>;
    readonly instruction: readonly M[];
    /** A client-side summary on a form the provider compacts for. */
    readonly summary?: boolean;
  },
): M[] {
  const { read } = answer;
  const compaction = compactionOf(form);
  if (compaction.by === "provider" && answer.summary !== true) {
    if (read.compactedFrom === undefined) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The compaction's answer holds no compaction; record the answer ` +
          `to the body compact() returned.`,
      );
    }
    return read.messages.slice(read.compactedFrom);
  }
  const text = compaction.summary!(read.messages);
  if (text.trim() === "") {
    // An empty summary would replace the history with nothing (and where
    // turns alternate, the model's turn would be empty): nothing is
    // committed, and the answer may be recorded again.
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `The summary's answer holds no text (${read.messages.length} ` +
        `item(s), none with text); record an answer that summarizes.`,
    );
  }
  if (compaction.start !== undefined) {
    return compaction.start(answer.instruction, text);
  }
  return builder.tail({
    results: [],
    person: form.personInput(`${SUMMARY_LEAD}\n\n${text}`),
    update: undefined,
    declared: NONE_DECLARED,
    history: History.empty(),
  });
}

/**
 * The form's compaction as a swap applies it: a client-side summary on a
 * form the provider compacts for keeps no tools the conversation told the
 * model of (they are told again).
 */
export function swapCompaction<M>(
  form: ConversationForm<M, unknown>,
  summary: boolean | undefined,
): FormCompaction<M> {
  const compaction = compactionOf(form);
  return summary === true && compaction.keepsTools
    ? { ...compaction, keepsTools: false }
    : compaction;
}

/**
 * The history after a swap: the compacted start, then the items recorded
 * since the compaction's request was built (`history[at..]`), each without
 * its bound parts (their signatures bind them to the long prefix).
 */
export function swappedHistory<M>(
  compaction: FormCompaction<M>,
  compacted: readonly M[],
  history: ReadonlyHistory<M>,
  at: number,
): M[] {
  const carried = history.slice(at).flatMap((item) => {
    const kept = compaction.unbound(item);
    return kept === undefined ? [] : [kept];
  });
  return [...compacted, ...carried];
}

/** A compaction requested and not yet swapped in. */
export interface PendingCompaction<M> {
  /** The history length its request summarized. */
  readonly at: number;
  readonly request: CompactionRequest<M>;
  /** When its request was built (ms). */
  readonly sentAt: number;
  /** The compacted start, once its answer is recorded. */
  readonly history?: readonly M[];
}

/**
 * The committed state once a recorded compaction is swapped in: its start,
 * then the items recorded since (unbound); what the summary dropped is
 * told again by the next request: the runtime context whole, the sections
 * changed since the head (or the system prompt rebuilt:
 * `compaction_head.ts`), the effort told inline, and (unless the
 * provider's compaction keeps them) the tools given inline, as changes
 * from the tools block. The turn's reminder goes with the next person's
 * message or results, as always.
 */
export function swappedCommitted<M>(
  committed: Committed<M>,
  compaction: FormCompaction<M>,
  pending: {
    readonly at: number;
    readonly history: readonly M[];
    /** The history holds a block bound to its prefix. */
    readonly bound?: boolean;
  },
  form: Pick<ConversationForm<M, unknown>, "declares">,
): Committed<M> {
  const swapped = swappedHistory(
    compaction,
    pending.history,
    committed.history,
    pending.at,
  );
  return {
    ...committed,
    // A new store: the compacted start and what followed it.
    history: History.empty<M>().append(swapped),
    declaredJson: declaredAfter(new Set(), swapped, form),
    previousLength: 0,
    runtimeText: "",
    // The sections' changes told inline were in what the summary replaced:
    // told again, from the head's own (SPEC 10.1).
    ...(committed.told === undefined
      ? {}
      : { told: toldOf(committed.told.head) }),
    effective: compaction.keepsTools || committed.effective === undefined
      ? committed.effective
      : committed.listed,
    // The effort told inline, too: the next request tells it again.
    compacted: true,
    ...(pending.bound === true ? { boundStart: true as const } : {}),
  };
}
