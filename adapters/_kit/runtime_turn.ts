/**
 * The runtime context put in a list of turns that must alternate between
 * the user and the model (Bedrock Converse, Gemini): joined to the last
 * turn when it is the user's, else a user turn of its own. Internal: the
 * vendors' exports name it.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../src/errors.ts";

/** Where a vendor's turn keeps its blocks, and what its export is called. */
export interface TurnShape {
  /** `"content"` (Converse, the AI SDK) or `"parts"` (Gemini). */
  key: "content" | "parts";
  /**
   * A turn's blocks as an array (the AI SDK's string content as one text
   * part); `undefined` when they cannot be read. Default: the array itself.
   */
  blocks?: (held: unknown) => unknown[] | undefined;
  /** What `blocks` reads, for error messages. Default: "an array of blocks". */
  expected?: string;
  /** The export, for error messages. */
  fn: string;
  /** What the list is called, for error messages. */
  list: string;
}

/**
 * `turns` with `context`'s blocks after the last user turn's (a copy of
 * that turn), or with `context` as a new last turn when the list is empty
 * or ends with the model's; a copy of `turns` when there is no context.
 * The caller's array and turns are never changed.
 */
export function withContextTurn<T extends { role?: unknown }>(
  turns: readonly T[],
  context: T | undefined,
  shape: TurnShape,
): T[] {
  if (!Array.isArray(turns)) {
    throw new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `${shape.fn} takes the ${shape.list} as an array; got ${quote(turns)}.`,
    );
  }
  if (context === undefined) return [...turns];
  const last = turns.at(-1) as Record<string, unknown> | undefined;
  if (last === undefined || last === null || last.role !== "user") {
    return [...turns, context];
  }
  const blocks = shape.blocks ??
    ((held: unknown) => Array.isArray(held) ? held : undefined);
  const held = blocks(last[shape.key]);
  if (held === undefined) {
    throw new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `${shape.fn}: the last user turn's ${shape.key} must be ` +
        `${shape.expected ?? "an array of blocks"}; got ` +
        `${quote(last[shape.key])}.`,
    );
  }
  const added = blocks((context as Record<string, unknown>)[shape.key])!;
  const joined = { ...last, [shape.key]: [...held, ...added] } as unknown as T;
  return [...turns.slice(0, -1), joined];
}
