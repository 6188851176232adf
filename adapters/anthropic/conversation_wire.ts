/**
 * The Anthropic Messages conversation's wire: the whole body of each step,
 * and the answer read back.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import type { RecordingHeader } from "../../src/conversation/recording.ts";
import type { InlineToolChanges } from "../../src/conversation/tool_set.ts";
import type {
  ConversationWire,
  WireAnswer,
  WireBuild,
  WireBuilt,
} from "../../src/conversation/wire.ts";
import {
  copyBlocks,
  detectOtherProvider,
  historyToSend,
  isObject,
  parentCuts,
  readLimit,
  readModel,
  textsOf,
} from "../_conversation_shared.ts";
import { quote } from "../../src/errors.ts";
import { prefixMarkLimit } from "../_cache_option.ts";
import { ANTHROPIC_RULES } from "../../src/cache/simulator/rule_table.ts";
import {
  markBudget,
  markHistoryEnds,
  markSharedPrefix,
  type MarkSites,
  type PrefixSites,
} from "../../src/conversation/marks.ts";
import type {
  AnthropicConversationBody,
  AnthropicConversationOptions,
  AnthropicInlineConversationBody,
} from "./conversation_types.ts";
import {
  type MessagesCacheControl,
  type MessagesContentBlock,
  type MessagesInputBlock,
  type MessagesMessage,
  messagesRequest,
  type MessagesToolChangeBlock,
  type MessagesToolChangeMessage,
  toTool,
} from "./messages.ts";

/** The provider a recording of this form names in its header. */
export const PROVIDER = "anthropic-messages";

/** Reads the options and returns the wire. */
export function messagesWire(
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
  const limit = prefixMarkLimit(options.maxCacheBreakpoints, ANTHROPIC_RULES);
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
    systemTexts: (head) => textsOf(head.system, (block) => block.text),
    personInput: (input) =>
      copyBlocks(input, "user()", {
        allowString: true,
        forbid: ["tool_result"],
      }),
    // A string stays a string (its bytes as given); "" is refused as on
    // every form.
    resultContent: (content, id) =>
      typeof content === "string" && content !== ""
        ? content
        : copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
          allowString: true,
          forbid: ["tool_result"],
        }),
  };
}

/** Blocks that may carry `cache_control`. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

const MARKS = ANTHROPIC_RULES.marks!;

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
  const history = historyToSend(input.history, tail);
  const marker =
    (input.awaiting === "person"
      ? { type: "ephemeral", ttl: MARKS.personTtl }
      : { type: "ephemeral" }) as MessagesCacheControl;
  const { items: messages, marks } = markHistoryEnds(
    history,
    input.previousLength,
    marker,
    MARKS.lookbackBlocks,
    MESSAGES_SITES,
  );
  const budget = markBudget(MARKS.limit, marks.length, options.limit);
  const request = messagesRequest(input.assembly, {
    cache: input.awaiting === "person"
      ? { ttl: MARKS.personTtl as "1h" }
      : true,
    gating: "keep",
    maxCacheBreakpoints: budget.prefix,
    ...(options.breakpoints === undefined
      ? {}
      : { breakpoints: options.breakpoints }),
  }, { keepToolsEnd: true });
  let { system, tools } = request;
  if (input.parentSystem !== undefined) {
    const texts = parentCuts(
      system.map((block) => block.text),
      input.parentSystem,
    );
    texts.forEach((text, index) => system[index].text = text);
  }
  if (input.sharedWith !== undefined) {
    ({ system, tools } = markSharedPrefix(
      { live: { system, tools }, recorded: { system, tools } },
      input.sharedWith,
      marker,
      budget.fork,
      MESSAGES_PREFIX,
    ));
  }
  const head: Omit<AnthropicConversationBody, "messages"> = {
    model: options.model,
    max_tokens: options.max_tokens,
    system,
    ...(tools === undefined ? {} : { tools }),
  };
  const betas = options.inline ? { betas: [...INLINE_BETAS] } : {};
  // The diagnosis names the previous answer: in the body, never the head
  // (the recording would keep a new head every step).
  const diagnostics = input.diagnostics === undefined
    ? {}
    : { diagnostics: { previous_message_id: input.diagnostics.previous } };
  return {
    body: { ...head, messages, ...betas, ...diagnostics },
    tail,
    marks,
    head: { ...head, ...betas },
    state: {},
  };
}

type Prefix = Pick<AnthropicConversationBody, "system" | "tools">;

/** Where a Messages history carries marks: the last block of a message. */
const MESSAGES_SITES: MarkSites<MessagesMessage> = {
  leadingItems: 0,
  partCount: (message) => message.content.length,
  site: (message) => {
    const last = message.content.at(-1);
    return last === undefined || UNMARKABLE.has(last.type)
      ? undefined
      : { field: "content", parts: message.content };
  },
  setMark: (parts, index, mark) =>
    parts.map((part, at) =>
      at === index ? { ...part as object, cache_control: mark } : part
    ),
};

/** A Messages head's prefix: its tools, then its system blocks. */
const MESSAGES_PREFIX: PrefixSites<Prefix> = {
  of: (head) => {
    const items = [
      ...(Array.isArray(head.tools) ? head.tools : []),
      ...(Array.isArray(head.system) ? head.system : []),
    ] as Record<string, unknown>[];
    return {
      json: items.map((item) => {
        const { cache_control: _mark, ...rest } = item;
        return JSON.stringify(rest);
      }),
      markable: items.map(() => true),
      marked: items.map((item) => item.cache_control !== undefined),
    };
  },
  withMarks: ({ system, tools }, marked, mark) => {
    const count = tools?.length ?? 0;
    const marking = <T extends { cache_control?: unknown }>(
      item: T,
      index: number,
    ): T => {
      if (!marked.has(index)) {
        const { cache_control: _mark, ...rest } = item;
        return rest as T;
      }
      return item.cache_control === undefined
        ? { ...item, cache_control: { ...mark as object } }
        : item;
    };
    return {
      system: system.map((block, index) => marking(block, count + index)),
      ...(tools === undefined ? {} : { tools: tools.map(marking) }),
    } as Prefix;
  },
};

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
