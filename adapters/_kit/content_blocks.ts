/**
 * What the conversation forms do the same way with content: a person's
 * input or a tool result checked and copied into parts, and a fork's system
 * parts laid out on its parent's. Internal: not a subpath export.
 *
 * @module
 */

import { jsonClone } from "../../src/shared/json_clone.ts";
import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import { isObject } from "./form_options.ts";

/**
 * A person's input or a tool result's content checked and copied: a
 * non-empty string becomes one text block (when `allowString`), or a
 * non-empty array of objects with a string `type`, none of the `forbid`
 * types and none carrying a cache mark (the conversation places those).
 */
export function copyBlocks(
  input: unknown,
  what: string,
  options: { allowString: boolean; forbid: readonly string[]; text?: string },
): unknown[] {
  const text = options.text ?? "text";
  if (typeof input === "string" && options.allowString && input !== "") {
    return [{ type: text, text: input }];
  }
  const invalid = (detail: string) =>
    new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `${what} takes a non-empty string or a non-empty array of content ` +
        `blocks; ${detail}.`,
    );
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid(`got ${quote(input)}`);
  }
  for (const block of input) {
    if (!isObject(block) || typeof block.type !== "string") {
      throw invalid("a block is not an object with a string type");
    }
    if (options.forbid.includes(block.type)) {
      throw invalid(
        `a ${quote(block.type)} block goes through toolResult(id, content)`,
      );
    }
    if ("cache_control" in block || "prompt_cache_breakpoint" in block) {
      throw invalid(
        "a block carries a cache mark; the conversation places the marks",
      );
    }
  }
  return jsonClone(input);
}

/**
 * A fork's system part texts, each part it shares with its parent ending
 * where the parent's ended (SPEC 9.8). The renderers put the blank line
 * between two sections at the end of the part before a cut; the parent's
 * last part has none (nothing followed it), so where the child's part is
 * the parent's and that blank line, the line goes to the start of the
 * child's next part. From the first part that differs otherwise, `texts`
 * as they are.
 */
export function parentCuts(
  texts: readonly string[],
  parent: readonly string[],
): string[] {
  const cut = [...texts];
  for (let index = 0; index < cut.length && index < parent.length; index++) {
    if (cut[index] === parent[index]) continue;
    if (
      index + 1 < cut.length && cut[index] === parent[index] + SEPARATOR
    ) {
      cut[index] = parent[index];
      cut[index + 1] = SEPARATOR + cut[index + 1];
      continue;
    }
    break;
  }
  return cut;
}

/** What the renderers put between two non-empty sections. */
const SEPARATOR = "\n\n";

/**
 * The texts of a head's system `parts`: a string is one part, an array
 * gives each object's `text(part)`; `[]` for any other shape (a recording
 * is read as found).
 */
export function textsOf(
  parts: unknown,
  text: (part: Record<string, unknown>) => unknown,
): string[] {
  if (typeof parts === "string") return [parts];
  if (!Array.isArray(parts)) return [];
  const texts: string[] = [];
  for (const part of parts) {
    const value = isObject(part) ? text(part) : undefined;
    if (typeof value !== "string") return [];
    texts.push(value);
  }
  return texts;
}
