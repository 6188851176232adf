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
  WireMark,
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
import { sharedEnd, withSharedMark } from "../../src/render/prefix_marks.ts";
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
  // The previous request's last block, when this step adds more than the
  // API looks back over.
  let added = 0;
  for (let index = input.previousLength; index < history.length; index++) {
    added += history[index].content.length;
  }
  const ends = [history.length - 1];
  if (input.previousLength > 0 && added > MARKS.lookbackBlocks) {
    ends.unshift(input.previousLength - 1);
  }
  const marker =
    (input.awaiting === "person"
      ? { type: "ephemeral", ttl: MARKS.personTtl }
      : { type: "ephemeral" }) as MessagesCacheControl;
  // `historyToSend` made a new list: marks replace its messages in place.
  const messages = history;
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
  const { system, tools } = messagesRequest(input.assembly, {
    cache: input.awaiting === "person"
      ? { ttl: MARKS.personTtl as "1h" }
      : true,
    gating: "keep",
    maxCacheBreakpoints: Math.min(options.limit, MARKS.limit! - marks.length),
    ...(options.breakpoints === undefined
      ? {}
      : { breakpoints: options.breakpoints }),
  }, { keepToolsEnd: true });
  if (input.parentSystem !== undefined) {
    const texts = parentCuts(
      system.map((block) => block.text),
      input.parentSystem,
    );
    texts.forEach((text, index) => system[index].text = text);
  }
  if (input.sharedWith !== undefined) {
    markSharedPrefix([...tools ?? [], ...system], input.sharedWith, {
      marker,
      limit: MARKS.limit! - marks.length,
    });
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
  const marked = items.flatMap((item, index) =>
    item.cache_control === undefined ? [] : [index]
  );
  const kept = new Set(
    withSharedMark(
      marked,
      sharedEnd(items.map(unmarkedJson), before.map(unmarkedJson)),
      limit,
    ),
  );
  items.forEach((item, index) => {
    if (!kept.has(index)) delete item.cache_control;
    else item.cache_control ??= { ...marker };
  });
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
