/**
 * The one token accounting of SPEC 8.9, shared by the budget, `explain()`
 * and the command line: the sum of each non-empty rendered section's tokens
 * plus each tool's `JSON.stringify` tokens; separators are not counted.
 *
 * A {@linkcode TokenMemo} remembers the count of each distinct text, so a
 * counter is called once per text while the text is unchanged: a registry
 * keeps one memo per counter, and an agent loop whose prompt barely changes
 * pays for a budget with lookups only. Pure but for the memo, which changes
 * no result.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { callProvider } from "../shared/provider.ts";
import { renderSections } from "../render/interpolate.ts";
import {
  checkAssembly,
  describeType,
  readingAssembly,
} from "../render/assembly_shape.ts";
import type { PromptAssembly, ToolSchema } from "../types.ts";

/** Counts the tokens of one text: a non-negative integer. */
export type CountTokens = (text: string) => number;

/**
 * The tokens of one assembly, entry by entry, under the one accounting.
 *
 * @example
 * ```ts
 * import { countAssemblyTokens } from "@rxprompt/system-prompt";
 *
 * const tokens = countAssemblyTokens({
 *   sections: [{ name: "a", order: 0, text: "Be brief." }],
 *   tools: [],
 *   variables: {},
 * }, (text) => text.split(" ").length);
 * console.log(tokens.total); // 2
 * ```
 */
export interface AssemblyTokens {
  /** Per section, in the assembly's order: 0 for one that renders empty. */
  sections: number[];
  /** Per tool, in the assembly's order: the tokens of its JSON. */
  tools: number[];
  /** The sum of `sections` and `tools`. */
  total: number;
}

/** {@linkcode AssemblyTokens} with the rendered section texts counted. */
export interface CountedAssembly extends AssemblyTokens {
  readonly rendered: readonly string[];
}

/** The bounds of a {@linkcode TokenMemo}. */
export interface TokenMemoOptions {
  /**
   * The code units of text one generation holds (default 4 Mi): the memo
   * holds at most two generations.
   */
  maxChars?: number;
  /** The texts one generation holds (default 16,384). */
  maxEntries?: number;
}

const MAX_CHARS = 4 * 1024 * 1024;
const MAX_ENTRIES = 16_384;

/**
 * Remembers what a counter answered per distinct text. Two generations:
 * texts counted or used since the last turnover, and the ones before; a
 * text found only in the older one moves to the newer. When the newer one
 * is full, the older one is dropped. Texts a prompt uses at every step are
 * kept; a text unused for a whole generation is forgotten. Bounded at twice
 * a generation's size.
 */
export class TokenMemo {
  readonly countTokens: CountTokens;
  readonly #maxChars: number;
  readonly #maxEntries: number;
  #young = new Map<string, number>();
  #old = new Map<string, number>();
  #youngChars = 0;

  constructor(countTokens: CountTokens, options: TokenMemoOptions = {}) {
    this.countTokens = countTokens;
    this.#maxChars = options.maxChars ?? MAX_CHARS;
    this.#maxEntries = options.maxEntries ?? MAX_ENTRIES;
  }

  /**
   * The tokens of `text`, from the memo or the counter; `what` names the
   * text for the counter's errors (`section "name"`, `tool "name"`).
   *
   * @throws {SystemPromptError} `PROVIDER_FAILED` when the counter throws
   * or answers anything but a non-negative integer.
   */
  count(text: string, what: () => string): number {
    const known = this.#young.get(text);
    if (known !== undefined) return known;
    const old = this.#old.get(text);
    const tokens = old ?? countOnce(this.countTokens, text, what);
    this.#remember(text, tokens);
    return tokens;
  }

  /** How many texts and code units the memo holds (tests, diagnostics). */
  stats(): { entries: number; chars: number } {
    let chars = this.#youngChars;
    for (const text of this.#old.keys()) chars += text.length;
    return { entries: this.#young.size + this.#old.size, chars };
  }

  #remember(text: string, tokens: number): void {
    if (
      this.#young.size >= this.#maxEntries ||
      this.#youngChars + text.length > this.#maxChars
    ) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngChars = 0;
    }
    // A text larger than a generation is counted, not kept.
    if (text.length > this.#maxChars) return;
    this.#young.set(text, tokens);
    this.#youngChars += text.length;
  }
}

/** Calls the counter once and checks its answer. */
function countOnce(
  countTokens: CountTokens,
  text: string,
  what: () => string,
): number {
  const tokens: unknown = callProvider(
    countTokens,
    text,
    () => `token counter (countTokens) on ${what()}`,
  );
  if (Number.isSafeInteger(tokens) && (tokens as number) >= 0) {
    return tokens as number;
  }
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `The token counter (countTokens) returned ${quote(tokens)} for ` +
      `${what()}; it must return a whole number of tokens, 0 or more.`,
  );
}

/**
 * The JSON a tool is counted by: `JSON.stringify(tool)`.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY` for a tool that cannot be
 * written as JSON.
 */
export function toolJson(tool: ToolSchema, index: number): string {
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

/**
 * The tokens of each entry of `assembly` through `memo`: the sections
 * rendered (errors as `renderPrompt`'s), the empty ones 0 without a call.
 */
export function tokensOf(
  assembly: PromptAssembly,
  memo: TokenMemo,
): CountedAssembly {
  const { sections: entries, tools: list } = assembly;
  if (!Array.isArray(list)) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's tools is ${describeType(list)}; it must be an array ` +
        `of tools { name, description, parameters }.`,
    );
  }
  const rendered = renderSections(entries, assembly.variables);
  const sections: number[] = new Array(rendered.length);
  let total = 0;
  for (let index = 0; index < rendered.length; index++) {
    const text = rendered[index];
    const tokens = text === ""
      ? 0
      : memo.count(text, () => `section ${quote(entries[index].name)}`);
    sections[index] = tokens;
    total += tokens;
  }
  const tools: number[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const tool = list[index];
    const tokens = memo.count(
      toolJson(tool, index),
      () => toolLabel(tool, index),
    );
    tools[index] = tokens;
    total += tokens;
  }
  return { sections, tools, total, rendered };
}

/**
 * Counts an assembly's tokens the one way the budget, `explain()` and
 * `rxprompt check --max-tokens` and `inspect` do (SPEC 8.9): each non-empty
 * rendered section's tokens, plus each tool's `JSON.stringify` tokens;
 * separators are not counted. The counter is called once per distinct text.
 *
 * @param assembly the assembly to count (its sections are rendered)
 * @param countTokens the counter: a non-negative integer per text
 * @returns the tokens per section, per tool, and in all
 * @throws {SystemPromptError} the render errors of `renderPrompt`;
 * `PROVIDER_FAILED` when the counter throws or answers anything but a
 * non-negative integer; `INVALID_PROVIDER` when it is not a function;
 * `INVALID_ASSEMBLY` for a tool that cannot be written as JSON.
 *
 * @example
 * ```ts
 * import { countAssemblyTokens } from "@rxprompt/system-prompt";
 *
 * const words = (text: string) => text.split(/\s+/).length;
 * const tokens = countAssemblyTokens({
 *   sections: [
 *     { name: "rules", order: 0, text: "Be brief and exact." },
 *     { name: "empty", order: 1, text: "" },
 *   ],
 *   tools: [{ name: "ls", description: "List files.", parameters: {} }],
 *   variables: {},
 * }, words);
 * console.log(tokens.sections); // [4, 0]
 * console.log(tokens.tools); // [2]
 * console.log(tokens.total); // 6
 * ```
 */
export function countAssemblyTokens(
  assembly: PromptAssembly,
  countTokens: CountTokens,
): AssemblyTokens {
  const memo = new TokenMemo(checkCounter(countTokens, ""));
  return readingAssembly(() => {
    checkAssembly(assembly, "countAssemblyTokens");
    const { sections, tools, total } = tokensOf(assembly, memo);
    return { sections, tools, total };
  }, "countAssemblyTokens");
}

/**
 * `countTokens`, checked to be a function.
 *
 * @throws {SystemPromptError} `INVALID_PROVIDER` naming `where`.
 */
export function checkCounter(countTokens: unknown, where: string): CountTokens {
  if (typeof countTokens === "function") return countTokens as CountTokens;
  throw new SystemPromptError(
    "INVALID_PROVIDER",
    `The token counter${where} must be a function (text: string) => number; ` +
      `got ${quote(countTokens)}.`,
  );
}
