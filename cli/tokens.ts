/**
 * Token counts with the `o200k_base` encoding (npm `gpt-tokenizer`). The
 * encoder is imported on first use: its tables are large, and only
 * `inspect` and `check --max-tokens` need them.
 *
 * @module
 */

import type { PromptAssembly } from "../mod.ts";

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

/** The `o200k_base` token counter. */
export async function tokenCounter(): Promise<CountTokens> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  return (text) => countTokens(text);
}

/**
 * The tokens an assembly costs in a request's cached prefix: the rendered
 * system prompt plus the tools' JSON.
 */
export function requestTokens(
  count: CountTokens,
  assembly: PromptAssembly,
  prompt: string,
): number {
  return count(prompt) +
    (assembly.tools.length === 0 ? 0 : count(JSON.stringify(assembly.tools)));
}
