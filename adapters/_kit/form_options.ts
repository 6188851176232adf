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

/**
 * The text of a client-side summary's answer: every text of its assistant
 * items' `content` (a string, or parts with a `text`), joined.
 */
export function answerText(items: readonly unknown[]): string {
  const texts: string[] = [];
  for (const item of items) {
    if (!isObject(item) || item.role !== "assistant") continue;
    const { content } = item;
    if (typeof content === "string") texts.push(content);
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (isObject(part) && part.type === "text") {
        texts.push(String(part.text));
      }
    }
  }
  return texts.join("\n\n");
}

/**
 * A message without the content parts of `types` (thinking and reasoning,
 * bound to the prefix they were made on); `undefined` when none is left.
 */
export function withoutParts<M>(
  message: M,
  types: ReadonlySet<string>,
): M | undefined {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return message;
  const kept = content.filter((part) =>
    !(isObject(part) && types.has(part.type as string))
  );
  if (kept.length === content.length) return message;
  return kept.length === 0 ? undefined : { ...message, content: kept };
}
