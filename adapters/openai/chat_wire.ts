/**
 * The Chat Completions conversation's wire: the whole body of each step,
 * and the answer read back.
 *
 * @module
 */

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
  isObject,
  readLimit,
  readModel,
} from "../_conversation_shared.ts";
import { quote } from "../../src/errors.ts";
import { type ChatTextPart, toChatCompletions } from "./chat.ts";
import type {
  ChatConversationBody,
  ChatConversationMessage,
  ChatConversationOptions,
  ChatConversationStreamingBody,
  ChatUserPart,
} from "./chat_conversation_types.ts";
import {
  adapterOptions,
  forkSystem,
  markedAdapter,
  OPENAI_PREFIX,
  openAISites,
  openAISystemTexts,
  parseArguments,
  readRetention,
  retentionField,
  stepCache,
} from "./conversation_shared.ts";
import {
  breakpointOf,
  type OpenAIOptions,
  type PromptCacheBreakpoint,
  readOpenAIOptions,
} from "./options.ts";
import { OPENAI_EXPLICIT_RULES } from "../../src/cache/simulator/rule_table.ts";
import {
  markBudget,
  markHistoryEnds,
  markSharedPrefix,
} from "../../src/conversation/marks.ts";

/** The provider a recording of this form names in its header. */
export const CHAT_PROVIDER = "openai-chat";

type ChatMessage = ChatConversationMessage;
type ChatBody = ChatConversationBody | ChatConversationStreamingBody;

/** Reads the options and returns the wire. */
export function chatWire(
  options: ChatConversationOptions,
): ConversationWire<ChatMessage, ChatBody> {
  const model = readModel(options, "chatConversation");
  const limit = readLimit(
    options.max_completion_tokens,
    "max_completion_tokens",
    "chatConversation",
    { required: false },
  );
  const cache = breakpointOf(options.cache);
  if (options.stream !== undefined && typeof options.stream !== "boolean") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `chatConversation's stream is ${
        quote(options.stream)
      }; it must be true or false.`,
    );
  }
  const adapter = adapterOptions(options, "chatConversation");
  const saved: Record<string, unknown> = { model, ...adapter };
  if (limit !== undefined) saved.max_completion_tokens = limit;
  if (options.cache !== undefined) saved.cache = options.cache;
  if (options.promptCacheKey !== undefined) {
    saved.promptCacheKey = options.promptCacheKey;
  }
  if (options.stream === true) saved.stream = true;
  const retention = readRetention(
    options.promptCacheRetention,
    "chatConversation",
    saved,
  );
  return {
    provider: CHAT_PROVIDER,
    options: saved,
    build: (input) =>
      chatBuild(input, {
        model,
        limit,
        cache,
        adapter,
        key: options.promptCacheKey,
        stream: options.stream === true,
        retention,
      }),
    read: chatRead,
    systemTexts: openAISystemTexts,
    personInput: (input) =>
      copyBlocks(input, "user()", { allowString: true, forbid: [] }),
    resultContent: (content, id) =>
      copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
        allowString: true,
        forbid: [],
      }),
  };
}

const MARKS = OPENAI_EXPLICIT_RULES.marks!;

/** Where a Chat history carries marks: not on the model's messages. */
const CHAT_SITES = openAISites<ChatMessage>((message) =>
  message.role === "assistant"
    ? undefined
    : { field: "content", parts: message.content as unknown[] }
);

function chatBuild(
  input: WireBuild<ChatMessage>,
  options: {
    model: string;
    limit: number | undefined;
    cache: PromptCacheBreakpoint | undefined;
    adapter: OpenAIOptions;
    key: string | undefined;
    stream: boolean;
    retention: "24h" | undefined;
  },
): WireBuilt<ChatMessage, ChatBody> {
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
  const history = historyToSend(input.history, tail);
  const { key, mark } = stepCache(input, options);
  const { items: messages, marks } = markHistoryEnds(
    history,
    input.previousLength,
    mark,
    MARKS.lookbackBlocks,
    CHAT_SITES,
  );
  const fields = toChatCompletions(
    input.assembly,
    markedAdapter(options.adapter, { key, mark }),
  );
  const laidOut = forkSystem(fields.system, input.parentSystem);
  const budget = markBudget(
    MARKS.limit,
    marks.length,
    readOpenAIOptions(options.adapter, "chatConversation").limit,
  );
  const system = input.sharedWith === undefined || mark === undefined
    ? laidOut
    : markSharedPrefix(
      {
        live: { system: laidOut, tools: fields.tools },
        recorded: { system: laidOut, tools: fields.tools },
      },
      input.sharedWith,
      mark,
      budget.fork,
      OPENAI_PREFIX,
    ).system as typeof laidOut;
  const head: Record<string, unknown> = {
    model: options.model,
    system,
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    ...(fields.tool_choice === undefined
      ? {}
      : { tool_choice: fields.tool_choice }),
    prompt_cache_key: key,
    ...(options.limit === undefined
      ? {}
      : { max_completion_tokens: options.limit }),
    ...retentionField(options.retention, input.awaiting),
    ...(options.stream
      ? { stream: true, stream_options: { include_usage: true } }
      : {}),
  };
  const { system: _system, ...rest } = head;
  const body = {
    ...rest,
    messages: [system, ...messages],
  } as unknown as ChatBody;
  return {
    body,
    tail,
    marks,
    head,
    state: { promptCacheKey: key },
  };
}

function chatRead(response: unknown): WireAnswer<ChatMessage> {
  detectOtherProvider(response, "an OpenAI Chat Completions");
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
    messages: [JSON.parse(JSON.stringify(message))],
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
  };
}
