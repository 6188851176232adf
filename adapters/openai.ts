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
  type AssembledSection,
  type PromptAssembly,
  SystemPromptError,
} from "../mod.ts";
import { quote } from "../src/errors.ts";
import {
  type NameRule,
  readOptions,
  runtimeMessage,
  systemPrompt,
  WIRE_TOOL_NAME,
  withAssembly,
} from "./_shared.ts";

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
}

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
}

const OPENAI_NAME: NameRule = { pattern: WIRE_TOOL_NAME, api: "OpenAI API" };

/**
 * Maps an assembly to the Chat Completions request fields: the system
 * message, the runtime context as a user message (only when it renders
 * non-empty), and the function tools in the assembly's order.
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
 * @param options `strict` marks every tool strict
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
 */
export function toChatCompletions(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: OpenAIOptions,
): ChatCompletionsRequest {
  const strict = strictOf(options, "toChatCompletions");
  return withAssembly(assembly, {
    adapter: "toChatCompletions",
    rule: OPENAI_NAME,
  }, (input) => {
    const request: ChatCompletionsRequest = {
      system: { role: "system", content: systemPrompt(input) },
    };
    const context = runtimeMessage(input);
    if (context !== undefined) request.runtimeContext = context;
    if (input.tools.length > 0) {
      request.tools = input.tools.map(({ name, description, parameters }) => ({
        type: "function",
        function: strict
          ? { name, description, parameters, strict: true }
          : { name, description, parameters },
      }));
    }
    return request;
  });
}

/**
 * Maps an assembly to the Responses API request fields: `instructions`, the
 * runtime context as a user input message (only when it renders non-empty),
 * and the function tools in the assembly's order, each with `strict`.
 *
 * Throws a {@linkcode SystemPromptError}: `INVALID_TOOL_NAME` for a name
 * outside `^[a-zA-Z0-9_-]{1,64}$`, `DUPLICATE_TOOL` for a name listed twice,
 * `INVALID_TOOL_SCHEMA` for a malformed tool, `INVALID_CONFIG` for a bad
 * or unreadable option, and `renderPrompt`'s errors (`INVALID_ASSEMBLY` for a
 * non-assembly or one a getter or Proxy cannot give, with the thrown value as
 * `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `strict` marks every tool strict (default `false`)
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
  options?: OpenAIOptions,
): ResponsesRequest {
  const strict = strictOf(options, "toResponses");
  return withAssembly(assembly, {
    adapter: "toResponses",
    rule: OPENAI_NAME,
  }, (input) => {
    const request: ResponsesRequest = { instructions: systemPrompt(input) };
    const context = runtimeMessage(input);
    if (context !== undefined) request.runtimeContext = context;
    if (input.tools.length > 0) {
      request.tools = input.tools.map(({ name, description, parameters }) => ({
        type: "function",
        name,
        description,
        parameters,
        strict,
      }));
    }
    return request;
  });
}

function strictOf(options: unknown, adapter: string): boolean {
  const { strict = false } = readOptions(options, adapter, STRICT);
  if (typeof strict === "boolean") return strict;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `strict is ${quote(strict)}; it must be true or false (default false).`,
  );
}

const STRICT = ["strict"] as const;
