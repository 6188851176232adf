/**
 * The Responses conversation's wire: the whole body of each step, and the
 * answer read back.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type { InlineToolChanges } from "../../src/conversation/tool_set.ts";
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
import {
  adapterOptions,
  forkSystem,
  markedAdapter,
  OPENAI_PREFIX,
  openAISites,
  openAISystemTexts,
  parseArguments,
  PERSON_TTL,
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
import {
  type ResponsesTextPart,
  type ResponsesTool,
  type ResponsesToolChoice,
  toResponses,
} from "./responses.ts";
import type {
  ResponsesConversationBody,
  ResponsesConversationItem,
  ResponsesConversationOptions,
} from "./responses_conversation_types.ts";
import { OPENAI_EXPLICIT_RULES } from "../../src/cache/simulator/rule_table.ts";
import {
  markBudget,
  markHistoryEnds,
  markSharedPrefix,
} from "../../src/conversation/marks.ts";

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
  const retention = readRetention(
    options.promptCacheRetention,
    form,
    saved,
  );
  const inline = readToolChanges(options.toolChanges, form);
  if (inline) saved.toolChanges = "inline";
  const parts = (content: unknown, what: string) =>
    copyBlocks(content, what, {
      allowString: true,
      forbid: [],
      text: "input_text",
    });
  return {
    provider: RESPONSES_PROVIDER,
    options: saved,
    inlineToolChanges: inline,
    // The API takes no second definition under a tool's name.
    inlineRedefine: "rebuild",
    build: (input) =>
      responsesBuild(input, {
        model,
        limit,
        cache,
        adapter,
        key: options.promptCacheKey,
        retention,
      }),
    read: responsesRead,
    systemTexts: openAISystemTexts,
    personInput: (input) => parts(input, "user()"),
    resultContent: (content, id) =>
      parts(content, `toolResult(${JSON.stringify(id)})`),
  };
}

const MARKS = OPENAI_EXPLICIT_RULES.marks!;

/**
 * Where a Responses history carries marks: a person's message, a tool's
 * output; an `additional_tools` item defers to the item before it.
 */
const RESPONSES_SITES = openAISites<ResponsesItem>((item) =>
  "type" in item && item.type === "additional_tools"
    ? "before"
    : "role" in item && item.role === "user"
    ? { field: "content", parts: item.content as unknown[] }
    : item.type === "function_call_output"
    ? { field: "output", parts: item.output as unknown[] }
    : undefined
);

function responsesBuild(
  input: WireBuild<ResponsesItem>,
  options: {
    model: string;
    limit: number | undefined;
    cache: PromptCacheBreakpoint | undefined;
    adapter: OpenAIOptions;
    key: string | undefined;
    retention: "24h" | undefined;
  },
): WireBuilt<ResponsesItem, ResponsesConversationBody> {
  const tail: ResponsesItem[] = input.results.map((result) => ({
    type: "function_call_output",
    call_id: result.id,
    output: result.content as ResponsesTextPart[],
  }));
  const added = input.toolChanges === undefined
    ? undefined
    : additionalTools(input.toolChanges, input.history, options.adapter);
  // After the tool outputs, as Anthropic's inline changes go.
  if (added !== undefined) tail.push(added);
  if (input.person.length > 0) {
    tail.push({ role: "user", content: input.person as ResponsesTextPart[] });
  }
  if (input.update !== undefined) {
    tail.push({
      role: "user",
      content: [{ type: "input_text", text: input.update }],
    });
  }
  const history = historyToSend(input.history, tail);
  const pause = input.awaiting === "person";
  const { key, mark } = stepCache(input, options);
  const { items, marks } = markHistoryEnds(
    history,
    input.previousLength,
    mark,
    MARKS.lookbackBlocks,
    RESPONSES_SITES,
  );
  const fields = toResponses(
    input.assembly,
    markedAdapter(options.adapter, { key, mark }),
  );
  const toolChoice = input.toolChanges === undefined
    ? fields.tool_choice
    : inlineChoice(input.toolChanges.allowed, options.adapter);
  const unshared = forkSystem(
    "system" in fields
      ? fields.system
      : { role: "system" as const, content: fields.instructions },
    input.parentSystem,
  );
  const budget = markBudget(
    MARKS.limit,
    marks.length,
    readOpenAIOptions(options.adapter, "responsesConversation").limit,
  );
  const system = input.sharedWith === undefined || mark === undefined
    ? unshared
    : markSharedPrefix(
      {
        live: { system: unshared, tools: fields.tools },
        recorded: { system: unshared, tools: fields.tools },
      },
      input.sharedWith,
      mark,
      budget.fork,
      OPENAI_PREFIX,
    ).system as typeof unshared;
  const head: Omit<ResponsesConversationBody, "input"> = {
    model: options.model,
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
    prompt_cache_key: key,
    // Explicit caching's field (gpt-5.6 and later): without `cache`, the
    // plain shapes.
    ...(pause && mark !== undefined
      ? { prompt_cache_options: { ttl: PERSON_TTL } }
      : {}),
    ...(options.limit === undefined
      ? {}
      : { max_output_tokens: options.limit }),
    ...retentionField(options.retention, input.awaiting),
  };
  // The diagnosis names the previous answer: in the body, never the head
  // (the recording would keep a new head every step).
  const cacheOptions = input.diagnostics === undefined
    ? head.prompt_cache_options
    : {
      ...head.prompt_cache_options,
      comparison_response_id: input.diagnostics.previous,
    };
  return {
    body: {
      ...head,
      ...(cacheOptions === undefined
        ? {}
        : { prompt_cache_options: cacheOptions }),
      input: [system, ...items],
    },
    tail,
    marks,
    head: { ...head, system },
    state: { promptCacheKey: key },
  };
}

/** The `toolChanges` option, checked: whether changes go inline. */
function readToolChanges(value: unknown, form: string): boolean {
  if (value !== undefined && value !== "rebuild" && value !== "inline") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s toolChanges is ${
        quote(value)
      }; it must be "rebuild" (the default) or "inline".`,
    );
  }
  return value === "inline";
}

/**
 * The `additional_tools` item of a step's added tools: those neither the
 * tools block nor an earlier item declared; none when there are none.
 */
function additionalTools(
  changes: InlineToolChanges,
  history: readonly ResponsesItem[],
  adapter: OpenAIOptions,
): ResponsesItem | undefined {
  const declared = new Set<string>();
  for (const item of history) {
    if (!("type" in item) || item.type !== "additional_tools") continue;
    for (const tool of item.tools) declared.add(JSON.stringify(tool));
  }
  const { strict } = readOpenAIOptions(adapter, "responsesConversation");
  const tools: ResponsesTool[] = changes.added.flatMap(
    ({ schema, reference }) => {
      if (reference) return [];
      const tool: ResponsesTool = {
        type: "function",
        name: schema.name,
        description: schema.description,
        parameters: schema.parameters,
        strict,
      };
      return declared.has(JSON.stringify(tool)) ? [] : [tool];
    },
  );
  return tools.length === 0
    ? undefined
    : { type: "additional_tools", role: "developer", tools };
}

/**
 * The tool choice with inline changes: the tools the model may call may
 * have come in through `additional_tools`, outside the tools block.
 */
function inlineChoice(
  allowed: readonly string[] | undefined,
  adapter: OpenAIOptions,
): ResponsesToolChoice | undefined {
  if (allowed === undefined) return undefined;
  if (allowed.length === 0) return "none";
  return {
    type: "allowed_tools",
    mode: readOpenAIOptions(adapter, "responsesConversation").toolChoiceMode,
    tools: allowed.map((name) => ({ type: "function" as const, name })),
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
    if (item.type === "message" && item.role !== "assistant") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The response's output holds a message with role ${
          quote(item.role)
        }; the model's messages are "assistant" ones.`,
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
