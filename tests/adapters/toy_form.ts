/**
 * A provider form that does not exist (issue 45, ARCHITECTURE.md's
 * "Adding a provider form"), written as a new one would be: its rules
 * (`rules.ts`, `body.ts`), its usage (`usage.ts`), its light form
 * (`form.ts`), its start and resume functions (`conversation.ts`), and
 * one row: the package's table with it (`formTable([...FORMS, TOY_FORM])`).
 * Nothing of src/ or of the package's forms changes for it.
 *
 * The Toy Chat API: a body `{ model, tools?, system, items }`, each item a
 * person's, the model's or a tool result's parts; a part or a tool may
 * carry `mark: { ttl: "short" | "long" }`, two per request, a read
 * looking back 2 blocks from a mark. An answer is
 * `{ object: "toy.reply", reply: { parts, calls? }, usage }`.
 */
import { renderPrompt, SystemPromptError } from "../../mod.ts";
import type { PromptAssembly } from "../../mod.ts";
import type {
  Block,
  Marker,
  ParsedBody,
} from "../../src/cache/simulator/blocks.ts";
import { bodyError, isRecord, kind } from "../../src/cache/simulator/blocks.ts";
import type { ProviderRules } from "../../src/cache/simulator/rules.ts";
import {
  readUsageWith,
  usageObject,
} from "../../src/cache/report/usage_reader.ts";
import type {
  ConversationForm,
  FormBuilder,
} from "../../src/conversation/form.ts";
import type { MarkSites } from "../../src/conversation/marks.ts";
import { ItemsLayout } from "../../src/conversation/report_layout.ts";
import { copy } from "../../src/conversation/checks.ts";
import {
  resumeConversation,
  startConversation,
} from "../../src/conversation/start.ts";
import type {
  Conversation,
  ConversationPrompt,
} from "../../src/conversation/types.ts";
import { readChanges, readModel } from "../../adapters/_kit/form_options.ts";
import { changeText } from "../../src/conversation/system_changes.ts";
import { prefixMarkLimit } from "../../adapters/_kit/cache_option.ts";
import { FORMS, formTable } from "../../adapters/forms.ts";

// --- rules.ts and body.ts ---------------------------------------------

/** A Toy Chat mark. */
export interface ToyMark {
  readonly ttl: "short" | "long";
}

/** A part of a system prompt or an item. */
export interface ToyPart {
  readonly text: string;
  readonly mark?: ToyMark;
}

/** A tool as the body lists it. */
export interface ToyTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  readonly mark?: ToyMark;
}

/** One item of the history. */
export type ToyItem =
  | { readonly role: "person"; readonly parts: ToyPart[] }
  | {
    readonly role: "model";
    readonly parts: ToyPart[];
    readonly calls?: { id: string; tool: string; args: unknown }[];
  }
  | {
    readonly role: "result";
    readonly call: string;
    readonly parts: ToyPart[];
    readonly error?: true;
  };

/** A Toy Chat request body. */
export interface ToyBody {
  readonly model: string;
  readonly tools?: ToyTool[];
  readonly system: ToyPart[];
  readonly items: ToyItem[];
}

const MINUTE = 60_000;

const TTL: Readonly<Record<ToyMark["ttl"], Marker>> = {
  short: { ttl: 5 * MINUTE, writePrice: 1.25, label: "short" },
  long: { ttl: 60 * MINUTE, writePrice: 2, label: "long" },
};

const EXPECTED = "expected a Toy Chat body { model, tools?, system, items }";

/** A mark as a marker (`undefined` for none). */
function markerOf(mark: unknown, where: string): Marker | undefined {
  if (mark === undefined) return undefined;
  if (!isRecord(mark) || (mark.ttl !== "short" && mark.ttl !== "long")) {
    throw bodyError(`${where}.mark is not { ttl: "short" | "long" }`);
  }
  return TTL[mark.ttl];
}

/** A part's parts as blocks of `part`, keyed by `role`. */
function partBlocks(
  parts: unknown,
  where: string,
  id: (index: number) => string,
  part: Block["part"],
  role: string,
): Block[] {
  if (!Array.isArray(parts)) {
    throw bodyError(`${where} is ${kind(parts)}; expected an array of parts`);
  }
  return parts.map((entry, index) => {
    const at = `${where}[${index}]`;
    if (!isRecord(entry) || typeof entry.text !== "string") {
      throw bodyError(`${at} is not { text, mark? }`);
    }
    return {
      id: id(index),
      part,
      key: `${role}\u0000${entry.text}`,
      text: entry.text,
      marker: markerOf(entry.mark, at),
    };
  });
}

/**
 * A Toy Chat body as blocks: tools, system parts, then each item's parts
 * (a model item's calls one block each, after its parts).
 */
export function toyBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${EXPECTED}`);
  }
  const blocks: Block[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) {
      throw bodyError(`tools is ${kind(body.tools)}; ${EXPECTED}`);
    }
    body.tools.forEach((tool, index) => {
      if (!isRecord(tool) || typeof tool.name !== "string") {
        throw bodyError(`tools[${index}] is not { name, ... }`);
      }
      const { mark, ...rest } = tool;
      const json = JSON.stringify(rest);
      blocks.push({
        id: `tool:${tool.name}`,
        part: "tools",
        key: json,
        text: json,
        marker: markerOf(mark, `tools[${index}]`),
      });
    });
  }
  blocks.push(
    ...partBlocks(body.system, "system", (i) => `system:${i}`, "system", ""),
  );
  if (!Array.isArray(body.items)) {
    throw bodyError(`items is ${kind(body.items)}; ${EXPECTED}`);
  }
  body.items.forEach((item, index) => {
    const where = `items[${index}]`;
    if (!isRecord(item) || typeof item.role !== "string") {
      throw bodyError(`${where} is not { role, parts }`);
    }
    const role = item.role === "result"
      ? `result ${String(item.call)}${item.error === true ? " error" : ""}`
      : item.role;
    blocks.push(
      ...partBlocks(
        item.parts,
        `${where}.parts`,
        (part) => `message:${index}.${part}`,
        "messages",
        role,
      ),
    );
    if (Array.isArray(item.calls)) {
      item.calls.forEach((call, at) => {
        const json = JSON.stringify(call);
        blocks.push({
          id: `message:${index}.call${at}`,
          part: "messages",
          key: `${role}\u0000${json}`,
          text: json,
        });
      });
    }
  });
  return { blocks, explicitMode: false };
}

/** Toy Chat's cache: marks, two per request, a read looking back 2 blocks. */
export const TOY_RULES: ProviderRules = {
  id: "toy",
  reads: "marks",
  marks: {
    name: "mark",
    order: "(tools, then system, then items)",
    limit: 2,
    prefix: { default: 1, max: 2 },
    onTools: true,
    lookbackBlocks: 2,
    minimumOf: "prefix",
    ttls: [TTL.short, TTL.long],
    ttlsNonIncreasing: true,
    personTtl: "long",
  },
  minPrefixTokens: 8,
  readPrice: 0.1,
  readBody: toyBody,
  claimsBody: (body) => Array.isArray(body.items),
};

// --- usage.ts ---------------------------------------------------------

/** What Toy Chat reports: `usage: { input, cached, written }`. */
function readToyUsage(response: unknown) {
  return readUsageWith("toy-chat", response, (answer, reader) => {
    const result = {
      source: "toy-chat",
      diagnosis: { status: "none" as const },
    };
    const usage = usageObject(answer, "usage", reader);
    if (usage === undefined) return result;
    return {
      ...result,
      inputTokens: reader.count(usage, "input", "usage.input"),
      cacheReadTokens: reader.count(usage, "cached", "usage.cached"),
      cacheWriteTokens: reader.count(usage, "written", "usage.written"),
    };
  });
}

// --- form.ts ----------------------------------------------------------

/** The options of `toyConversation`. */
export interface ToyOptions {
  readonly model: string;
  /** Marks the tools and system may take (0 to 2, default 1). */
  readonly maxMarks?: number;
  readonly session?: string;
  readonly awaiting?: "person" | "agent";
  readonly onRecord?: (line: string) => void;
  readonly clock?: () => number;
}

/** A part list as the form keeps it (plain text parts). */
function partsOf(value: unknown, what: string): ToyPart[] {
  if (typeof value === "string" && value !== "") return [{ text: value }];
  if (
    Array.isArray(value) && value.length > 0 &&
    value.every((part) => isRecord(part) && typeof part.text === "string")
  ) {
    return value.map((part) => ({ text: (part as ToyPart).text }));
  }
  throw new SystemPromptError(
    "INVALID_CONVERSATION_INPUT",
    `${what} takes a non-empty string or [{ text }].`,
  );
}

/** The head's tools and system, marked within `budget`. */
function headOf(
  assembly: PromptAssembly,
  model: string,
  mark: ToyMark,
  budget: number,
): Record<string, unknown> {
  const tools: ToyTool[] = assembly.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
  const system: ToyPart[] = [{ text: renderPrompt(assembly) }];
  // The system part first, then the last tool.
  if (budget >= 1) system[0] = { ...system[0], mark };
  if (budget >= 2 && tools.length > 0) {
    tools[tools.length - 1] = { ...tools[tools.length - 1], mark };
  }
  return { model, ...(tools.length === 0 ? {} : { tools }), system };
}

function builder(options: Record<string, unknown>): FormBuilder<
  ToyItem,
  ToyBody
> {
  const model = readModel(options, "toyConversation");
  const prefixLimit = prefixMarkLimit(options.maxMarks, TOY_RULES);
  const markFor = (awaiting: "person" | "agent"): ToyMark => ({
    ttl: awaiting === "person" ? "long" : "short",
  });
  return {
    saved: {
      model,
      ...(options.maxMarks === undefined ? {} : { maxMarks: prefixLimit }),
    },
    rules: TOY_RULES,
    changes: readChanges(options, "toyConversation", { inlineTools: false })
      .resolved,
    redefine: "inline",
    prefixLimit,
    markFor,
    tail: (input) => {
      const tail: ToyItem[] = input.results.map((result) => ({
        role: "result",
        call: result.id,
        parts: result.content as ToyPart[],
        ...(result.isError ? { error: true as const } : {}),
      }));
      if (input.person.length > 0) {
        tail.push({ role: "person", parts: input.person as ToyPart[] });
      }
      if (input.update !== undefined) {
        tail.push({ role: "person", parts: [{ text: input.update }] });
      }
      // A section changed after the first request: told, the head kept.
      if (input.sectionChanges !== undefined) {
        tail.push({
          role: "person",
          parts: input.sectionChanges.map((change) => ({
            text: changeText(change),
          })),
        });
      }
      return tail;
    },
    head: (input) => ({
      recorded: headOf(
        input.assembly,
        model,
        markFor(input.awaiting),
        input.prefixBudget,
      ),
      state: {},
    }),
    body: (head, items) => ({ ...head.recorded, items }) as unknown as ToyBody,
  };
}

const SITES: MarkSites<ToyItem> = {
  leadingItems: 0,
  partCount: (item) =>
    item.parts.length + (item.role === "model" ? item.calls?.length ?? 0 : 0),
  site: (item) =>
    item.role === "model" ? undefined : { field: "parts", parts: item.parts },
  setMark: (parts, index, mark) =>
    parts.map((part, at) => at === index ? { ...part as object, mark } : part),
};

/** The Toy Chat form. */
export const TOY_FORM: ConversationForm<ToyItem, ToyBody> = {
  id: "toy-chat",
  formerNames: [],
  title: "a Toy Chat",
  otelProvider: "toy",
  functions: { start: "toyConversation", resume: "resumeToyConversation" },
  cache: {
    rules: [TOY_RULES],
    rulesOf: () => TOY_RULES,
    liveBodyIsWire: true,
  },
  readUsage: readToyUsage,
  render: (assembly) => headOf(assembly, "toy-1", { ttl: "short" }, 1),
  builder: (options) => builder(options as Record<string, unknown>),
  resumeOptions: (saved, given) => ({ ...saved, ...given }),
  personInput: (input) => partsOf(input, "user()"),
  resultContent: (content, id) =>
    partsOf(content, `toolResult(${JSON.stringify(id)})`),
  recognizes: (answer) => answer.object === "toy.reply",
  readAnswer: (answer, other) => {
    other(answer);
    const reply = isRecord(answer) ? answer.reply : undefined;
    if (
      !isRecord(answer) || answer.object !== "toy.reply" || !isRecord(reply)
    ) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `record() takes a Toy Chat reply { object: "toy.reply", reply }.`,
      );
    }
    const calls = Array.isArray(reply.calls) ? reply.calls : [];
    const item = copy({
      role: "model",
      parts: partsOf(reply.parts, "the reply's parts"),
      ...(calls.length === 0 ? {} : { calls }),
    }) as ToyItem;
    return {
      messages: [item],
      calls: calls.map((call) => ({
        id: String(call.id),
        name: String(call.tool),
        input: call.args,
      })),
      usage: answer.usage ?? null,
    };
  },
  recordOf: copy,
  marks: SITES,
  systemTexts: (head) =>
    Array.isArray(head.system)
      ? head.system.map((part: ToyPart) => part.text)
      : [],
  layout: () =>
    new ItemsLayout({ name: "items", sites: SITES as MarkSites<unknown> }),
};

// --- the row, and conversation.ts ----------------------------------------

/** The package's table with the Toy Chat row. */
export const TOY_TABLE = formTable([...FORMS, TOY_FORM]);

/** A Toy Chat conversation's answer and inputs. */
export type ToyConversation = Conversation<
  ToyBody,
  unknown,
  string | ToyPart[],
  string | ToyPart[],
  ToyItem
>;

/** A new Toy Chat conversation. */
export function toyConversation(
  prompt: ConversationPrompt,
  options: ToyOptions,
): ToyConversation {
  return startConversation(TOY_FORM, prompt, options, TOY_TABLE.context);
}

/** A Toy Chat conversation resumed from its recording. */
export function resumeToyConversation(
  prompt: ConversationPrompt,
  recording: string,
  options?: Partial<ToyOptions>,
): ToyConversation {
  return resumeConversation(
    TOY_FORM,
    prompt,
    recording,
    options,
    TOY_TABLE.context,
  );
}

/** The model's Toy Chat reply: `text`, calling `calls`. */
export function toyReply(
  text: string,
  calls: readonly { id: string; tool: string; args?: unknown }[] = [],
  usage = { input: 0, cached: 0, written: 0 },
): Record<string, unknown> {
  return {
    object: "toy.reply",
    reply: {
      parts: [{ text }],
      ...(calls.length === 0
        ? {}
        : { calls: calls.map((call) => ({ args: {}, ...call })) }),
    },
    usage,
  };
}
