/**
 * `runtimeContextUpdate`: the message text a harness appends after the last
 * conversation item when the runtime context changed between two steps.
 * Pure, built on `renderRuntimeContext`.
 *
 * @module
 */

import { isSystemPromptError, quote, SystemPromptError } from "../errors.ts";
import type { PromptAssembly } from "../types.ts";
import { runtimeContextFor } from "./prompt.ts";

/** The default first line of an update. */
export const DEFAULT_HEADER: string =
  "Runtime context (replaces any earlier runtime context):";

/**
 * Options of {@linkcode runtimeContextUpdate}.
 *
 * @example
 * ```ts
 * import type { RuntimeContextUpdateOptions } from "@rxprompt/system-prompt";
 *
 * const options: RuntimeContextUpdateOptions = { header: "Current facts:" };
 * ```
 */
export interface RuntimeContextUpdateOptions {
  /**
   * The first line of the update. Default
   * `"Runtime context (replaces any earlier runtime context):"`.
   */
  header?: string;
}

/**
 * The text to send after the last item of the conversation when the
 * rendered runtime context of `current` differs from `previous`'s (or
 * `previous` is `undefined` and `current`'s is non-empty): the header line,
 * a newline, then the rendered runtime context, or `(none)` when it became
 * empty. `undefined` when nothing changed.
 *
 * Sent this way, kept in the history and never moved, a change of a
 * volatile fact (the date, the branch) leaves the cached system prompt and
 * conversation intact: only the new message is uncached.
 *
 * @param previous the assembly of the step whose runtime context was last
 * sent, or `undefined` for the first step
 * @param current this step's assembly
 * @param options `header`: the first line
 * @returns the update's text, or `undefined` when there is nothing to send
 * @throws {SystemPromptError} what `renderRuntimeContext` throws for either
 * assembly, its message naming `runtimeContextUpdate` and the argument
 * (`previous` or `current`); `INVALID_CONFIG` for options that are not an
 * object or a header that is not a string
 *
 * @example
 * ```ts
 * import { runtimeContextUpdate } from "@rxprompt/system-prompt";
 *
 * const step = (date: string) => ({
 *   sections: [],
 *   tools: [],
 *   variables: { date },
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is {{date}}." }],
 * });
 * const first = step("2026-12-02");
 * console.log(runtimeContextUpdate(undefined, first));
 * // Runtime context (replaces any earlier runtime context):
 * // Today is 2026-12-02.
 * console.log(runtimeContextUpdate(first, step("2026-12-02"))); // undefined
 * console.log(runtimeContextUpdate(first, step("2026-12-03"), { header: "Now:" }));
 * // Now:
 * // Today is 2026-12-03.
 * ```
 */
export function runtimeContextUpdate(
  previous: PromptAssembly | undefined,
  current: PromptAssembly,
  options: RuntimeContextUpdateOptions = {},
): string | undefined {
  const header = readHeader(options);
  const now = renderArgument(current, "current");
  const before = previous === undefined
    ? ""
    : renderArgument(previous, "previous");
  return updateOfTexts(before, now, header);
}

/**
 * The update for two rendered runtime contexts (`before` is `""` when none
 * was sent yet), or `undefined` when they are equal.
 */
export function updateOfTexts(
  before: string,
  now: string,
  header: string = DEFAULT_HEADER,
): string | undefined {
  if (now === before) return undefined;
  return `${header}\n${now === "" ? "(none)" : now}`;
}

/**
 * The rendered runtime context of one argument. Every error names
 * `runtimeContextUpdate` and the argument: the renderer's own messages
 * carry the label, the others (an entry, a variable) get it in front.
 */
function renderArgument(
  assembly: PromptAssembly,
  argument: "previous" | "current",
): string {
  const label = `runtimeContextUpdate (argument ${argument})`;
  try {
    return runtimeContextFor(assembly, label);
  } catch (error) {
    if (!isSystemPromptError(error) || error.message.startsWith(label)) {
      throw error;
    }
    throw new SystemPromptError(
      error.code,
      `${label}: ${error.message}`,
      error.cause === undefined ? undefined : { cause: error.cause },
    );
  }
}

function readHeader(options: unknown): string {
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `runtimeContextUpdate options must be an object { header? }; got ` +
        `${quote(options)}.`,
    );
  }
  let header: unknown;
  try {
    header = (options as RuntimeContextUpdateOptions).header;
  } catch (error) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `Reading runtimeContextUpdate's options threw; they are an object ` +
        `{ header? } whose fields can be read.`,
      { cause: error },
    );
  }
  if (header === undefined) return DEFAULT_HEADER;
  if (typeof header !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `runtimeContextUpdate's header must be a string (the update's first ` +
        `line); got ${quote(header)}.`,
    );
  }
  return header;
}
