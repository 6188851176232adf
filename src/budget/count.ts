/**
 * The one token accounting of SPEC 8.9, shared by the budget, `explain()`
 * and the command line: the sum of each non-empty rendered section's tokens
 * plus each tool's `JSON.stringify` tokens; separators are not counted.
 *
 * The parts, by what they count: `count_text.ts` one text (the counter's
 * call and its checks), `token_memo.ts` the memo (texts, sections by their
 * values, tool lists), `count_sections.ts` the sections, `count_tools.ts`
 * the tools; this module adds them up. Pure but for the memo, which
 * changes no result.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { renderSections } from "../render/interpolate.ts";
import {
  checkAssembly,
  describeType,
  readingAssembly,
} from "../render/assembly_shape.ts";
import type { PromptAssembly } from "../types.ts";
import { checkCounter, type CountTokens } from "./count_text.ts";
import { TokenMemo } from "./token_memo.ts";
import { countSections } from "./count_sections.ts";
import { toolTokens } from "./count_tools.ts";

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

/**
 * {@linkcode AssemblyTokens} as the memo counted them: its lists may be
 * the memo's own, reused by the next steady count, so they are read only.
 */
export interface CountedAssembly {
  /** Per section, in the assembly's order: 0 for one that renders empty. */
  readonly sections: readonly number[];
  /** Per tool, in the assembly's order: the tokens of its JSON. */
  readonly tools: readonly number[];
  /** The sum of `sections` and `tools`. */
  readonly total: number;
  /** Per section: whether it renders empty (never pruned). */
  readonly empty: readonly boolean[];
}

/**
 * The tokens of each entry of `assembly` through `memo`: the sections
 * rendered (errors as `renderPrompt`'s), the empty ones 0 without a call.
 * A section whose text and referenced values are those of its last
 * rendering is not rendered again.
 */
export function tokensOf(
  assembly: PromptAssembly,
  memo: TokenMemo,
): CountedAssembly {
  const { sections: entries, tools: list, variables } = assembly;
  if (!Array.isArray(list)) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's tools is ${describeType(list)}; it must be an array ` +
        `of tools { name, description, parameters }.`,
    );
  }
  if (
    !Array.isArray(entries) || typeof variables !== "object" ||
    variables === null
  ) {
    // The renderer says what is wrong.
    renderSections(entries, variables);
  }
  const steady = memo.begin(variables);
  const { sections, empty, total: sectionTokens } = memo.again(
    entries,
    steady,
  ) ?? countSections(entries, { variables, memo, steady });
  const tools = toolTokens(list, memo);
  let total = sectionTokens;
  for (let index = 0; index < tools.length; index++) total += tools[index];
  return { sections, tools, total, empty };
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
    return { sections: sections.slice(), tools: tools.slice(), total };
  }, "countAssemblyTokens");
}
