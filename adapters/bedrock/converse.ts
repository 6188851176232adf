/**
 * An assembly as the Amazon Bedrock Converse API's request fields.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly } from "../../mod.ts";
import {
  type NameRule,
  objectSchema,
  promptBlocks,
  type ReadTool,
  runtimeContextText,
  WIRE_TOOL_NAME,
  withAssembly,
} from "../_kit/assembly_input.ts";
import {
  activeNamesOf,
  allowedToolNames,
  type CacheControl,
  cachePointOf,
  gatingOf,
  readOptions,
} from "../_kit/adapter_options.ts";
import { cacheOption, prefixMarkLimit } from "../_kit/cache_option.ts";
import { BEDROCK_RULES } from "./rules.ts";
import { markableItems, selectMarkers } from "../../src/render/prefix_marks.ts";

/**
 * Options of {@linkcode toConverse}.
 *
 * @example
 * ```ts
 * import type { ConverseOptions } from "@rxprompt/system-prompt/bedrock";
 *
 * const options: ConverseOptions = { cache: { ttl: "1h" }, gating: "keep" };
 * ```
 */
export interface ConverseOptions {
  /**
   * Place `cachePoint` blocks (SPEC 8.3, 10.5) where `toMessages` places
   * Anthropic's markers: after the last tool of each stability run followed
   * by a more volatile tool or by the system prompt, and after every block
   * with `cacheBreakpoint: true`, never after a volatile one nor after
   * anything that follows the first volatile tool or block. `{ ttl }` sets
   * every point's lifetime (one lifetime for all, so they never increase
   * from tools to system, as Bedrock requires). Default `false`: no
   * `cachePoint` anywhere.
   */
  cache?: boolean | { ttl: "5m" | "1h" };
  /**
   * At most this many cache points in all (default 3, leaving one of
   * Bedrock's four for the conversation; an integer from 0 to 4). When
   * there are more candidates, kept in this order: the one that ends the
   * prefix every scope shares (the last stable tool, or the last stable
   * block), the last of all, then the others, latest first.
   */
  maxCacheBreakpoints?: number;
  /**
   * What to do with the tools the assembly's `activeTools` leaves out.
   * Converse has no list of allowed tools (its `toolChoice` is `auto`,
   * `any` or one forced tool), so, as on Anthropic: `"remove"` (default)
   * leaves them out of `toolConfig.tools`, which changes the cached prefix
   * whenever a gate does; `"keep"` lists every tool (the tools stay cached)
   * and returns the active names as `allowedTools`, for the harness to
   * refuse calls of the others.
   */
  gating?: "remove" | "keep";
}

/**
 * A Converse cache point (`CachePointBlock`): the prefix up to it is
 * cached.
 *
 * @example
 * ```ts
 * import type { ConverseCachePoint } from "@rxprompt/system-prompt/bedrock";
 *
 * const point: ConverseCachePoint = { type: "default", ttl: "1h" };
 * ```
 */
export interface ConverseCachePoint {
  /** Always `"default"`. */
  type: "default";
  /** The cache's lifetime; Bedrock's default is 5 minutes. */
  ttl?: "5m" | "1h";
}

/**
 * One Converse `system` block: a prompt block's text, or a cache point
 * after it.
 *
 * @example
 * ```ts
 * import type { ConverseSystemBlock } from "@rxprompt/system-prompt/bedrock";
 *
 * const system: ConverseSystemBlock[] = [
 *   { text: "You are a coding agent." },
 *   { cachePoint: { type: "default" } },
 * ];
 * ```
 */
export type ConverseSystemBlock =
  | { text: string }
  | { cachePoint: ConverseCachePoint };

/**
 * A JSON value, as Bedrock's `DocumentType` takes it (a tool's schema).
 *
 * @example
 * ```ts
 * import type { ConverseJson } from "@rxprompt/system-prompt/bedrock";
 *
 * const schema: ConverseJson = { type: "object", properties: {} };
 * ```
 */
export type ConverseJson =
  | null
  | boolean
  | number
  | string
  | ConverseJson[]
  | { [key: string]: ConverseJson };

/**
 * One entry of `toolConfig.tools`: a tool's specification, or a cache
 * point after it.
 *
 * @example
 * ```ts
 * import type { ConverseTool } from "@rxprompt/system-prompt/bedrock";
 *
 * const tool: ConverseTool = {
 *   toolSpec: {
 *     name: "shell",
 *     description: "Run a command.",
 *     inputSchema: { json: { type: "object", properties: {} } },
 *   },
 * };
 * ```
 */
export type ConverseTool =
  | {
    toolSpec: {
      name: string;
      /** Absent when the tool's description is empty (Bedrock takes none). */
      description?: string;
      /** The tool's parameters, with `type: "object"` (added when absent). */
      inputSchema: { json: { [key: string]: ConverseJson } };
    };
  }
  | { cachePoint: ConverseCachePoint };

/**
 * A Converse message with text content: the runtime context.
 *
 * @example
 * ```ts
 * import type { ConverseTextMessage } from "@rxprompt/system-prompt/bedrock";
 *
 * const message: ConverseTextMessage = { role: "user", content: [{ text: "Today is Monday." }] };
 * ```
 */
export interface ConverseTextMessage {
  /** Always `"user"`. */
  role: "user";
  /** One text block. */
  content: { text: string }[];
}

/**
 * The Converse request fields of one assembly.
 *
 * @example
 * ```ts
 * import type { ConverseRequest } from "@rxprompt/system-prompt/bedrock";
 *
 * const fields: ConverseRequest = { system: [{ text: "You are a coding agent." }] };
 * ```
 */
export interface ConverseRequest {
  /** One text block per prompt block, in order, each cache point after its block. */
  system: ConverseSystemBlock[];
  /** The tools in the assembly's order; absent when there are none. */
  toolConfig?: { tools: ConverseTool[] };
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: ConverseTextMessage;
  /**
   * With `gating: "keep"` and gates in the assembly: the tools the model
   * may call this step (refuse calls of the others). Not a request field.
   */
  allowedTools?: string[];
}

/** Bedrock's rule for a tool name (`ToolSpecification.name`). */
const BEDROCK_NAME: NameRule = {
  pattern: WIRE_TOOL_NAME,
  api: "Amazon Bedrock Converse API",
};

/**
 * Maps an assembly to the Converse request fields, for
 * `@aws-sdk/client-bedrock-runtime`'s `ConverseCommand` (and
 * `ConverseStreamCommand`): `system`, `toolConfig` and the runtime context
 * as a user message (only when it renders non-empty; send it with
 * {@linkcode withConverseRuntimeContext}, as messages must alternate). The
 * result needs no SDK and type-checks against the SDK's
 * `ConverseCommandInput` without a cast.
 *
 * `system` holds one text block per prompt block (`renderPromptBlocks` with
 * cuts at stability boundaries: the blocks concatenate to the prompt). With
 * `cache`, a `cachePoint` block follows each tool and block that
 * {@linkcode ConverseOptions} names, at most `maxCacheBreakpoints` (default
 * 3) in all, none after the first volatile tool or block.
 *
 * A tool's `inputSchema.json` is its parameters; a schema without `type`
 * gets `type: "object"`, any other `type` throws `INVALID_TOOL_SCHEMA`.
 * Names must match `^[a-zA-Z0-9_-]{1,64}$` (`INVALID_TOOL_NAME`); a name
 * listed twice throws `DUPLICATE_TOOL`; a bad or unreadable option throws
 * `INVALID_CONFIG`; a non-assembly, or one a getter or Proxy cannot give,
 * throws `INVALID_ASSEMBLY` (with the thrown value as `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `cache`, `maxCacheBreakpoints` and `gating`
 * @returns the request fields
 *
 * @example Cache the stable part; keep the volatile facts out of it
 * ```ts
 * import { toConverse } from "@rxprompt/system-prompt/bedrock";
 *
 * const { system, toolConfig, runtimeContext } = toConverse({
 *   sections: [
 *     { name: "identity", order: -100, text: "You are a coding agent.", cacheBreakpoint: true },
 *     { name: "project", order: 50, text: "Project: {{project}}." },
 *   ],
 *   tools: [{ name: "shell", description: "Run a command.", parameters: {} }],
 *   variables: { project: "rxprompt" },
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 * }, { cache: true });
 * console.log(system.length); // 4: two texts, each with its cache point
 * console.log(toolConfig?.tools.length); // 2: the tool and its cache point
 * console.log(runtimeContext); // { role: "user", content: [{ text: "Today is Monday." }] }
 * // messages = withConverseRuntimeContext(history, runtimeContext);
 * // await client.send(new ConverseCommand({ modelId, system, toolConfig, messages }));
 * ```
 */
export function toConverse(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: ConverseOptions,
): ConverseRequest {
  return converseRequest(assembly, options, { keepToolsEnd: false });
}

/**
 * {@linkcode toConverse}, and for a conversation (`keepToolsEnd`) the last
 * tool's cache point kept after the shared prefix's and the last one: the
 * end of what a fork that adds a tool shares. Internal.
 */
export function converseRequest(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options: ConverseOptions | undefined,
  { keepToolsEnd }: { keepToolsEnd: boolean },
): ConverseRequest {
  const { cache, maxCacheBreakpoints, gating } = readOptions(
    options,
    "toConverse",
    CONVERSE_OPTIONS,
  );
  const ttl = cacheOption(cache, BEDROCK_RULES);
  const point = ttl &&
    cachePointOf({ type: "ephemeral", ...ttl } as CacheControl);
  const limit = prefixMarkLimit(maxCacheBreakpoints, BEDROCK_RULES);
  const keep = gatingOf(gating);
  return withAssembly(assembly, {
    adapter: "toConverse",
    rule: BEDROCK_NAME,
  }, (input) => {
    const active = activeNamesOf(input);
    const sent = input.tools.flatMap((tool, index) =>
      active === undefined || keep || active.has(tool.name) ? [index] : []
    );
    const blocks = promptBlocks(input, { auto: true });
    const marked = new Set(
      point === undefined ? [] : selectMarkers(
        markableItems(sent.map((index) => input.toolRanks[index]), blocks),
        limit,
        keepToolsEnd ? { forkEnd: sent.length - 1 } : {},
      ),
    );
    const tools: ConverseTool[] = [];
    sent.forEach((toolIndex, at) => {
      tools.push({ toolSpec: toToolSpec(input.tools[toolIndex]) });
      if (marked.has(at)) tools.push({ cachePoint: { ...point! } });
    });
    const system: ConverseSystemBlock[] = [];
    blocks.forEach((block, at) => {
      system.push({ text: block.text });
      if (marked.has(sent.length + at)) {
        system.push({ cachePoint: { ...point! } });
      }
    });
    const request: ConverseRequest = { system };
    if (tools.length > 0) request.toolConfig = { tools };
    const context = runtimeContextText(input);
    if (context !== undefined) {
      request.runtimeContext = { role: "user", content: [{ text: context }] };
    }
    if (active !== undefined && keep) {
      request.allowedTools = allowedToolNames(input.tools, active);
    }
    return request;
  });
}

const CONVERSE_OPTIONS = ["cache", "maxCacheBreakpoints", "gating"] as const;

/** A tool as Converse's `toolSpec`. */
export function toToolSpec(
  tool: ReadTool,
): Extract<ConverseTool, { toolSpec: unknown }>["toolSpec"] {
  const json = objectSchema(tool, {
    api: "Amazon Bedrock Converse API",
    field: "inputSchema.json",
  }) as { [key: string]: ConverseJson };
  return tool.description === ""
    ? { name: tool.name, inputSchema: { json } }
    : { name: tool.name, description: tool.description, inputSchema: { json } };
}
