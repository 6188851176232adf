/**
 * `@rxprompt/system-prompt/openai`: an assembly as the request fields of the
 * OpenAI Chat Completions and Responses APIs.
 *
 * Pure functions with no SDK dependency: the results are plain objects whose
 * structural types the `openai` package's own request types accept without
 * a cast. Tools keep the assembly's (canonical) order and their schemas are
 * passed through unchanged; `tools` is omitted when there are none.
 *
 * @example Chat Completions
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toChatCompletions } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toChatCompletions(await prompt.assemble());
 * const request = {
 *   model: "gpt-5",
 *   messages: [system, { role: "user" as const, content: "Review #42." }],
 *   tools,
 * };
 * console.log(request.messages[0].role); // "system"
 * await prompt.dispose();
 * ```
 *
 * @module
 */

import {
  type AssembleContext,
  type AssembledSection,
  type PromptAssembly,
  SystemPromptError,
} from "../mod.ts";
import {
  type Conversation,
  type ConversationOptions,
  type ConversationPrompt,
  ConversationShell,
} from "../src/conversation/conversation.ts";
import { parseRecording } from "../src/conversation/recording.ts";
import type {
  ConversationWire,
  ToolCall,
  WireAnswer,
  WireBuild,
  WireBuilt,
  WireMark,
} from "../src/conversation/wire.ts";
import {
  copyBlocks,
  detectOtherProvider,
  isObject,
  readLimit,
  readModel,
} from "./_conversation_shared.ts";
import { quote } from "../src/errors.ts";
import {
  type AdapterInput,
  autoBreakpoints,
  cacheBreakpointLimit,
  type NameRule,
  promptBlocks,
  readingOptions,
  readOptions,
  runtimeMessage,
  systemPrompt,
  WIRE_TOOL_NAME,
  withAssembly,
} from "./_shared.ts";
import { blockItems, latestMarkers, selectMarkers } from "./_cache_markers.ts";
import { sha256Hex } from "./_sha256.ts";
import type { PromptBlock } from "../mod.ts";

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
   * The `prompt_cache_key` to send with `cache` (default:
   * {@linkcode promptCacheKey} of the assembly, without a session).
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
 * A user-role message carrying the rendered runtime context.
 *
 * @example
 * ```ts
 * import type { UserMessage } from "@rxprompt/system-prompt/openai";
 *
 * const message: UserMessage = { role: "user", content: "Today is Monday." };
 * ```
 */
export interface UserMessage {
  /** Always `"user"`. */
  role: "user";
  /** The rendered runtime context. */
  content: string;
}

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

const OPENAI_NAME: NameRule = { pattern: WIRE_TOOL_NAME, api: "OpenAI API" };

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

function keyOf(
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

/** The names of the assembly's tools its `activeTools` allows, in order. */
function allowedNames(input: AdapterInput): string[] | undefined {
  if (input.activeTools === undefined) return undefined;
  const active = new Set(input.activeTools);
  return input.tools.flatMap((tool) =>
    active.has(tool.name) ? [tool.name] : []
  );
}

/** The OpenAI options, each read once and checked. */
interface ReadOpenAIOptions {
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

/** OpenAI's default mode writes the latest three marks: two for the prompt. */
const OPENAI_CACHE_BREAKPOINTS = 2;

function readOpenAIOptions(
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
    limit: cacheBreakpointLimit(maxCacheBreakpoints, OPENAI_CACHE_BREAKPOINTS),
    auto: autoBreakpoints(breakpoints),
    toolChoiceMode,
    promptCacheKey,
  };
}

/** The mark the `cache` option asks for, or `undefined` for no caching. */
function breakpointOf(cache: unknown): PromptCacheBreakpoint | undefined {
  if (cache === undefined || cache === false) return undefined;
  if (cache === true) return { mode: "explicit" };
  const ttl = readingOptions(
    () =>
      typeof cache === "object" && cache !== null
        ? (cache as { ttl?: unknown }).ttl
        : undefined,
    "could not read the cache option's ttl",
  );
  if (ttl === "30m" || ttl === "12h") return { mode: "explicit", ttl };
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `cache is ${quote(cache)}${
      typeof cache === "object" && cache !== null
        ? ` with ttl ${quote(ttl)}`
        : ""
    }; it must be true, false, or { ttl: "30m" } / { ttl: "12h" }.`,
  );
}

/**
 * The system prompt's blocks as parts, the chosen ones marked, and the
 * request's cache key.
 */
function cachedParts(
  input: AdapterInput,
  read: ReadOpenAIOptions,
): { parts: { text: string; mark?: PromptCacheBreakpoint }[]; key: string } {
  const blocks = promptBlocks(input, { auto: read.auto });
  const marked = read.auto
    ? selectMarkers([
      // OpenAI's tools cannot carry a mark, but a volatile one counts.
      ...input.toolRanks.map((rank) => ({ rank, candidate: false })),
      ...blockItems(blocks),
    ], read.limit).map((index) => index - input.tools.length)
    : latestMarkers(blocks.length, read.limit);
  const chosen = new Set(marked);
  const parts = blocks.map((block, index) =>
    chosen.has(index)
      ? { text: block.text, mark: { ...read.cache! } }
      : { text: block.text }
  );
  // An empty prompt is one empty part, as 0.2 sent an empty string: the
  // API takes no empty content list.
  if (parts.length === 0) parts.push({ text: "" });
  const key = read.promptCacheKey ??
    keyOf(
      input,
      read.auto ? blocks : promptBlocks(input, { auto: true }),
      undefined,
    );
  return { parts, key };
}

// The conversation (SPEC 9.1): the whole body of each step.

/**
 * A part of a person's message in a Chat Completions conversation: text
 * or an image.
 *
 * @example
 * ```ts
 * import type { ChatUserPart } from "@rxprompt/system-prompt/openai";
 *
 * const part: ChatUserPart = { type: "text", text: "Where is my parcel?" };
 * ```
 */
export type ChatUserPart = ChatTextPart | {
  /** Always `"image_url"`. */
  type: "image_url";
  /** The image. */
  image_url: { url: string; detail?: "auto" | "low" | "high" };
  /** A cache mark (placed by the conversation only). */
  prompt_cache_breakpoint?: PromptCacheBreakpoint;
};

/**
 * One message of a Chat Completions conversation's history. The model's
 * messages are kept verbatim (every field the SDK returned); the ones the
 * conversation writes always have content parts, so a mark can come and
 * go without changing their shape.
 *
 * @example
 * ```ts
 * import type { ChatConversationMessage } from "@rxprompt/system-prompt/openai";
 *
 * const message: ChatConversationMessage = {
 *   role: "tool",
 *   tool_call_id: "call_1",
 *   content: [{ type: "text", text: "42 lines" }],
 * };
 * ```
 */
export type ChatConversationMessage =
  | { role: "user"; content: ChatUserPart[] }
  | { role: "tool"; tool_call_id: string; content: ChatTextPart[] }
  | {
    role: "assistant";
    content?: string | null;
    refusal?: string | null;
    tool_calls?: {
      id: string;
      type: "function";
      function: { name: string; arguments: string };
    }[];
  };

/**
 * The whole body of one Chat Completions conversation request: pass it to
 * `client.chat.completions.create(body)`.
 *
 * @example
 * ```ts
 * import type { ChatConversationBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ChatConversationBody = {
 *   model: "gpt-5.6",
 *   messages: [{ role: "system", content: [{ type: "text", text: "You are terse." }] }],
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface ChatConversationBody {
  /** The model, from the options. */
  model: string;
  /** The system message, then the history and this step's new messages. */
  messages: (
    | { role: "system"; content: string | ChatTextPart[] }
    | ChatConversationMessage
  )[];
  /** Every listed tool; absent when there are none. */
  tools?: ChatCompletionsTool[];
  /** The allowed tools, when gates (or a dropped tool) limit them. */
  tool_choice?: ChatToolChoice;
  /** Fixed at the first request: one session per conversation. */
  prompt_cache_key: string;
  /** From the options, when given. */
  max_completion_tokens?: number;
}

/**
 * {@linkcode ChatConversationBody} for `stream: true`: it asks for the
 * usage in the stream's last chunk.
 *
 * @example
 * ```ts
 * import type { ChatConversationStreamingBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ChatConversationStreamingBody = {
 *   model: "gpt-5.6",
 *   messages: [],
 *   prompt_cache_key: "0123456789abcdef",
 *   stream: true,
 *   stream_options: { include_usage: true },
 * };
 * ```
 */
export interface ChatConversationStreamingBody extends ChatConversationBody {
  /** Always `true`. */
  stream: true;
  /** The usage comes with the stream's last chunk. */
  stream_options: { include_usage: true };
}

/**
 * What `record()` takes: the SDK's `ChatCompletion` (`create()`, or a
 * stream's `finalChatCompletion()`).
 *
 * @example
 * ```ts
 * import type { ChatAnswer } from "@rxprompt/system-prompt/openai";
 *
 * const answer: ChatAnswer = {
 *   object: "chat.completion",
 *   choices: [{ message: { role: "assistant", content: "Done." } }],
 * };
 * ```
 */
export interface ChatAnswer {
  /** `"chat.completion"`. */
  readonly object?: string;
  /** The first choice's message is the answer. */
  readonly choices: readonly {
    readonly message: {
      readonly role: "assistant";
      readonly content?: string | null;
      readonly refusal?: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: string;
        readonly function?: {
          readonly name: string;
          readonly arguments: string;
        };
      }[];
    };
    readonly index?: number;
    readonly finish_reason?: string | null;
  }[];
  /** The reported usage. */
  readonly usage?: unknown;
}

/**
 * Options of {@linkcode chatConversation}.
 *
 * @example
 * ```ts
 * import type { ChatConversationOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: ChatConversationOptions = { model: "gpt-5.6", cache: true };
 * ```
 */
export interface ChatConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_completion_tokens` of every request, when given. */
  max_completion_tokens?: number;
  /**
   * Explicit cache breakpoints (gpt-5.6 and later), as `toChatCompletions`'
   * `cache`: the system prompt's marks, and the conversation's on its last
   * item and on the end of the previous request. Absent: automatic caching.
   */
  cache?: boolean | { ttl: "30m" | "12h" };
  /** `toChatCompletions`' `maxCacheBreakpoints` (default 2). */
  maxCacheBreakpoints?: number;
  /** `toChatCompletions`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /** `toChatCompletions`' `toolChoiceMode` (default `"auto"`). */
  toolChoiceMode?: "auto" | "required";
  /** `toChatCompletions`' `strict`. */
  strict?: boolean;
  /** The `prompt_cache_key` (default: `promptCacheKey` with the session). */
  promptCacheKey?: string;
  /** Streaming bodies, with `stream_options.include_usage`. */
  stream?: boolean;
}

/**
 * A Chat Completions conversation: {@linkcode Conversation} with the
 * `openai` SDK's shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type ChatConversation, chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv: ChatConversation = chatConversation(new SystemPrompt(), { model: "gpt-5.6" });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type ChatConversation<
  Body = ChatConversationBody,
  C extends AssembleContext = AssembleContext,
> = Conversation<
  Body,
  ChatAnswer,
  string | ChatUserPart[],
  string | ChatTextPart[],
  ChatConversationMessage,
  C
>;

const CHAT_PROVIDER = "openai-chat";

/**
 * Starts an OpenAI Chat Completions conversation (SPEC 9.1): each
 * `request()` returns the whole body for `client.chat.completions.create`,
 * with the request loop's rules applied: the tools listed first stay
 * byte-identical (a dropped tool stays listed, outside `allowed_tools`);
 * the `allowed_tools` tool choice from the gates; the runtime context, when
 * it changed, as a new user message after the last tool result; with
 * `cache`, explicit marks on the last item and on the end of the previous
 * request (OpenAI reads only at a request's own marks), `ttl: "12h"` on
 * every mark when a person answers next; `prompt_cache_key` fixed at the
 * first request (one session per conversation); with `stream: true`,
 * `stream_options.include_usage`.
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You are a support assistant." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "track", description: "Track a parcel.", parameters: { type: "object" } }],
 * }));
 * const conv = chatConversation(prompt, { model: "gpt-5.6", cache: true });
 * conv.user("Where is my parcel?");
 * await conv.request(); // send it: await client.chat.completions.create(body)
 * const calls = conv.record({
 *   object: "chat.completion",
 *   choices: [{
 *     message: {
 *       role: "assistant",
 *       content: null,
 *       tool_calls: [{ id: "c1", type: "function", function: { name: "track", arguments: "{}" } }],
 *     },
 *   }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "In transit.");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["system", "user", "assistant", "tool"]
 * await prompt.dispose();
 * ```
 */
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions & { stream: true },
): ChatConversation<ChatConversationStreamingBody, C>;
/**
 * {@linkcode chatConversation} without streaming.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * conv.user("Hi.");
 * console.log("stream" in await conv.request()); // false
 * ```
 */
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions & { stream?: false },
): ChatConversation<ChatConversationBody, C>;
export function chatConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: ChatConversationOptions,
): ChatConversation<ChatConversationBody, C> {
  return new ConversationShell(prompt, chatWire(options), options);
}

/**
 * Resumes a Chat Completions conversation from its recording, as
 * `resumeAnthropicConversation` does for Anthropic (`./anthropic`): the
 * next request is byte-identical to the one the original would have built,
 * `prompt_cache_key` included; the recording's options apply unless
 * `options` gives them again.
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation, resumeChatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * const again = resumeChatConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options: Partial<ChatConversationOptions> & { stream: true },
): ChatConversation<ChatConversationStreamingBody, C>;
/**
 * {@linkcode resumeChatConversation} of a conversation without streaming
 * (a recording made with `stream: true` needs `stream` given again:
 * `INVALID_CONFIG` otherwise, so the body's type is the one sent).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { chatConversation, resumeChatConversation } from "@rxprompt/system-prompt/openai";
 *
 * const conv = chatConversation(new SystemPrompt(), { model: "gpt-5" });
 * console.log(resumeChatConversation(new SystemPrompt(), conv.save()).resumed?.steps); // 0
 * ```
 */
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ChatConversationOptions> & { stream?: false },
): ChatConversation<ChatConversationBody, C>;
export function resumeChatConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ChatConversationOptions>,
): ChatConversation<ChatConversationBody | ChatConversationStreamingBody, C> {
  const parsed = parseRecording(recording, CHAT_PROVIDER);
  const saved = parsed.header.options as Partial<ChatConversationOptions>;
  if (saved.stream === true && options?.stream === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The recording is of a streaming conversation; resume it with ` +
        `{ stream: true } (or { stream: false } to stop streaming), so the ` +
        `body's type says which it is.`,
    );
  }
  const merged = { ...saved, ...options } as ChatConversationOptions;
  return new ConversationShell(prompt, chatWire(merged), merged, parsed);
}

type ChatMessage = ChatConversationMessage;
type ChatBody = ChatConversationBody | ChatConversationStreamingBody;

/** Reads the options and returns the wire. */
function chatWire(
  options: ChatConversationOptions,
): ConversationWire<ChatMessage, ChatBody> {
  const model = readModel(options, "chatConversation");
  const limit = readLimit(
    options.max_completion_tokens,
    "max_completion_tokens",
    "chatConversation",
    { required: false },
  );
  const cache = breakpointOf(options.cache);
  if (options.stream !== undefined && typeof options.stream !== "boolean") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `chatConversation's stream is ${
        quote(options.stream)
      }; it must be true or false.`,
    );
  }
  const adapter = adapterOptions(options, "chatConversation");
  const saved: Record<string, unknown> = { model, ...adapter };
  if (limit !== undefined) saved.max_completion_tokens = limit;
  if (options.cache !== undefined) saved.cache = options.cache;
  if (options.promptCacheKey !== undefined) {
    saved.promptCacheKey = options.promptCacheKey;
  }
  if (options.stream === true) saved.stream = true;
  return {
    provider: CHAT_PROVIDER,
    options: saved,
    build: (input) =>
      chatBuild(input, {
        model,
        limit,
        cache,
        adapter,
        key: options.promptCacheKey,
        stream: options.stream === true,
      }),
    read: chatRead,
    personInput: (input) =>
      copyBlocks(input, "user()", { allowString: true, forbid: [] }),
    resultContent: (content, id) =>
      copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
        allowString: true,
        forbid: [],
      }),
  };
}

function chatBuild(
  input: WireBuild<ChatMessage>,
  options: {
    model: string;
    limit: number | undefined;
    cache: PromptCacheBreakpoint | undefined;
    adapter: OpenAIOptions;
    key: string | undefined;
    stream: boolean;
  },
): WireBuilt<ChatMessage, ChatBody> {
  const tail: ChatMessage[] = input.results.map((result) => ({
    role: "tool",
    tool_call_id: result.id,
    content: result.content as ChatTextPart[],
  }));
  if (input.person.length > 0) {
    tail.push({ role: "user", content: input.person as ChatUserPart[] });
  }
  if (input.update !== undefined) {
    tail.push({
      role: "user",
      content: [{ type: "text", text: input.update }],
    });
  }
  const history = [...input.history, ...tail];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  const key = typeof input.state.promptCacheKey === "string"
    ? input.state.promptCacheKey
    : options.key ?? promptCacheKey(input.assembly, { session: input.session });
  const mark: PromptCacheBreakpoint | undefined = options.cache === undefined
    ? undefined
    : input.awaiting === "person"
    ? { mode: "explicit", ttl: "12h" }
    : options.cache;
  const { items: messages, marks } = markOpenAIEnds(
    history,
    input.previousLength,
    mark,
    (message) =>
      message.role === "assistant"
        ? undefined
        : { key: "content", parts: message.content },
  );
  const fields = mark === undefined
    ? toChatCompletions(input.assembly, { ...options.adapter })
    : toChatCompletions(input.assembly, {
      ...options.adapter,
      cache: mark.ttl === undefined ? true : { ttl: mark.ttl },
      promptCacheKey: key,
    });
  const head: Record<string, unknown> = {
    model: options.model,
    system: fields.system,
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    ...(fields.tool_choice === undefined
      ? {}
      : { tool_choice: fields.tool_choice }),
    prompt_cache_key: key,
    ...(options.limit === undefined
      ? {}
      : { max_completion_tokens: options.limit }),
    ...(options.stream
      ? { stream: true, stream_options: { include_usage: true } }
      : {}),
  };
  const { system: _system, ...rest } = head;
  const body = {
    ...rest,
    messages: [fields.system, ...messages],
  } as unknown as ChatBody;
  return {
    body,
    tail,
    marks,
    head,
    state: { promptCacheKey: key },
  };
}

function chatRead(response: unknown): WireAnswer<ChatMessage> {
  detectOtherProvider(response, "an OpenAI Chat Completions");
  const choices = isObject(response) ? response.choices : undefined;
  const message = Array.isArray(choices) && isObject(choices[0])
    ? choices[0].message
    : undefined;
  if (!isObject(message) || message.role !== "assistant") {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes the openai SDK's ChatCompletion (choices[0].message ` +
        `with role "assistant"), as chat.completions.create() or a stream's ` +
        `finalChatCompletion() returns it.`,
    );
  }
  const calls: ToolCall[] = [];
  const toolCalls = message.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The message's tool_calls is not an array.`,
      );
    }
    for (const call of toolCalls) {
      if (
        !isObject(call) || typeof call.id !== "string" ||
        !isObject(call.function) || typeof call.function.name !== "string"
      ) {
        throw new SystemPromptError(
          "INVALID_RESPONSE",
          `A tool call of the message has no string id and function name.`,
        );
      }
      calls.push({
        id: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      });
    }
  }
  return {
    messages: [JSON.parse(JSON.stringify(message))],
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
  };
}

/** A call's arguments parsed, or the text as it came when it is not JSON. */
function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * One item of a Responses conversation's input history. The model's
 * output items are kept verbatim (every field the SDK returned); the items
 * the conversation writes always have content parts, so a mark can come
 * and go without changing their shape.
 *
 * @example
 * ```ts
 * import type { ResponsesConversationItem } from "@rxprompt/system-prompt/openai";
 *
 * const item: ResponsesConversationItem = {
 *   type: "function_call_output",
 *   call_id: "call_1",
 *   output: [{ type: "input_text", text: "42 lines" }],
 * };
 * ```
 */
export type ResponsesConversationItem =
  | { role: "user"; content: ResponsesTextPart[] }
  | {
    type: "function_call_output";
    call_id: string;
    output: ResponsesTextPart[];
  }
  | {
    type: "function_call";
    call_id: string;
    name: string;
    arguments: string;
    id?: string;
  }
  | {
    type: "message";
    id: string;
    role: "assistant";
    status: "in_progress" | "completed" | "incomplete";
    content: { type: "output_text"; text: string; annotations: never[] }[];
  }
  | {
    type: "reasoning";
    id: string;
    summary: { type: "summary_text"; text: string }[];
    encrypted_content?: string | null;
  };

/**
 * The whole body of one Responses conversation request, stateless (the
 * whole input every time, the system message first): pass it to
 * `client.responses.create(body)`.
 *
 * @example
 * ```ts
 * import type { ResponsesConversationBody } from "@rxprompt/system-prompt/openai";
 *
 * const body: ResponsesConversationBody = {
 *   model: "gpt-5.6",
 *   input: [{ role: "system", content: "You are terse." }],
 *   prompt_cache_key: "0123456789abcdef",
 * };
 * ```
 */
export interface ResponsesConversationBody {
  /** The model, from the options. */
  model: string;
  /** The system message, then the history and this step's new items. */
  input: (
    | { role: "system"; content: string | ResponsesTextPart[] }
    | ResponsesConversationItem
  )[];
  /** Every listed tool; absent when there are none. */
  tools?: ResponsesTool[];
  /** The allowed tools, when gates (or a dropped tool) limit them. */
  tool_choice?: ResponsesToolChoice;
  /** Fixed at the first request: one session per conversation. */
  prompt_cache_key: string;
  /** `{ ttl: "12h" }` when a person answers next. */
  prompt_cache_options?: { ttl: "12h" };
  /** From the options, when given. */
  max_output_tokens?: number;
}

/**
 * What `record()` takes: the SDK's `Response` (`responses.create()`, or a
 * stream's `finalResponse()`).
 *
 * @example
 * ```ts
 * import type { ResponsesAnswer } from "@rxprompt/system-prompt/openai";
 *
 * const answer: ResponsesAnswer = {
 *   object: "response",
 *   output: [{ type: "function_call", call_id: "c1", name: "track", arguments: "{}" }],
 * };
 * ```
 */
export interface ResponsesAnswer {
  /** `"response"`. */
  readonly object?: string;
  /** The output items, kept verbatim in the history. */
  readonly output: readonly {
    readonly type: string;
    readonly call_id?: string | null;
    readonly name?: string | null;
    readonly arguments?: unknown;
  }[];
  /** The reported usage. */
  readonly usage?: unknown;
}

/**
 * Options of {@linkcode responsesConversation}.
 *
 * @example
 * ```ts
 * import type { ResponsesConversationOptions } from "@rxprompt/system-prompt/openai";
 *
 * const options: ResponsesConversationOptions = { model: "gpt-5.6", cache: true };
 * ```
 */
export interface ResponsesConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_output_tokens` of every request, when given. */
  max_output_tokens?: number;
  /** As {@linkcode ChatConversationOptions}' `cache`. */
  cache?: boolean | { ttl: "30m" | "12h" };
  /** `toResponses`' `maxCacheBreakpoints` (default 2). */
  maxCacheBreakpoints?: number;
  /** `toResponses`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /** `toResponses`' `toolChoiceMode` (default `"auto"`). */
  toolChoiceMode?: "auto" | "required";
  /** `toResponses`' `strict`. */
  strict?: boolean;
  /** The `prompt_cache_key` (default: `promptCacheKey` with the session). */
  promptCacheKey?: string;
}

/**
 * A Responses conversation: {@linkcode Conversation} with the `openai`
 * SDK's shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type ResponsesConversation,
 *   responsesConversation,
 * } from "@rxprompt/system-prompt/openai";
 *
 * const conv: ResponsesConversation = responsesConversation(new SystemPrompt(), {
 *   model: "gpt-5.6",
 * });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type ResponsesConversation<
  C extends AssembleContext = AssembleContext,
> = Conversation<
  ResponsesConversationBody,
  ResponsesAnswer,
  string | ResponsesTextPart[],
  string | ResponsesTextPart[],
  ResponsesConversationItem,
  C
>;

const RESPONSES_PROVIDER = "openai-responses";

/**
 * Starts an OpenAI Responses conversation (SPEC 9.1), stateless: each
 * `request()` returns the whole input (the system message first, then the
 * history) for `client.responses.create`, with the rules of
 * {@linkcode chatConversation}: the tools listed first kept byte for byte,
 * `allowed_tools` from the gates, the runtime context as a new user
 * message after the last tool output, explicit marks (with `cache`) on the
 * last item and the previous request's end, `prompt_cache_key` fixed at the
 * first request; when a person answers next, `ttl: "12h"` on the marks and
 * `prompt_cache_options: { ttl: "12h" }`.
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { responsesConversation } from "@rxprompt/system-prompt/openai";
 *
 * const prompt = new SystemPrompt({ persona: "You are a support assistant." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "track", description: "Track a parcel.", parameters: { type: "object" } }],
 * }));
 * const conv = responsesConversation(prompt, { model: "gpt-5.6", cache: true });
 * conv.user("Where is my parcel?");
 * await conv.request(); // send it: await client.responses.create(body)
 * const calls = conv.record({
 *   object: "response",
 *   output: [{ type: "function_call", call_id: "c1", name: "track", arguments: "{}" }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "In transit.");
 * const body = await conv.request();
 * console.log(body.input.length); // 4: system, user, function_call, function_call_output
 * await prompt.dispose();
 * ```
 */
export function responsesConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: ResponsesConversationOptions,
): ResponsesConversation<C> {
  return new ConversationShell(prompt, responsesWire(options), options);
}

/**
 * Resumes a Responses conversation from its recording, as
 * `resumeAnthropicConversation` does for Anthropic (`./anthropic`).
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   responsesConversation,
 *   resumeResponsesConversation,
 * } from "@rxprompt/system-prompt/openai";
 *
 * const conv = responsesConversation(new SystemPrompt(), { model: "gpt-5.6" });
 * const again = resumeResponsesConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeResponsesConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<ResponsesConversationOptions>,
): ResponsesConversation<C> {
  const parsed = parseRecording(recording, RESPONSES_PROVIDER);
  const merged = {
    ...(parsed.header.options as Partial<ResponsesConversationOptions>),
    ...options,
  } as ResponsesConversationOptions;
  return new ConversationShell(prompt, responsesWire(merged), merged, parsed);
}

type ResponsesItem = ResponsesConversationItem;

/** Reads the options and returns the wire. */
function responsesWire(
  options: ResponsesConversationOptions,
): ConversationWire<ResponsesItem, ResponsesConversationBody> {
  const form = "responsesConversation";
  const model = readModel(options, form);
  const limit = readLimit(
    options.max_output_tokens,
    "max_output_tokens",
    form,
    {
      required: false,
    },
  );
  const cache = breakpointOf(options.cache);
  const adapter = adapterOptions(options, form);
  const saved: Record<string, unknown> = { model, ...adapter };
  if (limit !== undefined) saved.max_output_tokens = limit;
  if (options.cache !== undefined) saved.cache = options.cache;
  if (options.promptCacheKey !== undefined) {
    saved.promptCacheKey = options.promptCacheKey;
  }
  const parts = (content: unknown, what: string) =>
    copyBlocks(content, what, {
      allowString: true,
      forbid: [],
      text: "input_text",
    });
  return {
    provider: RESPONSES_PROVIDER,
    options: saved,
    build: (input) =>
      responsesBuild(input, {
        model,
        limit,
        cache,
        adapter,
        key: options.promptCacheKey,
      }),
    read: responsesRead,
    personInput: (input) => parts(input, "user()"),
    resultContent: (content, id) =>
      parts(content, `toolResult(${JSON.stringify(id)})`),
  };
}

/** The adapter options a conversation passes through, checked. */
function adapterOptions(
  options: Record<string, unknown> | ChatConversationOptions,
  form: string,
): OpenAIOptions {
  const adapter: OpenAIOptions = {};
  for (
    const key of [
      "maxCacheBreakpoints",
      "breakpoints",
      "toolChoiceMode",
      "strict",
    ] as const
  ) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) (adapter as Record<string, unknown>)[key] = value;
  }
  readOpenAIOptions(adapter, form);
  return adapter;
}

/**
 * The OpenAI forms' marks: on the last item and on the previous request's
 * end, each on the last part of `partsOf(item)` (items the model wrote
 * carry none). Returns the marked copy and where the marks went.
 */
function markOpenAIEnds<T>(
  history: readonly T[],
  previousLength: number,
  mark: PromptCacheBreakpoint | undefined,
  partsOf: (item: T) => { key: string; parts: unknown[] } | undefined,
): { items: T[]; marks: WireMark[] } {
  const items = [...history];
  const marks: WireMark[] = [];
  if (mark === undefined) return { items, marks };
  const ends = previousLength > 0 && previousLength < history.length
    ? [previousLength - 1, history.length - 1]
    : [history.length - 1];
  for (const at of ends) {
    const found = partsOf(items[at]);
    if (found === undefined || found.parts.length === 0) continue;
    const parts = [...found.parts];
    const block = parts.length - 1;
    parts[block] = {
      ...parts[block] as Record<string, unknown>,
      prompt_cache_breakpoint: { ...mark },
    };
    items[at] = { ...items[at], [found.key]: parts };
    marks.push({ message: at + 1, block, mark: { ...mark } });
  }
  return { items, marks };
}

function responsesBuild(
  input: WireBuild<ResponsesItem>,
  options: {
    model: string;
    limit: number | undefined;
    cache: PromptCacheBreakpoint | undefined;
    adapter: OpenAIOptions;
    key: string | undefined;
  },
): WireBuilt<ResponsesItem, ResponsesConversationBody> {
  const tail: ResponsesItem[] = input.results.map((result) => ({
    type: "function_call_output",
    call_id: result.id,
    output: result.content as ResponsesTextPart[],
  }));
  if (input.person.length > 0) {
    tail.push({ role: "user", content: input.person as ResponsesTextPart[] });
  }
  if (input.update !== undefined) {
    tail.push({
      role: "user",
      content: [{ type: "input_text", text: input.update }],
    });
  }
  const history = [...input.history, ...tail];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  const key = typeof input.state.promptCacheKey === "string"
    ? input.state.promptCacheKey
    : options.key ?? promptCacheKey(input.assembly, { session: input.session });
  const pause = input.awaiting === "person";
  const mark: PromptCacheBreakpoint | undefined = options.cache === undefined
    ? undefined
    : pause
    ? { mode: "explicit", ttl: "12h" }
    : options.cache;
  const { items, marks } = markOpenAIEnds(
    history,
    input.previousLength,
    mark,
    (item) =>
      "role" in item && item.role === "user"
        ? { key: "content", parts: item.content }
        : item.type === "function_call_output"
        ? { key: "output", parts: item.output }
        : undefined,
  );
  const fields = mark === undefined
    ? toResponses(input.assembly, { ...options.adapter })
    : toResponses(input.assembly, {
      ...options.adapter,
      cache: mark.ttl === undefined ? true : { ttl: mark.ttl },
      promptCacheKey: key,
    });
  const system = "system" in fields
    ? fields.system
    : { role: "system" as const, content: fields.instructions };
  const head: Omit<ResponsesConversationBody, "input"> = {
    model: options.model,
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    ...(fields.tool_choice === undefined
      ? {}
      : { tool_choice: fields.tool_choice }),
    prompt_cache_key: key,
    ...(pause ? { prompt_cache_options: { ttl: "12h" as const } } : {}),
    ...(options.limit === undefined
      ? {}
      : { max_output_tokens: options.limit }),
  };
  return {
    body: { ...head, input: [system, ...items] },
    tail,
    marks,
    head: { ...head, system },
    state: { promptCacheKey: key },
  };
}

function responsesRead(response: unknown): WireAnswer<ResponsesItem> {
  detectOtherProvider(response, "an OpenAI Responses");
  if (isObject(response) && response.object === "response.compaction") {
    throw new SystemPromptError(
      "COMPACTION_UNSUPPORTED",
      `record() was given a compaction: server-side compaction is not ` +
        `supported by the conversation yet; nothing was recorded.`,
    );
  }
  const output = isObject(response) ? response.output : undefined;
  if (!Array.isArray(output)) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes the openai SDK's Response (object "response", output ` +
        `items), as responses.create() or a stream's finalResponse() ` +
        `returns it.`,
    );
  }
  const calls: ToolCall[] = [];
  for (const item of output) {
    if (!isObject(item) || typeof item.type !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The response's output holds an item without a type.`,
      );
    }
    if (item.type === "compaction") {
      throw new SystemPromptError(
        "COMPACTION_UNSUPPORTED",
        `The response holds a compaction item: server-side compaction is ` +
          `not supported by the conversation yet; nothing was recorded.`,
      );
    }
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string") {
        throw new SystemPromptError(
          "INVALID_RESPONSE",
          `A function_call of the response has no string call_id and name.`,
        );
      }
      calls.push({
        id: item.call_id,
        name: item.name,
        input: parseArguments(item.arguments),
      });
    }
  }
  return {
    messages: JSON.parse(JSON.stringify(output)),
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
  };
}
