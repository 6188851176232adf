/**
 * The `prompt_cache_key` of an assembly (SPEC 8.6).
 *
 * @module
 */

import { type PromptAssembly, SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import {
  type AdapterInput,
  promptBlocks,
  withAssembly,
} from "../_kit/assembly_input.ts";
import { readOptions } from "../_kit/adapter_options.ts";
import { sha256Hex } from "../../src/shared/sha256.ts";
import type { PromptBlock } from "../../mod.ts";

/**
 * Options of {@linkcode promptCacheKey}.
 *
 * @example
 * ```ts
 * import type { PromptCacheKeyOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: PromptCacheKeyOptions = { session: "conversation-42" };
 * ```
 */
export interface PromptCacheKeyOptions {
  /**
   * Mixed into the key: one per conversation spreads a busy prefix over
   * OpenAI's machines (one key and prefix above about 15 requests a minute
   * overflows to others anyway).
   */
  session?: string;
}

/**
 * A `prompt_cache_key` for an assembly (SPEC 8.6): the first 16 lowercase
 * hex digits of SHA-256 over the UTF-8 of `JSON.stringify([tools, prefix,
 * session ?? null])`, `tools` being the tools that are not volatile (in the
 * assembly's order) and `prefix` the system prompt's automatic blocks
 * before the first volatile one. The same registrations give the same key
 * on every runtime and machine; a volatile section or tool never changes
 * it. Computed synchronously in plain JS.
 *
 * OpenAI routes a request by this key with the first ~256 tokens of the
 * prompt, so requests sharing a prefix reach the machine that caches it;
 * past about 15 requests a minute for one key and prefix, the rest
 * overflow to other machines. Pass a `session` per conversation.
 *
 * Throws a {@linkcode SystemPromptError}: `INVALID_CONFIG` for a bad or
 * unreadable option, and `renderPromptBlocks`' errors (`INVALID_ASSEMBLY`
 * for a non-assembly).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `session`, mixed into the key
 * @returns 16 lowercase hex digits
 *
 * @example One key per conversation
 * ```ts
 * import { promptCacheKey } from "@rxprompt/system-prompt/openai";
 *
 * const assembly = {
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [],
 *   variables: {},
 * };
 * const key = promptCacheKey(assembly, { session: "conversation-42" });
 * console.log(/^[0-9a-f]{16}$/.test(key)); // true
 * ```
 */
export function promptCacheKey(
  assembly: PromptAssembly,
  options?: PromptCacheKeyOptions,
): string {
  const { session } = readOptions(options, "promptCacheKey", SESSION);
  if (session !== undefined && typeof session !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `promptCacheKey's session is ${quote(session)}; it must be a string ` +
        `(one per conversation), or left out.`,
    );
  }
  return withAssembly(
    assembly,
    { adapter: "promptCacheKey" },
    (input) => keyOf(input, promptBlocks(input, { auto: true }), session),
  );
}

const SESSION = ["session"] as const;

export function keyOf(
  input: AdapterInput,
  blocks: readonly PromptBlock[],
  session: string | undefined,
): string {
  const tools = input.tools.filter((_, index) => input.toolRanks[index] < 2);
  let prefix = "";
  for (const block of blocks) {
    if (block.stability === "volatile") break;
    prefix += block.text;
  }
  return sha256Hex(JSON.stringify([tools, prefix, session ?? null])).slice(
    0,
    16,
  );
}
