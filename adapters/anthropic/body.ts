/**
 * Anthropic Messages bodies as blocks (SPEC 8.8): the reader of the
 * Anthropic rules (`rules.ts`): each tool, each system text block and each
 * message content block, in that order, with its `cache_control` mark.
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

/** Anthropic's (and Bedrock's) mark lifetimes, and a written token's price. */
export const ANTHROPIC_TTL: Record<string, Marker> = {
  "5m": { ttl: 5 * MINUTE, writePrice: 1.25, label: "5m" },
  "1h": { ttl: 60 * MINUTE, writePrice: 2, label: "1h" },
};

const EXPECTED =
  "expected an Anthropic Messages body { tools?, system?, messages }";

const FIRST_ITEM: ItemState = { leading: true, systemIndex: 0 };

/** The tools' marks: `cache_control`. */
const TOOL_MARK = { name: "cache_control", read: anthropicMarker };

/**
 * Reads an Anthropic Messages body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 */
export function anthropicBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${EXPECTED}`);
  }
  if (body.input !== undefined || body.instructions !== undefined) {
    throw bodyError(
      `the body has ${
        body.input !== undefined ? "input" : "instructions"
      } (a Responses body); ${EXPECTED}`,
    );
  }
  const blocks: Block[] = [...toolBlocks(body.tools, TOOL_MARK)];
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
    throw bodyError(`messages is ${kind(messages)}; ${EXPECTED}`);
  }
  const items = anthropicItems("messages");
  messages.forEach((message, index) => {
    items.read(message, index, FIRST_ITEM, blocks);
  });
  return { blocks, explicitMode: false };
}

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
