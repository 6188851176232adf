/**
 * What the Chat Completions and Responses conversations share: the
 * adapter options they pass through, their cache marks, a call's arguments.
 *
 * @module
 */

import { quote } from "../../src/errors.ts";
import { SystemPromptError } from "../../mod.ts";
import { isObject, parentCuts, textsOf } from "../_conversation_shared.ts";
import type { WireBuild } from "../../src/conversation/wire.ts";
import type { MarkSites, PrefixSites } from "../../src/conversation/marks.ts";
import { promptCacheKey } from "./cache_key.ts";
import { OPENAI_EXPLICIT_RULES } from "../../src/cache/simulator/rule_table.ts";

/** The lifetime of the marks of a request a person answers. */
export const PERSON_TTL = OPENAI_EXPLICIT_RULES.marks!.personTtl as "12h";
import type { ChatConversationOptions } from "./chat_conversation_types.ts";
import {
  type OpenAIOptions,
  type PromptCacheBreakpoint,
  readOpenAIOptions,
} from "./options.ts";

/** A call's arguments parsed, or the text as it came when it is not JSON. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The adapter options a conversation passes through, checked. */
export function adapterOptions(
  options: Record<string, unknown> | ChatConversationOptions,
  form: string,
): OpenAIOptions {
  const adapter: OpenAIOptions = {};
  for (
    const key of [
      "maxCacheBreakpoints",
      "breakpoints",
      "toolChoiceMode",
      "strict",
    ] as const
  ) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) (adapter as Record<string, unknown>)[key] = value;
  }
  readOpenAIOptions(adapter, form);
  return adapter;
}

/**
 * A step's prompt cache key (the one the conversation recorded first, then
 * the option, then one derived from the assembly) and the mark its ends get:
 * none without `cache`, 12 hours while a person is awaited.
 */
export function stepCache(
  input: WireBuild<unknown>,
  options: {
    cache: PromptCacheBreakpoint | undefined;
    key: string | undefined;
  },
): { key: string; mark: PromptCacheBreakpoint | undefined } {
  const key = typeof input.state.promptCacheKey === "string"
    ? input.state.promptCacheKey
    : options.key ?? promptCacheKey(input.assembly, { session: input.session });
  const mark: PromptCacheBreakpoint | undefined = options.cache === undefined
    ? undefined
    : input.awaiting === "person"
    ? { mode: "explicit", ttl: PERSON_TTL }
    : options.cache;
  return { key, mark };
}

/** The adapter options of a step: with its mark and key when it is cached. */
export function markedAdapter(
  adapter: OpenAIOptions,
  { key, mark }: { key: string; mark: PromptCacheBreakpoint | undefined },
): OpenAIOptions {
  return mark === undefined ? { ...adapter } : {
    ...adapter,
    cache: mark.ttl === undefined ? true : { ttl: mark.ttl },
    promptCacheKey: key,
  };
}

/**
 * The `promptCacheRetention` option, checked; saved in `saved` when given.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for any other value
 */
export function readRetention(
  value: unknown,
  form: string,
  saved: Record<string, unknown>,
): "24h" | undefined {
  if (value === undefined) return undefined;
  if (value !== "24h") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s promptCacheRetention is ${
        quote(value)
      }; it must be "24h" or absent.`,
    );
  }
  saved.promptCacheRetention = value;
  return value;
}

/** The body field of `promptCacheRetention`, on a request awaiting a person. */
export function retentionField(
  retention: "24h" | undefined,
  awaiting: string,
): { prompt_cache_retention?: "24h" } {
  return retention !== undefined && awaiting === "person"
    ? { prompt_cache_retention: retention }
    : {};
}

/** A system message whose content may be marked parts. */
interface SystemMessage {
  readonly role: "system";
  readonly content: unknown;
}

/** The texts of a head's system parts (Chat and Responses heads alike). */
export function openAISystemTexts(
  head: Readonly<Record<string, unknown>>,
): string[] {
  const system = head.system;
  return isObject(system) ? textsOf(system.content, (part) => part.text) : [];
}

/**
 * A fork's system message, its parts ended where its parent's ended
 * (`parentCuts`); as it is when it is one string, or not a fork's.
 */
export function forkSystem<S extends SystemMessage>(
  system: S,
  parent: readonly string[] | undefined,
): S {
  if (parent === undefined || !Array.isArray(system.content)) return system;
  const parts = system.content as { text: string }[];
  const texts = parentCuts(parts.map((part) => part.text), parent);
  return {
    ...system,
    content: parts.map((part, index) =>
      part.text === texts[index] ? part : { ...part, text: texts[index] }
    ),
  };
}

/** An OpenAI head's prefix: the system message with its tools. */
export interface OpenAIPrefix<S extends SystemMessage = SystemMessage> {
  readonly system: S;
  readonly tools: unknown;
}

/**
 * An OpenAI head's prefix (SPEC 9.8): its tools, which carry no mark, then
 * its system message's parts.
 */
export const OPENAI_PREFIX: PrefixSites<OpenAIPrefix> = {
  of: (head) => {
    const tools = Array.isArray(head.tools) ? head.tools : [];
    const system = head.system;
    const parts = isObject(system) && Array.isArray(system.content)
      ? system.content as Record<string, unknown>[]
      : [];
    return {
      json: [
        ...tools.map((tool) => JSON.stringify(tool)),
        ...parts.map((part) => {
          const { prompt_cache_breakpoint: _mark, ...rest } = part;
          return JSON.stringify(rest);
        }),
      ],
      markable: [...tools.map(() => false), ...parts.map(() => true)],
      marked: [
        ...tools.map(() => false),
        ...parts.map((part) => part.prompt_cache_breakpoint !== undefined),
      ],
    };
  },
  withMarks: (head, marked, mark) => {
    const count = Array.isArray(head.tools) ? head.tools.length : 0;
    const parts = head.system.content as Record<string, unknown>[];
    const same = parts.every((part, index) =>
      (part.prompt_cache_breakpoint !== undefined) ===
        marked.has(count + index)
    );
    if (same) return head;
    return {
      ...head,
      system: {
        ...head.system,
        content: parts.map((part, index) => {
          const { prompt_cache_breakpoint: own, ...rest } = part;
          return marked.has(count + index)
            ? { ...rest, prompt_cache_breakpoint: own ?? { ...mark as object } }
            : rest;
        }),
      },
    };
  },
};

/**
 * Where an OpenAI history carries marks: after the system message, on the
 * last part of an item the person or a tool wrote (`partsOf`), or of the
 * item before one that defers to it.
 */
export function openAISites<T>(
  partsOf: (
    item: T,
  ) => { field: string; parts: unknown[] } | "before" | undefined,
): MarkSites<T> {
  return {
    leadingItems: 1,
    partCount: (item) => {
      const found = partsOf(item);
      return typeof found === "object" ? found.parts.length : 0;
    },
    site: partsOf,
    setMark: (parts, index, mark) =>
      parts.map((part, at) =>
        at === index
          ? { ...part as object, prompt_cache_breakpoint: mark }
          : part
      ),
  };
}
