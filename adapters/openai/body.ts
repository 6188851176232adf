/**
 * OpenAI Chat Completions and Responses bodies as blocks (SPEC 8.8): the
 * reader of the OpenAI rules (`rules.ts`): each tool, the leading system
 * (or developer) messages or the instructions as system blocks, then each
 * message content part or Responses item, with its
 * `prompt_cache_breakpoint` mark; `prompt_cache_options` and
 * `prompt_cache_retention` read from the body.
 *
 * @module
 */

import {
  type Block,
  bodyError,
  contentBlock,
  isRecord,
  kind,
  type Marker,
  messageBlock,
  messageParts,
  type ParsedBody,
  textBlock,
  toolBlocks,
} from "../../src/cache/simulator/blocks.ts";
import type { ItemReader, ItemState } from "../../src/cache/simulator/rules.ts";

const MINUTE = 60_000;

/** OpenAI's explicit marks' lifetimes, and a written token's price. */
export const OPENAI_TTL: Record<string, Marker> = {
  "30m": { ttl: 30 * MINUTE, writePrice: 1.25, label: "30m" },
  "12h": { ttl: 12 * 60 * MINUTE, writePrice: 1.25, label: "12h" },
};

const EXPECTED = "expected a Chat Completions body { tools?, messages, " +
  "prompt_cache_options? } or a Responses body { tools?, instructions?, " +
  "input, prompt_cache_options? }";

/**
 * Reads an OpenAI Chat Completions or Responses body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 */
export function openAIBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${EXPECTED}`);
  }
  if (body.system !== undefined) {
    throw bodyError(
      `the body has system (an Anthropic body); ${EXPECTED}`,
    );
  }
  const chat = body.messages !== undefined;
  if (chat && body.input !== undefined) {
    throw bodyError(
      `the body has both messages and input; ${EXPECTED}`,
    );
  }
  const blocks: Block[] = [...toolBlocks(body.tools)];
  const options = cacheOptionsOf(body);
  const retention = body.prompt_cache_retention === "24h"
    ? { automaticTtl: 24 * 60 * MINUTE }
    : {};
  let systemIndex = 0;
  if (!chat && body.instructions !== undefined) {
    if (typeof body.instructions !== "string") {
      throw bodyError(
        `instructions is ${kind(body.instructions)}; expected a string`,
      );
    }
    if (body.instructions !== "") {
      blocks.push(textBlock("system:0", "system", body.instructions));
      systemIndex = 1;
    }
  }
  const items = chat ? body.messages : body.input;
  const name = chat ? "messages" : "input";
  if (typeof items === "string" && !chat) {
    blocks.push(messageBlock("message:0.0", "user", items));
    return { blocks, explicitMode: options.explicit, ...retention };
  }
  if (!Array.isArray(items)) {
    throw bodyError(`${name} is ${kind(items)}; ${EXPECTED}`);
  }
  const reader = openAIItems(name, options.ttl);
  let state: ItemState = { leading: true, systemIndex };
  items.forEach((item, index) => {
    state = reader.read(item, index, state, blocks);
  });
  return { blocks, explicitMode: options.explicit, ...retention };
}

/**
 * How an OpenAI body's items (`messages`, or a Responses body's `input`)
 * are read, one by one; a mark without a lifetime has `ttl`'s.
 */
export function openAIItems(name: string, ttl: string): ItemReader {
  return {
    key: `openai\u0000${name}\u0000${ttl}`,
    read: (item, index, state, into) =>
      readOpenAIItem(name, ttl, item, index, state, into),
  };
}

/** The `ttl` of `prompt_cache_options` in a body's fields (default 30m). */
export function openAIItemTtl(
  fields: Readonly<Record<string, unknown>>,
): string {
  const options = fields.prompt_cache_options as { ttl?: unknown } | undefined;
  return typeof options?.ttl === "string" ? options.ttl : "30m";
}

function readOpenAIItem(
  name: string,
  ttl: string,
  item: unknown,
  index: number,
  state: ItemState,
  into: Block[],
): ItemState {
  const where = `${name}[${index}]`;
  if (!isRecord(item)) {
    throw bodyError(`${where} is ${kind(item)}; expected a message object`);
  }
  if (name === "input" && item.role === undefined) {
    // A Responses item that is not a message: a function call or output.
    into.push(contentBlock(`message:${index}.0`, "item", item, undefined));
    return { leading: false, systemIndex: state.systemIndex };
  }
  const { role, content } = messageParts(item, where);
  const system = state.leading && (role === "system" || role === "developer");
  let systemIndex = state.systemIndex;
  if (typeof content === "string") {
    into.push(
      system
        ? textBlock(`system:${systemIndex++}`, "system", content)
        : messageBlock(`message:${index}.0`, role, content),
    );
    return { leading: system, systemIndex };
  }
  content.forEach((part, j) => {
    const at = `${where}.content[${j}]`;
    if (!isRecord(part) || typeof part.type !== "string") {
      throw bodyError(`${at} is not a content part { type, … }`);
    }
    const { prompt_cache_breakpoint: mark, ...rest } = part;
    const marker = openAIMarker(mark, at, ttl);
    if (system) {
      const text = typeof rest.text === "string"
        ? rest.text
        : JSON.stringify(rest);
      into.push({
        id: `system:${systemIndex++}`,
        part: "system",
        key: JSON.stringify(rest),
        text,
        marker,
      });
    } else {
      into.push(contentBlock(`message:${index}.${j}`, role, rest, marker));
    }
  });
  return { leading: system, systemIndex };
}

/** `prompt_cache_options`: the mode, and the marks' default lifetime. */
function cacheOptionsOf(
  body: Record<string, unknown>,
): { explicit: boolean; ttl: string } {
  const options = body.prompt_cache_options;
  if (options === undefined || options === null) {
    return { explicit: false, ttl: "30m" };
  }
  if (!isRecord(options)) {
    throw bodyError(
      `prompt_cache_options is ${kind(options)}; expected { mode?, ttl? }`,
    );
  }
  const ttl = options.ttl ?? "30m";
  if (typeof ttl !== "string" || !Object.hasOwn(OPENAI_TTL, ttl)) {
    throw bodyError(
      `prompt_cache_options.ttl is ${
        kind(options.ttl)
      }; expected "30m" or "12h"`,
    );
  }
  return { explicit: options.mode === "explicit", ttl };
}

function openAIMarker(
  mark: unknown,
  where: string,
  fallback: string,
): Marker | undefined {
  if (mark === undefined || mark === null) return undefined;
  if (!isRecord(mark) || mark.mode !== "explicit") {
    throw bodyError(
      `${where}.prompt_cache_breakpoint is not { mode: "explicit", ttl? }`,
    );
  }
  const ttl = mark.ttl ?? fallback;
  if (typeof ttl !== "string" || !Object.hasOwn(OPENAI_TTL, ttl)) {
    throw bodyError(
      `${where}.prompt_cache_breakpoint.ttl is ${
        kind(mark.ttl)
      }; expected "30m" or "12h"`,
    );
  }
  return OPENAI_TTL[ttl];
}
