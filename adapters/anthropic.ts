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
import {
  parseRecording,
  type RecordingHeader,
} from "../src/conversation/recording.ts";
import type { InlineToolChanges } from "../src/conversation/tool_set.ts";
import type {
  ConversationWire,
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
  activeNamesOf,
  allowedToolNames,
  autoBreakpoints,
  cacheBreakpointLimit,
  type CacheControl,
  cacheControlOf,
  gatingOf,
  type NameRule,
  promptBlocks,
  readOptions,
  type ReadTool,
  runtimeMessage,
  WIRE_TOOL_NAME,
  withAssembly,
} from "./_shared.ts";
import {
  latestMarkers,
  markableItems,
  selectMarkers,
} from "./_cache_markers.ts";

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
  const { cache, maxCacheBreakpoints, breakpoints, gating } = readOptions(
    options,
    "toMessages",
    MESSAGES_OPTIONS,
  );
  const marker = cacheControlOf(cache);
  const limit = cacheBreakpointLimit(maxCacheBreakpoints);
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

// The conversation (SPEC 9.1): the whole body of each step.

/**
 * An image in a Messages content block.
 *
 * @example
 * ```ts
 * import type { MessagesImageBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const image: MessagesImageBlock = {
 *   type: "image",
 *   source: { type: "url", url: "https://example.com/a.png" },
 * };
 * ```
 */
export interface MessagesImageBlock {
  /** Always `"image"`. */
  type: "image";
  /** Base64 data or a URL. */
  source:
    | {
      type: "base64";
      media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
      data: string;
    }
    | { type: "url"; url: string };
  /** A cache mark (placed by the conversation only). */
  cache_control?: MessagesCacheControl;
}

/**
 * A block a person's message or a tool result may hold: text or an image.
 *
 * @example
 * ```ts
 * import type { MessagesInputBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesInputBlock = { type: "text", text: "Fix the test." };
 * ```
 */
export type MessagesInputBlock = MessagesTextBlock | MessagesImageBlock;

/**
 * One content block of a conversation message, as the Messages API takes
 * it back. Blocks of the model's answers are kept verbatim (every field
 * the SDK returned, thinking signatures included); the type names the
 * common ones.
 *
 * @example
 * ```ts
 * import type { MessagesContentBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesContentBlock = {
 *   type: "tool_result",
 *   tool_use_id: "toolu_1",
 *   content: "42 lines",
 * };
 * ```
 */
export type MessagesContentBlock =
  | MessagesInputBlock
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | {
    type: "tool_use";
    id: string;
    name: string;
    input: unknown;
    cache_control?: MessagesCacheControl;
  }
  | {
    type: "tool_result";
    tool_use_id: string;
    content?: string | MessagesInputBlock[];
    is_error?: boolean;
    cache_control?: MessagesCacheControl;
  };

/**
 * One message of the conversation's history.
 *
 * @example
 * ```ts
 * import type { MessagesMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const message: MessagesMessage = { role: "user", content: [{ type: "text", text: "Hi." }] };
 * ```
 */
export interface MessagesMessage {
  /** `"user"` or `"assistant"`. */
  role: "user" | "assistant";
  /** Always content blocks: a message keeps the shape it was sent in. */
  content: MessagesContentBlock[];
}

/**
 * A mid-conversation tool change block (`toolChanges: "inline"`): a tool
 * added (its whole definition, or a reference to a tool the first request
 * listed) or removed.
 *
 * @example
 * ```ts
 * import type { MessagesToolChangeBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesToolChangeBlock = {
 *   type: "tool_removal",
 *   tool: { type: "tool_reference", name: "restart_service" },
 * };
 * ```
 */
export type MessagesToolChangeBlock =
  | {
    type: "tool_addition";
    tool:
      | { type: "tool_definition"; definition: MessagesTool }
      | { type: "tool_reference"; name: string };
    cache_control?: MessagesCacheControl;
  }
  | {
    type: "tool_removal";
    tool: { type: "tool_reference"; name: string };
    cache_control?: MessagesCacheControl;
  };

/**
 * The `role: "system"` message that carries tool changes into the
 * conversation (`toolChanges: "inline"`), after the tool results.
 *
 * @example
 * ```ts
 * import type { MessagesToolChangeMessage } from "@rxprompt/system-prompt/anthropic";
 *
 * const message: MessagesToolChangeMessage = {
 *   role: "system",
 *   content: [{ type: "tool_addition", tool: { type: "tool_reference", name: "shell" } }],
 * };
 * ```
 */
export interface MessagesToolChangeMessage {
  /** Always `"system"`. */
  role: "system";
  /** The removals, then the additions. */
  content: MessagesToolChangeBlock[];
}

/**
 * The body of a conversation with `toolChanges: "inline"`: for
 * `client.beta.messages.create(body)`, with the betas for mid-conversation
 * tool changes.
 *
 * @example
 * ```ts
 * import type { AnthropicInlineConversationBody } from "@rxprompt/system-prompt/anthropic";
 *
 * const body: AnthropicInlineConversationBody = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   system: [],
 *   messages: [],
 *   betas: ["mid-conversation-tool-changes-2026-07-01", "inline-tools-2026-09-15"],
 * };
 * ```
 */
export interface AnthropicInlineConversationBody {
  /** The model, from the options. */
  model: string;
  /** The output limit, from the options. */
  max_tokens: number;
  /** One text block per prompt block (`toMessages`). */
  system: MessagesTextBlock[];
  /** The first request's tools, never rebuilt; absent when there are none. */
  tools?: MessagesTool[];
  /** The history, tool changes included, and this step's new messages. */
  messages: (MessagesMessage | MessagesToolChangeMessage)[];
  /** The betas of mid-conversation tool changes. */
  betas: string[];
}

/**
 * The whole body of one conversation request: pass it to
 * `client.messages.create(body)` (or `.stream(body)`).
 *
 * @example
 * ```ts
 * import type { AnthropicConversationBody } from "@rxprompt/system-prompt/anthropic";
 *
 * const body: AnthropicConversationBody = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   system: [{ type: "text", text: "You are terse." }],
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
 * };
 * ```
 */
export interface AnthropicConversationBody {
  /** The model, from the options. */
  model: string;
  /** The output limit, from the options. */
  max_tokens: number;
  /** One text block per prompt block (`toMessages`). */
  system: MessagesTextBlock[];
  /** Every listed tool; absent when there are none. */
  tools?: MessagesTool[];
  /** The history and this step's new message, the last block marked. */
  messages: MessagesMessage[];
}

/**
 * What `record()` takes: the SDK's `Message` (`messages.create`, or a
 * stream's `finalMessage()`).
 *
 * @example
 * ```ts
 * import type { MessagesAnswer } from "@rxprompt/system-prompt/anthropic";
 *
 * const answer: MessagesAnswer = {
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "text", text: "Done." }],
 * };
 * ```
 */
export interface MessagesAnswer {
  /** `"message"`. */
  readonly type?: string;
  /** Always `"assistant"`. */
  readonly role: "assistant";
  /** The blocks, kept verbatim in the history. */
  readonly content: readonly MessagesAnswerBlock[];
  /** The reported usage. */
  readonly usage?: unknown;
}

/**
 * One block of a model answer, as the SDK returns it (the fields named
 * are those of the common blocks; every field is kept).
 *
 * @example
 * ```ts
 * import type { MessagesAnswerBlock } from "@rxprompt/system-prompt/anthropic";
 *
 * const block: MessagesAnswerBlock = { type: "tool_use", id: "t1", name: "shell", input: {} };
 * ```
 */
export interface MessagesAnswerBlock {
  /** The block's type: `"text"`, `"thinking"`, `"tool_use"`, ... */
  readonly type: string;
  /** A text block's text. */
  readonly text?: string;
  /** A thinking block's thinking. */
  readonly thinking?: string;
  /** A thinking block's signature. */
  readonly signature?: string;
  /** A tool call's id. */
  readonly id?: string;
  /** A tool call's tool name. */
  readonly name?: string;
  /** A tool call's arguments. */
  readonly input?: unknown;
}

/**
 * Options of {@linkcode anthropicConversation}.
 *
 * @example
 * ```ts
 * import type { AnthropicConversationOptions } from "@rxprompt/system-prompt/anthropic";
 *
 * const options: AnthropicConversationOptions = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   awaiting: "person",
 * };
 * ```
 */
export interface AnthropicConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `max_tokens` of every request. */
  max_tokens: number;
  /** `toMessages`' `breakpoints` (default `"auto"`). */
  breakpoints?: "auto" | "explicit";
  /**
   * At most this many markers on the tools and system (default 3; the
   * conversation keeps the total within the API's four).
   */
  maxCacheBreakpoints?: number;
  /**
   * What a change of the tool set after the first request does:
   * `"rebuild"` (default) rebuilds the tools block once (a dropped tool
   * stays listed and inactive); `"inline"` keeps the tools block and tells
   * the model in the conversation (`tool_removal` / `tool_addition` in a
   * `role: "system"` message), with the betas
   * `mid-conversation-tool-changes-2026-07-01` and `inline-tools-2026-09-15`:
   * send such bodies with `client.beta.messages.create`.
   */
  toolChanges?: "rebuild" | "inline";
}

/**
 * An Anthropic Messages conversation: {@linkcode Conversation} with the
 * SDK's shapes.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type AnthropicConversation,
 *   anthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const conv: AnthropicConversation = anthropicConversation(new SystemPrompt(), {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 * });
 * console.log(conv.messages.length); // 0
 * ```
 */
export type AnthropicConversation<
  C extends AssembleContext = AssembleContext,
  Body = AnthropicConversationBody,
> = Conversation<
  Body,
  MessagesAnswer,
  string | MessagesInputBlock[],
  string | MessagesInputBlock[],
  MessagesMessage,
  C
>;

const PROVIDER = "anthropic-messages";

/**
 * Starts an Anthropic Messages conversation (SPEC 9.1): each
 * `request()` returns the whole body for `client.messages.create`, and
 * applies the request loop's rules itself:
 *
 * - the tools and system from `toMessages` with `cache` and
 *   `gating: "keep"`; the tools of the first request stay listed byte for
 *   byte (a dropped tool stays listed and inactive, an added one rebuilds
 *   the list once at its canonical place) and count as stable for marker
 *   selection;
 * - the runtime context after the last item, only when it changed: a
 *   text block after the new message's tool results and person blocks
 *   (or a message of its own), kept in the history;
 * - a `cache_control` marker on the last block; when the step adds more
 *   than 20 blocks, also on the previous request's last block (and the
 *   system and tools get at most 2), within the API's four;
 * - `awaiting: "person"` makes every marker of the request `ttl: "1h"`;
 * - a call of a tool the gates left inactive is answered with a refusal.
 *
 * Errors are `SystemPromptError`s: `INVALID_CONFIG` for bad options, and
 * those of {@linkcode Conversation}'s methods.
 *
 * @param prompt what each step is assembled from
 * @param options the model, `max_tokens` and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: {} }],
 * }));
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 1024 });
 * conv.user("What is in a.ts?");
 * await conv.request(); // send it: await client.messages.create(body)
 * const calls = conv.record({
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }],
 * });
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.messages.map((m) => m.role)); // ["user", "assistant", "user"]
 * await prompt.dispose();
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions & { toolChanges: "inline" },
): AnthropicConversation<C, AnthropicInlineConversationBody>;
/**
 * {@linkcode anthropicConversation} with the tools block rebuilt on a tool
 * change (the default).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const conv = anthropicConversation(new SystemPrompt(), {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 64,
 *   toolChanges: "rebuild",
 * });
 * console.log(conv.openCalls); // []
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions & { toolChanges?: "rebuild" },
): AnthropicConversation<C>;
/**
 * {@linkcode anthropicConversation} when the tool-change mode is known only
 * at run time.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   type AnthropicConversationOptions,
 *   anthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const options: AnthropicConversationOptions = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 64,
 *   toolChanges: Math.random() < 2 ? "inline" : "rebuild",
 * };
 * const conv = anthropicConversation(new SystemPrompt(), options);
 * conv.user("Hi.");
 * console.log("betas" in await conv.request()); // true
 * ```
 */
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
>;
export function anthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: AnthropicConversationOptions,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  return new ConversationShell(prompt, messagesWire(options), options);
}

/**
 * Resumes an Anthropic Messages conversation from its recording (what
 * `save()` returned, or the lines `onRecord` appended), in this process
 * or another: the next request is byte-identical to the one the original
 * would have built (history, runtime context as sent, marks, session,
 * listed tools); a runtime context that differs now goes in as an update
 * after the last item, and system and tools follow the registry through
 * the same change rules. The recording's options apply unless `options`
 * gives them again. A last line cut mid-way is left out
 * (`resumed.truncated`); the recording is never modified.
 *
 * Errors (`SystemPromptError`): `RECORDING_UNPARSABLE` (not a recording,
 * or a line that is not a record), `RECORDING_VERSION` (an unknown format
 * version), `RECORDING_OTHER_PROVIDER` (another provider's recording),
 * `RECORDING_DISCONTINUOUS` (a step that does not continue the ones
 * before it).
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's (`onRecord`, ...)
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   anthropicConversation,
 *   resumeAnthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt();
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64 });
 * conv.user("Hi.");
 * await conv.request();
 * conv.record({ type: "message", role: "assistant", content: [{ type: "text", text: "Hello." }] });
 * const again = resumeAnthropicConversation(prompt, conv.save());
 * console.log(again.session === conv.session, again.messages.length); // true 2
 * ```
 */
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options: Partial<AnthropicConversationOptions> & { toolChanges: "inline" },
): AnthropicConversation<C, AnthropicInlineConversationBody>;
/**
 * {@linkcode resumeAnthropicConversation} of a conversation whose tool
 * changes rebuild the tools block (a recording made with
 * `toolChanges: "inline"` needs that option again: `INVALID_CONFIG`
 * otherwise, so the body's type is the one sent).
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import {
 *   anthropicConversation,
 *   resumeAnthropicConversation,
 * } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt();
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64 });
 * console.log(resumeAnthropicConversation(prompt, conv.save()).resumed); // { steps: 0, truncated: false }
 * ```
 */
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<AnthropicConversationOptions> & {
    toolChanges?: "rebuild";
  },
): AnthropicConversation<C>;
export function resumeAnthropicConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<AnthropicConversationOptions>,
): AnthropicConversation<
  C,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  const parsed = parseRecording(recording, PROVIDER);
  const saved = parsed.header.options as Partial<AnthropicConversationOptions>;
  if (saved.toolChanges === "inline" && options?.toolChanges !== "inline") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The recording is of a conversation with toolChanges "inline"; ` +
        `resume it with { toolChanges: "inline" } (its bodies go to ` +
        `client.beta.messages.create).`,
    );
  }
  const merged = { ...saved, ...options } as AnthropicConversationOptions;
  return new ConversationShell(prompt, messagesWire(merged), merged, parsed);
}

/** Reads the options and returns the wire. */
function messagesWire(
  options: AnthropicConversationOptions,
): ConversationWire<
  MessagesMessage,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  const model = readModel(options, "anthropicConversation");
  const max_tokens = readLimit(
    options.max_tokens,
    "max_tokens",
    "anthropicConversation",
    { required: true },
  )!;
  const limit = cacheBreakpointLimit(options.maxCacheBreakpoints);
  const breakpoints = options.breakpoints;
  const saved: RecordingHeader["options"] = { model, max_tokens };
  if (breakpoints !== undefined) saved.breakpoints = breakpoints;
  if (options.maxCacheBreakpoints !== undefined) {
    saved.maxCacheBreakpoints = limit;
  }
  const toolChanges = options.toolChanges;
  if (
    toolChanges !== undefined && toolChanges !== "rebuild" &&
    toolChanges !== "inline"
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `anthropicConversation's toolChanges is ${
        quote(toolChanges)
      }; it must be "rebuild" (the default) or "inline".`,
    );
  }
  const inline = toolChanges === "inline";
  if (inline) saved.toolChanges = "inline";
  return {
    provider: PROVIDER,
    options: saved,
    inlineToolChanges: inline,
    build: (input) =>
      build(input, { model, max_tokens, limit, breakpoints, inline }),
    read,
    personInput: (input) =>
      copyBlocks(input, "user()", {
        allowString: true,
        forbid: ["tool_result"],
      }),
    resultContent: (content, id) =>
      typeof content === "string"
        ? content
        : copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
          allowString: true,
          forbid: ["tool_result"],
        }),
  };
}

/** Blocks that may carry `cache_control`. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

/** Anthropic finds an earlier entry up to 20 blocks before a marker. */
const LOOKBACK_BLOCKS = 20;

function build(
  input: WireBuild<MessagesMessage>,
  options: {
    model: string;
    max_tokens: number;
    limit: number;
    breakpoints: "auto" | "explicit" | undefined;
    inline: boolean;
  },
): WireBuilt<
  MessagesMessage,
  AnthropicConversationBody | AnthropicInlineConversationBody
> {
  const content: MessagesContentBlock[] = [
    ...input.results.map((result): MessagesContentBlock =>
      result.isError
        ? {
          type: "tool_result",
          tool_use_id: result.id,
          content: result.content as string | MessagesInputBlock[],
          is_error: true,
        }
        : {
          type: "tool_result",
          tool_use_id: result.id,
          content: result.content as string | MessagesInputBlock[],
        }
    ),
    ...input.person as MessagesContentBlock[],
    ...(input.update === undefined
      ? []
      : [{ type: "text" as const, text: input.update }]),
  ];
  const tail: MessagesMessage[] = content.length === 0
    ? []
    : [{ role: "user", content }];
  const changes = input.toolChanges;
  if (
    changes !== undefined &&
    (changes.removed.length > 0 || changes.added.length > 0)
  ) {
    // After the tool results, as the SDK's own BetaToolRunner sends them.
    tail.push(toolChangeMessage(changes) as unknown as MessagesMessage);
  }
  const history = [...input.history, ...tail];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  // The previous request's last block, when this step adds more than the
  // API looks back over.
  let added = 0;
  for (let index = input.previousLength; index < history.length; index++) {
    added += history[index].content.length;
  }
  const ends = [history.length - 1];
  if (input.previousLength > 0 && added > LOOKBACK_BLOCKS) {
    ends.unshift(input.previousLength - 1);
  }
  const marker: MessagesCacheControl = input.awaiting === "person"
    ? { type: "ephemeral", ttl: "1h" }
    : { type: "ephemeral" };
  const messages = [...history];
  const marks: WireMark[] = [];
  for (const at of ends) {
    const message = messages[at];
    const block = message.content.length - 1;
    if (block < 0 || UNMARKABLE.has(message.content[block].type)) continue;
    const blocks = [...message.content];
    blocks[block] = {
      ...blocks[block],
      cache_control: { ...marker },
    } as MessagesContentBlock;
    messages[at] = { role: message.role, content: blocks };
    marks.push({ message: at, block, mark: { ...marker } });
  }
  const { system, tools } = toMessages(input.assembly, {
    cache: input.awaiting === "person" ? { ttl: "1h" } : true,
    gating: "keep",
    maxCacheBreakpoints: Math.min(options.limit, 4 - marks.length),
    ...(options.breakpoints === undefined
      ? {}
      : { breakpoints: options.breakpoints }),
  });
  if (input.sharedWith !== undefined) {
    markSharedPrefix([...tools ?? [], ...system], input.sharedWith, {
      marker,
      limit: 4 - marks.length,
    });
  }
  const head: Omit<AnthropicConversationBody, "messages"> = {
    model: options.model,
    max_tokens: options.max_tokens,
    system,
    ...(tools === undefined ? {} : { tools }),
  };
  const betas = options.inline ? { betas: [...INLINE_BETAS] } : {};
  return {
    body: { ...head, messages, ...betas },
    tail,
    marks,
    head: { ...head, ...betas },
    state: {},
  };
}

/**
 * A fork's first request (SPEC 9.8): a marker at the end of the longest
 * prefix of tools and system blocks it shares with its parent's last
 * request, so sibling forks read it; within `limit` markers, the marker
 * closest before it gives way.
 */
function markSharedPrefix(
  items: { cache_control?: MessagesCacheControl }[],
  parent: Readonly<Record<string, unknown>>,
  { marker, limit }: { marker: MessagesCacheControl; limit: number },
): void {
  const before = [
    ...(Array.isArray(parent.tools) ? parent.tools : []),
    ...(Array.isArray(parent.system) ? parent.system : []),
  ] as { cache_control?: unknown }[];
  let shared = 0;
  while (
    shared < items.length && shared < before.length &&
    unmarkedJson(items[shared]) === unmarkedJson(before[shared])
  ) shared++;
  const end = shared - 1;
  if (end < 0 || items[end].cache_control !== undefined) return;
  items[end].cache_control = { ...marker };
  const marked = items.flatMap((item, index) =>
    item.cache_control === undefined ? [] : [index]
  );
  if (marked.length <= limit) return;
  const yielding = marked.filter((index) => index < end).at(-1) ??
    marked.find((index) => index > end)!;
  delete items[yielding].cache_control;
}

function unmarkedJson(item: { cache_control?: unknown }): string {
  const { cache_control: _mark, ...rest } = item;
  return JSON.stringify(rest);
}

/** The betas of mid-conversation tool changes (SPEC 9.8). */
const INLINE_BETAS = [
  "mid-conversation-tool-changes-2026-07-01",
  "inline-tools-2026-09-15",
] as const;

/** The system message telling the model of tool changes. */
function toolChangeMessage(
  changes: InlineToolChanges,
): MessagesToolChangeMessage {
  const content: MessagesToolChangeBlock[] = changes.removed.map((name) => ({
    type: "tool_removal",
    tool: { type: "tool_reference", name },
  }));
  for (const { schema, reference } of changes.added) {
    content.push({
      type: "tool_addition",
      tool: reference
        ? { type: "tool_reference", name: schema.name }
        : { type: "tool_definition", definition: toTool(schema) },
    });
  }
  return { role: "system", content };
}

function read(response: unknown): WireAnswer<MessagesMessage> {
  detectOtherProvider(response, "an Anthropic Messages");
  if (
    !isObject(response) || response.role !== "assistant" ||
    !Array.isArray(response.content) ||
    (response.type !== undefined && response.type !== "message")
  ) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes the Anthropic SDK's Message (type "message", role ` +
        `"assistant", content blocks), as messages.create() or a stream's ` +
        `finalMessage() returns it.`,
    );
  }
  const calls = [];
  for (const block of response.content as unknown[]) {
    if (!isObject(block) || typeof block.type !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The message's content holds a block without a type; every block ` +
          `is an object with a string type.`,
      );
    }
    if (block.type === "compaction") {
      throw new SystemPromptError(
        "COMPACTION_UNSUPPORTED",
        `The message holds a compaction block: server-side compaction is ` +
          `not supported by the conversation yet; nothing was recorded.`,
      );
    }
    if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string") {
        throw new SystemPromptError(
          "INVALID_RESPONSE",
          `A tool_use block of the message has no string id and name.`,
        );
      }
      calls.push({ id: block.id, name: block.name, input: block.input });
    }
  }
  const content = JSON.parse(JSON.stringify(response.content));
  return {
    messages: [{ role: "assistant", content }],
    calls,
    usage: response.usage ?? null,
  };
}
