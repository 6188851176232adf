/**
 * The AI SDK form (issue 45): the call options of each step of its
 * conversation, the answer read back and recognized, where its marks go
 * (Anthropic's, as `@ai-sdk/anthropic` reads them), its usage. It imports
 * nothing of `ai` at run time: its start functions give it `toAISDK`'s
 * request, so the form table loads without the optional peer.
 *
 * @module
 */

import type { UserModelMessage } from "ai";
import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
  FormHead,
} from "../../src/conversation/form.ts";
import type { ToolCall } from "../../src/conversation/types.ts";
import type { PrefixSites } from "../../src/conversation/marks.ts";
import { AI_SDK_SITES, marked } from "./marks.ts";
import { AiSdkLayout } from "./report_layout.ts";
import {
  answerText,
  isObject,
  readChanges,
  REASONING_OMITTED,
  withoutParts,
} from "../_kit/form_options.ts";
import { changeText } from "../../src/conversation/system_changes.ts";
import {
  compactedFrom,
  readServerCompaction,
  serverCompactionOptions,
} from "./compaction.ts";

/** Parts bound to the prefix they were made on (signed thinking). */
const REASONING = new Set(["reasoning", "redacted-reasoning"]);
import { copyBlocks, parentCuts, textsOf } from "../_kit/content_blocks.ts";
import { autoBreakpoints } from "../_kit/assembly_input.ts";
import { prefixMarkLimit } from "../_kit/cache_option.ts";
import { ANTHROPIC_RULES } from "../anthropic/rules.ts";
import { copy } from "../../src/conversation/checks.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import { aiSdkUsage } from "./usage.ts";
import {
  type AISDKRequestOf,
  headOf,
  type Live,
  resumedHeadOf,
} from "./head.ts";
import type {
  AISDKConversationBody,
  AISDKConversationMessage,
  AISDKConversationOptions,
} from "./conversation_types.ts";

type AIMessage = AISDKConversationMessage;

/** The AI SDK's marks are Anthropic's (`@ai-sdk/anthropic`). */
const MARKS = ANTHROPIC_RULES.marks!;

/** The AI SDK form. */
export const AI_SDK_FORM: ConversationForm<AIMessage, AISDKConversationBody> = {
  id: "ai-sdk",
  formerNames: [],
  title: "an AI SDK",
  otelProvider: "ai-sdk",
  functions: {
    start: "aiSdkConversation",
    resume: "resumeAiSdkConversation",
  },
  // Its steps are reported as the Anthropic bodies `@ai-sdk/anthropic`
  // sends; the live body is call options, not a provider's body.
  cache: {
    rules: [ANTHROPIC_RULES],
    rulesOf: () => ANTHROPIC_RULES,
    liveBodyIsWire: false,
  },
  readUsage: (response) =>
    readUsageWith(
      "ai-sdk",
      response,
      (read, reader) => aiSdkUsage(read, reader, "ai-sdk"),
    ),
  builder: (options, adapter) =>
    builder(options as AISDKConversationOptions, adapter as AISDKRequestOf),
  resumeOptions: (saved, given) => ({ ...saved, ...given }),
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
  recognizes: isAiSdkAnswer,
  readAnswer,
  // The record is the answer's messages and usage, copied through JSON:
  // the conversation owns it, and its history's items are its objects.
  recordOf: (answer, other) => {
    const { messages, usage } = answerParts(answer, other);
    return copy({ response: { messages }, usage: usage ?? null });
  },
  readsRecord: true,
  systemTexts: (head) => textsOf(head.system, (message) => message.content),
  // No tool search of its own: the fixed search-and-call pair.
  deferredTools: "pair",
  marks: AI_SDK_SITES,
  layout: () => new AiSdkLayout(),
  // A summary asked for in one user message, whatever the provider.
  compaction: {
    by: "client",
    keepsTools: false,
    summary: answerText,
    // Turns alternate, whatever the provider: the instruction, then the
    // summary as the assistant's answer (its text only). @ai-sdk/google
    // sends each message as a turn of its own, and Gemini refuses two user
    // turns in a row (the summary's and the person's next).
    start: (instruction, summary) => [
      ...instruction,
      { role: "assistant", content: [{ type: "text", text: summary }] },
    ],
    // A turn of reasoning alone keeps its place, with a text saying so:
    // left out, the user messages on either side of it would be two user
    // turns through @ai-sdk/google (it sends each message as a turn of its
    // own), which Gemini refuses.
    unbound: (message) =>
      withoutParts(message, REASONING) ??
        {
          role: "assistant",
          content: [{ type: "text", text: REASONING_OMITTED }],
        },
  },
  prefix: {
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
    withMarks: (head, keep, mark) => {
      const { system, tools } = head.live as Live;
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
      return headOf({
        system: Array.isArray(system)
          ? system.map((message, index) =>
            marking(message, names.length + index)
          )
          : system,
        tools: Object.fromEntries(
          names.map((name, index) => [name, marking(tools[name], index)]),
        ),
      });
    },
  } satisfies PrefixSites<FormHead>,
};

/**
 * Whether `answer` is an AI SDK answer: a `generateText` result or what a
 * `streamText` result resolved to, `{ response: { messages } }`. Reads
 * `response` only: a result's other getters may throw (`output` does when
 * the step ended in tool calls).
 */
function isAiSdkAnswer(answer: Record<string, unknown>): boolean {
  const response = answer.response;
  return isObject(response) && Array.isArray(response.messages);
}

/** The options read and checked, and the conversation's requests. */
function builder(
  options: AISDKConversationOptions,
  request: AISDKRequestOf,
): FormBuilder<AIMessage, AISDKConversationBody> {
  if (!isObject(options)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `aiSdkConversation's options must be an object; got ${quote(options)}.`,
    );
  }
  const breakpoints = options.breakpoints as "auto" | "explicit" | undefined;
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
  if (breakpoints !== undefined) saved.breakpoints = breakpoints;
  const server = readServerCompaction(options.serverCompaction);
  if (server !== undefined) saved.serverCompaction = server;
  const changes = readChanges(
    options as Record<string, unknown>,
    "aiSdkConversation",
    {
      inlineTools: false,
    },
  );
  Object.assign(saved, changes.saved);
  return {
    saved,
    rules: ANTHROPIC_RULES,
    changes: changes.resolved,
    redefine: "inline",
    prefixLimit: limit,
    markFor: (awaiting) =>
      !cache
        ? undefined
        : awaiting === "person"
        ? { type: "ephemeral", ttl: MARKS.personTtl }
        : { type: "ephemeral" },
    tail: (input) => {
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
      // A later system message stays in the conversation (@ai-sdk/anthropic
      // keeps it as a mid-conversation one: the top-level system is set).
      for (const change of input.sectionChanges ?? []) {
        tail.push({ role: "system", content: changeText(change) });
      }
      return tail;
    },
    head: (input) => {
      const { system, tools } = request(input.assembly, {
        gating: "keep",
        ...(cache
          ? {
            cache: input.awaiting === "person"
              ? { ttl: MARKS.personTtl as "1h" }
              : true,
            maxCacheBreakpoints: input.prefixBudget,
          }
          : {}),
        ...(breakpoints === undefined ? {} : { breakpoints }),
      }, { keepToolsEnd: true });
      if (input.parentSystem !== undefined && Array.isArray(system)) {
        const texts = parentCuts(
          system.map((message) => message.content),
          input.parentSystem,
        );
        texts.forEach((text, index) => system[index].content = text);
      }
      return headOf({ system, tools });
    },
    // The tool set made again from the recorded schemas (by the adapter:
    // `rxprompt report` reads a recording without one, and builds no body).
    ...(request === undefined ? {} : {
      resumedHead: (recorded: Record<string, unknown>) =>
        resumedHeadOf(recorded, request),
    }),
    body: (head, messages, extras) => {
      const { system, tools } = head.live as Live;
      return {
        system,
        tools,
        messages: messages as AIMessage[],
        // The AI SDK refuses a system message in messages unless asked.
        ...((extras.holds?.(isSystemMessage) ??
            messages.some(isSystemMessage))
          ? { allowSystemInMessages: true }
          : {}),
        ...(server === undefined
          ? {}
          : { providerOptions: serverCompactionOptions(server) }),
      };
    },
  };
}

/** A system message in the list (the body then allows them). */
function isSystemMessage(message: AIMessage): boolean {
  return message.role === "system";
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

/**
 * The response messages and usage of an answer, or INVALID_RESPONSE. Reads
 * `response` (or `messages`) and `usage` only: a `generateText` result's
 * other getters may throw (`output`, when the step ended in tool calls).
 */
function answerParts(
  answer: unknown,
  other: (answer: unknown) => void,
): { messages: unknown[]; usage: unknown } {
  if (isObject(answer) && isAiSdkAnswer(answer)) {
    const response = answer.response as { messages: unknown[] };
    return { messages: response.messages, usage: answer.usage ?? null };
  }
  if (isObject(answer) && Array.isArray(answer.messages)) {
    return { messages: answer.messages, usage: null };
  }
  other(answer);
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

/**
 * Reads an answer the conversation owns (its record, `recordOf`; a
 * recording's, parsed): the history's items are taken from it, not copied.
 */
function readAnswer(
  answer: unknown,
  other: (answer: unknown) => void,
): FormAnswer<AIMessage> {
  const { messages, usage } = answerParts(answer, other);
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
  const compacted = compactedFrom(messages);
  return {
    messages: messages as AIMessage[],
    calls: calls.filter((call) => !answered.has(call.id)),
    usage,
    ...(compacted === undefined ? {} : { compactedFrom: compacted }),
  };
}
