/**
 * An assembly as the Responses API request fields.
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
 * One input text part of a Responses system message: one prompt block.
 *
 * @example
 * ```ts
 * import type { ResponsesTextPart } from "@rxprompt/system-prompt/openai";
 *
 * const part: ResponsesTextPart = { type: "input_text", text: "You are a coding agent." };
 * ```
 */
export type ResponsesTextPart = {
  /** Always `"input_text"`. */
  type: "input_text";
  /** The block's rendered text. */
  text: string;
  /** Present on a block the cache may end at. */
  prompt_cache_breakpoint?: PromptCacheBreakpoint;
};

/**
 * The Responses `tool_choice` made from the assembly's `activeTools`: the
 * allowed tools, or `"none"` when no tool is active.
 *
 * @example
 * ```ts
 * import type { ResponsesToolChoice } from "@rxprompt/system-prompt/openai";
 *
 * const choice: ResponsesToolChoice = {
 *   type: "allowed_tools",
 *   mode: "auto",
 *   tools: [{ type: "function", name: "shell" }],
 * };
 * ```
 */
export type ResponsesToolChoice =
  | "none"
  | {
    type: "allowed_tools";
    mode: "auto" | "required";
    tools: { type: "function"; name: string }[];
  };

/**
 * One Responses API function tool.
 *
 * @example
 * ```ts
 * import type { ResponsesTool } from "@rxprompt/system-prompt/openai";
 *
 * const tool: ResponsesTool = {
 *   type: "function",
 *   name: "shell",
 *   description: "Run a command.",
 *   parameters: { type: "object" },
 *   strict: false,
 * };
 * ```
 */
export interface ResponsesTool {
  /** Always `"function"`. */
  type: "function";
  /** The tool's name. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of the tool's input, unchanged. */
  parameters: Record<string, unknown>;
  /** Whether the API enforces the schema strictly. */
  strict: boolean;
}

/**
 * The Responses API request fields of one assembly.
 *
 * @example
 * ```ts
 * import type { ResponsesRequest } from "@rxprompt/system-prompt/openai";
 *
 * const fields: ResponsesRequest = { instructions: "You are a coding agent." };
 * ```
 */
export interface ResponsesRequest {
  /** The rendered system prompt. */
  instructions: string;
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: UserMessage;
  /** The tools in the assembly's order; absent when there are none. */
  tools?: ResponsesTool[];
  /** The allowed tools, present only when the assembly has `activeTools`. */
  tool_choice?: ResponsesToolChoice;
  /** The `promptCacheKey` option, when given (automatic caching routes by it). */
  prompt_cache_key?: string;
}

/**
 * The Responses API request fields of one assembly, with `cache`: `system`
 * is the first input item (for stateless requests: `previous_response_id`
 * and conversations carry input items over, `instructions` they do not).
 *
 * @example
 * ```ts
 * import type { CachedResponsesRequest } from "@rxprompt/system-prompt/openai";
 *
 * const fields: CachedResponsesRequest = {
 *   system: { role: "system", content: [{ type: "input_text", text: "You are a coding agent." }] },
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface CachedResponsesRequest {
  /** The system message to put first in `input`: one part per prompt block. */
  system: { role: "system"; content: ResponsesTextPart[] };
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: UserMessage;
  /** The tools in the assembly's order; absent when there are none. */
  tools?: ResponsesTool[];
  /** The allowed tools, present only when the assembly has `activeTools`. */
  tool_choice?: ResponsesToolChoice;
  /** {@linkcode promptCacheKey} of the assembly, or the option's. */
  prompt_cache_key: string;
}

/**
 * Maps an assembly to the Responses API request fields: `instructions`, the
 * runtime context as a user input message (only when it renders non-empty),
 * the function tools in the assembly's order, each with `strict`, and, when
 * the assembly has `activeTools`, the `allowed_tools` tool choice (`"none"`
 * when no tool is active).
 *
 * With `cache`, no `instructions`: `system` is a system message of one
 * `input_text` part per prompt block, the chosen ones marked with
 * `prompt_cache_breakpoint`, to put first in `input` (for stateless
 * requests: `previous_response_id` and conversations carry input items
 * over, `instructions` they do not), and `prompt_cache_key` is
 * {@linkcode promptCacheKey} of the assembly (or the `promptCacheKey`
 * option).
 *
 * Throws a {@linkcode SystemPromptError}: `INVALID_TOOL_NAME` for a name
 * outside `^[a-zA-Z0-9_-]{1,64}$`, `DUPLICATE_TOOL` for a name listed twice,
 * `INVALID_TOOL_SCHEMA` for a malformed tool, `INVALID_CONFIG` for a bad
 * or unreadable option, and `renderPrompt`'s errors (`INVALID_ASSEMBLY` for a
 * non-assembly or one a getter or Proxy cannot give, with the thrown value as
 * `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `strict` (default `false`), `cache`, `maxCacheBreakpoints`,
 * `breakpoints`, `toolChoiceMode`, `promptCacheKey`
 * @returns the request fields
 *
 * @example Send it with the `openai` client
 * ```ts
 * import { toResponses } from "@rxprompt/system-prompt/openai";
 *
 * const { instructions, tools } = toResponses({
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [{ name: "shell", description: "Run a command.", parameters: { type: "object" } }],
 *   variables: {},
 * });
 * console.log(instructions, tools?.[0].strict); // "You are a coding agent." false
 * // await new OpenAI().responses.create({ model, instructions, input, tools });
 * ```
 */
export function toResponses(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options: OpenAICacheOptions,
): CachedResponsesRequest;
/**
 * {@linkcode toResponses} without `cache`: 0.2's request fields
 * (`instructions`).
 *
 * @example
 * ```ts
 * import { toResponses } from "@rxprompt/system-prompt/openai";
 *
 * const { instructions } = toResponses({ sections: [], tools: [], variables: {} });
 * console.log(instructions); // ""
 * ```
 */
export function toResponses(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIPlainOptions,
): ResponsesRequest;
/**
 * {@linkcode toResponses} when whether `cache` is set is known only at run
 * time.
 *
 * @example
 * ```ts
 * import { type OpenAIOptions, toResponses } from "@rxprompt/system-prompt/openai";
 *
 * const options: OpenAIOptions = { cache: Math.random() > 2 };
 * const request = toResponses({ sections: [], tools: [], variables: {} }, options);
 * console.log("instructions" in request); // true
 * ```
 */
export function toResponses(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIOptions,
): ResponsesRequest | CachedResponsesRequest;
export function toResponses(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIOptions,
): ResponsesRequest | CachedResponsesRequest {
  const read = readOpenAIOptions(options, "toResponses");
  return withAssembly(assembly, {
    adapter: "toResponses",
    rule: OPENAI_NAME,
  }, (input) => {
    const tools = input.tools.map(({ name, description, parameters }) => ({
      type: "function" as const,
      name,
      description,
      parameters,
      strict: read.strict,
    }));
    const active = allowedNames(input);
    const toolChoice: ResponsesToolChoice | undefined = active === undefined
      ? undefined
      : active.length === 0
      ? "none"
      : {
        type: "allowed_tools",
        mode: read.toolChoiceMode,
        tools: active.map((name) => ({ type: "function" as const, name })),
      };
    const context = runtimeMessage(input);
    if (read.cache === undefined) {
      const request: ResponsesRequest = { instructions: systemPrompt(input) };
      if (context !== undefined) request.runtimeContext = context;
      if (tools.length > 0) request.tools = tools;
      if (toolChoice !== undefined) request.tool_choice = toolChoice;
      if (read.promptCacheKey !== undefined) {
        request.prompt_cache_key = read.promptCacheKey;
      }
      return request;
    }
    const { parts, key } = cachedParts(input, read);
    const request: CachedResponsesRequest = {
      system: {
        role: "system",
        content: parts.map(({ text, mark }): ResponsesTextPart =>
          mark === undefined
            ? { type: "input_text", text }
            : { type: "input_text", text, prompt_cache_breakpoint: mark }
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
