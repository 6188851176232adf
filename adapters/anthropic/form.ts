/**
 * The Anthropic Messages form (issue 45): the whole body of each step of
 * its conversation, the answer read back and recognized, where its marks
 * go, its usage and its cache rules.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import type {
  ConversationForm,
  FormAnswer,
  FormBuilder,
  FormHead,
  TailInput,
} from "../../src/conversation/form.ts";
import type { MarkSites, PrefixSites } from "../../src/conversation/marks.ts";
import { ItemsLayout } from "../../src/conversation/report_layout.ts";
import { copyAnswer } from "../../src/conversation/checks.ts";
import {
  answerText,
  isObject,
  readChanges,
  readLimit,
  readModel,
  withoutParts,
} from "../_kit/form_options.ts";
import { changeText } from "../../src/conversation/system_changes.ts";
import {
  compactionBetas,
  compactionHead,
  readServerCompaction,
  serverCompactionFields,
  viaRefused,
} from "./compaction.ts";
import { copyBlocks, parentCuts, textsOf } from "../_kit/content_blocks.ts";
import { prefixMarkLimit } from "../_kit/cache_option.ts";
import { ANTHROPIC_RULES } from "./rules.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import { anthropicUsage } from "./usage.ts";
import { MESSAGES_SIMULATION } from "./simulation.ts";
import {
  markableTool,
  readToolSearch,
  SEARCH_BLOCKS,
  withDeferredTools,
} from "./deferred.ts";
import type {
  AnthropicConversationBody,
  AnthropicConversationOptions,
  AnthropicInlineConversationBody,
} from "./conversation_types.ts";
import {
  messagesRequest,
  type MessagesTextBlock,
  toMessages,
} from "./messages.ts";
import { toolChangeBlocks } from "./tool_changes.ts";
import type {
  MessagesContentBlock,
  MessagesInputBlock,
  MessagesMessage,
  MessagesReminderMessage,
  MessagesSystemMessage,
  MessagesToolChangeBlock,
  MessagesToolChangeMessage,
} from "./message_types.ts";
import { readThinking } from "./thinking.ts";

type Body = AnthropicConversationBody | AnthropicInlineConversationBody;

const MARKS = ANTHROPIC_RULES.marks!;

/** Blocks that never carry `cache_control`. */
const UNMARKABLE = new Set([
  "thinking",
  "redacted_thinking",
  ...SEARCH_BLOCKS,
]);

/** Thinking, bound to the prefix it was produced under. */
const BOUND = new Set(["thinking", "redacted_thinking"]);

/** The betas of mid-conversation tool changes (SPEC 9.8). */
const INLINE_BETAS = [
  "mid-conversation-tool-changes-2026-07-01",
  "inline-tools-2026-09-15",
] as const;

/** The beta of a system message's `clear_at` (a turn's reminder). */
const CLEAR_AT_BETA = "mid-conversation-system-clear-at-2026-08-21";

/** The beta of a system message's `output_config` (a new effort). */
const OUTPUT_BETA = "mid-conversation-output-config-2026-07-01";

/** The Anthropic Messages form. */
export const MESSAGES_FORM: ConversationForm<MessagesMessage, Body> = {
  id: "anthropic-messages",
  formerNames: ["anthropic"],
  title: "an Anthropic Messages",
  otelProvider: "anthropic",
  functions: {
    start: "anthropicConversation",
    resume: "resumeAnthropicConversation",
  },
  cache: {
    rules: [ANTHROPIC_RULES],
    rulesOf: () => ANTHROPIC_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "anthropic-messages",
      response,
      (read, reader) => anthropicUsage(read, reader, "anthropic-messages"),
    ),
  render: (assembly) => toMessages(assembly, { cache: true }),
  builder: (options) => builder(options as AnthropicConversationOptions),
  resumeOptions: (saved, given) => {
    if (saved.toolChanges === "inline" && given?.toolChanges !== "inline") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `The recording is of a conversation with toolChanges "inline"; ` +
          `resume it with { toolChanges: "inline" } (its bodies go to ` +
          `client.beta.messages.create).`,
      );
    }
    return { ...saved, ...given };
  },
  personInput: (input) =>
    copyBlocks(input, "user()", { allowString: true, forbid: ["tool_result"] }),
  // A string stays a string (its bytes as given); "" is refused as on
  // every form.
  resultContent: (content, id) =>
    typeof content === "string" && content !== ""
      ? content
      : copyBlocks(content, `toolResult(${JSON.stringify(id)})`, {
        allowString: true,
        forbid: ["tool_result"],
      }),
  recognizes: (answer) =>
    answer.type === "message" && Array.isArray(answer.content),
  readAnswer,
  recordOf: copyAnswer,
  readsRecord: true,
  systemTexts: (head) => textsOf(head.system, (block) => block.text),
  layout: () =>
    new ItemsLayout({
      name: "messages",
      sites: MESSAGES_FORM.marks as MarkSites<unknown>,
    }),
  simulation: MESSAGES_SIMULATION,
  deferredTools: "native",
  // On-demand compaction; its block carries the tool changes of the range.
  compaction: {
    by: "provider",
    keepsTools: true,
    // `via: "summary"`: a client-side summary, the answer's text.
    summary: answerText,
    // A turn of thinking alone is left out: the API joins the user turns
    // on either side of it into one (it combines consecutive user turns).
    unbound: (message) => withoutParts(message, UNMARKABLE),
  },
  marks: {
    leadingItems: 0,
    partCount: (message) => message.content.length,
    site: (message) => {
      // A reminder leaves the prompt after its turn: a mark on it is never
      // read again; the one before it is.
      // An effort alone has no block to mark either.
      if (
        (message as { clear_at?: unknown }).clear_at === "next_user_message" ||
        message.content.length === 0
      ) {
        return "before";
      }
      const last = message.content.at(-1);
      return last === undefined || UNMARKABLE.has(last.type)
        ? undefined
        : { field: "content", parts: message.content };
    },
    setMark: (parts, index, mark) =>
      parts.map((part, at) =>
        at === index ? { ...part as object, cache_control: mark } : part
      ),
  } satisfies MarkSites<MessagesMessage>,
  prefix: {
    of: (head) => {
      const items = prefixItems(head);
      return {
        json: items.map((item) => {
          const { cache_control: _mark, ...rest } = item;
          return JSON.stringify(rest);
        }),
        markable: items.map(markableTool),
        marked: items.map((item) => item.cache_control !== undefined),
      };
    },
    withMarks: (head, marked, mark) => {
      const { system, tools } = head.recorded as Pick<Body, "system" | "tools">;
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
        ...head,
        recorded: {
          ...head.recorded,
          system: system.map((block, index) => marking(block, count + index)),
          ...(tools === undefined ? {} : {
            tools: (tools as { cache_control?: unknown }[]).map(marking),
          }),
        },
      };
    },
  } satisfies PrefixSites<FormHead>,
};

/** A head's tools, then its system blocks. */
function prefixItems(
  head: Readonly<Record<string, unknown>>,
): Record<string, unknown>[] {
  return [
    ...(Array.isArray(head.tools) ? head.tools : []),
    ...(Array.isArray(head.system) ? head.system : []),
  ] as Record<string, unknown>[];
}

/** The options read and checked, and the conversation's requests. */
function builder(
  options: AnthropicConversationOptions,
): FormBuilder<MessagesMessage, Body> {
  const form = "anthropicConversation";
  const model = readModel(options, form);
  const max_tokens = readLimit(options.max_tokens, "max_tokens", form, {
    required: true,
  })!;
  const limit = prefixMarkLimit(options.maxCacheBreakpoints, ANTHROPIC_RULES);
  const breakpoints = options.breakpoints;
  const saved: Record<string, unknown> = { model, max_tokens };
  if (breakpoints !== undefined) saved.breakpoints = breakpoints;
  if (options.maxCacheBreakpoints !== undefined) {
    saved.maxCacheBreakpoints = limit;
  }
  const changes = readChanges(
    options as unknown as Record<string, unknown>,
    form,
    { inlineTools: true, inlineOutput: true },
  );
  Object.assign(saved, changes.saved);
  const toolSearch = readToolSearch(options.toolSearch, form);
  if (options.toolSearch !== undefined) saved.toolSearch = toolSearch;
  const server = readServerCompaction(options.serverCompaction, form);
  if (server !== undefined) saved.serverCompaction = server;
  const thinking = readThinking(options, form);
  if (thinking !== undefined) saved.thinking = thinking.sent;
  // Threshold compaction's and block binding's betas, from the first request.
  const headBetas = [...server?.betas ?? [], ...thinking?.betas ?? []];
  return {
    saved,
    rules: ANTHROPIC_RULES,
    changes: changes.resolved,
    turnReminders: true,
    output: true,
    ...(toolSearch === "pair" ? { deferredTools: "pair" as const } : {}),
    redefine: "inline",
    prefixLimit: limit,
    markFor: (awaiting) =>
      awaiting === "person"
        ? { type: "ephemeral", ttl: MARKS.personTtl }
        : { type: "ephemeral" },
    tail,
    head: (input) => {
      // From the first tool change sent inline on (from the first request
      // when the options ask for inline), every body: the history holds it.
      const toolBetas = changes.resolved.tools === "inline" ||
        input.state.toolBetas === true ||
        (input.toolChanges !== undefined &&
          (input.toolChanges.added.length > 0 ||
            input.toolChanges.removed.length > 0));
      const clearAt = input.state.clearAtBeta === true ||
        input.reminder !== undefined;
      const outputBeta = input.state.outputBeta === true ||
        input.effortChange !== undefined;
      const betas = [
        ...(toolBetas ? INLINE_BETAS : []),
        ...(clearAt ? [CLEAR_AT_BETA] : []),
        ...(outputBeta ? [OUTPUT_BETA] : []),
        ...headBetas,
      ];
      const state = {
        ...(toolBetas && changes.resolved.tools !== "inline"
          ? { toolBetas: true }
          : {}),
        ...(clearAt ? { clearAtBeta: true } : {}),
        ...(outputBeta ? { outputBeta: true } : {}),
      };
      const { system, tools } = messagesRequest(input.assembly, {
        cache: input.awaiting === "person"
          ? { ttl: MARKS.personTtl as "1h" }
          : true,
        gating: "keep",
        maxCacheBreakpoints: input.prefixBudget,
        ...(breakpoints === undefined ? {} : { breakpoints }),
      }, { keepToolsEnd: true });
      if (input.parentSystem !== undefined) {
        const texts = parentCuts(
          system.map((block) => block.text),
          input.parentSystem,
        );
        texts.forEach((text, index) => system[index].text = text);
      }
      // With the pair, the conversation lists it among the tools.
      const sent = toolSearch === "pair"
        ? tools
        : withDeferredTools(tools, input.assembly, toolSearch);
      return {
        recorded: {
          model,
          max_tokens,
          ...(thinking === undefined ? {} : { thinking: thinking.sent }),
          system,
          ...(sent === undefined ? {} : { tools: sent }),
          // The first request's effort: never changed by an inline one.
          ...(input.effort === undefined
            ? {}
            : { output_config: { effort: input.effort } }),
          ...serverCompactionFields(server),
          ...(betas.length > 0 ? { betas } : {}),
        },
        state,
      };
    },
    compaction: (head, asked) => {
      if (asked.via !== undefined) throw viaRefused(asked.via);
      return { head: compactionHead(head, asked.instructions), tail: [] };
    },
    // The diagnosis names the previous answer: in the body, never the head
    // (the recording would keep a new head every step).
    body: (head, messages, extras) => {
      const { betas: own, ...rest } = head.recorded;
      const betas = compactionBetas(own as string[] | undefined, messages);
      return {
        ...rest,
        messages,
        ...(betas === undefined ? {} : { betas }),
        ...(extras.diagnostics === undefined ? {} : {
          diagnostics: { previous_message_id: extras.diagnostics.previous },
        }),
      } as unknown as Body;
    },
  };
}

/**
 * A step's new user message (results, person, update), then one system
 * message telling the model what changed: sections, then tools.
 */
function tail(input: TailInput<MessagesMessage>): MessagesMessage[] {
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
  const messages: MessagesMessage[] = content.length === 0
    ? []
    : [{ role: "user", content }];
  const sections: MessagesTextBlock[] = (input.sectionChanges ?? []).map((
    change,
  ) => ({ type: "text", text: changeText(change) }));
  const changes = input.toolChanges;
  const tools = changes === undefined ? [] : toolChangeBlocks(changes);
  if (sections.length > 0 || tools.length > 0 || input.effort !== undefined) {
    // After the tool results, as the SDK's own BetaToolRunner sends them;
    // text only: the generally available mid-conversation system message;
    // a new effort: its output_config (empty content is allowed with it).
    const message: MessagesToolChangeMessage | MessagesSystemMessage = {
      role: "system",
      content: [...sections, ...tools] as MessagesToolChangeBlock[],
      ...(input.effort === undefined ? {} : {
        output_config: {
          effort: input.effort as NonNullable<
            MessagesToolChangeMessage["output_config"]
          >["effort"],
        },
      }),
    };
    messages.push(message as unknown as MessagesMessage);
  }
  if (input.reminder !== undefined) {
    // Last, shown for this turn only (SPEC 10.1); a cleared copy stays.
    const reminder: MessagesReminderMessage = {
      role: "system",
      clear_at: "next_user_message",
      content: [{ type: "text", text: input.reminder }],
    };
    messages.push(reminder as unknown as MessagesMessage);
  }
  return messages;
}

/**
 * Reads an answer the conversation owns (its JSON copy, `recordOf`; a
 * recording's, parsed): the history's items are taken from it, not copied.
 */
function readAnswer(
  response: unknown,
  other: (answer: unknown) => void,
): FormAnswer<MessagesMessage> {
  other(response);
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
  let bound = false;
  for (const block of response.content as unknown[]) {
    if (!isObject(block) || typeof block.type !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The message's content holds a block without a type; every block ` +
          `is an object with a string type.`,
      );
    }
    if (BOUND.has(block.type)) bound = true;
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
  const content = response.content;
  // A compaction block (on demand, or the threshold's inside a step) is the
  // answer's first: the history starts at this message.
  const compacted = content.some((block: { type: string }) =>
    block.type === "compaction"
  );
  return {
    messages: [{ role: "assistant", content }],
    calls,
    usage: response.usage ?? null,
    bound,
    ...(compacted
      ? { compactedFrom: 0, paused: response.stop_reason === "compaction" }
      : {}),
  };
}
