/**
 * The conversation's recording: one versioned JSON-lines format for saving,
 * resuming and the provider report (SPEC 9.1, 9.3, 9.8). A header line,
 * then one line per committed step holding that step's new tail (not the
 * whole body again), so it grows linearly with the conversation. Pure:
 * encoding, and parsing into checked records.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { ScopeKey, Stability } from "../types.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type { CacheContributor } from "../cache/report/types.ts";
import type { ListedTool } from "./tool_set.ts";
import type { HeldSection, SectionChange } from "./system_changes.ts";
import type { Awaiting } from "./types.ts";
import { MAX_JSON_DEPTH, nestsTooDeep } from "./checks.ts";

/**
 * How deep a recording's line may nest: an answer or input of at most
 * {@linkcode MAX_JSON_DEPTH} levels, in the few levels of its step.
 */
const MAX_LINE_DEPTH = 2 * MAX_JSON_DEPTH;

/** The format name on a recording's first line. */
export const RECORDING_FORMAT = "rxprompt-conversation";
/**
 * The version this module writes (2: the header's `form`, compaction
 * steps); it reads 1 and 2.
 */
export const RECORDING_VERSION = 2;

/**
 * A recording's first line.
 *
 * @example
 * ```ts
 * import type { RecordingHeader } from "@rxprompt/system-prompt";
 *
 * const header: RecordingHeader = {
 *   format: "rxprompt-conversation",
 *   version: 2,
 *   form: "anthropic-messages",
 *   session: "5f0c2b1e-7d1a-4c55-9a57-3b1f0e9d2c11",
 *   options: { model: "claude-sonnet-4-5", max_tokens: 1024 },
 * };
 * ```
 */
export interface RecordingHeader {
  /** Always `"rxprompt-conversation"`. */
  format: string;
  /** The format version (2; 1 is read too). */
  version: number;
  /** The form: `"anthropic-messages"`, `"openai-chat"` (version 2). */
  form?: string;
  /** Version 1's name of the form (read, never written). */
  provider?: string;
  /** The conversation's session id (OpenAI's `prompt_cache_key` session). */
  session: string;
  /** The options that decide the bytes (model, limits, defaults). */
  options: Record<string, unknown>;
  /** A fork's start: what it took from its parent (`conv.fork()`). */
  fork?: RecordingFork;
}

/**
 * A cache mark the conversation placed on one request's messages (in a
 * recording's step).
 *
 * @example
 * ```ts
 * import type { RecordingMark } from "@rxprompt/system-prompt";
 *
 * const mark: RecordingMark = { message: 2, block: 0, mark: { type: "ephemeral" } };
 * ```
 */
export interface RecordingMark {
  /** The index of the message in the body's message list. */
  readonly message: number;
  /** The index of the block (content part) in that message. */
  readonly block: number;
  /** The mark itself, as sent. */
  readonly mark: unknown;
}

/**
 * What a fork took from its parent conversation: the listed tools (and,
 * with inline tool changes, the tools the model has), the provider form's
 * state (OpenAI's `prompt_cache_key`) and the parent's last request head,
 * whose shared prefix the fork's first request marks.
 *
 * @example
 * ```ts
 * import type { RecordingFork } from "@rxprompt/system-prompt";
 *
 * const fork: RecordingFork = {
 *   session: "5f0c2b1e-7d1a-4c55-9a57-3b1f0e9d2c11",
 *   listed: [],
 *   state: { promptCacheKey: "0123456789abcdef" },
 * };
 * ```
 */
export interface RecordingFork {
  /** The parent's session id. */
  session: string;
  /** The parent's listed tools. */
  listed: ListedTool[];
  /** The state of the parent's form (e.g. its `promptCacheKey`). */
  state: Record<string, unknown>;
  /** The parent's last request without its messages, when it had one. */
  head?: Record<string, unknown>;
  /**
   * With sections inline: the sections the parent's head was built of
   * (its system prompt's texts, which the fork's first request shares).
   */
  headSections?: HeldSection[];
}

/**
 * One committed step of a recording: the request's new tail and the
 * answer. Fields marked "when changed" are absent when equal to the last
 * step's.
 *
 * @example
 * ```ts
 * import type { RecordingStep } from "@rxprompt/system-prompt";
 *
 * const step: RecordingStep = {
 *   step: 1,
 *   at: 0,
 *   tail: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
 *   marks: [{ message: 0, block: 0, mark: { type: "ephemeral" } }],
 *   awaiting: "agent",
 *   response: { type: "message", role: "assistant", content: [] },
 *   usage: null,
 *   time: "2026-12-06T00:00:00.000Z",
 * };
 * ```
 */
export interface RecordingStep {
  /** 1 for the first request, then one more per step. */
  step: number;
  /**
   * `"compaction"`: a summarizing request (`compact()` or `compactAt`); its
   * answer starts the history again when it is swapped in. Absent: a step.
   */
  kind?: "compaction";
  /**
   * Before this step was built, the compaction recorded last was swapped
   * in: the history became its start, then the `carried` items recorded
   * since its request (from `at`), without their bound parts.
   */
  swap?: { at: number; carried: number };
  /** Its answer holds the provider's compaction: the history starts there. */
  compacted?: true;
  /** A compaction's: the history its answer starts (the summary). */
  start?: unknown[];
  /**
   * A compaction's, on a form the provider compacts for: a client-side
   * summary (`compact({ via: "summary" })`), its answer's text the start.
   */
  summary?: true;
  /**
   * A compaction's: the person's input given before it was recorded and
   * not sent yet (it goes in the step after); a resume gives it again.
   */
  held?: unknown[];
  /** The history's length before this request's tail. */
  at: number;
  /** The messages this request added, cache marks removed. */
  tail: unknown[];
  /** Where the request's messages carried cache marks. */
  marks: RecordingMark[];
  /** The body without its messages (model, system, tools, ...), when changed. */
  head?: Record<string, unknown>;
  /** The listed tools (definitions and stabilities), when changed. */
  tools?: ListedTool[];
  /**
   * With inline tool changes: the tools the model has after this step, when
   * a change went inline.
   */
  inlineTools?: ListedTool[];
  /** The form's own state (e.g. the OpenAI cache key), when changed. */
  state?: Record<string, unknown>;
  /** The rendered runtime context the model has now, when this step sent it. */
  runtimeContext?: string;
  /** The tools the model might call this step, when gates or drops limit them. */
  allowedTools?: string[];
  /**
   * With sections inline (`changes`): the sections this step's head was
   * first built of, rendered; later heads are built of them again.
   */
  headSections?: HeldSection[];
  /** The section changes this step told the model inline. */
  sectionChanges?: SectionChange[];
  /**
   * The effort the head states and the one the model was told last, when
   * this step changed them (`RequestOptions.output`).
   */
  effort?: { head?: string; told: string };
  /** Who was to answer next. */
  awaiting: Awaiting;
  /** The provider's answer, as returned. */
  response: unknown;
  /** Its usage (also inside `response`), or `null`. */
  usage: unknown;
  /**
   * The usage and the provider's diagnosis as `readReportedUsage` read
   * them (a malformed figure listed in `malformed` with its raw value).
   */
  reported?: ReportedUsage;
  /** With `diagnostics`: who registered each system block and tool, when changed. */
  provenance?: RecordingProvenance;
  /**
   * With `diagnostics`: the registration behind this step's change of the
   * tools or system prompt since the step before (`attributeChange`).
   */
  contributor?: CacheContributor;
  /** When `request()` built the body (ISO 8601). */
  sent?: string;
  /** When the answer was recorded (ISO 8601). */
  time: string;
}

/**
 * Who registered each system block and tool of a step (SPEC 9.8: the
 * recording carries the provenance), from `explain()`.
 *
 * @example
 * ```ts
 * import type { RecordingProvenance } from "@rxprompt/system-prompt";
 *
 * const provenance: RecordingProvenance = {
 *   system: [{ sections: [{ name: "rules", registrar: "registry", layer: "global" }] }],
 *   tools: [{ name: "git_log", registrar: "registry/git", layer: "global" }],
 * };
 * ```
 */
export interface RecordingProvenance {
  /** Per system block in wire order, the sections it renders. */
  system: { sections: RecordingOrigin[] }[];
  /** Per tool of the assembly, in order. */
  tools: RecordingOrigin[];
}

/**
 * One registration in a recording's provenance.
 *
 * @example
 * ```ts
 * import type { RecordingOrigin } from "@rxprompt/system-prompt";
 *
 * const origin: RecordingOrigin = { name: "git", registrar: "registry/git", layer: "scope", scope: "reviewer" };
 * ```
 */
export interface RecordingOrigin {
  /** The section's or tool's name. */
  name: string;
  /** The label of the registrar that registered it. */
  registrar?: string;
  /** Where it was registered. */
  layer: "global" | "scope" | "listener";
  /** The scope, for a scope registration. */
  scope?: ScopeKey;
  /** Its stability. */
  stability?: Stability;
}

/** One line of a recording, ending with a newline. */
export function recordingLine(record: RecordingHeader | RecordingStep): string {
  return `${JSON.stringify(record)}\n`;
}

/** A recording read back. */
export interface ParsedRecording {
  readonly header: RecordingHeader;
  readonly steps: RecordingStep[];
  /** The last line was cut mid-way and left out. */
  readonly truncated: boolean;
  /** The recording's complete lines, as given, each ending with a newline. */
  readonly text: string;
}

/**
 * Reads a recording of form `form` (its id, or the form: then a step's
 * usage `source` in a name 0.4 gave the form reads as the form's id): the
 * header checked (format, version, provider), each step line parsed and
 * checked for shape and continuity of its step numbers. A last line cut
 * mid-way (no final newline, not JSON) is left out and reported as
 * `truncated`.
 */
export function parseRecording(
  recording: unknown,
  form: string | {
    readonly id: string;
    readonly formerNames: readonly string[];
  },
): ParsedRecording {
  const { id: provider, formerNames } = typeof form === "string"
    ? { id: form, formerNames: [] as readonly string[] }
    : form;
  if (typeof recording !== "string") {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `A recording is the JSON-lines text a conversation saved (save() or ` +
        `its recording option); got ${describe(recording)}.`,
    );
  }
  const lines = recording.split("\n");
  const complete = recording.endsWith("\n");
  if (complete) lines.pop();
  let truncated = false;
  const values: unknown[] = [];
  for (let index = 0; index < lines.length; index++) {
    try {
      values.push(JSON.parse(lines[index]));
    } catch (error) {
      if (!complete && index === lines.length - 1 && index > 0) {
        truncated = true;
        break;
      }
      throw new SystemPromptError(
        "RECORDING_UNPARSABLE",
        `Line ${index + 1} of the recording is not JSON; every line is one ` +
          `JSON record (only a last line cut mid-way is left out).`,
        { cause: error },
      );
    }
  }
  const deep = values.findIndex((value) => nestsTooDeep(value, MAX_LINE_DEPTH));
  if (deep >= 0) {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `Line ${deep + 1} of the recording nests deeper than ` +
        `${MAX_LINE_DEPTH} levels; a conversation records no such value.`,
    );
  }
  const header = readHeader(values[0], provider);
  const steps = values.slice(1).map((value, index) =>
    readStep(value, index + 2, index + 1)
  );
  for (const step of steps) {
    const reported = step.reported as { source?: unknown } | undefined;
    if (
      isObject(reported) && typeof reported.source === "string" &&
      formerNames.includes(reported.source)
    ) {
      step.reported = { ...step.reported!, source: provider };
    }
  }
  const text = complete
    ? recording
    : truncated
    ? recording.slice(0, recording.lastIndexOf("\n") + 1)
    : `${recording}\n`;
  return { header, steps, truncated, text };
}

function readHeader(value: unknown, provider: string): RecordingHeader {
  if (!isObject(value) || value.format !== RECORDING_FORMAT) {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `The recording's first line is not a conversation header (format ` +
        `"${RECORDING_FORMAT}"); got ${describe(value)}.`,
    );
  }
  if (value.version !== 1 && value.version !== RECORDING_VERSION) {
    throw new SystemPromptError(
      "RECORDING_VERSION",
      `The recording has format version ${
        JSON.stringify(value.version)
      }; this version of rxprompt reads versions 1 and ${RECORDING_VERSION}.`,
    );
  }
  const named = value.version === 1 ? value.provider : value.form;
  if (named !== provider) {
    throw new SystemPromptError(
      "RECORDING_OTHER_PROVIDER",
      `The recording is of a ${
        JSON.stringify(named)
      } conversation; it can be resumed as ${
        JSON.stringify(named)
      } only, not as "${provider}".`,
    );
  }
  if (
    value.fork !== undefined &&
    !(isObject(value.fork) && Array.isArray(value.fork.listed) &&
      isObject(value.fork.state) &&
      (value.fork.head === undefined || isObject(value.fork.head)) &&
      (value.fork.headSections === undefined ||
        Array.isArray(value.fork.headSections)))
  ) {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `The recording's header has a fork that is not { session, listed, ` +
        `state, head? }.`,
    );
  }
  if (typeof value.session !== "string" || !isObject(value.options)) {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `The recording's header needs a string session and an options ` +
        `object.`,
    );
  }
  return value as unknown as RecordingHeader;
}

/** The form a recording's header names (`form`, or version 1's `provider`). */
export function formOfHeader(header: RecordingHeader): string | undefined {
  return header.form ?? header.provider;
}

function readStep(value: unknown, line: number, step: number): RecordingStep {
  const bad = (what: string) =>
    new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `Line ${line} of the recording is not a step record: ${what}.`,
    );
  if (!isObject(value)) throw bad(`got ${describe(value)}`);
  if (value.step !== step) {
    throw new SystemPromptError(
      "RECORDING_DISCONTINUOUS",
      `Line ${line} of the recording is step ${
        JSON.stringify(value.step)
      }; step ${step} was expected there (a step is missing, repeated or ` +
        `moved).`,
    );
  }
  if (!Number.isInteger(value.at)) throw bad("its at is not an integer");
  if (!Array.isArray(value.tail)) throw bad("its tail is not an array");
  if (!Array.isArray(value.marks)) throw bad("its marks are not an array");
  if (value.awaiting !== "person" && value.awaiting !== "agent") {
    throw bad(`awaiting is ${describe(value.awaiting)}`);
  }
  if (value.tools !== undefined && !Array.isArray(value.tools)) {
    throw bad("its tools are not an array");
  }
  if (value.inlineTools !== undefined && !Array.isArray(value.inlineTools)) {
    throw bad("its inlineTools are not an array");
  }
  for (const key of ["headSections", "sectionChanges", "held"]) {
    if (value[key] !== undefined && !Array.isArray(value[key])) {
      throw bad(`its ${key} are not an array`);
    }
  }
  if (
    value.runtimeContext !== undefined &&
    typeof value.runtimeContext !== "string"
  ) {
    throw bad("its runtimeContext is not a string");
  }
  if (value.kind !== undefined && value.kind !== "compaction") {
    throw bad(`its kind is ${describe(value.kind)}`);
  }
  if (
    value.swap !== undefined &&
    !(isObject(value.swap) && Number.isInteger(value.swap.at) &&
      Number.isInteger(value.swap.carried))
  ) {
    throw bad("its swap is not { at, carried }");
  }
  if (value.head !== undefined && !isObject(value.head)) {
    throw bad("its head is not an object");
  }
  if (value.state !== undefined && !isObject(value.state)) {
    throw bad("its state is not an object");
  }
  if (
    value.allowedTools !== undefined &&
    !(Array.isArray(value.allowedTools) &&
      value.allowedTools.every((name) => typeof name === "string"))
  ) {
    throw bad("its allowedTools are not a list of names");
  }
  return value as unknown as RecordingStep;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return `a string ${JSON.stringify(value.slice(0, 40))}`;
  }
  return String(value);
}
