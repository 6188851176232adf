/**
 * The Responses conversation's wire: the whole body of each step, and the
 * answer read back.
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
  isObject,
  readLimit,
  readModel,
} from "../_conversation_shared.ts";
import { promptCacheKey } from "./cache_key.ts";
import {
  adapterOptions,
  markOpenAIEnds,
  parseArguments,
} from "./conversation_shared.ts";
import {
  breakpointOf,
  type OpenAIOptions,
  type PromptCacheBreakpoint,
} from "./options.ts";
import { type ResponsesTextPart, toResponses } from "./responses.ts";
import type {
  ResponsesConversationBody,
  ResponsesConversationItem,
  ResponsesConversationOptions,
} from "./responses_conversation_types.ts";

/** The provider a recording of this form names in its header. */
export const RESPONSES_PROVIDER = "openai-responses";

type ResponsesItem = ResponsesConversationItem;

/** Reads the options and returns the wire. */
export function responsesWire(
  options: ResponsesConversationOptions,
): ConversationWire<ResponsesItem, ResponsesConversationBody> {
  const form = "responsesConversation";
  const model = readModel(options, form);
  const limit = readLimit(
    options.max_output_tokens,
    "max_output_tokens",
    form,
    {
      required: false,
    },
  );
  const cache = breakpointOf(options.cache);
  const adapter = adapterOptions(options, form);
  const saved: Record<string, unknown> = { model, ...adapter };
  if (limit !== undefined) saved.max_output_tokens = limit;
  if (options.cache !== undefined) saved.cache = options.cache;
  if (options.promptCacheKey !== undefined) {
    saved.promptCacheKey = options.promptCacheKey;
  }
  const parts = (content: unknown, what: string) =>
    copyBlocks(content, what, {
      allowString: true,
      forbid: [],
      text: "input_text",
    });
  return {
    provider: RESPONSES_PROVIDER,
    options: saved,
    build: (input) =>
      responsesBuild(input, {
        model,
        limit,
        cache,
        adapter,
        key: options.promptCacheKey,
      }),
    read: responsesRead,
    personInput: (input) => parts(input, "user()"),
    resultContent: (content, id) =>
      parts(content, `toolResult(${JSON.stringify(id)})`),
  };
}

function responsesBuild(
  input: WireBuild<ResponsesItem>,
  options: {
    model: string;
    limit: number | undefined;
    cache: PromptCacheBreakpoint | undefined;
    adapter: OpenAIOptions;
    key: string | undefined;
  },
): WireBuilt<ResponsesItem, ResponsesConversationBody> {
  const tail: ResponsesItem[] = input.results.map((result) => ({
    type: "function_call_output",
    call_id: result.id,
    output: result.content as ResponsesTextPart[],
  }));
  if (input.person.length > 0) {
    tail.push({ role: "user", content: input.person as ResponsesTextPart[] });
  }
  if (input.update !== undefined) {
    tail.push({
      role: "user",
      content: [{ type: "input_text", text: input.update }],
    });
  }
  const history = [...input.history, ...tail];
  if (history.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  const key = typeof input.state.promptCacheKey === "string"
    ? input.state.promptCacheKey
    : options.key ?? promptCacheKey(input.assembly, { session: input.session });
  const pause = input.awaiting === "person";
  const mark: PromptCacheBreakpoint | undefined = options.cache === undefined
    ? undefined
    : pause
    ? { mode: "explicit", ttl: "12h" }
    : options.cache;
  const { items, marks } = markOpenAIEnds(
    history,
    input.previousLength,
    mark,
    (item) =>
      "role" in item && item.role === "user"
        ? { key: "content", parts: item.content }
        : item.type === "function_call_output"
        ? { key: "output", parts: item.output }
        : undefined,
  );
  const fields = mark === undefined
    ? toResponses(input.assembly, { ...options.adapter })
    : toResponses(input.assembly, {
      ...options.adapter,
      cache: mark.ttl === undefined ? true : { ttl: mark.ttl },
      promptCacheKey: key,
    });
  const system = "system" in fields
    ? fields.system
    : { role: "system" as const, content: fields.instructions };
  const head: Omit<ResponsesConversationBody, "input"> = {
    model: options.model,
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    ...(fields.tool_choice === undefined
      ? {}
      : { tool_choice: fields.tool_choice }),
    prompt_cache_key: key,
    ...(pause ? { prompt_cache_options: { ttl: "12h" as const } } : {}),
    ...(options.limit === undefined
      ? {}
      : { max_output_tokens: options.limit }),
  };
  return {
    body: { ...head, input: [system, ...items] },
    tail,
    marks,
    head: { ...head, system },
    state: { promptCacheKey: key },
  };
}

function responsesRead(response: unknown): WireAnswer<ResponsesItem> {
  detectOtherProvider(response, "an OpenAI Responses");
  if (isObject(response) && response.object === "response.compaction") {
    throw new SystemPromptError(
      "COMPACTION_UNSUPPORTED",
      `record() was given a compaction: server-side compaction is not ` +
        `supported by the conversation yet; nothing was recorded.`,
    );
  }
  const output = isObject(response) ? response.output : undefined;
  if (!Array.isArray(output)) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes the openai SDK's Response (object "response", output ` +
        `items), as responses.create() or a stream's finalResponse() ` +
        `returns it.`,
    );
  }
  const calls: ToolCall[] = [];
  for (const item of output) {
    if (!isObject(item) || typeof item.type !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The response's output holds an item without a type.`,
      );
    }
    if (item.type === "compaction") {
      throw new SystemPromptError(
        "COMPACTION_UNSUPPORTED",
        `The response holds a compaction item: server-side compaction is ` +
          `not supported by the conversation yet; nothing was recorded.`,
      );
    }
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string") {
        throw new SystemPromptError(
          "INVALID_RESPONSE",
          `A function_call of the response has no string call_id and name.`,
        );
      }
      calls.push({
        id: item.call_id,
        name: item.name,
        input: parseArguments(item.arguments),
      });
    }
  }
  return {
    messages: JSON.parse(JSON.stringify(output)),
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
  };
}
