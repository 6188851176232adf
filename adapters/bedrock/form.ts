/**
 * The Amazon Bedrock Converse form (issue 45, SPEC 10.5): the whole body of
 * each step of its conversation (`ConverseCommand` and
 * `ConverseStreamCommand` take the same input), the answer read back and
 * recognized, where its `cachePoint` blocks go, its usage and its cache
 * rules.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type {
  ConversationForm,
  FormBuilder,
  FormHead,
  TailInput,
} from "../../src/conversation/form.ts";
import type {
  MarkSites,
  PrefixItems,
  PrefixSites,
} from "../../src/conversation/marks.ts";
import { ItemsLayout } from "../../src/conversation/report_layout.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import {
  isObject,
  readLimit,
  readModel,
  REASONING_OMITTED,
} from "../_kit/form_options.ts";
import { parentCuts, textsOf } from "../_kit/content_blocks.ts";
import { prefixMarkLimit } from "../_kit/cache_option.ts";
import { BEDROCK_RULES } from "./rules.ts";
import { bedrockUsage } from "./usage.ts";
import {
  type ConverseCachePoint,
  converseRequest,
  toConverse,
} from "./converse.ts";
import {
  converseRecordOf,
  converseResponseOf,
  isConverseResponse,
  readConverseAnswer,
} from "./answer.ts";
import { CONVERSE_SIMULATION } from "./simulation.ts";
import type {
  ConverseBlock,
  ConverseConversationBody,
  ConverseMessage,
  ConverseResultContent,
} from "./conversation_types.ts";

const FORM = "converseConversation";
const MARKS = BEDROCK_RULES.marks!;

/** Blocks a cache point may not follow (the model's reasoning). */
const UNMARKABLE = new Set(["reasoningContent", "cachePoint"]);

/** Where the history's cache points go: after a message's last block. */
const SITES: MarkSites<ConverseMessage> = {
  leadingItems: 0,
  partCount: (message) => message.content.length,
  site: (message) => {
    const last = message.content.at(-1);
    return last === undefined || UNMARKABLE.has(Object.keys(last)[0])
      ? undefined
      : { field: "content", parts: message.content };
  },
  // A cache point is a block of its own, right after the one it ends.
  setMark: (parts, index, mark) => [
    ...parts.slice(0, index + 1),
    { cachePoint: mark },
    ...parts.slice(index + 1),
  ],
};

/** A head's tools and system texts, each with the cache point after it. */
function prefixEntries(
  head: Readonly<Record<string, unknown>>,
): { entry: Record<string, unknown>; point: unknown }[] {
  const config = head.toolConfig;
  const lists = [
    isObject(config) && Array.isArray(config.tools) ? config.tools : [],
    Array.isArray(head.system) ? head.system : [],
  ];
  const entries: { entry: Record<string, unknown>; point: unknown }[] = [];
  for (const list of lists) {
    for (const entry of list as Record<string, unknown>[]) {
      if (entry.cachePoint !== undefined && entries.length > 0) {
        entries[entries.length - 1].point = entry.cachePoint;
      } else entries.push({ entry, point: undefined });
    }
  }
  return entries;
}

/** `list` with a cache point after each entry of `marked` (by prefix index). */
function withPoints(
  list: readonly Record<string, unknown>[],
  first: number,
  points: readonly unknown[],
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  list.filter((entry) => entry.cachePoint === undefined).forEach(
    (entry, index) => {
      out.push(entry);
      const point = points[first + index];
      if (point !== undefined) out.push({ cachePoint: point });
    },
  );
  return out;
}

/** Where a fork's shared cache point goes: after a tool or a system block. */
const PREFIX: PrefixSites<FormHead> = {
  of: (head): PrefixItems => {
    const entries = prefixEntries(head);
    return {
      json: entries.map(({ entry }) => JSON.stringify(entry)),
      markable: entries.map(() => true),
      marked: entries.map(({ point }) => point !== undefined),
    };
  },
  withMarks: (head, marked, mark) => {
    const points = prefixEntries(head.recorded).map(({ point }, index) =>
      marked.has(index) ? point ?? { ...mark as object } : undefined
    );
    const { system, toolConfig } = head.recorded as {
      system: Record<string, unknown>[];
      toolConfig?: { tools: Record<string, unknown>[] };
    };
    const tools =
      toolConfig?.tools.filter((tool) => tool.cachePoint === undefined) ?? [];
    return {
      ...head,
      recorded: {
        ...head.recorded,
        ...(toolConfig === undefined
          ? {}
          : { toolConfig: { tools: withPoints(tools, 0, points) } }),
        system: withPoints(system, tools.length, points),
      },
    };
  },
};

/** The Bedrock Converse form. */
export const CONVERSE_FORM: ConversationForm<
  ConverseMessage,
  ConverseConversationBody
> = {
  id: "bedrock-converse",
  formerNames: ["bedrock"],
  title: "an Amazon Bedrock Converse",
  otelProvider: "aws.bedrock",
  functions: {
    start: FORM,
    resume: "resumeConverseConversation",
  },
  cache: {
    rules: [BEDROCK_RULES],
    rulesOf: () => BEDROCK_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "bedrock-converse",
      converseResponseOf(response),
      (read, reader) => bedrockUsage(read, reader, "bedrock-converse"),
    ),
  render: (assembly) => toConverse(assembly, { cache: true }),
  builder: (options) => builder(options as Record<string, unknown>),
  resumeOptions: (saved, given) => ({ ...saved, ...given }),
  personInput: (input) => readBlocks(input, "user()", { result: false }),
  resultContent: (content, id) =>
    readBlocks(content, `toolResult(${JSON.stringify(id)})`, { result: true }),
  recognizes: isConverseResponse,
  readAnswer: readConverseAnswer,
  recordOf: converseRecordOf,
  // No tool search of its own: the fixed search-and-call pair.
  deferredTools: "pair",
  marks: SITES,
  prefix: PREFIX,
  systemTexts: (head) =>
    textsOf(
      Array.isArray(head.system)
        ? head.system.filter((block) => !isObject(block) || !block.cachePoint)
        : head.system,
      (block) => block.text,
    ),
  layout: () =>
    new ItemsLayout({
      name: "messages",
      sites: SITES as MarkSites<unknown>,
    }),
  simulation: CONVERSE_SIMULATION,
  // No compaction in the API: a summary asked for in one user message.
  compaction: {
    by: "client",
    keepsTools: false,
    summary: (messages) =>
      messages.flatMap((message) =>
        message.role === "assistant"
          ? message.content.flatMap((block) =>
            "text" in block && typeof block.text === "string"
              ? [block.text]
              : []
          )
          : []
      ).join("\n\n"),
    // Converse refuses a user message after another: the instruction and
    // the summary as the model's answer (its text only).
    start: (instruction, summary) => [
      ...instruction,
      { role: "assistant", content: [{ text: summary }] },
    ],
    // The model's reasoning is signed against the prefix it was made on. A
    // turn of reasoning alone keeps its place, with a text saying so:
    // Converse refuses an empty turn, and two user turns in a row.
    unbound: (message) => {
      const content = message.content.filter((block) =>
        !("reasoningContent" in block)
      );
      if (content.length === message.content.length) return message;
      return {
        ...message,
        content: content.length === 0 ? [{ text: REASONING_OMITTED }] : content,
      };
    },
  },
};

/**
 * A person's input or a tool result's content, checked and copied: a
 * non-empty string is one text block; else a non-empty array of blocks,
 * each an object of one member (`{ text }`, `{ json }` in a result), none a
 * `toolResult` or `cachePoint` (the conversation places those).
 */
function readBlocks(
  input: unknown,
  what: string,
  { result }: { result: boolean },
): ConverseBlock[] | ConverseResultContent[] {
  if (typeof input === "string" && input !== "") return [{ text: input }];
  const invalid = (detail: string) =>
    new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `${what} takes a non-empty string or a non-empty array of Converse ` +
        `content blocks; ${detail}.`,
    );
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid(`got ${quote(input)}`);
  }
  for (const block of input) {
    const keys = isObject(block) ? Object.keys(block) : [];
    if (keys.length !== 1) {
      throw invalid("a block is not an object of one member ({ text }, ...)");
    }
    if (keys[0] === "cachePoint") {
      throw invalid("a cachePoint block; the conversation places the marks");
    }
    if (keys[0] === "toolResult" || (result && keys[0] === "toolUse")) {
      throw invalid(
        `a ${keys[0]} block; tool results go through toolResult(id, content)`,
      );
    }
  }
  return JSON.parse(JSON.stringify(input));
}

/** The options read and checked, and the conversation's requests. */
function builder(
  options: Record<string, unknown>,
): FormBuilder<ConverseMessage, ConverseConversationBody> {
  readModel(isObject(options) ? { model: "-" } : options, FORM);
  const { modelId } = options;
  if (typeof modelId !== "string" || modelId === "") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${FORM}'s modelId is ${quote(modelId)}; it must be the model's id ` +
        `(ConverseCommand's modelId, e.g. "anthropic.claude-sonnet-4-5").`,
    );
  }
  const maxTokens = readLimit(options.maxTokens, "maxTokens", FORM, {
    required: false,
  });
  const limit = prefixMarkLimit(options.maxCacheBreakpoints, BEDROCK_RULES);
  const saved: Record<string, unknown> = { modelId };
  if (maxTokens !== undefined) saved.maxTokens = maxTokens;
  if (options.maxCacheBreakpoints !== undefined) {
    saved.maxCacheBreakpoints = limit;
  }
  const markFor = (awaiting: "person" | "agent"): ConverseCachePoint =>
    awaiting === "person"
      ? { type: "default", ttl: MARKS.personTtl as "1h" }
      : { type: "default" };
  return {
    saved,
    rules: BEDROCK_RULES,
    // No form of its own for a change told inline yet (SPEC 10.1): the
    // system prompt and tools are rebuilt, as 0.4 did.
    changes: { sections: "rebuild", tools: "rebuild", output: "rebuild" },
    redefine: "inline",
    prefixLimit: limit,
    markFor,
    tail,
    head: (input) => {
      const { system, toolConfig } = converseRequest(input.assembly, {
        cache: input.awaiting === "person"
          ? { ttl: MARKS.personTtl as "1h" }
          : true,
        gating: "keep",
        maxCacheBreakpoints: input.prefixBudget,
      }, { keepToolsEnd: true });
      if (input.parentSystem !== undefined) {
        const texts = system.flatMap((block) => "text" in block ? [block] : []);
        parentCuts(texts.map((block) => block.text), input.parentSystem)
          .forEach((text, index) => texts[index].text = text);
      }
      return {
        recorded: {
          modelId,
          system,
          ...(toolConfig === undefined ? {} : { toolConfig }),
          ...(maxTokens === undefined
            ? {}
            : { inferenceConfig: { maxTokens } }),
        },
        state: {},
      };
    },
    body: (head, messages) =>
      ({ ...head.recorded, messages }) as unknown as ConverseConversationBody,
  };
}

/** A step's new user message: tool results, the person's blocks, the update. */
function tail(input: TailInput<ConverseMessage>): ConverseMessage[] {
  const content: ConverseBlock[] = [
    ...input.results.map((result): ConverseBlock => ({
      toolResult: {
        toolUseId: result.id,
        content: result.content as ConverseResultContent[],
        ...(result.isError ? { status: "error" as const } : {}),
      },
    })),
    ...input.person as ConverseBlock[],
    ...(input.update === undefined ? [] : [{ text: input.update }]),
  ];
  return content.length === 0 ? [] : [{ role: "user", content }];
}
