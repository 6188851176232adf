/**
 * The OpenAI Chat Completions form (issue 45): the whole body of each step
 * of its conversation, the answer read back and recognized, where its
 * marks go, its usage and its cache rules.
 *
 * @module
 */

import { SystemPromptError } from "../../../mod.ts";
import { quote } from "../../../src/errors.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
} from "../../../src/conversation/form.ts";
import type { ToolCall } from "../../../src/conversation/types.ts";
import { copyAnswer } from "../../../src/conversation/checks.ts";
import type { MarkSites } from "../../../src/conversation/marks.ts";
import { ItemsLayout } from "../../../src/conversation/report_layout.ts";
import { answerText, isObject, readChanges } from "../../_kit/form_options.ts";
import { changeText } from "../../../src/conversation/system_changes.ts";
import { copyBlocks } from "../../_kit/content_blocks.ts";
import { OPENAI_EXPLICIT_RULES, OPENAI_RULES } from "../rules.ts";
import { readUsageWith } from "../../../src/cache/report/usage_reader.ts";
import { chatUsage } from "./usage.ts";
import { CHAT_SIMULATION } from "./simulation.ts";
import { type ChatTextPart, toChatCompletions } from "./chat.ts";
import type {
  ChatConversationBody,
  ChatConversationMessage,
  ChatConversationStreamingBody,
  ChatUserPart,
} from "./conversation_types.ts";
import {
  forkSystem,
  markedAdapter,
  OPENAI_PREFIX,
  openAIMark,
  openAISites,
  openAISystemTexts,
  parseArguments,
  readOpenAIForm,
  retentionField,
  stepKey,
} from "../form_options.ts";

type ChatMessage = ChatConversationMessage;
type ChatBody = ChatConversationBody | ChatConversationStreamingBody;

/** The OpenAI Chat Completions form. */
export const CHAT_FORM: ConversationForm<ChatMessage, ChatBody> = {
  id: "openai-chat",
  formerNames: [],
  title: "an OpenAI Chat Completions",
  otelProvider: "openai",
  functions: {
    start: "chatConversation",
    resume: "resumeChatConversation",
  },
  cache: {
    rules: [OPENAI_RULES, OPENAI_EXPLICIT_RULES],
    rulesOf: (saved) =>
      saved.cache === undefined ? OPENAI_RULES : OPENAI_EXPLICIT_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "openai-chat",
      response,
      (read, reader) => chatUsage(read, reader, "openai-chat"),
    ),
  render: (assembly) => toChatCompletions(assembly),
  builder: (options) => builder(options as Record<string, unknown>),
  resumeOptions: (saved, given) => {
    if (saved.stream === true && given?.stream === undefined) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `The recording is of a streaming conversation; resume it with ` +
          `{ stream: true } (or { stream: false } to stop streaming), so ` +
          `the body's type says which it is.`,
      );
    }
    return { ...saved, ...given };
  },
  personInput: (input) =>
    copyBlocks(input, "user()", { allowString: true, forbid: [] }),
  resultContent: (content, id) =>
    copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
      allowString: true,
      forbid: [],
    }),
  recognizes: (answer) =>
    Array.isArray(answer.choices) || answer.object === "chat.completion",
  readAnswer,
  recordOf: copyAnswer,
  readsRecord: true,
  systemTexts: openAISystemTexts,
  layout: () =>
    new ItemsLayout({
      name: "messages",
      leading: "system",
      sites: CHAT_FORM.marks as MarkSites<unknown>,
    }),
  simulation: CHAT_SIMULATION,
  // No tool search of its own: the fixed search-and-call pair.
  deferredTools: "pair",
  /** Not on the model's messages. */
  marks: openAISites<ChatMessage>((message) =>
    message.role === "assistant"
      ? undefined
      : { field: "content", parts: message.content as unknown[] }
  ),
  prefix: OPENAI_PREFIX,
  // No compaction in the API: a summary asked for in one user message.
  compaction: {
    by: "client",
    keepsTools: false,
    summary: answerText,
    unbound: (message) => message,
  },
};

/** The options read and checked, and the conversation's requests. */
function builder(
  options: Record<string, unknown>,
): FormBuilder<ChatMessage, ChatBody> {
  const form = "chatConversation";
  const read = readOpenAIForm(options, form, "max_completion_tokens", {
    checks: () => {
      if (options.stream !== undefined && typeof options.stream !== "boolean") {
        throw new SystemPromptError(
          "INVALID_CONFIG",
          `chatConversation's stream is ${
            quote(options.stream)
          }; it must be true or false.`,
        );
      }
    },
    saves: (saved) => {
      if (options.stream === true) saved.stream = true;
    },
  });
  const stream = options.stream === true;
  const changes = readChanges(options, form, { inlineTools: false });
  Object.assign(read.saved, changes.saved);
  return {
    saved: read.saved,
    rules: OPENAI_EXPLICIT_RULES,
    changes: changes.resolved,
    output: true,
    redefine: "inline",
    prefixLimit: read.read.limit,
    markFor: (awaiting) => openAIMark(read.cache, awaiting),
    tail: (input) => {
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
      if (input.sectionChanges !== undefined) {
        tail.push({
          role: "developer",
          content: input.sectionChanges.map((change) => ({
            type: "text",
            text: changeText(change),
          })),
        });
      }
      return tail;
    },
    head: (input) => {
      const key = stepKey(input, read.key);
      const mark = openAIMark(read.cache, input.awaiting);
      const fields = toChatCompletions(
        input.assembly,
        markedAdapter(read.adapter, { key, mark }),
      );
      return {
        recorded: {
          model: read.model,
          system: forkSystem(fields.system, input.parentSystem),
          ...(fields.tools === undefined ? {} : { tools: fields.tools }),
          ...(fields.tool_choice === undefined
            ? {}
            : { tool_choice: fields.tool_choice }),
          prompt_cache_key: key,
          ...(read.limit === undefined
            ? {}
            : { max_completion_tokens: read.limit }),
          ...(input.effort === undefined
            ? {}
            : { reasoning_effort: input.effort }),
          ...retentionField(read.retention, input.awaiting),
          ...(stream
            ? { stream: true, stream_options: { include_usage: true } }
            : {}),
        },
        state: { promptCacheKey: key },
      };
    },
    leading: (head) => [head.recorded.system as ChatMessage],
    // `messages` starts with the system message (`leading`).
    body: (head, messages) => {
      const { system: _system, ...rest } = head.recorded;
      return { ...rest, messages } as unknown as ChatBody;
    },
  };
}

/**
 * Reads an answer the conversation owns (its JSON copy, `recordOf`; a
 * recording's, parsed): the history's items are taken from it, not copied.
 */
function readAnswer(
  response: unknown,
  other: (answer: unknown) => void,
): FormAnswer<ChatMessage> {
  other(response);
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
    messages: [message as ChatMessage],
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
  };
}
