/**
 * An assembly as the AI SDK's `system` and `tools` options.
 *
 * @module
 */

import {
  jsonSchema,
  type JSONSchema7,
  type SystemModelMessage,
  tool,
  type ToolSet,
} from "ai";
import {
  type AssembledSection,
  type PromptAssembly,
  SystemPromptError,
} from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import {
  autoBreakpoints,
  promptBlocks,
  type ReadTool,
  runtimeMessage,
  systemPrompt,
  withAssembly,
} from "../_kit/assembly_input.ts";
import {
  activeNamesOf,
  allowedToolNames,
  type CacheControl,
  cachePointOf,
  gatingOf,
  readingOptions,
  readOptions,
} from "../_kit/adapter_options.ts";
import { cacheOption, prefixMarkLimit } from "../_kit/cache_option.ts";
import { ANTHROPIC_RULES } from "../anthropic/rules.ts";
import {
  blockItems,
  latestMarkers,
  markableItems,
  selectMarkers,
} from "../../src/render/prefix_marks.ts";

/**
 * Options of {@linkcode toAISDK}.
 *
 * @example
 * ```ts
 * import type { AISDKOptions } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const options: AISDKOptions = {
 *   execute: { shell: (input) => `ran ${JSON.stringify(input)}` },
 *   cache: true,
 * };
 * ```
 */
export interface AISDKOptions {
  /**
   * Tool implementations by tool name; a key that names no tool of the
   * assembly throws `INVALID_CONFIG`. Tools without one are sent to the model
   * and their calls returned to you.
   */
  execute?: Record<string, (input: unknown, options: unknown) => unknown>;
  /**
   * Make `system` one system message per prompt block, and place Anthropic
   * `cacheControl` provider options as `toMessages` places its markers
   * (SPEC 8.3): on the last tool of each stability run followed by a more
   * volatile tool or by the system prompt, and on the blocks with
   * `cacheBreakpoint: true`, never on a volatile one nor on anything after
   * the first volatile tool or block; `{ ttl }` sets the lifetime. Other providers ignore the markers.
   */
  cache?: boolean | { ttl: "5m" | "1h" };
  /**
   * The AI SDK providers whose marks `cache` writes (default
   * `["anthropic"]`): `"anthropic"`, `cacheControl` for `@ai-sdk/anthropic`
   * (on tools and system messages); `"bedrock"`, `cachePoint` for
   * `@ai-sdk/amazon-bedrock`, which reads marks on system messages only
   * (without `"anthropic"`, no tool is marked: the budget goes to the
   * system messages). Gemini needs none: `@ai-sdk/google` is served by
   * implicit caching.
   */
  cacheProviders?: readonly ("anthropic" | "bedrock")[];
  /**
   * At most this many cache markers (an integer from 0 to 4; default 3).
   * When there are more candidates, kept in this order: the one that ends
   * the prefix every scope shares (the last stable tool, or the last stable
   * block), the last of all, then the others, latest first.
   */
  maxCacheBreakpoints?: number;
  /**
   * `"auto"` (default): blocks cut at stability boundaries too, markers as
   * above. `"explicit"`: 0.2's blocks and markers (the latest
   * `maxCacheBreakpoints` blocks, no tool marked).
   */
  breakpoints?: "auto" | "explicit";
  /**
   * What to do with the tools the assembly's `activeTools` leaves out:
   * `"remove"` (default) leaves them out of `tools`; `"keep"` lists every
   * tool (the tools block stays cached), returns the active names as
   * `allowedTools`, and an inactive tool's `execute` (when given) throws an
   * error naming the active tools, which the model receives as the result.
   */
  gating?: "remove" | "keep";
}

/**
 * The AI SDK options of one assembly.
 *
 * @example
 * ```ts
 * import type { AISDKRequest } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const fields: AISDKRequest = { system: "You are a coding agent.", tools: {} };
 * ```
 */
export interface AISDKRequest {
  /**
   * With `gating: "keep"` and gates in the assembly: the tools the model may
   * call this step (never under the key `activeTools`, which the AI SDK
   * uses to drop tools). Not a `generateText` option.
   */
  allowedTools?: string[];
  /** The system prompt: a string, or one system message per block with `cache`. */
  system: string | SystemModelMessage[];
  /** The tools, keyed by name in the assembly's order. */
  tools: ToolSet;
  /** The rendered runtime context; absent when it renders empty. */
  runtimeContext?: { role: "user"; content: string };
}

/**
 * Maps an assembly to the AI SDK's `system` and `tools` (and the runtime
 * context as a user message, only when it renders non-empty).
 *
 * Each tool is built with `tool({ description, inputSchema: jsonSchema(parameters) })`
 * (plus its `execute`, when given). The tool set's keys follow the
 * assembly's order and every tool is an own key, even one named `__proto__`
 * (JavaScript itself lists integer-like keys such as `"7"` first). Without
 * `cache`, `system` is the rendered prompt; with it, one system message per
 * prompt block, and Anthropic `cacheControl` (other providers ignore it) on
 * the tools and blocks {@linkcode AISDKOptions} says, at most
 * `maxCacheBreakpoints`.
 *
 * Throws a {@linkcode SystemPromptError}: `DUPLICATE_TOOL` for a name listed
 * twice, `INVALID_TOOL_SCHEMA` for a malformed tool, `INVALID_CONFIG` for an
 * `execute` key that names no tool or a bad or unreadable option, and
 * `renderPrompt`'s errors (`INVALID_ASSEMBLY` for a non-assembly or one a
 * getter or Proxy cannot give, with the thrown value as `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `execute`, `cache`, `maxCacheBreakpoints`
 * @returns the AI SDK options
 *
 * @example With tool implementations and caching
 * ```ts
 * import { toAISDK } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const { system, tools } = toAISDK({
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [{ name: "shell", description: "Run a command.", parameters: { type: "object" } }],
 *   variables: {},
 * }, { execute: { shell: () => "done" }, cache: true });
 * console.log(system); // [{ role: "system", content: "...", providerOptions: { anthropic: ... } }]
 * console.log(Object.keys(tools)); // ["shell"]
 * // await generateText({ model, system, tools, prompt: "List the files." });
 * ```
 */
export function toAISDK(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: AISDKOptions,
): AISDKRequest {
  return aiSdkRequest(assembly, options, { keepToolsEnd: false });
}

/**
 * {@linkcode toAISDK}, and for a conversation (`keepToolsEnd`) the last
 * tool's marker kept after the shared prefix's and the last one: the end
 * of what a fork that adds a tool shares. Internal.
 */
export function aiSdkRequest(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options: AISDKOptions | undefined,
  { keepToolsEnd }: { keepToolsEnd: boolean },
): AISDKRequest {
  const {
    execute,
    cache,
    maxCacheBreakpoints,
    breakpoints,
    gating,
    cacheProviders,
  } = readOptions(options, "toAISDK", AISDK_OPTIONS);
  const runs = readExecute(execute);
  const ttl = cacheOption(cache, ANTHROPIC_RULES);
  const marker = ttl && { type: "ephemeral", ...ttl } as CacheControl;
  const providers = readCacheProviders(cacheProviders);
  const limit = prefixMarkLimit(maxCacheBreakpoints, ANTHROPIC_RULES);
  const auto = autoBreakpoints(breakpoints);
  const keep = gatingOf(gating);
  return withAssembly(assembly, { adapter: "toAISDK" }, (input) => {
    checkExecute(runs, input.tools);
    const active = activeNamesOf(input);
    const sent = input.tools.flatMap((entry, index) =>
      active === undefined || keep || active.has(entry.name) ? [index] : []
    );
    const marked = new Set<number>();
    let system: AISDKRequest["system"] = [];
    if (marker === undefined) system = systemPrompt(input);
    else {
      const blocks = promptBlocks(input, { auto });
      const ranks = sent.map((index) => input.toolRanks[index]);
      const selected = auto
        ? selectMarkers(
          providers.anthropic
            ? markableItems(ranks, blocks)
            // Only Anthropic's provider reads a tool's mark.
            : [
              ...ranks.map((rank) => ({ rank, candidate: false })),
              ...blockItems(blocks),
            ],
          limit,
          keepToolsEnd ? { forkEnd: sent.length - 1 } : {},
        )
        : latestMarkers(blocks.length, limit).map((index) =>
          index + sent.length
        );
      for (const index of selected) marked.add(index);
      system = blocks.map((block, index): SystemModelMessage =>
        marked.has(sent.length + index)
          ? {
            role: "system",
            content: block.text,
            providerOptions: marks(marker, providers),
          }
          : { role: "system", content: block.text }
      );
    }
    const request: AISDKRequest = {
      system,
      tools: toToolSet(sent.map((index) => input.tools[index]), {
        runs,
        marker: providers.anthropic ? marker : undefined,
        marked,
        active: keep ? active : undefined,
      }),
    };
    const context = runtimeMessage(input);
    if (context !== undefined) request.runtimeContext = context;
    if (active !== undefined && keep) {
      request.allowedTools = allowedToolNames(input.tools, active);
    }
    return request;
  });
}

const AISDK_OPTIONS = [
  "execute",
  "cache",
  "maxCacheBreakpoints",
  "breakpoints",
  "gating",
  "cacheProviders",
] as const;

/** Which providers' marks to write: the `cacheProviders` option, read once. */
function readCacheProviders(
  value: unknown,
): { anthropic: boolean; bedrock: boolean } {
  if (value === undefined) return { anthropic: true, bedrock: false };
  const names = readingOptions(
    () => Array.isArray(value) ? [...value] : undefined,
    "toAISDK could not read its cacheProviders option",
  );
  if (
    names === undefined ||
    !names.every((name) => name === "anthropic" || name === "bedrock")
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `cacheProviders is ${quote(value)}; it must be an array of ` +
        `"anthropic" and "bedrock" (the AI SDK providers whose provider ` +
        `options carry cache marks).`,
    );
  }
  return {
    anthropic: names.includes("anthropic"),
    bedrock: names.includes("bedrock"),
  };
}

/** A system message's marks for each provider asked for. */
function marks(
  marker: CacheControl,
  providers: { anthropic: boolean; bedrock: boolean },
): NonNullable<SystemModelMessage["providerOptions"]> {
  return {
    ...(providers.anthropic
      ? { anthropic: { cacheControl: { ...marker } } }
      : {}),
    ...(providers.bedrock
      ? { bedrock: { cachePoint: cachePointOf(marker) } }
      : {}),
  };
}

type Run = (input: unknown, options: unknown) => unknown;

/**
 * The `execute` option read once: each own key's function, in a map (so a
 * getter cannot pass the check with a function and hand the SDK something
 * else, and `__proto__` is a key like any other).
 */
function readExecute(execute: unknown): Map<string, Run> {
  const runs = new Map<string, Run>();
  if (execute === undefined) return runs;
  if (typeof execute !== "object" || execute === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `execute must be an object of functions by tool name; got ` +
        `${quote(execute)}.`,
    );
  }
  const entries = readingOptions(
    () =>
      Object.keys(execute).map((key): [string, unknown] => [
        key,
        (execute as Record<string, unknown>)[key],
      ]),
    "toAISDK could not read its execute option",
  );
  for (const [key, value] of entries) {
    if (typeof value !== "function") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `execute for tool ${quote(key)} is ${quote(value)}; it must be a ` +
          `function (input, options) => result.`,
      );
    }
    runs.set(key, value as Run);
  }
  return runs;
}

/** Every `execute` key names a tool of the assembly. */
function checkExecute(
  runs: ReadonlyMap<string, Run>,
  tools: readonly ReadTool[],
): void {
  const names = new Set(tools.map((schema) => schema.name));
  for (const key of runs.keys()) {
    if (!names.has(key)) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `execute names tool ${quote(key)}, which is not in the assembly; ` +
          `tools: ${describeNames(names)}.`,
      );
    }
  }
}

function describeNames(names: ReadonlySet<string>): string {
  return names.size === 0 ? "none" : [...names].map(quote).join(", ");
}

/**
 * The tool set, in order; `marked` holds the indexes of the tools that carry
 * the cache marker; with `active` (gating `"keep"`), an inactive tool's
 * `execute` refuses the call, naming the active tools.
 */
function toToolSet(
  tools: readonly ReadTool[],
  { runs, marker, marked, active }: {
    runs: ReadonlyMap<string, Run>;
    marker: CacheControl | undefined;
    marked: ReadonlySet<number>;
    active: ReadonlySet<string> | undefined;
  },
): ToolSet {
  const set: ToolSet = {};
  tools.forEach(({ name, description, parameters }, index) => {
    const inputSchema = jsonSchema(parameters as JSONSchema7);
    let run = runs.get(name);
    if (run !== undefined && active !== undefined && !active.has(name)) {
      run = refusal(name, active);
    }
    const providerOptions = marker !== undefined && marked.has(index)
      ? { anthropic: { cacheControl: { ...marker } } }
      : undefined;
    const built = run === undefined
      ? tool({
        description,
        inputSchema,
        ...providerOptions && { providerOptions },
      })
      : tool({
        description,
        inputSchema,
        execute: run,
        ...providerOptions && { providerOptions },
      });
    // A define, not an assignment: `__proto__` must stay an own key.
    Object.defineProperty(set, name, {
      value: built,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return set;
}

/** An `execute` that refuses a call of a tool the gates left inactive. */
function refusal(name: string, active: ReadonlySet<string>): Run {
  const allowed = active.size === 0
    ? "no tool is active this step"
    : `the active tools are ${[...active].map(quote).join(", ")}`;
  return () => {
    throw new SystemPromptError(
      "UNKNOWN_TOOL",
      `Tool ${quote(name)} is not active this step; ${allowed}. Call one of ` +
        `those instead.`,
    );
  };
}
