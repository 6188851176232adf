/**
 * An assembly as the Messages API request fields, and the Messages API's
 * content blocks and messages.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly } from "../../mod.ts";
import {
  autoBreakpoints,
  type NameRule,
  objectSchema,
  promptBlocks,
  type ReadTool,
  runtimeMessage,
  WIRE_TOOL_NAME,
  withAssembly,
} from "../_kit/assembly_input.ts";
import {
  activeNamesOf,
  allowedToolNames,
  type CacheControl,
  gatingOf,
  readOptions,
} from "../_kit/adapter_options.ts";
import { cacheOption, prefixMarkLimit } from "../_kit/cache_option.ts";
import { ANTHROPIC_RULES } from "./rules.ts";
import {
  latestMarkers,
  markableItems,
  selectMarkers,
} from "../../src/render/prefix_marks.ts";

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
   * Place `cache_control` markers (SPEC 8.3): on the last tool of each
   * stability run followed by a more volatile tool or by the system prompt,
   * and on every block with `cacheBreakpoint: true`, never on a volatile
   * one nor on anything after the first volatile tool or block (SPEC 9.2);
   * `{ ttl }` sets the cache's lifetime. Default `false`: no
   * `cache_control` anywhere.
   */
  cache?: boolean | { ttl: "5m" | "1h" };
  /**
   * At most this many markers in all (default 3, leaving one of the API's
   * four for the conversation; an integer from 0 to 4). When there are more
   * candidates, kept in this order: the one that ends the prefix every
   * scope shares (the last stable tool, or the last stable block), the last
   * of all, then the others, latest first.
   */
  maxCacheBreakpoints?: number;
  /**
   * `"auto"` (default): blocks cut at stability boundaries too, markers as
   * above. `"explicit"`: 0.2's blocks and markers (the last tool and every
   * block, the latest `maxCacheBreakpoints`).
   */
  breakpoints?: "auto" | "explicit";
  /**
   * What to do with the tools the assembly's `activeTools` leaves out:
   * `"remove"` (default) leaves them out of `tools`; `"keep"` lists every
   * tool (the tools block stays cached) and returns the active names as
   * `allowedTools`, for the harness to refuse other calls.
   */
  gating?: "remove" | "keep";
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
  /**
   * A deferred tool (SPEC §10.3): loaded only when the tool search finds
   * it; never with `cache_control`.
   */
  defer_loading?: true;
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
  /**
   * With `gating: "keep"` and gates in the assembly: the tools the model
   * may call this step (refuse calls of the others). Not a request field.
   */
  allowedTools?: string[];
}

const ANTHROPIC_NAME: NameRule = {
  pattern: WIRE_TOOL_NAME,
  api: "Anthropic Messages API",
};

/**
 * Maps an assembly to the Messages API request fields.
 *
 * `system` holds one text block per prompt block ({@linkcode renderPromptBlocks}:
 * the prompt cut after every section with `cacheBreakpoint`, and by default
 * at every stability boundary). With `cache`, `cache_control` markers go
 * where {@linkcode MessagesOptions} says, at most `maxCacheBreakpoints`
 * (default 3) in all, none after the first volatile tool or block. The
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
  return messagesRequest(assembly, options, { keepToolsEnd: false });
}

/**
 * {@linkcode toMessages}, and for a conversation (`keepToolsEnd`) the last
 * tool's marker kept after the shared prefix's and the last one: the end
 * of what a fork that adds a tool shares. Internal.
 */
export function messagesRequest(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options: MessagesOptions | undefined,
  { keepToolsEnd }: { keepToolsEnd: boolean },
): MessagesRequest {
  const { cache, maxCacheBreakpoints, breakpoints, gating } = readOptions(
    options,
    "toMessages",
    MESSAGES_OPTIONS,
  );
  const ttl = cacheOption(cache, ANTHROPIC_RULES);
  const marker = ttl && { type: "ephemeral", ...ttl } as CacheControl;
  const limit = prefixMarkLimit(maxCacheBreakpoints, ANTHROPIC_RULES);
  const auto = autoBreakpoints(breakpoints);
  const keep = gatingOf(gating);
  return withAssembly(assembly, {
    adapter: "toMessages",
    rule: ANTHROPIC_NAME,
  }, (input) => {
    const active = activeNamesOf(input);
    const sent = input.tools.flatMap((tool, index) =>
      active === undefined || keep || active.has(tool.name) ? [index] : []
    );
    const wireTools = sent.map((index) => toTool(input.tools[index]));
    const blocks = promptBlocks(input, { auto });
    const system: MessagesTextBlock[] = blocks.map((block) => ({
      type: "text",
      text: block.text,
    }));
    if (marker !== undefined) {
      // Wire order: tools, then system.
      const items: { cache_control?: CacheControl }[] = [
        ...wireTools,
        ...system,
      ];
      const marked = auto
        ? selectMarkers(
          markableItems(sent.map((index) => input.toolRanks[index]), blocks),
          limit,
          keepToolsEnd ? { forkEnd: wireTools.length - 1 } : {},
        )
        : latestMarkers(system.length + Math.min(1, wireTools.length), limit)
          .map((index) =>
            index + wireTools.length - Math.min(1, wireTools.length)
          );
      for (const index of marked) items[index].cache_control = { ...marker };
    }
    const request: MessagesRequest = { system };
    if (wireTools.length > 0) request.tools = wireTools;
    const context = runtimeMessage(input);
    if (context !== undefined) request.runtimeContext = context;
    if (active !== undefined && keep) {
      request.allowedTools = allowedToolNames(input.tools, active);
    }
    return request;
  });
}

const MESSAGES_OPTIONS = [
  "cache",
  "maxCacheBreakpoints",
  "breakpoints",
  "gating",
] as const;

export function toTool(tool: ReadTool): MessagesTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: objectSchema(tool, {
      api: "Anthropic Messages API",
      field: "input_schema",
    }),
  };
}
