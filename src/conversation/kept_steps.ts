/**
 * The committed steps as a conversation keeps them for `save()` and
 * `report()` (SPEC 10.4: retained memory per step within 2.5× the same
 * messages in the user's array). A kept step is its recording line's
 * record, some of its fields held more compactly than the line writes
 * them, and written back exactly when a line or a report asks:
 *
 * - its times (`sent`, `time`) as the clock's milliseconds, not ISO text;
 * - its usage read (`reported`) left out where the form reads it again
 *   from the answer's own JSON copy, the same figures (`undefined` in its
 *   place, so the line keeps its key order);
 * - its cache marks sharing the previous step's: a mark at the same place
 *   is the previous step's object, a mark's value one object per distinct
 *   value, and an unchanged list the previous list; so are the names of
 *   the tools it allowed;
 * - its tail in an array of its own length.
 *
 * @module
 */

import type { ReportedUsage } from "../cache/report/usage_types.ts";
import { isoOf } from "./checks.ts";
import type { RecordingMark, RecordingStep } from "./recording.ts";

/** A committed step as kept: its times may be milliseconds (internal). */
export type KeptStep = Omit<RecordingStep, "sent" | "time"> & {
  /** When `request()` built the body: ms of the clock, or ISO 8601. */
  sent?: string | number;
  /** When the answer was recorded: ms of the clock, or ISO 8601. */
  time: string | number;
};

/**
 * A time of the conversation's clock as a kept step holds it: the
 * milliseconds when they are a time (the line writes `isoOf` of them, as
 * it would have at the step), else its ISO text now.
 */
export function keptTime(ms: number): string | number {
  return typeof ms === "number" && !Number.isNaN(new Date(ms).getTime())
    ? ms
    : isoOf(ms);
}

/**
 * Whether a kept step leaves its usage read (`reported`) out, the line
 * reading it again from the answer's record: the record is the whole
 * answer's JSON copy (`copied`), the answer a plain object (its copy holds
 * what it holds) and the reading clean (no malformed figure, no unreadable
 * payload), so the copy reads the same.
 */
export function readsAgain(
  answer: unknown,
  reported: ReportedUsage,
  copied: boolean,
): boolean {
  return copied && typeof answer === "object" && answer !== null &&
    Object.getPrototypeOf(answer) === Object.prototype &&
    reported.malformed === undefined &&
    reported.diagnosis?.status !== "unknown";
}

/**
 * A conversation's kept steps, in order (resumed ones first, as read);
 * `at` and `all` give them as the recording's lines hold them.
 */
export class KeptSteps {
  readonly #steps: KeptStep[] = [];
  readonly #readUsage: (response: unknown) => ReportedUsage;
  /** One object per distinct mark value, by its JSON. */
  readonly #markValues = new Map<string, unknown>();

  /** `readUsage`: the usage read of an answer's JSON copy. */
  constructor(readUsage: (response: unknown) => ReportedUsage) {
    this.#readUsage = readUsage;
  }

  /** How many steps are kept. */
  get length(): number {
    return this.#steps.length;
  }

  /** Keeps a resumed recording's steps, as read. */
  resume(steps: readonly RecordingStep[]): void {
    for (const step of steps) this.#steps.push(step);
  }

  /**
   * Keeps a committed step: its marks and allowed tools shared with the
   * previous step's, its tail in an array of its own length.
   */
  push(step: KeptStep): void {
    const previous = this.#steps.at(-1);
    step.marks = this.#marksOf(step.marks, previous?.marks);
    // The tail was built by appending: its array may hold room to grow.
    step.tail = step.tail.slice();
    const allowed = step.allowedTools;
    if (
      allowed !== undefined && previous?.allowedTools !== undefined &&
      sameNames(allowed, previous.allowedTools)
    ) {
      step.allowedTools = previous.allowedTools;
    }
    this.#steps.push(step);
  }

  /** Step `index` (0-based) as its recording line holds it. */
  at(index: number): RecordingStep {
    return this.lineOf(this.#steps[index]);
  }

  /** Every kept step as the recording's lines hold them. */
  all(): RecordingStep[] {
    return this.#steps.map((step) => this.lineOf(step));
  }

  /** A kept step as its recording line holds it. */
  lineOf(step: KeptStep): RecordingStep {
    const { sent, time } = step;
    const rereads = step.reported === undefined &&
      Object.hasOwn(step, "reported");
    if (typeof sent !== "number" && typeof time !== "number" && !rereads) {
      return step as RecordingStep;
    }
    // Spread, then the same keys given again: the line's key order holds.
    return {
      ...step,
      ...(rereads ? { reported: this.#readUsage(step.response) } : {}),
      ...(typeof sent === "number" ? { sent: isoOf(sent) } : {}),
      time: typeof time === "number" ? isoOf(time) : time,
    } as RecordingStep;
  }

  /** `marks` kept: the previous step's objects where they are the same. */
  #marksOf(
    marks: readonly RecordingMark[],
    previous: readonly RecordingMark[] | undefined,
  ): RecordingMark[] {
    const kept = marks.map((mark) => {
      const json = JSON.stringify(mark.mark);
      let value = this.#markValues.get(json);
      if (value === undefined && !this.#markValues.has(json)) {
        value = Object.freeze(mark.mark);
        this.#markValues.set(json, value);
      }
      const same = previous?.find((before) =>
        before.message === mark.message && before.block === mark.block &&
        before.mark === value
      );
      return same ?? Object.freeze({
        message: mark.message,
        block: mark.block,
        mark: value,
      });
    });
    return previous !== undefined && previous.length === kept.length &&
        kept.every((mark, index) => mark === previous[index])
      ? previous as RecordingMark[]
      : kept;
  }
}

function sameNames(
  names: readonly string[],
  others: readonly string[],
): boolean {
  return names.length === others.length &&
    names.every((name, index) => name === others[index]);
}
