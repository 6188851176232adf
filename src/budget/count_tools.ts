/**
 * Each tool's tokens (SPEC 8.9): the tokens of its `JSON.stringify`, through
 * the memo, with the whole list's JSON looked up first so that an unchanged
 * tool list costs one lookup (or, steady, a comparison with its kept JSON).
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { ToolSchema } from "../types.ts";
import type { TokenMemo } from "./token_memo.ts";

/**
 * The JSON a tool is counted by: `JSON.stringify(tool)`.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY` for a tool that cannot be
 * written as JSON.
 */
export function toolJson(tool: ToolSchema, index: number): string {
  if (typeof tool !== "object" || tool === null || Array.isArray(tool)) {
    throw notJson(tool, index, undefined);
  }
  let json: unknown;
  try {
    json = JSON.stringify(tool);
  } catch (error) {
    throw notJson(tool, index, error);
  }
  if (typeof json !== "string") throw notJson(tool, index, undefined);
  return json;
}

function notJson(tool: unknown, index: number, cause: unknown) {
  const name = (tool as { name?: unknown } | null)?.name;
  const label = typeof name === "string"
    ? `Tool ${quote(name)}`
    : `The assembly's tools[${index}]`;
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `${label} cannot be written as JSON, so its tokens cannot be counted; ` +
      `a tool holds JSON data only.`,
    cause === undefined ? undefined : { cause },
  );
}

/** `tool "name"` or `tools[i]`, for the counter's messages. */
function toolLabel(tool: ToolSchema, index: number): string {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === "string" ? `tool ${quote(name)}` : `tools[${index}]`;
}

export /**
 * Each tool's tokens. The whole list's JSON is looked up first: an
 * unchanged tool list costs one `JSON.stringify` and one lookup, not one per
 * tool. The list's JSON is each tool's JSON joined by commas in brackets,
 * so it stands for exactly those tools.
 */
function toolTokens(
  list: readonly ToolSchema[],
  memo: TokenMemo,
): readonly number[] {
  if (list.length === 0) return [];
  const unchanged = memo.unchangedTools(list);
  if (unchanged !== undefined) return unchanged;
  let whole: string | undefined;
  try {
    whole = JSON.stringify(list);
  } catch {
    // Each tool's own stringify says which one fails.
  }
  const known = whole === undefined ? undefined : memo.toolsOf(whole);
  if (known !== undefined) return known;
  const tools: number[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const tool = list[index];
    tools[index] = memo.count(
      toolJson(tool, index),
      () => toolLabel(tool, index),
    );
  }
  if (whole !== undefined) memo.rememberTools(whole, tools);
  return tools;
}
