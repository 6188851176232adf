/**
 * What the Chat Completions and Responses forms share: their options read
 * once (the adapter's, the cache key, the retention), their marks, where
 * their history and head carry them, a call's arguments.
 *
 * @module
 */

import { quote } from "../../src/errors.ts";
import { SystemPromptError } from "../../mod.ts";
import { isObject, readLimit, readModel } from "../_kit/form_options.ts";
import { parentCuts, textsOf } from "../_kit/content_blocks.ts";
import type { FormHead, HeadInput } from "../../src/conversation/form.ts";
import type { MarkSites, PrefixSites } from "../../src/conversation/marks.ts";
import { promptCacheKey } from "./cache_key.ts";
import { OPENAI_EXPLICIT_RULES } from "./rules.ts";
import {
  breakpointOf,
  type OpenAIOptions,
  type PromptCacheBreakpoint,
  readOpenAIOptions,
} from "./options.ts";

/** The lifetime of the marks of a request a person answers. */
export const PERSON_TTL = OPENAI_EXPLICIT_RULES.marks!.personTtl as "12h";

/** A call's arguments parsed, or the text as it came when it is not JSON. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The options both OpenAI forms read, checked once. */
export interface OpenAIFormOptions {
  readonly model: string;
  /** The output-token limit. */
  readonly limit: number | undefined;
  /** The mark `cache` asks for (`undefined`: no marks). */
  readonly cache: PromptCacheBreakpoint | undefined;
  /** The adapter's own options. */
  readonly adapter: OpenAIOptions;
  /** The adapter's options as read (the marks the prefix may take, ...). */
  readonly read: ReturnType<typeof readOpenAIOptions>;
  /** The `promptCacheKey` option. */
  readonly key: string | undefined;
  readonly retention: "24h" | undefined;
  /** What a recording's header keeps. */
  readonly saved: Record<string, unknown>;
}

/**
 * Reads the options both forms take: the model, the output limit (`limitName`),
 * `cache`, the adapter's options, `promptCacheKey`, `promptCacheRetention`.
 * `checks` runs after `cache` is read, `saves` adds a form's own options to
 * what the header keeps before the retention.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` naming the option
 */
export function readOpenAIForm(
  options: Record<string, unknown>,
  form: string,
  limitName: string,
  hooks: {
    checks?: () => void;
    saves?: (saved: Record<string, unknown>) => void;
  } = {},
): OpenAIFormOptions {
  const model = readModel(options, form);
  const limit = readLimit(options[limitName], limitName, form, {
    required: false,
  });
  const cache = breakpointOf(options.cache);
  hooks.checks?.();
  const adapter = adapterOptions(options, form);
  const saved: Record<string, unknown> = { model, ...adapter };
  if (limit !== undefined) saved[limitName] = limit;
  if (options.cache !== undefined) saved.cache = options.cache;
  if (options.promptCacheKey !== undefined) {
    saved.promptCacheKey = options.promptCacheKey;
  }
  hooks.saves?.(saved);
  const retention = readRetention(options.promptCacheRetention, form, saved);
  return {
    model,
    limit,
    cache,
    adapter,
    read: readOpenAIOptions(adapter, form),
    key: options.promptCacheKey as string | undefined,
    retention,
    saved,
  };
}

/** The adapter options a conversation passes through, checked. */
function adapterOptions(
  options: Record<string, unknown>,
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
    const value = options[key];
    if (value !== undefined) (adapter as Record<string, unknown>)[key] = value;
  }
  readOpenAIOptions(adapter, form);
  return adapter;
}

/**
 * The mark a request's ends get: none without `cache`, the person's
 * lifetime while a person is awaited.
 */
export function openAIMark(
  cache: PromptCacheBreakpoint | undefined,
  awaiting: string,
): PromptCacheBreakpoint | undefined {
  return cache === undefined
    ? undefined
    : awaiting === "person"
    ? { mode: "explicit", ttl: PERSON_TTL }
    : cache;
}

/**
 * A step's prompt cache key: the one the conversation recorded first, then
 * the option, then one derived from the assembly.
 */
export function stepKey(input: HeadInput, key: string | undefined): string {
  return typeof input.state.promptCacheKey === "string"
    ? input.state.promptCacheKey
    : key ?? promptCacheKey(input.assembly, { session: input.session });
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
function readRetention(
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
 * An OpenAI head's prefix (SPEC 9.8): its tools, which carry no mark, then
 * its system message's parts.
 */
export const OPENAI_PREFIX: PrefixSites<FormHead> = {
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
    const { system, tools } = head.recorded as {
      system: SystemMessage;
      tools?: unknown;
    };
    const count = Array.isArray(tools) ? tools.length : 0;
    const parts = system.content as Record<string, unknown>[];
    const same = parts.every((part, index) =>
      (part.prompt_cache_breakpoint !== undefined) ===
        marked.has(count + index)
    );
    if (same) return head;
    return {
      ...head,
      recorded: {
        ...head.recorded,
        system: {
          ...system,
          content: parts.map((part, index) => {
            const { prompt_cache_breakpoint: own, ...rest } = part;
            return marked.has(count + index)
              ? {
                ...rest,
                prompt_cache_breakpoint: own ?? { ...mark as object },
              }
              : rest;
          }),
        },
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
