/**
 * Request bodies as blocks (SPEC 8.8): each tool, each system block and
 * each message content block, in prefix order (tools, system, messages),
 * with the cache marker each carries. A block's `key` is what a cache
 * matches (its content without markers; a message block also its role);
 * its `text` is what is counted. What every provider's body reader
 * (`readBody` of its rules, in its adapter folder) shares: the block and
 * marker shapes, the message and tool blocks, and the checks that read
 * nothing they should not.
 *
 * Reading a body may throw anything (a getter, a Proxy, a cyclic value for
 * `JSON.stringify`): callers run it under a guard that turns the throw into
 * a `SystemPromptError` naming the request.
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
  /** `tool:NAME`, `system:I`, `message:I.J` (or a form's own: Gemini's `cachedContent`). */
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
  // A bare text block is the same prompt as a string content: its JSON is
  // not written (it would be for nothing, once per text block read).
  if (plainText(rest)) {
    const text = rest.text as string;
    return { id, part: "messages", key: `${role}\u0000${text}`, text, marker };
  }
  const json = JSON.stringify(rest);
  const text = typeof rest.text === "string" ? rest.text : json;
  return { id, part: "messages", key: `${role}\u0000${json}`, text, marker };
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

export function textBlock(
  id: string,
  part: Block["part"],
  text: string,
): Block {
  return { id, part, key: `${part}\u0000${text}`, text };
}

export function messageParts(
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

/**
 * A body's `tools` as blocks, in order; a tool's mark is its field `mark.name`
 * (read by `mark.read`), left out of what it matches. A tool is named by its
 * `name` or its `function.name`.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for tools of another shape
 */
export function toolBlocks(
  tools: unknown,
  mark?: {
    readonly name: string;
    read(value: unknown, where: string): Marker | undefined;
  },
): Block[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    throw bodyError(`tools is ${kind(tools)}; expected an array of tools`);
  }
  return tools.flatMap((value, index): Block[] => {
    if (!isRecord(value)) {
      throw bodyError(`tools[${index}] is ${kind(value)}; expected a tool`);
    }
    // A deferred tool (SPEC §10.3) is not in the prompt until the model
    // loads it; a namespace of deferred functions shows only itself.
    if (value.defer_loading === true) return [];
    const tool = Array.isArray(value.tools)
      ? {
        ...value,
        tools: value.tools.filter((inner) =>
          !isRecord(inner) || inner.defer_loading !== true
        ),
      }
      : value;
    const fn = tool.function;
    // A tool of the API's own (a tool search) is named by its type.
    const name = typeof tool.name === "string"
      ? tool.name
      : isRecord(fn) && typeof fn.name === "string"
      ? fn.name
      : typeof tool.type === "string" && tool.type !== "function"
      ? tool.type
      : undefined;
    if (name === undefined) {
      throw bodyError(`tools[${index}] has no name`);
    }
    if (mark === undefined) {
      const json = JSON.stringify(tool);
      return [{ id: `tool:${name}`, part: "tools", key: json, text: json }];
    }
    const { [mark.name]: control, ...rest } = tool;
    const json = JSON.stringify(rest);
    return [{
      id: `tool:${name}`,
      part: "tools",
      key: json,
      text: json,
      marker: mark.read(control, `tools[${index}]`),
    }];
  });
}
