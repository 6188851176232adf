/**
 * The OpenAI Responses form (issue 45): the whole body of each step of its
 * conversation, the answer read back and recognized, where its marks go,
 * its usage and its cache rules.
 *
 * @module
 */

import { SystemPromptError } from "../../../mod.ts";
import { quote } from "../../../src/errors.ts";
import type { InlineToolChanges } from "../../../src/conversation/tool_set.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
} from "../../../src/conversation/form.ts";
import type { ToolCall } from "../../../src/conversation/types.ts";
import { copyAnswer } from "../../../src/conversation/checks.ts";
import type { MarkSites } from "../../../src/conversation/marks.ts";
import { ItemsLayout } from "../../../src/conversation/report_layout.ts";
import { isObject, readChanges } from "../../_kit/form_options.ts";
import { changeText } from "../../../src/conversation/system_changes.ts";
import { copyBlocks } from "../../_kit/content_blocks.ts";
import { OPENAI_EXPLICIT_RULES, OPENAI_RULES } from "../rules.ts";
import { readUsageWith } from "../../../src/cache/report/usage_reader.ts";
import { responsesUsage } from "./usage.ts";
import {
  forkSystem,
  markedAdapter,
  OPENAI_PREFIX,
  openAIMark,
  openAISites,
  openAISystemTexts,
  parseArguments,
  PERSON_TTL,
  readOpenAIForm,
  retentionField,
  stepKey,
} from "../form_options.ts";
import {
  type ResponsesTextPart,
  type ResponsesTool,
  toResponses,
} from "./responses.ts";
import {
  allowingDeferred,
  clientSearchOutputs,
  inlineChoice,
  readToolSearch,
  withDeferredTools,
} from "./deferred.ts";
import type {
  ResponsesConversationBody,
  ResponsesConversationItem,
} from "./conversation_types.ts";

type ResponsesItem = ResponsesConversationItem;
type Effort = "low" | "medium" | "high" | "xhigh" | "max";

/** What `responses.compact` takes of a head (`ResponseCompactParams`). */
const COMPACT_FIELDS = new Set([
  "prompt_cache_options",
  "prompt_cache_retention",
  "service_tier",
]);

/** The OpenAI Responses form. */
export const RESPONSES_FORM: ConversationForm<
  ResponsesItem,
  ResponsesConversationBody
> = {
  id: "openai-responses",
  formerNames: [],
  title: "an OpenAI Responses",
  otelProvider: "openai",
  functions: {
    start: "responsesConversation",
    resume: "resumeResponsesConversation",
  },
  cache: {
    rules: [OPENAI_RULES, OPENAI_EXPLICIT_RULES],
    rulesOf: (saved) =>
      saved.cache === undefined ? OPENAI_RULES : OPENAI_EXPLICIT_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "openai-responses",
      response,
      (read, reader) => responsesUsage(read, reader, "openai-responses"),
    ),
  render: (assembly) => toResponses(assembly),
  builder: (options) => builder(options as Record<string, unknown>),
  resumeOptions: (saved, given) => {
    if (saved.toolChanges === "inline" && given?.toolChanges !== "inline") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `The recording is of a conversation with toolChanges "inline"; ` +
          `resume it with { toolChanges: "inline" } (its tool changes are ` +
          `in its additional_tools items, its tools block never changes).`,
      );
    }
    return { ...saved, ...given };
  },
  personInput: (input) => parts(input, "user()"),
  resultContent: (content, id) =>
    parts(content, `toolResult(${JSON.stringify(id)})`),
  recognizes: (answer) =>
    answer.object === "response" || Array.isArray(answer.output),
  readAnswer,
  recordOf: copyAnswer,
  readsRecord: true,
  deferredTools: "native",
  systemTexts: openAISystemTexts,
  layout: () =>
    new ItemsLayout({
      name: "input",
      leading: "system",
      sites: RESPONSES_FORM.marks as MarkSites<unknown>,
    }),
  // An `additional_tools` item declares its tools: a later step's item
  // leaves out the ones declared with the same definition.
  declares: (item) =>
    "type" in item && item.type === "additional_tools"
      ? item.tools.map((tool) => JSON.stringify(tool))
      : [],
  /**
   * A person's message, a tool's output, a developer message telling a
   * change; an `additional_tools` item defers to the item before it.
   */
  marks: openAISites<ResponsesItem>((item) =>
    "type" in item &&
      (item.type === "additional_tools" || item.type === "configuration_update")
      ? "before"
      : "role" in item && (item.role === "user" || item.role === "developer")
      ? { field: "content", parts: item.content as unknown[] }
      : "type" in item && item.type === "function_call_output"
      ? { field: "output", parts: item.output as unknown[] }
      : undefined
  ),
  prefix: OPENAI_PREFIX,
  // A compaction item drops what is before it, tools added inline too.
  compaction: {
    by: "provider",
    keepsTools: false,
    unbound: (item) =>
      "type" in item && item.type === "reasoning" ? undefined : item,
  },
};

function parts(content: unknown, what: string): unknown[] {
  return copyBlocks(content, what, {
    allowString: true,
    forbid: [],
    text: "input_text",
  });
}

/** The options read and checked, and the conversation's requests. */
function builder(
  options: Record<string, unknown>,
): FormBuilder<ResponsesItem, ResponsesConversationBody> {
  const form = "responsesConversation";
  const read = readOpenAIForm(options, form, "max_output_tokens");
  const changes = readChanges(options, form, {
    inlineTools: true,
    inlineOutput: true,
  });
  Object.assign(read.saved, changes.saved);
  const search = readToolSearch(options.toolSearch, form);
  if (options.toolSearch !== undefined) read.saved.toolSearch = search;
  const threshold = readThreshold(options.serverCompaction, form);
  if (threshold !== undefined) {
    read.saved.serverCompaction = { threshold };
  }
  return {
    saved: read.saved,
    rules: OPENAI_EXPLICIT_RULES,
    changes: changes.resolved,
    output: true,
    ...(search === "pair" ? { deferredTools: "pair" as const } : {}),
    // The API takes no second definition under a tool's name.
    redefine: "rebuild",
    prefixLimit: read.read.limit,
    markFor: (awaiting) => openAIMark(read.cache, awaiting),
    tail: (input) => {
      // A client-run search of the last answer is answered first.
      const tail = clientSearchOutputs(
        input.history,
        input.assembly,
        read.read.strict,
      ) as ResponsesItem[];
      for (const result of input.results) {
        tail.push({
          type: "function_call_output",
          call_id: result.id,
          output: result.content as ResponsesTextPart[],
        });
      }
      const added = input.toolChanges === undefined
        ? undefined
        : additionalTools(input.toolChanges, input.declared, read.read.strict);
      // After the tool outputs, as Anthropic's inline changes go.
      if (added !== undefined) tail.push(added);
      if (input.person.length > 0) {
        tail.push({
          role: "user",
          content: input.person as ResponsesTextPart[],
        });
      }
      if (input.update !== undefined) {
        tail.push({
          role: "user",
          content: [{ type: "input_text", text: input.update }],
        });
      }
      if (input.sectionChanges !== undefined) {
        tail.push({
          role: "developer",
          content: input.sectionChanges.map((change) => ({
            type: "input_text",
            text: changeText(change),
          })),
        });
      }
      // Each setting stays in effect until a later update replaces it.
      if (input.effort !== undefined) {
        tail.push({
          type: "configuration_update",
          reasoning: { effort: input.effort as Effort },
        });
      }
      return tail;
    },
    head: (input) => {
      const key = stepKey(input, read.key);
      const mark = openAIMark(read.cache, input.awaiting);
      const fields = toResponses(
        input.assembly,
        markedAdapter(read.adapter, { key, mark }),
      );
      const mode = read.read.toolChoiceMode;
      const toolChoice = input.toolChanges !== undefined
        ? inlineChoice(input.toolChanges.allowed, input.assembly, {
          mode,
          pair: search === "pair",
        })
        // With the pair, the conversation lists it among the functions.
        : search === "pair"
        ? fields.tool_choice
        : allowingDeferred(fields.tool_choice, input.assembly, mode);
      const tools = search === "pair"
        ? fields.tools
        : withDeferredTools(fields.tools, input.assembly, {
          search,
          strict: read.read.strict,
        });
      const system = forkSystem(
        "system" in fields
          ? fields.system
          : { role: "system" as const, content: fields.instructions },
        input.parentSystem,
      );
      return {
        recorded: {
          model: read.model,
          ...(tools === undefined ? {} : { tools }),
          ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
          prompt_cache_key: key,
          // Explicit caching's field (gpt-5.6 and later): without `cache`,
          // the plain shapes.
          ...(input.awaiting === "person" && mark !== undefined
            ? { prompt_cache_options: { ttl: PERSON_TTL } }
            : {}),
          ...(read.limit === undefined
            ? {}
            : { max_output_tokens: read.limit }),
          ...(input.effort === undefined
            ? {}
            : { reasoning: { effort: input.effort } }),
          ...retentionField(read.retention, input.awaiting),
          ...(threshold === undefined ? {} : {
            context_management: [{
              type: "compaction",
              compact_threshold: threshold,
            }],
          }),
          system,
        },
        state: { promptCacheKey: key },
      };
    },
    // The same request with a compaction_trigger last: it reads the whole
    // prefix (responses.compact takes no tools: it would read none).
    compaction: (head, asked) => {
      if (asked.via === undefined) {
        return { head, tail: [{ type: "compaction_trigger" }] };
      }
      if (asked.via !== "compact") {
        throw new SystemPromptError(
          "INVALID_CONFIG",
          `compact()'s via is ${
            quote(asked.via)
          }; a Responses conversation takes "compact" ` +
            `(client.responses.compact) or none (a compaction_trigger item).`,
        );
      }
      // responses.compact's parameters: no tools, reasoning or output limit.
      const { model, prompt_cache_key, system, ...rest } = head.recorded;
      const kept = Object.fromEntries(
        Object.entries(rest).filter(([key]) => COMPACT_FIELDS.has(key)),
      );
      return {
        head: {
          ...head,
          recorded: { model, ...kept, prompt_cache_key, system },
        },
        tail: [],
      };
    },
    leading: (head) => [head.recorded.system as ResponsesItem],
    // `input` starts with the system message (`leading`). The diagnosis
    // names the previous answer: in the body, never the head (the
    // recording would keep a new head every step).
    body: (head, items, extras) => {
      const { system: _system, ...fields } = head.recorded;
      const options = fields.prompt_cache_options as
        | Record<string, unknown>
        | undefined;
      const cacheOptions = extras.diagnostics === undefined ? options : {
        ...options,
        comparison_response_id: extras.diagnostics.previous,
      };
      return {
        ...fields,
        ...(cacheOptions === undefined
          ? {}
          : { prompt_cache_options: cacheOptions }),
        input: items,
      } as unknown as ResponsesConversationBody;
    },
  };
}

/**
 * The `additional_tools` item of a step's added tools: those neither the
 * tools block nor an earlier item declared; none when there are none.
 */
function additionalTools(
  changes: InlineToolChanges,
  declared: ReadonlySet<string>,
  strict: boolean,
): ResponsesItem | undefined {
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
 * Reads an answer the conversation owns (its JSON copy, `recordOf`; a
 * recording's, parsed): the history's items are taken from it, not copied.
 */
function readAnswer(
  response: unknown,
  other: (answer: unknown) => void,
): FormAnswer<ResponsesItem> {
  other(response);
  // responses.compact's answer: the user messages, then one compaction item.
  const compact = isObject(response) &&
    response.object === "response.compaction";
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
  let bound = false;
  for (const item of output) {
    if (!isObject(item) || typeof item.type !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The response's output holds an item without a type.`,
      );
    }
    // Sent back statelessly, it is withheld when its prefix changed.
    if (
      item.type === "reasoning" && typeof item.encrypted_content === "string"
    ) {
      bound = true;
    }
    if (item.type === "message" && item.role !== "assistant" && !compact) {
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
        ...(typeof item.namespace === "string"
          ? { namespace: item.namespace }
          : {}),
      });
    }
  }
  // The items before the latest compaction item are dropped.
  const compacted = compact
    ? 0
    : output.findLastIndex((item) => item.type === "compaction");
  return {
    messages: output,
    calls,
    usage: isObject(response) ? response.usage ?? null : null,
    bound,
    ...(compacted < 0 ? {} : { compactedFrom: compacted }),
  };
}

/** `serverCompaction`, checked: its `threshold` in input tokens. */
function readThreshold(value: unknown, form: string): number | undefined {
  if (value === undefined) return undefined;
  const threshold = isObject(value) ? value.threshold : undefined;
  if (
    typeof threshold === "number" && Number.isInteger(threshold) &&
    threshold > 0
  ) return threshold;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `${form}'s serverCompaction is ${
      quote(value)
    }; it must be { threshold: input tokens }.`,
  );
}
