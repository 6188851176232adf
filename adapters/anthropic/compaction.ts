/**
 * Anthropic compaction (SPEC 10.2): the on-demand summarizing request's
 * head (`compaction: { type: "summarize" }`, beta `compact-2026-09-04`)
 * and the `serverCompaction` option, the threshold edit
 * `compact_20260112` (beta `compact-2026-01-12`) answered inside a step.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type { FormHead } from "../../src/conversation/form.ts";
import { isObject } from "../_kit/form_options.ts";

/** The beta of on-demand compaction. */
const SUMMARIZE_BETA = "compact-2026-09-04";
/** The beta of threshold compaction. */
const THRESHOLD_BETA = "compact-2026-01-12";

/** `serverCompaction`, read: the edit's fields and the beta it needs. */
export interface ServerCompaction {
  readonly trigger?: number;
  readonly pauseAfter?: boolean;
  readonly instructions?: string;
  readonly betas: readonly string[];
}

/**
 * The `serverCompaction` option, checked: `{ trigger?, pauseAfter?,
 * instructions? }` (input tokens; the API's default trigger is 150,000).
 */
export function readServerCompaction(
  value: unknown,
  form: string,
): ServerCompaction | undefined {
  if (value === undefined) return undefined;
  const bad = () =>
    new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s serverCompaction is ${
        quote(value)
      }; it must be { trigger?: input tokens, pauseAfter?: boolean, ` +
        `instructions?: string }.`,
    );
  if (!isObject(value)) throw bad();
  const { trigger, pauseAfter, instructions } = value;
  if (
    (trigger !== undefined &&
      !(typeof trigger === "number" && Number.isInteger(trigger) &&
        trigger > 0)) ||
    (pauseAfter !== undefined && typeof pauseAfter !== "boolean") ||
    (instructions !== undefined && typeof instructions !== "string")
  ) throw bad();
  return {
    ...(trigger === undefined ? {} : { trigger }),
    ...(pauseAfter === undefined ? {} : { pauseAfter }),
    ...(instructions === undefined ? {} : { instructions }),
    betas: [THRESHOLD_BETA],
  };
}

/** The head's `context_management` for `serverCompaction`. */
export function serverCompactionFields(
  server: ServerCompaction | undefined,
): Record<string, unknown> {
  if (server === undefined) return {};
  return {
    context_management: {
      edits: [{
        type: "compact_20260112",
        ...(server.trigger === undefined
          ? {}
          : { trigger: { type: "input_tokens", value: server.trigger } }),
        ...(server.pauseAfter === undefined
          ? {}
          : { pause_after_compaction: server.pauseAfter }),
        ...(server.instructions === undefined
          ? {}
          : { instructions: server.instructions }),
      }],
    },
  };
}

/**
 * The on-demand summarizing request's head: the last request's (model,
 * system, tools, thinking), with `compaction` asked and its beta; without
 * `context_management`, which the API refuses beside it.
 */
export function compactionHead(
  head: FormHead,
  instructions: string | undefined,
): FormHead {
  const { context_management: _edits, betas, ...rest } = head.recorded;
  const kept = (Array.isArray(betas) ? betas : []).filter((beta) =>
    beta !== THRESHOLD_BETA
  );
  return {
    ...head,
    recorded: {
      ...rest,
      compaction: {
        type: "summarize",
        ...(instructions === undefined ? {} : { instructions }),
      },
      betas: [...kept, SUMMARIZE_BETA],
    },
  };
}

/**
 * A body's betas: the head's, and on-demand compaction's when the history
 * starts with a compaction block (the API reads it under either beta).
 */
export function compactionBetas(
  betas: readonly string[] | undefined,
  messages: readonly { readonly content: unknown }[],
): string[] | undefined {
  const first = messages[0]?.content;
  const compacted = Array.isArray(first) && isObject(first[0]) &&
    first[0].type === "compaction";
  if (
    !compacted || betas?.includes(SUMMARIZE_BETA) ||
    betas?.includes(THRESHOLD_BETA)
  ) return betas === undefined ? undefined : [...betas];
  return [...betas ?? [], SUMMARIZE_BETA];
}

/** `INVALID_CONFIG` for a `via` Anthropic's compaction does not have. */
export function viaRefused(via: string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_CONFIG",
    `compact()'s via is ${
      quote(via)
    }; an Anthropic Messages conversation compacts with the compaction ` +
      `parameter only: leave via out.`,
  );
}
