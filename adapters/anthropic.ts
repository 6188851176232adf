/**
 * `@rxprompt/system-prompt/anthropic`: an assembly as the request fields of
 * the Anthropic Messages API, with prompt-cache markers where the prompt's
 * cache breakpoints are.
 *
 * A pure function with no SDK dependency: the result is a plain object whose
 * structural type the `@anthropic-ai/sdk` request types accept without a
 * cast. Tools keep the assembly's (canonical) order; `tools` is omitted when
 * there are none.
 *
 * @example Cache the stable prefix
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toMessages } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toMessages(await prompt.assemble(), { cache: true });
 * console.log(system.at(-1)?.cache_control); // { type: "ephemeral" }
 * console.log(tools); // undefined: no tools registered
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
  cacheBreakpointLimit,
  type CacheControl,
  cacheControlOf,
  type NameRule,
  promptBlocks,
  readOptions,
  type ReadTool,
  runtimeMessage,
  WIRE_TOOL_NAME,
  withAssembly,
} from "./_shared.ts";

/**
 * Options of {@linkcode toMessages}.
 *
 * @example
 * ```ts
 * import type { MessagesOptions } from "@rxprompt/system-prompt/anthropic";
 *
 * const options: MessagesOptions = { cache: { ttl: "1h" }, maxCacheBreakpoints: 2 };
 * ```
 */
export interface MessagesOptions {
  /**
   * Mark the last tool and every prompt block (cut at the sections'
   * cache breakpoints) with `cache_control`; `{ ttl }` sets the cache's
   * lifetime. Default `false`: no `cache_control` anywhere.
   */
  cache?: boolean | { ttl: "5m" | "1h" };
  /**
   * At most this many markers in all, keeping the latest in wire order
   * (tools, then system); default 3, leaving one of the API's four for the
   * conversation. An integer from 0 to 4.
   */
  maxCacheBreakpoints?: number;
}

/**
 * Anthropic's prompt-cache marker.
 *
 * @example
 * ```ts
 * import type { MessagesCacheControl } from "@rxprompt/system-prompt/anthropic";
 *
 * const marker: MessagesCacheControl = { type: "ephemeral", ttl: "1h" };
 * ```
 */
export interface MessagesCacheControl {
  /** Always `"ephemeral"`. */
  type: "ephemeral";
  /** The cache's lifetime; the API's default is 5 minutes. */
  ttl?: "5m" | "1h";
}

/**
 * One system text block: one prompt block (SPEC 7.6).
 *
 * @example
 * ```ts
 * import type { MessagesTextBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesTextBlock = {
 *   type: "text",
 *   text: "You are a coding agent.",
 *   cache_control: { type: "ephemeral" },
 * };
 * ```
 */
export interface MessagesTextBlock {
  /** Always `"text"`. */
  type: "text";
  /** The block's rendered text. */
  text: string;
  /** Present on a block the cache may end at. */
  cache_control?: MessagesCacheControl;
}

/**
 * One Messages API tool.
 *
 * @example
 * ```ts
 * import type { MessagesTool } from "@rxprompt/system-prompt/anthropic";
 *
 * const tool: MessagesTool = {
 *   name: "shell",
 *   description: "Run a command.",
 *   input_schema: { type: "object", properties: { command: { type: "string" } } },
 * };
 * ```
 */
export interface MessagesTool {
  /** The tool's name. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The tool's parameters, with `type: "object"` (added when absent). */
  input_schema: { type: "object"; [key: string]: unknown };
  /** Present on the last tool when caching. */
  cache_control?: MessagesCacheControl;
}

/**
 * The Messages API request fields of one assembly.
 *
 * @example
 * ```ts
 * import type { MessagesRequest } from "@rxprompt/system-prompt/anthropic";
 *
 * const fields: MessagesRequest = {
 *   system: [{ type: "text", text: "You are a coding agent." }],
 * };
 * ```
 */
export interface MessagesRequest {
  /** One text block per prompt block, in order. */
  system: MessagesTextBlock[];
  /** The tools in the assembly's order; absent when there are none. */
  tools?: MessagesTool[];
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: { role: "user"; content: string };
}

const ANTHROPIC_NAME: NameRule = {
  pattern: WIRE_TOOL_NAME,
  api: "Anthropic Messages API",
};

/**
 * Maps an assembly to the Messages API request fields.
 *
 * `system` holds one text block per prompt block ({@linkcode renderPromptBlocks}:
 * the prompt cut after every section with `cacheBreakpoint`). With `cache`,
 * the last tool and each block get `cache_control`, at most
 * `maxCacheBreakpoints` (default 3) in all, keeping the latest in wire order
 * (the longest prefixes): the last tool's marker is the first to go. The
 * runtime context comes out as a user message, only when it renders
 * non-empty.
 *
 * `input_schema` is the tool's parameters; a schema without `type` gets
 * `type: "object"`, any other `type` throws `INVALID_TOOL_SCHEMA`. Names must
 * match `^[a-zA-Z0-9_-]{1,64}$` (`INVALID_TOOL_NAME`); a name listed twice
 * throws `DUPLICATE_TOOL`; a bad or unreadable option throws
 * `INVALID_CONFIG`; a non-assembly, or one a getter or Proxy cannot give,
 * throws `INVALID_ASSEMBLY` (with the thrown value as `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `cache` and `maxCacheBreakpoints`
 * @returns the request fields
 *
 * @example Cache the stable part; keep the volatile facts out of it
 * ```ts
 * import { toMessages } from "@rxprompt/system-prompt/anthropic";
 *
 * const { system, tools, runtimeContext } = toMessages({
 *   sections: [
 *     { name: "identity", order: -100, text: "You are a coding agent.", cacheBreakpoint: true },
 *     { name: "project", order: 50, text: "Project: {{project}}." },
 *   ],
 *   tools: [{ name: "shell", description: "Run a command.", parameters: {} }],
 *   variables: { project: "rxprompt" },
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * }, { cache: true });
 * console.log(system.map((block) => block.cache_control)); // two markers
 * console.log(tools?.[0].input_schema); // { type: "object" }
 * console.log(runtimeContext); // { role: "user", content: "Today is Monday." }
 * ```
 */
export function toMessages(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: MessagesOptions,
): MessagesRequest {
  const { cache, maxCacheBreakpoints } = readOptions(
    options,
    "toMessages",
    MESSAGES_OPTIONS,
  );
  const marker = cacheControlOf(cache);
  const limit = cacheBreakpointLimit(maxCacheBreakpoints);
  return withAssembly(assembly, {
    adapter: "toMessages",
    rule: ANTHROPIC_NAME,
  }, (input) => {
    const wireTools = input.tools.map(toTool);
    const system: MessagesTextBlock[] = promptBlocks(input).map((block) => ({
      type: "text",
      text: block.text,
    }));
    if (marker !== undefined) {
      // Wire order: tools, then system. Keep the latest `limit` markers.
      const marked: { cache_control?: CacheControl }[] = [
        ...wireTools.slice(-1),
        ...system,
      ];
      for (const item of marked.slice(Math.max(0, marked.length - limit))) {
        item.cache_control = { ...marker };
      }
    }
    const request: MessagesRequest = { system };
    if (wireTools.length > 0) request.tools = wireTools;
    const context = runtimeMessage(input);
    if (context !== undefined) request.runtimeContext = context;
    return request;
  });
}

const MESSAGES_OPTIONS = ["cache", "maxCacheBreakpoints"] as const;

function toTool({ name, description, parameters }: ReadTool): MessagesTool {
  if (!Object.hasOwn(parameters, "type")) {
    return {
      name,
      description,
      input_schema: { type: "object", ...parameters },
    };
  }
  const type = parameters.type;
  if (type !== "object") {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${quote(name)} has parameters of type ${
        quote(type)
      }; the Anthropic Messages API takes an object schema as input_schema ` +
        `(type "object", or no type at all).`,
    );
  }
  return {
    name,
    description,
    input_schema: parameters as MessagesTool["input_schema"],
  };
}
