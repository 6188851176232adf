/**
 * The options of the OpenAI mappings, each read once and checked.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import { autoBreakpoints } from "../_kit/assembly_input.ts";
import { readOptions } from "../_kit/adapter_options.ts";
import { cacheOption, prefixMarkLimit } from "../_kit/cache_option.ts";
import { OPENAI_EXPLICIT_RULES } from "./rules.ts";

/**
 * Options of {@linkcode toChatCompletions} and {@linkcode toResponses}.
 *
 * @example
 * ```ts
 * import type { OpenAIOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: OpenAIOptions = { strict: true };
 * ```
 */
export interface OpenAIOptions {
  /**
   * Mark every tool `strict` (structured outputs). Default `false`. The
   * schemas are not rewritten: strict mode needs schemas that satisfy
   * OpenAI's strict subset.
   */
  strict?: boolean;
  /**
   * Explicit cache breakpoints (gpt-5.6+, SPEC 8.6): the system prompt
   * becomes one text part per prompt block, the chosen blocks marked with
   * `prompt_cache_breakpoint` (`{ ttl }` sets its lifetime), and the result
   * carries `prompt_cache_key`. Absent or `false`: 0.2's output.
   */
  cache?: boolean | { ttl: "30m" | "12h" };
  /**
   * At most this many marked blocks (default 2: OpenAI's default mode
   * writes the latest three marks, one is left for the conversation; an
   * integer from 0 to 4). Candidates are the blocks with
   * `cacheBreakpoint: true`, never a volatile one nor one after the first
   * volatile tool or block (tools cannot carry a mark); when there are more,
   * kept in this order: the one that ends the prefix every scope shares (the
   * last stable block, when every tool is stable), the last of all, then the
   * others, latest first.
   */
  maxCacheBreakpoints?: number;
  /**
   * `"auto"` (default): blocks cut at stability boundaries too.
   * `"explicit"`: only the blocks of `cacheBreakpoint` sections and the end
   * of the prompt, the latest `maxCacheBreakpoints` marked.
   */
  breakpoints?: "auto" | "explicit";
  /**
   * The `mode` of the `allowed_tools` tool choice made from the assembly's
   * `activeTools`: `"auto"` (default) or `"required"`.
   */
  toolChoiceMode?: "auto" | "required";
  /**
   * The `prompt_cache_key` to send: with `cache`, it replaces the default
   * ({@linkcode promptCacheKey} of the assembly, without a session);
   * without, the fields carry it only when it is given.
   */
  promptCacheKey?: string;
}

/**
 * {@linkcode OpenAIOptions} with `cache` set: the overloads return the
 * cached shapes (text parts, `prompt_cache_key`).
 *
 * @example
 * ```ts
 * import type { OpenAICacheOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: OpenAICacheOptions = { cache: { ttl: "30m" } };
 * ```
 */
export interface OpenAICacheOptions extends OpenAIOptions {
  /** `true`, or `{ ttl }` for the breakpoints' lifetime. */
  cache: true | { ttl: "30m" | "12h" };
}

/**
 * {@linkcode OpenAIOptions} without `cache`: the overloads return 0.2's
 * shapes.
 *
 * @example
 * ```ts
 * import type { OpenAIPlainOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: OpenAIPlainOptions = { strict: true };
 * ```
 */
export interface OpenAIPlainOptions extends OpenAIOptions {
  /** Absent or `false`: no cache breakpoints. */
  cache?: false;
}

/**
 * OpenAI's explicit cache breakpoint on a content part.
 *
 * @example
 * ```ts
 * import type { PromptCacheBreakpoint } from "@rxprompt/system-prompt/openai";
 *
 * const mark: PromptCacheBreakpoint = { mode: "explicit", ttl: "12h" };
 * ```
 */
export type PromptCacheBreakpoint = {
  /** Always `"explicit"`. */
  mode: "explicit";
  /** The breakpoint's minimum lifetime; the request's by default. */
  ttl?: "30m" | "12h";
};

/** The OpenAI options, each read once and checked. */
export interface ReadOpenAIOptions {
  readonly strict: boolean;
  readonly cache: PromptCacheBreakpoint | undefined;
  readonly limit: number;
  readonly auto: boolean;
  readonly toolChoiceMode: "auto" | "required";
  readonly promptCacheKey: string | undefined;
}

const OPENAI_OPTIONS = [
  "strict",
  "cache",
  "maxCacheBreakpoints",
  "breakpoints",
  "toolChoiceMode",
  "promptCacheKey",
] as const;

export function readOpenAIOptions(
  options: unknown,
  adapter: string,
): ReadOpenAIOptions {
  const {
    strict = false,
    cache,
    maxCacheBreakpoints,
    breakpoints,
    toolChoiceMode = "auto",
    promptCacheKey,
  } = readOptions(options, adapter, OPENAI_OPTIONS);
  if (typeof strict !== "boolean") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `strict is ${quote(strict)}; it must be true or false (default false).`,
    );
  }
  if (toolChoiceMode !== "auto" && toolChoiceMode !== "required") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `toolChoiceMode is ${quote(toolChoiceMode)}; it must be "auto" (the ` +
        `default) or "required".`,
    );
  }
  if (promptCacheKey !== undefined && typeof promptCacheKey !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `promptCacheKey is ${quote(promptCacheKey)}; it must be a string, or ` +
        `left out (the assembly's promptCacheKey()).`,
    );
  }
  return {
    strict,
    cache: breakpointOf(cache),
    limit: prefixMarkLimit(maxCacheBreakpoints, OPENAI_EXPLICIT_RULES),
    auto: autoBreakpoints(breakpoints),
    toolChoiceMode,
    promptCacheKey,
  };
}

/** The mark the `cache` option asks for, or `undefined` for no caching. */
export function breakpointOf(
  cache: unknown,
): PromptCacheBreakpoint | undefined {
  const ttl = cacheOption(cache, OPENAI_EXPLICIT_RULES);
  return ttl && { mode: "explicit", ...ttl } as PromptCacheBreakpoint;
}
