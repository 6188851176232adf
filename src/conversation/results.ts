/**
 * A tool result given to the conversation, checked against the calls it
 * answers, and the refusals the conversation gives calls of inactive tools
 * itself (SPEC 9.1, 9.8). Pure.
 *
 * @module
 */

import { readGuarded, SystemPromptError } from "../errors.ts";
import { readOptionBag, shallowEnough } from "./checks.ts";
import type { ConversationForm } from "./form.ts";
import { refusalText } from "./tool_set.ts";
import type { ToolCall } from "./types.ts";

/** A result kept for the next request. */
export interface GivenResult {
  readonly content: unknown;
  readonly isError: boolean;
}

/**
 * `toolResult(id, content, options)` checked: a call of the last answer,
 * not answered yet, its content copied by the form.
 *
 * @throws {SystemPromptError} `UNKNOWN_TOOL_CALL`, `DUPLICATE_TOOL_RESULT`,
 * `INVALID_CONVERSATION_INPUT`
 */
export function checkedResult(
  form: Pick<ConversationForm, "resultContent">,
  state: {
    readonly calls: readonly ToolCall[];
    readonly results: ReadonlyMap<string, GivenResult>;
    readonly open: readonly ToolCall[];
  },
  given: { readonly id: string; readonly content: unknown; options: unknown },
): GivenResult {
  const { id, content } = given;
  const call = state.calls.find((open) => open.id === id);
  if (call === undefined) {
    const open = state.open.map((c) => JSON.stringify(c.id));
    throw new SystemPromptError(
      "UNKNOWN_TOOL_CALL",
      `No call of the last answer has id ${JSON.stringify(id)}; the calls ` +
        `waiting for a result are ${
          open.length === 0 ? "none" : open.join(", ")
        }.`,
    );
  }
  if (state.results.has(id)) {
    throw new SystemPromptError(
      "DUPLICATE_TOOL_RESULT",
      `Call ${JSON.stringify(id)} (tool ${
        JSON.stringify(call.name)
      }) already has a result (given before, or the conversation's own ` +
        `refusal of an inactive tool); each call gets one. The calls ` +
        `waiting for a result are in openCalls.`,
    );
  }
  const isError =
    (readOptionBag(given.options, "toolResult()") as { isError?: unknown })
      ?.isError ?? false;
  if (typeof isError !== "boolean") {
    throw new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `toolResult's isError must be true or false; got ${String(isError)}.`,
    );
  }
  const copied = readGuarded(
    () => form.resultContent(content, id),
    "INVALID_CONVERSATION_INPUT",
    () =>
      `toolResult(${
        JSON.stringify(id)
      }) could not read its content; pass plain JSON content.`,
  );
  return {
    content: shallowEnough(copied, `toolResult(${JSON.stringify(id)})`),
    isError,
  };
}

/** The refusals the conversation itself gives calls of inactive tools. */
export function refusalsOf(
  form: Pick<ConversationForm, "resultContent">,
  calls: readonly ToolCall[],
  allowed: readonly string[] | undefined,
): Map<string, GivenResult> {
  const results = new Map<string, GivenResult>();
  if (allowed === undefined) return results;
  const active = new Set(allowed);
  for (const call of calls) {
    if (!active.has(call.name)) {
      const text = refusalText(call.name, allowed);
      results.set(call.id, {
        content: form.resultContent(text, call.id),
        isError: true,
      });
    }
  }
  return results;
}
