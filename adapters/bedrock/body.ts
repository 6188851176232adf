/**
 * Bedrock Converse bodies as blocks (SPEC 10.5): each `toolSpec` of
 * `toolConfig.tools`, each `system` text block and each message content
 * block, in prefix order; a `cachePoint` entry is not a block but the
 * marker of the block before it (the prefix through that block is cached).
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
  type ParsedBody,
} from "../../src/cache/simulator/blocks.ts";
import { ANTHROPIC_TTL } from "../anthropic/body.ts";

const EXPECTED = "expected a Converse body { modelId?, toolConfig?, " +
  "system?, messages }";

/**
 * Whether a body is of the Converse shape rather than another of the
 * accepted ones: it names `modelId` or `toolConfig`, or its first system
 * or message content block has no `type`.
 */
export function isConverseBody(body: Record<string, unknown>): boolean {
  if (body.modelId !== undefined || body.toolConfig !== undefined) return true;
  const untyped = (blocks: unknown) =>
    Array.isArray(blocks) && isRecord(blocks[0]) && !("type" in blocks[0]);
  const first = Array.isArray(body.messages) ? body.messages[0] : undefined;
  return untyped(body.system) ||
    (isRecord(first) && untyped(first.content));
}

/**
 * Reads a Converse body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape,
 * or a `cachePoint` with no block before it or right after another
 */
export function converseBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(`the body is ${kind(body)}; ${EXPECTED}`);
  }
  const blocks: Block[] = [];
  let markable = false;
  const mark = (point: unknown, where: string) => {
    if (!markable) {
      throw bodyError(
        `${where} is a cachePoint with no block before it (a cache point ` +
          `ends the prefix through the block it follows)`,
      );
    }
    markable = false;
    const last = blocks.length - 1;
    blocks[last] = { ...blocks[last], marker: cachePointMarker(point, where) };
  };
  const add = (block: Block) => {
    blocks.push(block);
    markable = true;
  };
  const { toolConfig, system, messages } = body;
  if (toolConfig !== undefined) {
    if (!isRecord(toolConfig) || !Array.isArray(toolConfig.tools)) {
      throw bodyError(
        `toolConfig is ${kind(toolConfig)}; expected { tools: [...] }`,
      );
    }
    toolConfig.tools.forEach((entry, index) => {
      const where = `toolConfig.tools[${index}]`;
      if (isRecord(entry) && entry.cachePoint !== undefined) {
        return mark(entry.cachePoint, where);
      }
      const spec = isRecord(entry) ? entry.toolSpec ?? entry.systemTool : null;
      if (!isRecord(spec) || typeof spec.name !== "string") {
        throw bodyError(
          `${where} is not { toolSpec: { name, … } } or { cachePoint }`,
        );
      }
      const json = JSON.stringify(entry);
      add({
        id: `tool:${spec.name}`,
        part: "tools",
        key: json,
        text: json,
      });
    });
  }
  if (system !== undefined) {
    if (!Array.isArray(system)) {
      throw bodyError(`system is ${kind(system)}; expected an array of blocks`);
    }
    system.forEach((entry, index) => {
      const where = `system[${index}]`;
      if (!isRecord(entry)) {
        throw bodyError(`${where} is ${kind(entry)}; expected a block`);
      }
      if (entry.cachePoint !== undefined) {
        return mark(entry.cachePoint, where);
      }
      const text = typeof entry.text === "string"
        ? entry.text
        : JSON.stringify(entry);
      add({
        id: `system:${index}`,
        part: "system",
        key: `system\u0000${text}`,
        text,
      });
    });
  }
  if (!Array.isArray(messages)) {
    throw bodyError(`messages is ${kind(messages)}; ${EXPECTED}`);
  }
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    if (
      !isRecord(message) || typeof message.role !== "string" ||
      !Array.isArray(message.content)
    ) {
      throw bodyError(`${where} is not { role, content: [...] }`);
    }
    const role = message.role;
    message.content.forEach((entry, part) => {
      const at = `${where}.content[${part}]`;
      if (!isRecord(entry)) {
        throw bodyError(`${at} is ${kind(entry)}; expected a content block`);
      }
      if (entry.cachePoint !== undefined) return mark(entry.cachePoint, at);
      add(contentBlock(`message:${index}.${part}`, role, entry, undefined));
    });
  });
  return { blocks, explicitMode: false };
}

/** A `CachePointBlock` as a marker: 5 minutes unless `ttl: "1h"`. */
function cachePointMarker(point: unknown, where: string): Marker {
  if (!isRecord(point) || point.type !== "default") {
    throw bodyError(`${where}.cachePoint is not { type: "default", ttl? }`);
  }
  const ttl = point.ttl ?? "5m";
  if (typeof ttl !== "string" || !Object.hasOwn(ANTHROPIC_TTL, ttl)) {
    throw bodyError(
      `${where}.cachePoint.ttl is ${kind(point.ttl)}; expected "5m" or "1h"`,
    );
  }
  return ANTHROPIC_TTL[ttl];
}
