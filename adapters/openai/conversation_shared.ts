/**
 * What the Chat Completions and Responses conversations share: the
 * adapter options they pass through, their cache marks, a call's arguments.
 *
 * @module
 */

import { quote } from "../../src/errors.ts";
import { SystemPromptError } from "../../mod.ts";
import { isObject, parentCuts, textsOf } from "../_conversation_shared.ts";
import { sharedEnd, withSharedMark } from "../../src/render/prefix_marks.ts";
import type { WireBuild, WireMark } from "../../src/conversation/wire.ts";
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
 * The OpenAI forms' marks: on the last item and on the previous request's
 * end, each on the last part of `partsOf(item)` (items the model wrote
 * carry none; `"before"`: the mark goes on the item before). Returns the
 * marked copy and where the marks went.
 */
export function markOpenAIEnds<T>(
  history: readonly T[],
  previousLength: number,
  mark: PromptCacheBreakpoint | undefined,
  partsOf: (
    item: T,
  ) => { key: string; parts: unknown[] } | "before" | undefined,
): { items: T[]; marks: WireMark[] } {
  const items = [...history];
  const marks: WireMark[] = [];
  if (mark === undefined) return { items, marks };
  const ends = previousLength > 0 && previousLength < history.length
    ? [previousLength - 1, history.length - 1]
    : [history.length - 1];
  for (let at of ends) {
    let found = partsOf(items[at]);
    while (found === "before" && at > 0) found = partsOf(items[--at]);
    if (
      found === undefined || found === "before" || found.parts.length === 0 ||
      marks.some((placed) => placed.message === at + 1)
    ) continue;
    const parts = [...found.parts];
    const block = parts.length - 1;
    parts[block] = {
      ...parts[block] as Record<string, unknown>,
      prompt_cache_breakpoint: { ...mark },
    };
    items[at] = { ...items[at], [found.key]: parts };
    marks.push({ message: at + 1, block, mark: { ...mark } });
  }
  return { items, marks };
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

/**
 * A fork's first request (SPEC 9.8): a breakpoint on the system part that
 * ends the longest prefix (tools, then system parts) it shares with its
 * parent's last request, so sibling forks read it; within `limit` marks on
 * the system message, the mark closest before it gives way. Returns the
 * system message, marked or as it was.
 */
export function markSharedSystem<S extends SystemMessage>(
  system: S,
  tools: unknown,
  parent: Readonly<Record<string, unknown>>,
  { mark, limit }: { mark: PromptCacheBreakpoint; limit: number },
): S {
  const before = parent.system as SystemMessage | undefined;
  if (
    !Array.isArray(system.content) || !Array.isArray(before?.content) ||
    JSON.stringify(tools ?? []) !== JSON.stringify(parent.tools ?? [])
  ) return system;
  const parts = system.content as Record<string, unknown>[];
  const marked = parts.flatMap((part, index) =>
    part.prompt_cache_breakpoint === undefined ? [] : [index]
  );
  const end = sharedEnd(
    parts.map(unmarkedJson),
    before.content.map(unmarkedJson),
  );
  const kept = new Set(withSharedMark(marked, end, limit));
  if (marked.length === kept.size && marked.every((at) => kept.has(at))) {
    return system;
  }
  return {
    ...system,
    content: parts.map((part, index) => {
      const { prompt_cache_breakpoint: own, ...rest } = part;
      return kept.has(index)
        ? { ...rest, prompt_cache_breakpoint: own ?? { ...mark } }
        : rest;
    }),
  };
}

function unmarkedJson(part: unknown): string {
  const { prompt_cache_breakpoint: _mark, ...rest } = part as Record<
    string,
    unknown
  >;
  return JSON.stringify(rest);
}
