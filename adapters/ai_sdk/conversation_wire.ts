/**
 * The AI SDK conversation's wire: the call options of each step, and the
 * answer read back.
 *
 * @module
 */

import type { UserModelMessage } from "ai";
import { SystemPromptError } from "../../mod.ts";
import type {
  ConversationWire,
  ToolCall,
  WireAnswer,
  WireBuild,
  WireBuilt,
} from "../../src/conversation/wire.ts";
import {
  copyBlocks,
  detectOtherProvider,
  historyToSend,
  isAiSdkAnswer,
  isObject,
  parentCuts,
  textsOf,
} from "../_conversation_shared.ts";
import {
  markBudget,
  markHistoryEnds,
  markSharedPrefix,
  type MarkSites,
  type PrefixSites,
} from "../../src/conversation/marks.ts";
import { quote } from "../../src/errors.ts";
import { autoBreakpoints, type CacheControl } from "../_shared.ts";
import type {
  AISDKConversationBody,
  AISDKConversationMessage,
  AISDKConversationOptions,
} from "./conversation_types.ts";
import { aiSdkRequest } from "./request.ts";
import { prefixMarkLimit } from "../_cache_option.ts";
import { ANTHROPIC_RULES } from "../../src/cache/simulator/rule_table.ts";

/** The provider a recording of this form names in its header. */
export const AI_SDK_PROVIDER = "ai-sdk";

type AIMessage = AISDKConversationMessage;

/** Reads the options and returns the wire. */
export function aiSdkWire(
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
  const limit = prefixMarkLimit(options.maxCacheBreakpoints, ANTHROPIC_RULES);
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
    systemTexts: (head) => textsOf(head.system, (message) => message.content),
    recordOf: (answer) => {
      const { messages, usage } = answerParts(answer);
      return { response: { messages }, usage: usage ?? null };
    },
    personInput: (input) =>
      unmarkedParts(
        copyBlocks(input, "user()", { allowString: true, forbid: [] }),
      ),
    resultContent: (content, id) => {
      if (typeof content !== "string" || content === "") {
        throw new SystemPromptError(
          "INVALID_CONVERSATION_INPUT",
          `toolResult(${
            JSON.stringify(id)
          }) takes a non-empty string result; got ${quote(content)}.`,
        );
      }
      return content;
    },
  };
}

/** The AI SDK's marks are Anthropic's (`@ai-sdk/anthropic`). */
const MARKS = ANTHROPIC_RULES.marks!;

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
  const history = historyToSend(input.history, tail);
  const marker =
    (input.awaiting === "person"
      ? { type: "ephemeral", ttl: MARKS.personTtl }
      : { type: "ephemeral" }) as CacheControl;
  const { items: messages, marks } = markHistoryEnds(
    history,
    input.previousLength,
    options.cache ? marker : undefined,
    MARKS.lookbackBlocks,
    AI_SDK_SITES,
  );
  const budget = markBudget(MARKS.limit, marks.length, options.limit);
  const request = aiSdkRequest(input.assembly, {
    gating: "keep",
    ...(options.cache
      ? {
        cache: input.awaiting === "person"
          ? { ttl: MARKS.personTtl as "1h" }
          : true,
        maxCacheBreakpoints: budget.prefix,
      }
      : {}),
    ...(options.breakpoints === undefined
      ? {}
      : { breakpoints: options.breakpoints }),
  }, { keepToolsEnd: true });
  let { system, tools } = request;
  const messagesOfSystem = system;
  if (input.parentSystem !== undefined && Array.isArray(messagesOfSystem)) {
    const texts = parentCuts(
      messagesOfSystem.map((message) => message.content),
      input.parentSystem,
    );
    texts.forEach((text, index) => messagesOfSystem[index].content = text);
  }
  if (options.cache && input.sharedWith !== undefined) {
    ({ system, tools } = markSharedPrefix(
      { live: { system, tools }, recorded: headOf(system, tools) },
      input.sharedWith,
      marker,
      budget.fork,
      AI_SDK_PREFIX,
    ));
  }
  return {
    body: { system, tools, messages },
    tail,
    marks,
    head: headOf(system, tools),
    state: {},
  };
}

/**
 * A person's parts, refused when one carries a cache mark under any
 * provider's options (`@ai-sdk/anthropic` reads `cacheControl` and
 * `cache_control`, under its own name or a custom one): the conversation
 * places the marks.
 */
function unmarkedParts(parts: unknown[]): unknown[] {
  for (const part of parts) {
    const options = (part as { providerOptions?: unknown }).providerOptions;
    if (!isObject(options)) continue;
    for (const provider of Object.values(options)) {
      if (
        isObject(provider) &&
        ("cacheControl" in provider || "cache_control" in provider)
      ) {
        throw new SystemPromptError(
          "INVALID_CONVERSATION_INPUT",
          `user() takes parts without a cache mark (providerOptions ` +
            `cacheControl); the conversation places the marks.`,
        );
      }
    }
  }
  return parts;
}

/** A step's head: the system messages and each tool with its schema. */
function headOf(
  system: AISDKConversationBody["system"],
  tools: AISDKConversationBody["tools"],
): { system: unknown; tools: Record<string, unknown>[] } {
  return {
    system,
    // The schema too: the report lays a step out as the wire body.
    tools: Object.entries(tools).map(([name, entry]) => ({
      name,
      description: entry.description,
      inputSchema: (entry.inputSchema as { jsonSchema?: unknown })
        .jsonSchema,
      providerOptions: entry.providerOptions,
    })),
  };
}

type Prefix = Pick<AISDKConversationBody, "system" | "tools">;

/** The mark as `@ai-sdk/anthropic` reads it, in a part's provider options. */
function marked<T extends object>(item: T, mark: unknown): T {
  return { ...item, providerOptions: { anthropic: { cacheControl: mark } } };
}

/**
 * Where an AI SDK history carries marks: the last part of a user or tool
 * message (an assistant's are the provider's to keep).
 */
const AI_SDK_SITES: MarkSites<AIMessage> = {
  leadingItems: 0,
  partCount: (message) =>
    typeof message.content === "string" ? 1 : message.content.length,
  site: (message) =>
    typeof message.content === "string" || message.role === "assistant"
      ? undefined
      : { field: "content", parts: message.content },
  setMark: (parts, index, mark) =>
    parts.map((part, at) => at === index ? marked(part as object, mark) : part),
};

/** An AI SDK head's prefix: its tools, then its system messages. */
const AI_SDK_PREFIX: PrefixSites<Prefix> = {
  of: (head) => {
    const items = [
      ...(Array.isArray(head.tools) ? head.tools : []),
      ...(Array.isArray(head.system) ? head.system : []),
    ] as unknown[];
    return {
      json: items.map((item) => {
        if (!isObject(item)) return JSON.stringify(item);
        const { providerOptions: _mark, ...rest } = item;
        return JSON.stringify(rest);
      }),
      markable: items.map(() => true),
      marked: items.map((item) =>
        isObject(item) && item.providerOptions !== undefined
      ),
    };
  },
  withMarks: ({ system, tools }, keep, mark) => {
    const marking = <T extends { providerOptions?: unknown }>(
      item: T,
      index: number,
    ): T => {
      if (!keep.has(index)) {
        const { providerOptions: _mark, ...rest } = item;
        return rest as T;
      }
      return item.providerOptions === undefined
        ? marked(item, { ...mark as object })
        : item;
    };
    const names = Object.keys(tools);
    return {
      system: Array.isArray(system)
        ? system.map((message, index) => marking(message, names.length + index))
        : system,
      tools: Object.fromEntries(
        names.map((name, index) => [name, marking(tools[name], index)]),
      ),
    } as Prefix;
  },
};

/**
 * The response messages and usage of an answer, or INVALID_RESPONSE. Reads
 * `response` (or `messages`) and `usage` only: a `generateText` result's
 * other getters may throw (`output`, when the step ended in tool calls).
 */
function answerParts(
  answer: unknown,
): { messages: unknown[]; usage: unknown } {
  if (isObject(answer) && isAiSdkAnswer(answer)) {
    const response = answer.response as { messages: unknown[] };
    return { messages: response.messages, usage: answer.usage ?? null };
  }
  if (isObject(answer) && Array.isArray(answer.messages)) {
    return { messages: answer.messages, usage: null };
  }
  detectOtherProvider(answer, "an AI SDK");
  const pending = isObject(answer) && isObject(answer.response) &&
    typeof answer.response.then === "function";
  throw new SystemPromptError(
    "INVALID_RESPONSE",
    pending
      ? `record() was given a streamText result, whose fields are ` +
        `promises; once the stream has finished, record ` +
        `{ response: await result.response, usage: await result.usage }.`
      : `record() takes generateText's result, { response, usage } of a ` +
        `finished streamText result, or the response's messages; got ` +
        `${quote(answer)}.`,
  );
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
      if (part.type !== "tool-call") continue;
      const { toolCallId, toolName } = part;
      if (typeof toolCallId !== "string" || typeof toolName !== "string") {
        throw new SystemPromptError(
          "INVALID_RESPONSE",
          `A tool-call part of the response has no string ${
            typeof toolCallId === "string" ? "toolName" : "toolCallId"
          }; it could not be answered.`,
        );
      }
      if (part.providerExecuted !== true) {
        calls.push({ id: toolCallId, name: toolName, input: part.input });
      }
    }
  }
  return {
    messages: JSON.parse(JSON.stringify(messages)),
    calls: calls.filter((call) => !answered.has(call.id)),
    usage,
  };
}
