/**
 * An assembly as the Chat Completions request fields.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly } from "../../../mod.ts";
import {
  runtimeMessage,
  systemPrompt,
  withAssembly,
} from "../../_kit/assembly_input.ts";
import {
  type OpenAICacheOptions,
  type OpenAIOptions,
  type OpenAIPlainOptions,
  type PromptCacheBreakpoint,
  readOpenAIOptions,
} from "../options.ts";
import {
  allowedNames,
  cachedParts,
  OPENAI_NAME,
  type UserMessage,
} from "../prompt_parts.ts";

/**
 * One text part of a Chat Completions system message: one prompt block.
 *
 * @example
 * ```ts
 * import type { ChatTextPart } from "@rxprompt/system-prompt/openai";
 *
 * const part: ChatTextPart = {
 *   type: "text",
 *   text: "You are a coding agent.",
 *   prompt_cache_breakpoint: { mode: "explicit" },
 * };
 * ```
 */
export type ChatTextPart = {
  /** Always `"text"`. */
  type: "text";
  /** The block's rendered text. */
  text: string;
  /** Present on a block the cache may end at. */
  prompt_cache_breakpoint?: PromptCacheBreakpoint;
};

/**
 * The Chat Completions `tool_choice` made from the assembly's `activeTools`:
 * the allowed tools, or `"none"` when no tool is active.
 *
 * @example
 * ```ts
 * import type { ChatToolChoice } from "@rxprompt/system-prompt/openai";
 *
 * const choice: ChatToolChoice = {
 *   type: "allowed_tools",
 *   allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "shell" } }] },
 * };
 * ```
 */
export type ChatToolChoice =
  | "none"
  | {
    type: "allowed_tools";
    allowed_tools: {
      mode: "auto" | "required";
      tools: { type: "function"; function: { name: string } }[];
    };
  };

/**
 * One Chat Completions function tool.
 *
 * @example
 * ```ts
 * import type { ChatCompletionsTool } from "@rxprompt/system-prompt/openai";
 *
 * const tool: ChatCompletionsTool = {
 *   type: "function",
 *   function: { name: "shell", description: "Run a command.", parameters: { type: "object" } },
 * };
 * ```
 */
export interface ChatCompletionsTool {
  /** Always `"function"`. */
  type: "function";
  /** The tool's name, description and JSON Schema parameters. */
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict?: boolean;
  };
}

/**
 * The Chat Completions request fields of one assembly.
 *
 * @example
 * ```ts
 * import type { ChatCompletionsRequest } from "@rxprompt/system-prompt/openai";
 *
 * const fields: ChatCompletionsRequest = {
 *   system: { role: "system", content: "You are a coding agent." },
 * };
 * ```
 */
export interface ChatCompletionsRequest {
  /** The system message: the rendered system prompt. */
  system: { role: "system"; content: string };
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: UserMessage;
  /** The tools in the assembly's order; absent when there are none. */
  tools?: ChatCompletionsTool[];
  /** The allowed tools, present only when the assembly has `activeTools`. */
  tool_choice?: ChatToolChoice;
  /** The `promptCacheKey` option, when given (automatic caching routes by it). */
  prompt_cache_key?: string;
}

/**
 * The Chat Completions request fields of one assembly, with `cache`.
 *
 * @example
 * ```ts
 * import type { CachedChatCompletionsRequest } from "@rxprompt/system-prompt/openai";
 *
 * const fields: CachedChatCompletionsRequest = {
 *   system: {
 *     role: "system",
 *     content: [{ type: "text", text: "You are a coding agent.", prompt_cache_breakpoint: { mode: "explicit" } }],
 *   },
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface CachedChatCompletionsRequest {
  /** The system message: one text part per prompt block. */
  system: { role: "system"; content: ChatTextPart[] };
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: UserMessage;
  /** The tools in the assembly's order; absent when there are none. */
  tools?: ChatCompletionsTool[];
  /** The allowed tools, present only when the assembly has `activeTools`. */
  tool_choice?: ChatToolChoice;
  /** {@linkcode promptCacheKey} of the assembly, or the option's. */
  prompt_cache_key: string;
}

/**
 * Maps an assembly to the Chat Completions request fields: the system
 * message, the runtime context as a user message (only when it renders
 * non-empty), the function tools in the assembly's order, and, when the
 * assembly has `activeTools`, the `allowed_tools` tool choice (`"none"`
 * when no tool is active): the tools block stays the same while gates
 * change.
 *
 * With `cache`, the system message's content is one text part per prompt
 * block, the chosen blocks marked with `prompt_cache_breakpoint` (SPEC 8.6),
 * and `prompt_cache_key` is {@linkcode promptCacheKey} of the assembly (or
 * the `promptCacheKey` option).
 *
 * Throws a {@linkcode SystemPromptError}: `INVALID_TOOL_NAME` for a name
 * outside `^[a-zA-Z0-9_-]{1,64}$`, `DUPLICATE_TOOL` for a name listed twice
 * (for example by a listener), `INVALID_TOOL_SCHEMA` for a malformed tool,
 * `INVALID_CONFIG` for a bad
 * or unreadable option, and `renderPrompt`'s errors (`INVALID_ASSEMBLY` for a
 * non-assembly or one a getter or Proxy cannot give, with the thrown value as
 * `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `strict`, `cache`, `maxCacheBreakpoints`, `breakpoints`,
 * `toolChoiceMode`, `promptCacheKey`
 * @returns the request fields
 *
 * @example Send it with the `openai` client
 * ```ts
 * import { toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const { system, runtimeContext, tools } = toChatCompletions({
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [{ name: "shell", description: "Run a command.", parameters: { type: "object" } }],
 *   variables: {},
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * });
 * const messages = [system, ...(runtimeContext ? [runtimeContext] : [])];
 * console.log(messages.length, tools?.[0].function.name); // 2 "shell"
 * // await new OpenAI().chat.completions.create({ model, messages, tools });
 * ```
 *
 * @example With explicit cache breakpoints
 * ```ts
 * import { toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const { system, prompt_cache_key } = toChatCompletions({
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [],
 *   variables: {},
 * }, { cache: true });
 * console.log(system.content[0].prompt_cache_breakpoint); // { mode: "explicit" }
 * console.log(prompt_cache_key.length); // 16
 * ```
 */
export function toChatCompletions(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options: OpenAICacheOptions,
): CachedChatCompletionsRequest;
/**
 * {@linkcode toChatCompletions} without `cache`: 0.2's request fields (the
 * system message's content is a string).
 *
 * @example
 * ```ts
 * import { toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const { system } = toChatCompletions({ sections: [], tools: [], variables: {} });
 * console.log(system.content); // ""
 * ```
 */
export function toChatCompletions(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIPlainOptions,
): ChatCompletionsRequest;
/**
 * {@linkcode toChatCompletions} when whether `cache` is set is known only
 * at run time.
 *
 * @example
 * ```ts
 * import { type OpenAIOptions, toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const options: OpenAIOptions = { cache: Math.random() < 2 };
 * const { system } = toChatCompletions({ sections: [], tools: [], variables: {} }, options);
 * console.log(Array.isArray(system.content)); // true
 * ```
 */
export function toChatCompletions(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIOptions,
): ChatCompletionsRequest | CachedChatCompletionsRequest;
export function toChatCompletions(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIOptions,
): ChatCompletionsRequest | CachedChatCompletionsRequest {
  const read = readOpenAIOptions(options, "toChatCompletions");
  return withAssembly(assembly, {
    adapter: "toChatCompletions",
    rule: OPENAI_NAME,
  }, (input) => {
    const tools = input.tools.map(({ name, description, parameters }) => ({
      type: "function" as const,
      function: read.strict
        ? { name, description, parameters, strict: true }
        : { name, description, parameters },
    }));
    const active = allowedNames(input);
    const toolChoice: ChatToolChoice | undefined = active === undefined
      ? undefined
      : active.length === 0
      ? "none"
      : {
        type: "allowed_tools",
        allowed_tools: {
          mode: read.toolChoiceMode,
          tools: active.map((name) => ({
            type: "function" as const,
            function: { name },
          })),
        },
      };
    const context = runtimeMessage(input);
    if (read.cache === undefined) {
      const request: ChatCompletionsRequest = {
        system: { role: "system", content: systemPrompt(input) },
      };
      if (context !== undefined) request.runtimeContext = context;
      if (tools.length > 0) request.tools = tools;
      if (toolChoice !== undefined) request.tool_choice = toolChoice;
      if (read.promptCacheKey !== undefined) {
        request.prompt_cache_key = read.promptCacheKey;
      }
      return request;
    }
    const { parts, key } = cachedParts(input, read);
    const request: CachedChatCompletionsRequest = {
      system: {
        role: "system",
        content: parts.map(({ text, mark }): ChatTextPart =>
          mark === undefined
            ? { type: "text", text }
            : { type: "text", text, prompt_cache_breakpoint: mark }
        ),
      },
      prompt_cache_key: key,
    };
    if (context !== undefined) request.runtimeContext = context;
    if (tools.length > 0) request.tools = tools;
    if (toolChoice !== undefined) request.tool_choice = toolChoice;
    return request;
  });
}
