/**
 * A conversation's compactions (SPEC 10.2), the state the shell keeps for
 * them: the compaction requested and not yet swapped in, the `compactAt`
 * trigger, whether the turn goes on after a compaction, and the last
 * request's head (what a summarizing request sends again). The bytes come
 * from `compaction.ts`; the shell (`conversation.ts`) hands it its
 * committed state and writes its steps.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import {
  compactedHistory,
  compactionOf,
  compactionRequest,
  type PendingCompaction,
  swapCompaction,
  swappedCommitted,
} from "./compaction.ts";
import { deepFreeze, isoOf, readOptional, readOptionBag } from "./checks.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
  FormHead,
} from "./form.ts";
import type { RecordingStep } from "./recording.ts";
import type { Committed } from "./state.ts";
import type { Awaiting } from "./types.ts";
import type { CompactOptions } from "./compaction_types.ts";

/** What a compactor needs of its conversation. */
export interface CompactorHost<M> {
  readonly form: ConversationForm<M, unknown>;
  readonly builder: FormBuilder<M, unknown>;
  readonly clock: () => number;
  /** The committed state. */
  committed(): Committed<M>;
  /** Replaces the committed state. */
  commit(committed: Committed<M>): void;
  /** The head this step would send (a resumed conversation's first compaction). */
  freshHead(context: unknown, awaiting: Awaiting): Promise<FormHead>;
  /**
   * The person's input given and not sent yet: it goes in the step after
   * a compaction, so the compaction's line keeps it (`held`).
   */
  held(): readonly unknown[];
  /** An answer read as `record()` reads it. */
  read(answer: unknown): { read: FormAnswer<M>; response: unknown };
  /** A step's line written and observed (no provenance: no assembly). */
  write(
    step: RecordingStep,
    answer: unknown,
    request: {
      body: unknown;
      explanation: undefined;
      sentAt: number;
      time: number;
    },
  ): void;
}

/** The compactions of one conversation (internal). */
export class Compactor<M> {
  readonly #host: CompactorHost<M>;
  readonly compactAt: number | undefined;
  #pending: PendingCompaction<M> | undefined;
  /** `compactAt` reached: the next request() with no call open compacts. */
  #due = false;
  /** The last request() returned the trigger's summarizing request. */
  #triggered = false;
  continues = false;
  #lastHead: FormHead | undefined;
  /** A resumed conversation's last head, as recorded, until it is needed. */
  #recordedHead:
    | { readonly json: string; readonly state: Record<string, unknown> }
    | undefined;
  lastAwaiting: Awaiting;
  /** The swap the next step records. */
  #swap: { at: number; carried: number } | undefined;

  constructor(
    host: CompactorHost<M>,
    options: { compactAt: unknown; awaiting: Awaiting },
  ) {
    this.#host = host;
    this.compactAt = readCompactAt(options.compactAt);
    this.lastAwaiting = options.awaiting;
  }

  /**
   * A resumed conversation's: what its recording left pending. Returns the
   * person's input the last line held (a compaction's, for the step after).
   */
  resume(
    pending: PendingCompaction<M> | undefined,
    last: RecordingStep | undefined,
    committed: Pick<Committed<M>, "head" | "state">,
  ): unknown[] {
    this.#pending = pending;
    if (last === undefined) return [];
    // The last request's head as sent: a compaction sends its prefix again,
    // whatever the registry became since (made again only then).
    if (committed.head !== undefined) {
      this.#recordedHead = { json: committed.head, state: committed.state };
    }
    this.lastAwaiting = last.awaiting;
    this.#due = pending === undefined && last.kind === undefined &&
      last.compacted === undefined && this.#reaches(last.reported);
    return [...last.held ?? []];
  }

  /**
   * Before a request is built: a recorded compaction swapped in (at a turn
   * boundary), then, when `compactAt` is reached, the summarizing request
   * to send in place of the step.
   */
  async beforeRequest(context: unknown): Promise<unknown> {
    this.#swapIn();
    this.#triggered = false;
    if (!this.#due || this.#host.committed().calls.length > 0) return undefined;
    this.#pending ??= await this.#request({}, context);
    this.#triggered = true;
    return this.#pending.request.body;
  }

  /** `compact()`: the summarizing request and its answer's recorder. */
  async compact(
    options: unknown,
  ): Promise<
    { body: unknown; record(answer: unknown): void; cancel(): void }
  > {
    const bag = readOptionBag(options, "compact()") as
      | CompactOptions
      | undefined;
    const asked = {
      instructions: readOptional(
        bag?.instructions,
        "compact() instructions",
        "string",
      ),
      via: readOptional(bag?.via, "compact() via", "string"),
    };
    compactionOf(this.#host.form);
    if (this.#pending !== undefined) {
      throw new SystemPromptError(
        "COMPACTION_PENDING",
        `compact() was called while an earlier compaction is ${
          this.#pending.history === undefined
            ? "waiting for its answer (record it first)"
            : "recorded and not yet swapped in (at the next request())"
        }; one compaction at a time.`,
      );
    }
    const pending = await this.#request(asked, undefined);
    this.#pending = pending;
    return {
      body: pending.request.body,
      record: (answer) => this.#record(pending, answer),
      cancel: () => this.#cancel(pending),
    };
  }

  /** `Compaction.cancel()`: this compaction's request given up. */
  #cancel(pending: PendingCompaction<M>): void {
    if (this.#pending !== pending || pending.history !== undefined) {
      throw new SystemPromptError(
        "NOTHING_PENDING",
        `cancel() has no compaction to give up: its answer was recorded ` +
          `already, or it was given up before.`,
      );
    }
    this.#giveUp();
  }

  /**
   * `cancelCompaction()`: the requested compaction given up, the
   * trigger's or `compact()`'s.
   */
  cancel(): void {
    const pending = this.#pending;
    if (pending === undefined || pending.history !== undefined) {
      throw new SystemPromptError(
        "NOTHING_PENDING",
        `cancelCompaction() has no compaction to give up: ${
          pending === undefined
            ? "no compaction is requested (no compactAt request returned " +
              "by request(), no compact() waiting for its answer)"
            : "its answer was recorded already and the summary is swapped " +
              "in at the next request() with no tool call open; a recorded " +
              "compaction is not given up"
        }.`,
      );
    }
    this.#giveUp();
  }

  /**
   * A summarizing request given up before its answer was recorded (the
   * provider refused it): nothing recorded, the history goes on whole. The
   * trigger is no longer due, or the next request() would send the refused
   * request again: it fires after a later answer reaches `compactAt`.
   */
  #giveUp(): void {
    this.#pending = undefined;
    this.#triggered = false;
    this.#due = false;
  }

  /** The last request() returned the trigger's summarizing request. */
  get summarizing(): boolean {
    return this.#triggered && this.#pending !== undefined;
  }

  /** `record()` after the trigger's request: its answer committed; `true` if so. */
  recordTriggered(answer: unknown): boolean {
    if (!this.#triggered || this.#pending === undefined) return false;
    this.#record(this.#pending, answer);
    this.#triggered = false;
    this.continues = true;
    return true;
  }

  /** What a step's record adds: the swap before it, the provider's compaction. */
  stepFields(read: FormAnswer<M>): Partial<RecordingStep> {
    return {
      ...(this.#swap === undefined ? {} : { swap: this.#swap }),
      ...(read.compactedFrom === undefined ? {} : { compacted: true }),
    };
  }

  /** After a step is committed: the provider's compaction, the trigger. */
  committed(
    committed: Committed<M>,
    read: FormAnswer<M>,
    step: {
      readonly head: FormHead;
      readonly awaiting: Awaiting;
      readonly reported: { readonly inputTokens?: number };
    },
  ): Committed<M> {
    this.#swap = undefined;
    this.#lastHead = step.head;
    this.#recordedHead = undefined;
    this.lastAwaiting = step.awaiting;
    this.continues = read.paused === true;
    this.#due = this.#pending === undefined && this.#reaches(step.reported);
    if (read.compactedFrom === undefined) return committed;
    // The provider compacted inside the step: the history starts there.
    return swappedCommitted(committed, compactionOf(this.#host.form), {
      at: committed.history.length,
      history: read.messages.slice(read.compactedFrom),
      bound: read.bound,
    }, this.#host.form);
  }

  #reaches(reported: { readonly inputTokens?: number } | undefined): boolean {
    return this.compactAt !== undefined &&
      (reported?.inputTokens ?? 0) >= this.compactAt;
  }

  /** The summarizing request of the committed history. */
  async #request(
    asked: { readonly instructions?: string; readonly via?: string },
    context: unknown,
  ): Promise<PendingCompaction<M>> {
    const host = this.#host;
    const committed = host.committed();
    if (committed.calls.length > 0) {
      throw new SystemPromptError(
        "COMPACTION_OPEN_CALLS",
        `compact() was called with the last answer's tool calls ${
          committed.calls.map((call) => JSON.stringify(call.id)).join(", ")
        } open: a summary of an unfinished turn is refused. Compact once ` +
          `the turn ends (an answer without tool calls).`,
      );
    }
    const head = this.#lastHead ?? this.#resumedHead() ??
      await host.freshHead(context, this.lastAwaiting);
    return {
      at: committed.history.length,
      sentAt: host.clock(),
      request: compactionRequest(host.form, host.builder, {
        head,
        history: committed.history,
        previousLength: committed.previousLength,
        mark: host.builder.markFor(this.lastAwaiting),
        instructions: asked.instructions,
        ...(asked.via === undefined ? {} : { via: asked.via }),
      }),
    };
  }

  /** A resumed conversation's last head, made again from its recording. */
  #resumedHead(): FormHead | undefined {
    const recorded = this.#recordedHead;
    if (recorded === undefined) return undefined;
    const head = JSON.parse(recorded.json);
    const { builder } = this.#host;
    return builder.resumedHead?.(head, recorded.state) ??
      { recorded: head, state: recorded.state };
  }

  /** Commits a compaction's answer: its step line; the swap waits. */
  #record(pending: PendingCompaction<M>, answer: unknown): void {
    if (this.#pending !== pending || pending.history !== undefined) {
      throw new SystemPromptError(
        "NOTHING_PENDING",
        `This compaction was given up (cancel(), cancelCompaction()) or ` +
          `its answer was recorded already; record each answer once, and ` +
          `call compact() again for a new summarizing request.`,
      );
    }
    const host = this.#host;
    const { read, response } = host.read(answer);
    const history = compactedHistory(host.form, host.builder, {
      read,
      instruction: pending.request.tail,
      summary: pending.request.summary,
    });
    const time = host.clock();
    const request = pending.request;
    const held = host.held();
    const step: RecordingStep = {
      step: host.committed().steps + 1,
      kind: "compaction",
      at: pending.at,
      tail: request.tail,
      marks: request.marks,
      head: request.head,
      awaiting: this.lastAwaiting,
      response,
      start: history,
      ...(request.summary ? { summary: true as const } : {}),
      ...(held.length === 0 ? {} : { held: [...held] }),
      usage: read.usage ?? null,
      sent: isoOf(pending.sentAt),
      time: isoOf(time),
    };
    host.commit({
      ...host.committed(),
      steps: step.step,
      head: JSON.stringify(request.head),
    });
    this.#pending = { ...pending, history: history.map(deepFreeze) };
    this.#due = false;
    host.write(step, answer, {
      body: request.body,
      explanation: undefined,
      sentAt: pending.sentAt,
      time,
    });
  }

  /** A recorded compaction swapped in, at a turn boundary. */
  #swapIn(): void {
    const pending = this.#pending;
    const host = this.#host;
    const committed = host.committed();
    if (pending?.history === undefined || committed.calls.length > 0) return;
    this.#swap = {
      at: pending.at,
      carried: committed.history.length - pending.at,
    };
    host.commit(
      swappedCommitted(
        committed,
        swapCompaction(host.form, pending.request.summary),
        { at: pending.at, history: pending.history },
        host.form,
      ),
    );
    this.#pending = undefined;
  }
}

/** `compactAt`, checked: the input tokens, or `undefined`. */
function readCompactAt(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const tokens = (value as { inputTokens?: unknown } | null)?.inputTokens;
  if (typeof tokens === "number" && Number.isInteger(tokens) && tokens > 0) {
    return tokens;
  }
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `The conversation's compactAt must be { inputTokens: n }, n a positive ` +
      `integer; got ${JSON.stringify(value) ?? String(value)}.`,
  );
}
