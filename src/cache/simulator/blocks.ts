/**
 * Request bodies as blocks (SPEC 8.8): each tool, each system block and
 * each message content block, in prefix order (tools, system, messages),
 * with the cache marker each carries. A block's `key` is what a cache
 * matches (its content without markers; a message block also its role);
 * its `text` is what is counted.
 *
 * Reading a body may throw anything (a getter, a Proxy, a cyclic value for
 * `JSON.stringify`): callers run it under a guard that turns the throw into
 * a `SystemPromptError` naming the request.
 *
 * @module
 */

import {
  ANTHROPIC_TTL,
  type Block,
  bodyError,
  contentBlock,
  isRecord,
  kind,
  type Marker,
  messageBlock,
  type ParsedBody,
} from "./block_shapes.ts";
import type { ItemReader, ItemState } from "./rules.ts";

export type { Block, Marker, ParsedBody } from "./block_shapes.ts";
export { bodyError, kind } from "./block_shapes.ts";

const MINUTE = 60_000;
/** OpenAI's explicit marks' lifetimes. */
export const OPENAI_TTL: Record<string, Marker> = {
  "30m": { ttl: 30 * MINUTE, writePrice: 1.25, label: "30m" },
  "12h": { ttl: 12 * 60 * MINUTE, writePrice: 1.25, label: "12h" },
};

function expected(wire: "anthropic" | "openai"): string {
  return wire === "anthropic"
    ? "expected an Anthropic Messages body { tools?, system?, messages }"
    : "expected a Chat Completions body { tools?, messages, " +
      "prompt_cache_options? } or a Responses body { tools?, instructions?, " +
      "input, prompt_cache_options? }";
}

/**
 * Reads an Anthropic Messages body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 */
export function anthropicBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${expected("anthropic")}`);
  }
  if (body.input !== undefined || body.instructions !== undefined) {
    throw bodyError(
      `the body has ${
        body.input !== undefined ? "input" : "instructions"
      } (a Responses body); ${expected("anthropic")}`,
    );
  }
  const blocks: Block[] = [...toolBlocks(body.tools, "anthropic")];
  const { system, messages } = body;
  if (typeof system === "string") {
    if (system !== "") blocks.push(textBlock("system:0", "system", system));
  } else if (Array.isArray(system)) {
    system.forEach((item, index) => {
      const where = `system[${index}]`;
      if (!isRecord(item) || item.type !== "text") {
        throw bodyError(`${where} is not a text block { type: "text", text }`);
      }
      const { cache_control: control, ...rest } = item;
      if (typeof rest.text !== "string") {
        throw bodyError(
          `${where}.text is ${kind(rest.text)}; expected a string`,
        );
      }
      blocks.push({
        id: `system:${index}`,
        part: "system",
        key: JSON.stringify(rest),
        text: rest.text,
        marker: anthropicMarker(control, where),
      });
    });
  } else if (system !== undefined) {
    throw bodyError(
      `system is ${kind(system)}; expected a string or an array of text blocks`,
    );
  }
  if (!Array.isArray(messages)) {
    throw bodyError(`messages is ${kind(messages)}; ${expected("anthropic")}`);
  }
  const items = anthropicItems("messages");
  messages.forEach((message, index) => {
    items.read(message, index, FIRST_ITEM, blocks);
  });
  return { blocks, explicitMode: false };
}

/**
 * Reads an OpenAI Chat Completions or Responses body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 */
export function openAIBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${expected("openai")}`);
  }
  if (body.system !== undefined) {
    throw bodyError(
      `the body has system (an Anthropic body); ${expected("openai")}`,
    );
  }
  const chat = body.messages !== undefined;
  if (chat && body.input !== undefined) {
    throw bodyError(
      `the body has both messages and input; ${expected("openai")}`,
    );
  }
  const blocks: Block[] = [...toolBlocks(body.tools, "openai")];
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
    throw bodyError(`${name} is ${kind(items)}; ${expected("openai")}`);
  }
  const reader = openAIItems(name, options.ttl);
  let state: ItemState = { leading: true, systemIndex };
  items.forEach((item, index) => {
    state = reader.read(item, index, state, blocks);
  });
  return { blocks, explicitMode: options.explicit, ...retention };
}

const FIRST_ITEM: ItemState = { leading: true, systemIndex: 0 };

/** How an Anthropic body's `messages` are read, one by one. */
export function anthropicItems(name: string): ItemReader {
  return {
    key: `messages\u0000${name}`,
    read: (item, index, state, into) => {
      const where = `${name}[${index}]`;
      const { role, content } = messageParts(item, where);
      if (typeof content === "string") {
        into.push(messageBlock(`message:${index}.0`, role, content));
        return state;
      }
      content.forEach((block, part) => {
        const at = `${where}.content[${part}]`;
        if (!isRecord(block) || typeof block.type !== "string") {
          throw bodyError(`${at} is not a content block { type, … }`);
        }
        const { cache_control: control, ...rest } = block;
        into.push(
          contentBlock(
            `message:${index}.${part}`,
            role,
            rest,
            anthropicMarker(control, at),
          ),
        );
      });
      return state;
    },
  };
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

function toolBlocks(tools: unknown, wire: "anthropic" | "openai"): Block[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    throw bodyError(`tools is ${kind(tools)}; expected an array of tools`);
  }
  return tools.map((tool, index) => {
    if (!isRecord(tool)) {
      throw bodyError(`tools[${index}] is ${kind(tool)}; expected a tool`);
    }
    const { cache_control: control, ...rest } = tool;
    const fn = rest.function;
    const name = typeof rest.name === "string"
      ? rest.name
      : isRecord(fn) && typeof fn.name === "string"
      ? fn.name
      : undefined;
    if (name === undefined) {
      throw bodyError(`tools[${index}] has no name`);
    }
    const json = JSON.stringify(wire === "anthropic" ? rest : tool);
    return {
      id: `tool:${name}`,
      part: "tools",
      key: json,
      text: json,
      marker: wire === "anthropic"
        ? anthropicMarker(control, `tools[${index}]`)
        : undefined,
    };
  });
}

function messageParts(
  message: unknown,
  where: string,
): { role: string; content: string | unknown[] } {
  if (!isRecord(message)) {
    throw bodyError(`${where} is ${kind(message)}; expected { role, content }`);
  }
  const { role, content } = message;
  if (typeof role !== "string") {
    throw bodyError(`${where}.role is ${kind(role)}; expected a string`);
  }
  if (typeof content === "string" || Array.isArray(content)) {
    return { role, content };
  }
  if (content === null || content === undefined) return { role, content: "" };
  throw bodyError(
    `${where}.content is ${kind(content)}; expected a string or an array`,
  );
}

function textBlock(id: string, part: Block["part"], text: string): Block {
  return { id, part, key: `${part}\u0000${text}`, text };
}

export function anthropicMarker(
  control: unknown,
  where: string,
): Marker | undefined {
  if (control === undefined || control === null) return undefined;
  if (!isRecord(control) || control.type !== "ephemeral") {
    throw bodyError(
      `${where}.cache_control is not { type: "ephemeral", ttl? }`,
    );
  }
  const ttl = control.ttl ?? "5m";
  if (typeof ttl !== "string" || !Object.hasOwn(ANTHROPIC_TTL, ttl)) {
    throw bodyError(
      `${where}.cache_control.ttl is ${
        kind(control.ttl)
      }; expected "5m" or "1h"`,
    );
  }
  return ANTHROPIC_TTL[ttl];
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
