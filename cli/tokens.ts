/**
 * Token counts with the `o200k_base` encoding (npm `gpt-tokenizer`). The
 * encoder is imported on first use: its tables are large, and only
 * `inspect` and `check --max-tokens` need them.
 *
 * The specifier is computed: the npm build's type check (dnt's TypeScript)
 * cannot parse the package's declarations, and on Deno it is an `npm:`
 * specifier (a JSR module has no import map at run time). The npm build
 * lists the package as a dependency (scripts/build_npm.ts).
 *
 * @module
 */

import {
  type AssemblyTokens,
  countAssemblyTokens,
  type PromptAssembly,
} from "../mod.ts";

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

/** The package, its encoding module, and the versions the command accepts. */
const PACKAGE = "gpt-tokenizer";
const VERSIONS = "^4.0.0";
const MODULE = "/encoding/o200k_base";

/** The `o200k_base` token counter. */
export async function tokenCounter(): Promise<CountTokens> {
  const specifier = "Deno" in globalThis
    ? `npm:${PACKAGE}@${VERSIONS}${MODULE}`
    : PACKAGE + MODULE;
  const { countTokens } = await import(specifier) as {
    countTokens(text: string): number;
  };
  return (text) => countTokens(text);
}

/**
 * The tokens an assembly costs in a request's cached prefix, counted the
 * one way (SPEC 8.9, `countAssemblyTokens`): each non-empty rendered
 * section plus each tool's JSON, separators not counted.
 */
export function requestTokens(
  count: CountTokens,
  assembly: PromptAssembly,
): AssemblyTokens {
  return countAssemblyTokens(assembly, count);
}
