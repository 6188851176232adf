/**
 * `@rxprompt/system-prompt/ai-sdk`: an assembly as the `system` and `tools`
 * options of the Vercel AI SDK (`generateText`, `streamText`, agents).
 *
 * Built with the AI SDK's own `tool()` and `jsonSchema()`, so `ai` (6 or 7)
 * is a peer dependency of this subpath only.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { toAISDK } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const prompt = new SystemPrompt({ persona: "You review pull requests." });
 * const { system, tools } = toAISDK(await prompt.assemble());
 * console.log(typeof system, Object.keys(tools)); // "string" []
 * // await generateText({ model, system, tools, prompt: "Review #42." });
 * await prompt.dispose();
 * ```
 *
 * @module
 */

import {
  type AssistantModelMessage,
  jsonSchema,
  type JSONSchema7,
  type SystemModelMessage,
  tool,
  type ToolModelMessage,
  type ToolSet,
  type UserModelMessage,
} from "ai";
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
} from "./_conversation_shared.ts";
import { quote } from "../src/errors.ts";
import {
  activeNamesOf,
  allowedToolNames,
  autoBreakpoints,
  cacheBreakpointLimit,
  type CacheControl,
  cacheControlOf,
  gatingOf,
  promptBlocks,
  readingOptions,
  readOptions,
  type ReadTool,
  runtimeMessage,
  systemPrompt,
  withAssembly,
} from "./_shared.ts";
import {
  latestMarkers,
  markableItems,
  selectMarkers,
} from "./_cache_markers.ts";

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
  const { execute, cache, maxCacheBreakpoints, breakpoints, gating } =
    readOptions(options, "toAISDK", AISDK_OPTIONS);
  const runs = readExecute(execute);
  const marker = cacheControlOf(cache);
  const limit = cacheBreakpointLimit(maxCacheBreakpoints);
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
      const selected = auto
        ? selectMarkers(
          markableItems(sent.map((index) => input.toolRanks[index]), blocks),
          limit,
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
            providerOptions: { anthropic: { cacheControl: { ...marker } } },
          }
          : { role: "system", content: block.text }
      );
    }
    const request: AISDKRequest = {
      system,
      tools: toToolSet(sent.map((index) => input.tools[index]), {
        runs,
        marker,
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
] as const;

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

// The conversation (SPEC 9.1): the call options of each step.

/**
 * One message of an AI SDK conversation's history: the SDK's own
 * `ModelMessage` shapes (the model's messages kept verbatim).
 *
 * @example
 * ```ts
 * import type { AISDKConversationMessage } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const message: AISDKConversationMessage = {
 *   role: "user",
 *   content: [{ type: "text", text: "Fix the test." }],
 * };
 * ```
 */
export type AISDKConversationMessage =
  | UserModelMessage
  | AssistantModelMessage
  | ToolModelMessage;

/**
 * The `generateText` / `streamText` options of one conversation request:
 * spread them with the model, `generateText({ model, ...body })`, one call
 * per request (the AI SDK's own multi-step loop would bypass the marks).
 *
 * @example
 * ```ts
 * import type { AISDKConversationBody } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const body: AISDKConversationBody = {
 *   system: "You are terse.",
 *   tools: {},
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
 * };
 * ```
 */
export interface AISDKConversationBody {
  /** The system prompt (one system message per block with `cache`). */
  system: string | SystemModelMessage[];
  /** Every listed tool, without `execute`: the conversation returns the calls. */
  tools: ToolSet;
  /** The history and this step's new messages. */
  messages: AISDKConversationMessage[];
}

/**
 * What `record()` takes: `generateText`'s result, or the `response` of a
 * `generateText` / `streamText` result (its `messages`).
 *
 * @example
 * ```ts
 * import type { AISDKAnswer } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const answer: AISDKAnswer = {
 *   response: { messages: [{ role: "assistant", content: "Done." }] },
 * };
 * ```
 */
export type AISDKAnswer =
  | {
    /** The result's response. */
    readonly response: {
      readonly messages: readonly (AssistantModelMessage | ToolModelMessage)[];
    };
    /** The reported usage. */
    readonly usage?: unknown;
  }
  | {
    /** The response's messages. */
    readonly messages: readonly (AssistantModelMessage | ToolModelMessage)[];
  };

/**
 * Options of {@linkcode aiSdkConversation}.
 *
 * @example
 * ```ts
 * import type { AISDKConversationOptions } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const options: AISDKConversationOptions = { cache: true, awaiting: "person" };
 * ```
 */
export interface AISDKConversationOptions extends ConversationOptions {
  /**
   * Anthropic cache markers (`cacheControl` provider options), as `toAISDK`'s
   * `cache`: on the system and tools, and the conversation's on its last part
   * (and the previous request's end when a step adds more than 20 parts).
   * `awaiting: "person"` makes them 1-hour. Default `true`; `false` for none.
   */
  cache?: boolean;
  /** `toAISDK`'s `maxCacheBreakpoints` (default 3). */
  maxCacheBreakpoints?: number;
  /** `toAISDK`'s `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
}

/**
 * An AI SDK conversation: {@linkcode Conversation} with the `ai` package's
 * shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type AISDKConversation, aiSdkConversation } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const conv: AISDKConversation = aiSdkConversation(new SystemPrompt());
 * console.log(conv.messages.length); // 0
 * ```
 */
export type AISDKConversation<C extends AssembleContext = AssembleContext> =
  Conversation<
    AISDKConversationBody,
    AISDKAnswer,
    string | UserModelMessage["content"],
    string,
    AISDKConversationMessage,
    C
  >;

const AI_SDK_PROVIDER = "ai-sdk";

/**
 * Starts an AI SDK conversation (SPEC 9.1): each `request()` returns the
 * options of one `generateText` (or `streamText`) call: `system`, `tools`
 * (every listed tool, `gating: "keep"`, no `execute`: the conversation
 * returns the calls to run) and `messages`, with the request loop's rules
 * applied as on Anthropic (Anthropic `cacheControl` provider options, the
 * runtime context after the last item only when it changed, the listed
 * tools kept, calls of inactive tools refused). One call per request: the
 * SDK's own multi-step loop (`stopWhen`) would bypass the marks.
 *
 * @param prompt what each step is assembled from
 * @param options the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { aiSdkConversation } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
 * }));
 * const conv = aiSdkConversation(prompt);
 * conv.user("What is in a.ts?");
 * await conv.request(); // await generateText({ model, ...body })
 * const calls = conv.record({
 *   response: {
 *     messages: [{
 *       role: "assistant",
 *       content: [{ type: "tool-call", toolCallId: "t1", toolName: "read_file", input: {} }],
 *     }],
 *   },
 * });
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["user", "assistant", "tool"]
 * await prompt.dispose();
 * ```
 */
export function aiSdkConversation<C extends AssembleContext = AssembleContext>(
  prompt: ConversationPrompt<C>,
  options: AISDKConversationOptions = {},
): AISDKConversation<C> {
  return new ConversationShell(prompt, aiSdkWire(options), options);
}

/**
 * Resumes an AI SDK conversation from its recording, as
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
 *   aiSdkConversation,
 *   resumeAiSdkConversation,
 * } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const conv = aiSdkConversation(new SystemPrompt());
 * const again = resumeAiSdkConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeAiSdkConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: AISDKConversationOptions,
): AISDKConversation<C> {
  const parsed = parseRecording(recording, AI_SDK_PROVIDER);
  const merged = {
    ...(parsed.header.options as AISDKConversationOptions),
    ...options,
  };
  return new ConversationShell(prompt, aiSdkWire(merged), merged, parsed);
}

type AIMessage = AISDKConversationMessage;

/** Reads the options and returns the wire. */
function aiSdkWire(
  options: AISDKConversationOptions,
): ConversationWire<AIMessage, AISDKConversationBody> {
  const breakpoints = isObject(options) ? options.breakpoints : undefined;
  if (!isObject(options)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `aiSdkConversation's options must be an object; got ${quote(options)}.`,
    );
  }
  const cache = options.cache ?? true;
  if (typeof cache !== "boolean") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `aiSdkConversation's cache is ${quote(cache)}; it must be true (the ` +
        `default) or false.`,
    );
  }
  const limit = cacheBreakpointLimit(options.maxCacheBreakpoints);
  autoBreakpoints(options.breakpoints);
  const saved: Record<string, unknown> = { cache };
  if (options.maxCacheBreakpoints !== undefined) {
    saved.maxCacheBreakpoints = limit;
  }
  if (options.breakpoints !== undefined) {
    saved.breakpoints = options.breakpoints;
  }
  return {
    provider: AI_SDK_PROVIDER,
    options: saved,
    build: (input) =>
      aiSdkBuild(input, {
        cache,
        limit,
        breakpoints: breakpoints as AISDKConversationOptions["breakpoints"],
      }),
    read: aiSdkRead,
    recordOf: (answer) => {
      const { messages, usage } = answerParts(answer);
      return { response: { messages }, usage: usage ?? null };
    },
    personInput: (input) =>
      copyBlocks(input, "user()", { allowString: true, forbid: [] }),
    resultContent: (content, id) => {
      if (typeof content !== "string") {
        throw new SystemPromptError(
          "INVALID_CONVERSATION_INPUT",
          `toolResult(${JSON.stringify(id)}) takes a string result; got ${
            quote(content)
          }.`,
        );
      }
      return content;
    },
  };
}

/** Anthropic finds an earlier entry up to 20 blocks before a marker. */
const AI_SDK_LOOKBACK = 20;

function aiSdkBuild(
  input: WireBuild<AIMessage>,
  options: {
    cache: boolean;
    limit: number;
    breakpoints: "auto" | "explicit" | undefined;
  },
): WireBuilt<AIMessage, AISDKConversationBody> {
  const tail: AIMessage[] = [];
  if (input.results.length > 0) {
    tail.push({
      role: "tool",
      content: input.results.map((result) => ({
        type: "tool-result",
        toolCallId: result.id,
        toolName: result.name,
        output: {
          type: result.isError ? "error-text" : "text",
          value: result.content as string,
        },
      })),
    });
  }
  const user = [
    ...input.person as Exclude<UserModelMessage["content"], string>,
    ...(input.update === undefined
      ? []
      : [{ type: "text" as const, text: input.update }]),
  ];
  if (user.length > 0) tail.push({ role: "user", content: user });
  const history = [...input.history, ...tail];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  const partsOf = (message: AIMessage): unknown[] =>
    typeof message.content === "string" ? [message.content] : message.content;
  let added = 0;
  for (let index = input.previousLength; index < history.length; index++) {
    added += partsOf(history[index]).length;
  }
  const ends = [history.length - 1];
  if (input.previousLength > 0 && added > AI_SDK_LOOKBACK) {
    ends.unshift(input.previousLength - 1);
  }
  const marker: CacheControl = input.awaiting === "person"
    ? { type: "ephemeral", ttl: "1h" }
    : { type: "ephemeral" };
  const messages = [...history];
  const marks: WireMark[] = [];
  if (options.cache) {
    for (const at of ends) {
      const message = messages[at];
      if (typeof message.content === "string" || message.role === "assistant") {
        continue;
      }
      const parts = [...message.content];
      const block = parts.length - 1;
      if (block < 0) continue;
      parts[block] = {
        ...parts[block],
        providerOptions: { anthropic: { cacheControl: { ...marker } } },
      } as (typeof parts)[number];
      messages[at] = { ...message, content: parts } as AIMessage;
      marks.push({ message: at, block, mark: { ...marker } });
    }
  }
  const { system, tools } = toAISDK(input.assembly, {
    gating: "keep",
    ...(options.cache
      ? {
        cache: input.awaiting === "person" ? { ttl: "1h" } : true,
        maxCacheBreakpoints: Math.min(options.limit, 4 - marks.length),
      }
      : {}),
    ...(options.breakpoints === undefined
      ? {}
      : { breakpoints: options.breakpoints }),
  });
  return {
    body: { system, tools, messages },
    tail,
    marks,
    head: {
      system,
      tools: Object.entries(tools).map(([name, entry]) => ({
        name,
        description: entry.description,
        providerOptions: entry.providerOptions,
      })),
    },
    state: {},
  };
}

/** The response messages and usage of an answer, or INVALID_RESPONSE. */
function answerParts(
  answer: unknown,
): { messages: unknown[]; usage: unknown } {
  detectOtherProvider(answer, "an AI SDK");
  const response = isObject(answer) && isObject(answer.response)
    ? answer.response
    : answer;
  const messages = isObject(response) ? response.messages : undefined;
  if (!Array.isArray(messages)) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes generateText's result, or the response of a ` +
        `generateText / streamText result (its messages).`,
    );
  }
  return {
    messages,
    usage: isObject(answer) ? answer.usage ?? null : null,
  };
}

function aiSdkRead(answer: unknown): WireAnswer<AIMessage> {
  const { messages, usage } = answerParts(answer);
  const calls: ToolCall[] = [];
  const answered = new Set<string>();
  for (const message of messages) {
    if (
      !isObject(message) ||
      (message.role !== "assistant" && message.role !== "tool")
    ) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The response's messages are assistant and tool messages only.`,
      );
    }
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isObject(part)) continue;
      if (part.type === "tool-result") answered.add(String(part.toolCallId));
      if (
        part.type === "tool-call" && part.providerExecuted !== true &&
        typeof part.toolCallId === "string" &&
        typeof part.toolName === "string"
      ) {
        calls.push({
          id: part.toolCallId,
          name: part.toolName,
          input: part.input,
        });
      }
    }
  }
  return {
    messages: JSON.parse(JSON.stringify(messages)),
    calls: calls.filter((call) => !answered.has(call.id)),
    usage,
  };
}
