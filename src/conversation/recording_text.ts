/**
 * The recording's text (SPEC 9.1, 10.4), written only when asked for: a
 * step's line at the step for `onRecord`, the lines `save()` returns from
 * the steps the conversation keeps for `report()`. A conversation never
 * saved and without `onRecord` keeps no text beside its steps.
 *
 * @module
 */

import {
  type RecordingHeader,
  recordingLine,
  type RecordingStep,
} from "./recording.ts";

/** What `save()` returns and what `onRecord` is handed (internal). */
export class RecordingText {
  /**
   * The text as `save()` last returned it (a resumed conversation's: the
   * lines as read); `save()` appends the lines of the steps since.
   */
  #saved: string | undefined;
  /** How many of the kept steps `#saved` holds. */
  #savedSteps = 0;
  /** A line went to `onRecord` or into the recording read: no header next. */
  #started = false;

  /** A resumed conversation's: the recording's complete lines, as read. */
  constructor(read?: { readonly text: string; readonly steps: number }) {
    if (read === undefined) return;
    this.#saved = read.text;
    this.#savedSteps = read.steps;
    this.#started = true;
  }

  /**
   * The lines `onRecord` is handed for a committed step: the header first
   * when the recording starts with this step.
   */
  linesOf(step: RecordingStep, header: () => RecordingHeader): string[] {
    const line = recordingLine(step);
    return step.step === 1 && !this.#started
      ? [recordingLine(header()), line]
      : [line];
  }

  /** Notes a committed step: the recording has started. */
  committed(): void {
    this.#started = true;
  }

  /**
   * The whole recording of `steps` (every step kept, in order, as its
   * line holds it: `at`).
   */
  save(
    steps: {
      readonly length: number;
      at(index: number): RecordingStep;
    },
    header: () => RecordingHeader,
  ): string {
    let text = this.#saved ?? recordingLine(header());
    for (let index = this.#savedSteps; index < steps.length; index++) {
      text += recordingLine(steps.at(index));
    }
    this.#saved = text;
    this.#savedSteps = steps.length;
    return text;
  }
}
