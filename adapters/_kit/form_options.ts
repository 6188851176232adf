/**
 * What the conversation forms read the same way: the options object and its
 * model, an output-token limit, `toolChanges`, and the refusal of a
 * server-side compaction. Internal: not a subpath export.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";

/** A plain object, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The model every form needs, checked (and the options object). */
export function readModel(options: unknown, form: string): string {
  if (!isObject(options)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s options must be an object { model, ... }; got ` +
        `${quote(options)}.`,
    );
  }
  const { model } = options;
  if (typeof model !== "string" || model === "") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s model is ${quote(model)}; it must be the model's name.`,
    );
  }
  return model;
}

/** An output-token limit option, checked (`undefined` when absent and allowed). */
export function readLimit(
  value: unknown,
  name: string,
  form: string,
  { required }: { required: boolean },
): number | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s ${name} is ${quote(value)}; it must be a positive integer.`,
    );
  }
  return value;
}

/**
 * The `toolChanges` option, checked: whether tool-set changes go into the
 * conversation (`"inline"`) or rebuild the tools block (`"rebuild"`, the
 * default).
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for any other value
 */
export function readToolChanges(value: unknown, form: string): boolean {
  if (value !== undefined && value !== "rebuild" && value !== "inline") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s toolChanges is ${
        quote(value)
      }; it must be "rebuild" (the default) or "inline".`,
    );
  }
  return value === "inline";
}

/** `COMPACTION_UNSUPPORTED` for an answer holding `what`, nothing recorded. */
export function compactionUnsupported(what: string): SystemPromptError {
  return new SystemPromptError(
    "COMPACTION_UNSUPPORTED",
    `${what}: server-side compaction is not supported by the conversation ` +
      `yet; nothing was recorded.`,
  );
}
