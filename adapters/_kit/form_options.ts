/**
 * What the conversation forms read the same way: the options object and its
 * model, an output-token limit, `toolChanges`, and the refusal of a
 * server-side compaction. Internal: not a subpath export.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type { ResolvedChanges } from "../../src/conversation/form.ts";

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

const MODES = ["auto", "inline", "rebuild"];

/**
 * The `changes` option and its alias `toolChanges` (0.4's, for the tools),
 * checked and resolved, and what the recording's header keeps of them.
 * `inlineTools: false`: the form has no inline tool changes (`"auto"` and
 * `"inline"` rebuild the tools; `{ tools: "inline" }` is refused).
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` naming the option
 */
export function readChanges(
  options: Readonly<Record<string, unknown>>,
  form: string,
  { inlineTools, inlineOutput = false }: {
    readonly inlineTools: boolean;
    readonly inlineOutput?: boolean;
  },
): { resolved: ResolvedChanges; saved: Record<string, unknown> } {
  const given = options.changes ?? "auto";
  const kinds: Record<string, unknown> = typeof given === "string"
    ? { sections: given, tools: given, output: given }
    : isObject(given)
    ? { ...given }
    : { invalid: given };
  for (const [kind, mode] of Object.entries(kinds)) {
    if (
      (kind !== "sections" && kind !== "tools" && kind !== "output") ||
      (mode !== undefined && !MODES.includes(mode as string))
    ) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${form}'s changes is ${quote(given)}; it must be "auto" (the ` +
          `default), "inline", "rebuild" or { sections?, tools?, output? } ` +
          `of those.`,
      );
    }
  }
  const alias = options.toolChanges;
  if (alias !== undefined) {
    readToolChanges(alias, form);
    const tools = isObject(given) ? given.tools : undefined;
    if (
      (tools !== undefined && tools !== alias) ||
      (typeof given === "string" && options.changes !== undefined &&
        given !== alias)
    ) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${form}'s toolChanges is ${quote(alias)} and its changes ${
          quote(given)
        } say otherwise for the tools; give one of them.`,
      );
    }
    kinds.tools = alias;
  }
  const sections = (kinds.sections ?? "auto") as string;
  let tools = (kinds.tools ?? "auto") as string;
  if (!inlineTools) {
    if (tools === "inline" && typeof given !== "string") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${form} has no inline tool changes (its API takes none); give ` +
          `changes { tools: "rebuild" } or "auto".`,
      );
    }
    tools = "rebuild";
  }
  let output = (kinds.output ?? "auto") as string;
  if (!inlineOutput) {
    if (output === "inline" && typeof given !== "string") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${form} has no per-message output settings (its API takes ` +
          `them top-level only); give changes { output: "rebuild" } or "auto".`,
      );
    }
    output = "rebuild";
  }
  const saved: Record<string, unknown> = {};
  if (options.changes !== undefined) saved.changes = given;
  if (alias === "inline") saved.toolChanges = "inline";
  return {
    resolved: {
      sections: sections === "rebuild" ? "rebuild" : "inline",
      tools: tools as ResolvedChanges["tools"],
      output: output as ResolvedChanges["output"],
    },
    saved,
  };
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
 * The text of a model's turn that a compaction carries without its
 * reasoning when nothing else is left (the turn ended in reasoning alone):
 * where turns must alternate, dropping the turn would put two of the
 * person's turns in a row, which the API refuses. Short, and says what the
 * turn held.
 */
export const REASONING_OMITTED = "(reasoning omitted)";

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
