/**
 * What every body reader of the simulator shares (`blocks.ts` and the
 * Converse and Gemini readers beside it): the block and marker shapes, the
 * message blocks, and the checks that read nothing they should not.
 *
 * @module
 */

import { SystemPromptError } from "../../errors.ts";

/** A cache marker: where a prefix may be written, and for how long. */
export interface Marker {
  /** Lifetime in ms. */
  readonly ttl: number;
  /** The price of a written token (1.25 or 2 uncached tokens). */
  readonly writePrice: number;
  /** How the body spelled it, for messages. */
  readonly label: string;
}

/** One block of a request. */
export interface Block {
  /** `tool:NAME`, `system:I` or `message:I.J`. */
  readonly id: string;
  readonly part: "tools" | "system" | "messages";
  /** The matched content. */
  readonly key: string;
  /** The counted content. */
  readonly text: string;
  readonly marker?: Marker;
}

/** A request body as blocks. */
export interface ParsedBody {
  readonly blocks: Block[];
  /** OpenAI `prompt_cache_options.mode` is `"explicit"`. */
  readonly explicitMode: boolean;
  /**
   * OpenAI automatic caching's lifetime when the body asks for more than
   * the in-memory default (`prompt_cache_retention: "24h"`), in ms.
   */
  readonly automaticTtl?: number;
}

const MINUTE = 60_000;

/** Anthropic's and Bedrock's lifetimes. */
export const ANTHROPIC_TTL: Record<string, Marker> = {
  "5m": { ttl: 5 * MINUTE, writePrice: 1.25, label: "5m" },
  "1h": { ttl: 60 * MINUTE, writePrice: 2, label: "1h" },
};
/** A mistake in a body: the simulator prefixes the request's index. */
export function bodyError(message: string): SystemPromptError {
  return new SystemPromptError("INVALID_CONFIG", message);
}

export function messageBlock(
  id: string,
  role: string,
  text: string,
): Block {
  return { id, part: "messages", key: `${role}\u0000${text}`, text };
}

export function contentBlock(
  id: string,
  role: string,
  rest: Record<string, unknown>,
  marker: Marker | undefined,
): Block {
  const json = JSON.stringify(rest);
  const text = typeof rest.text === "string" ? rest.text : json;
  return {
    id,
    part: "messages",
    // A bare text block is the same prompt as a string content.
    key: plainText(rest) ? `${role}\u0000${text}` : `${role}\u0000${json}`,
    text,
    marker,
  };
}

function plainText(block: Record<string, unknown>): boolean {
  const keys = Object.keys(block);
  return keys.length === 2 && typeof block.text === "string" &&
    (block.type === "text" || block.type === "input_text");
}

/** `Array.isArray`, false for a revoked Proxy (which it throws on). */
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value's kind for a message; reads nothing of an object. */
export function kind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  if (typeof value === "object") return "an object";
  if (typeof value === "function") return "a function";
  return `${typeof value} ${String(value)}`;
}
