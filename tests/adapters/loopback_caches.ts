/**
 * Loopback servers for the Bedrock Converse and Gemini round trips: they
 * check each body as the API does (shapes; Bedrock's four cache points and
 * their lifetimes, non-increasing from `toolConfig` to `system` to
 * `messages`; Gemini's function declarations and function-calling config)
 * and answer with the cache usage of a prefix cache of their own: Bedrock
 * writes and reads at its cache points (each checkpoint holding the minimum
 * since the previous one, a read looking 20 entries back), Gemini reads the
 * longest prefix any earlier request sent (at least the minimum). Tokens
 * are a quarter of each entry's JSON, rounded up. Both refuse a list
 * whose roles do not alternate, as the APIs do (Bedrock also one that does
 * not start with the user's turn). A rejected body is answered with HTTP
 * 400 in the provider's error shape (Bedrock's `ValidationException`,
 * Gemini's `INVALID_ARGUMENT`) and its reason recorded in `rejections`.
 */

import {
  BinaryReply,
  EventStream,
  type RecordedRequest,
  serveLoopback,
  StatusReply,
} from "./loopback.ts";

/** A server's answers and what it refused. */
export interface CacheServer {
  /** Each body it accepted, parsed. */
  readonly bodies: Record<string, unknown>[];
  /** Why each refused body was refused. */
  readonly rejections: string[];
  /** The path of each request. */
  readonly paths: string[];
}

const tokensOf = (unit: string) => Math.ceil(unit.length / 4);

/** What Bedrock says of a list whose roles do not alternate. */
export const BEDROCK_ALTERNATION =
  "A conversation must alternate between user and assistant roles. Make " +
  "sure the conversation alternates between user and assistant roles and " +
  "try again.";
/** What Bedrock says of a list that does not start with the user's turn. */
export const BEDROCK_FIRST_USER =
  "A conversation must start with a user message. Try again with a " +
  "conversation that starts with a user message.";
/** What Gemini says of a list whose roles do not alternate. */
export const GEMINI_ALTERNATION =
  "Please ensure that multiturn requests alternate between user and model.";

/** Bedrock's answer to a refused body: HTTP 400, a `ValidationException`. */
function bedrockRefusal(message: string): StatusReply {
  return new StatusReply(400, { __type: "ValidationException", message });
}

/** Gemini's answer to a refused body: HTTP 400, `INVALID_ARGUMENT`. */
function geminiRefusal(message: string): StatusReply {
  return new StatusReply(400, {
    error: { code: 400, message, status: "INVALID_ARGUMENT" },
  });
}

/** Throws `message` at the first message of the same role as the one before. */
function checkAlternation(
  roles: readonly unknown[],
  message: string,
): void {
  for (let index = 1; index < roles.length; index++) {
    if (roles[index] === roles[index - 1]) throw new Error(message);
  }
}
const LOOKBACK = 20;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Prefixes by number: `ids(units)[count]` names `units.slice(0, count)`,
 * the same number for the same prefix in every request (a trie, so a long
 * session costs its units, not its prefixes' JSON).
 */
function prefixIds(): (units: readonly string[]) => number[] {
  const children = new Map<string, number>();
  return (units) => {
    const ids = [0];
    for (const unit of units) {
      const key = `${ids[ids.length - 1]}\u0000${unit}`;
      let id = children.get(key);
      if (id === undefined) children.set(key, id = children.size + 1);
      ids.push(id);
    }
    return ids;
  };
}

/** One entry of a Converse prefix, or the cache point after the last. */
type Entry = { unit: string } | { point: "5m" | "1h" };

/** The Converse body's entries in prefix order; throws what Bedrock says. */
function converseEntries(body: Record<string, unknown>): Entry[] {
  const entries: Entry[] = [];
  const point = (value: unknown, where: string): Entry => {
    if (!record(value) || value.type !== "default") {
      throw new Error(`${where}: cachePoint.type must be "default"`);
    }
    if (value.ttl !== undefined && value.ttl !== "5m" && value.ttl !== "1h") {
      throw new Error(`${where}: cachePoint.ttl must be "5m" or "1h"`);
    }
    if (entries.length === 0 || "point" in entries[entries.length - 1]) {
      throw new Error(`${where}: a cachePoint must follow content`);
    }
    return { point: (value.ttl ?? "5m") as "5m" | "1h" };
  };
  const tools = (body.toolConfig as { tools?: unknown } | undefined)?.tools;
  if (body.toolConfig !== undefined && !Array.isArray(tools)) {
    throw new Error("toolConfig.tools must be an array");
  }
  for (const [index, tool] of (tools as unknown[] ?? []).entries()) {
    const where = `toolConfig.tools[${index}]`;
    if (record(tool) && tool.cachePoint !== undefined) {
      entries.push(point(tool.cachePoint, where));
      continue;
    }
    const spec = record(tool) ? tool.toolSpec : undefined;
    const schema = record(spec) && record(spec.inputSchema)
      ? spec.inputSchema.json
      : undefined;
    if (
      !record(spec) || typeof spec.name !== "string" ||
      !TOOL_NAME.test(spec.name) || !record(schema) ||
      schema.type !== "object" || spec.description === ""
    ) {
      throw new Error(`${where}: not a valid toolSpec`);
    }
    entries.push({ unit: JSON.stringify(tool) });
  }
  for (const [index, block] of (body.system as unknown[] ?? []).entries()) {
    const where = `system[${index}]`;
    if (record(block) && block.cachePoint !== undefined) {
      entries.push(point(block.cachePoint, where));
    } else if (record(block) && typeof block.text === "string") {
      entries.push({ unit: block.text });
    } else throw new Error(`${where}: not a system block`);
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new Error("messages must be a non-empty array");
  }
  for (const [index, message] of body.messages.entries()) {
    if (
      !record(message) ||
      (message.role !== "user" && message.role !== "assistant") ||
      !Array.isArray(message.content)
    ) throw new Error(`messages[${index}]: not a message`);
    if (index === 0 && message.role !== "user") {
      throw new Error(BEDROCK_FIRST_USER);
    }
    for (const [part, block] of message.content.entries()) {
      const where = `messages[${index}].content[${part}]`;
      if (record(block) && block.cachePoint !== undefined) {
        entries.push(point(block.cachePoint, where));
      } else if (record(block) && Object.keys(block).length === 1) {
        entries.push({ unit: `${message.role}:${JSON.stringify(block)}` });
      } else throw new Error(`${where}: a content block has one member`);
    }
  }
  checkAlternation(
    body.messages.map((message) => message.role),
    BEDROCK_ALTERNATION,
  );
  const points = entries.flatMap((entry) =>
    "point" in entry ? [entry.point] : []
  );
  if (points.length > 4) {
    throw new Error(
      `A maximum of 4 cache points may be provided. Found ${points.length}.`,
    );
  }
  if (points.some((ttl, at) => ttl === "1h" && points[at - 1] === "5m")) {
    throw new Error("cache point lifetimes must not increase");
  }
  return entries;
}

/** A Bedrock Converse server (`/model/{modelId}/converse`). */
export function bedrockServer(minimum: number): {
  server: CacheServer;
  answer: (request: RecordedRequest) => unknown;
} {
  const server: CacheServer = { bodies: [], rejections: [], paths: [] };
  const written = new Set<number>();
  const idsOf = prefixIds();
  const answer = (request: RecordedRequest) => {
    server.paths.push(request.path);
    let entries: Entry[];
    const body = JSON.parse(request.body);
    const stream = /\/converse-stream$/.test(request.path);
    try {
      if (!/^\/model\/[^/]+\/converse(-stream)?$/.test(request.path)) {
        throw new Error(`unknown path ${request.path}`);
      }
      entries = converseEntries(body);
    } catch (error) {
      server.rejections.push((error as Error).message);
      return bedrockRefusal((error as Error).message);
    }
    server.bodies.push(body);
    const units: string[] = [];
    const ends: number[] = [];
    const points: { at: number; ttl: string }[] = [];
    let total = 0;
    for (const entry of entries) {
      if ("point" in entry) {
        points.push({ at: units.length, ttl: entry.point });
        continue;
      }
      units.push(entry.unit);
      total += tokensOf(entry.unit);
      ends.push(total);
    }
    const ids = idsOf(units);
    const key = (count: number) => ids[count];
    let read = 0;
    for (const { at } of points) {
      for (let count = at; count > Math.max(0, at - LOOKBACK); count--) {
        if (written.has(key(count))) {
          read = Math.max(read, ends[count - 1]);
          break;
        }
      }
    }
    let end = read;
    let checkpoint = 0;
    const writes: Record<string, number> = {};
    for (const { at, ttl } of points) {
      const through = ends[at - 1];
      if (through - checkpoint < minimum) continue;
      checkpoint = through;
      if (written.has(key(at))) continue;
      written.add(key(at));
      if (through > end) {
        writes[ttl] = (writes[ttl] ?? 0) + through - end;
        end = through;
      }
    }
    const write = end - read;
    const usage = {
      inputTokens: total - read - write,
      outputTokens: 1,
      totalTokens: total + 1,
      cacheReadInputTokens: read,
      cacheWriteInputTokens: write,
      cacheDetails: Object.entries(writes).map(([ttl, inputTokens]) => ({
        ttl,
        inputTokens,
      })),
    };
    if (stream) {
      return eventStream([
        ["messageStart", { role: "assistant" }],
        ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "o" } }],
        ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "k" } }],
        ["contentBlockStop", { contentBlockIndex: 0 }],
        ["messageStop", { stopReason: "end_turn" }],
        ["metadata", { usage, metrics: { latencyMs: 1 } }],
      ]);
    }
    return {
      output: {
        message: { role: "assistant", content: [{ text: "ok" }] },
      },
      stopReason: "end_turn",
      usage,
      metrics: { latencyMs: 1 },
    };
  };
  return { server, answer };
}

/** CRC-32 (IEEE), as the AWS event stream frames its messages. */
function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) {
      crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
    }
  }
  return ~crc >>> 0;
}

/**
 * Events as `application/vnd.amazon.eventstream` frames (what
 * ConverseStreamCommand reads): each a prelude (lengths and their CRC),
 * string headers (`:event-type`, `:content-type`, `:message-type`), the
 * JSON payload and the frame's CRC.
 */
function eventStream(
  events: readonly [string, Record<string, unknown>][],
): BinaryReply {
  const text = new TextEncoder();
  const frames = events.map(([type, payload]) => {
    const headers = [
      [":event-type", type],
      [":content-type", "application/json"],
      [":message-type", "event"],
    ].flatMap(([name, value]) => {
      const key = text.encode(name);
      const bytes = text.encode(value);
      return [
        key.length,
        ...key,
        7,
        bytes.length >> 8,
        bytes.length & 0xff,
        ...bytes,
      ];
    });
    const body = text.encode(JSON.stringify(payload));
    const total = 12 + headers.length + body.length + 4;
    const frame = new Uint8Array(total);
    const view = new DataView(frame.buffer);
    view.setUint32(0, total);
    view.setUint32(4, headers.length);
    view.setUint32(8, crc32(frame.subarray(0, 8)));
    frame.set(headers, 12);
    frame.set(body, 12 + headers.length);
    view.setUint32(total - 4, crc32(frame.subarray(0, total - 4)));
    return frame;
  });
  const all = new Uint8Array(frames.reduce((sum, f) => sum + f.length, 0));
  let at = 0;
  for (const frame of frames) {
    all.set(frame, at);
    at += frame.length;
  }
  return new BinaryReply("application/vnd.amazon.eventstream", all);
}

const MODES = ["AUTO", "ANY", "NONE", "VALIDATED"];
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

/** The Gemini REST body's prefix units; throws what Gemini says. */
function geminiUnits(body: Record<string, unknown>): string[] {
  const units = prefixUnits(body);
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    throw new Error("contents must be a non-empty array");
  }
  for (const content of body.contents) {
    if (
      !record(content) ||
      (content.role !== "user" && content.role !== "model") ||
      !Array.isArray(content.parts) || content.parts.length === 0
    ) throw new Error("contents: not a content { role, parts }");
    for (const part of content.parts) {
      units.push(`${content.role}:${JSON.stringify(part)}`);
    }
  }
  checkAlternation(
    body.contents.map((content) => content.role),
    GEMINI_ALTERNATION,
  );
  return units;
}

/** The units of a body's (or a cache entry's) tools and system instruction. */
function prefixUnits(body: Record<string, unknown>): string[] {
  const units: string[] = [];
  const declared = new Set<string>();
  for (const tool of body.tools as unknown[] ?? []) {
    const declarations = record(tool) ? tool.functionDeclarations : undefined;
    if (!Array.isArray(declarations)) throw new Error("tools: not a tool");
    for (const declaration of declarations) {
      if (
        !record(declaration) || typeof declaration.name !== "string" ||
        !FUNCTION_NAME.test(declaration.name) ||
        (declaration.parameters !== undefined &&
          declaration.parametersJsonSchema !== undefined) ||
        !record(declaration.parametersJsonSchema) ||
        declaration.parametersJsonSchema.type !== "object"
      ) throw new Error("tools: not a valid function declaration");
      declared.add(declaration.name);
      units.push(JSON.stringify(declaration));
    }
  }
  const config = (body.toolConfig as Record<string, unknown> | undefined)
    ?.functionCallingConfig;
  if (config !== undefined) {
    const { mode, allowedFunctionNames } = config as Record<string, unknown>;
    if (!MODES.includes(mode as string)) throw new Error(`bad mode ${mode}`);
    if (allowedFunctionNames !== undefined) {
      if (mode !== "ANY" && mode !== "VALIDATED") {
        throw new Error("allowedFunctionNames needs mode ANY or VALIDATED");
      }
      if (
        !Array.isArray(allowedFunctionNames) ||
        !allowedFunctionNames.every((name) => declared.has(name))
      ) throw new Error("allowedFunctionNames names an undeclared function");
    }
  }
  const system = body.systemInstruction as { parts?: unknown } | undefined;
  for (const part of system === undefined ? [] : system.parts as unknown[]) {
    if (!record(part) || typeof part.text !== "string") {
      throw new Error("systemInstruction: a part without text");
    }
    units.push(part.text);
  }
  return units;
}

/** A Gemini server's explicit cache entries, and what it was asked of them. */
export interface GeminiCacheStore {
  /** Each live entry's units, by name. */
  readonly entries: Map<string, string[]>;
  /** Each call: `create <name>`, `update <name> <ttl>`, `delete <name>`. */
  readonly calls: string[];
}

/**
 * `cachedContents` calls: create (at least `minimum` tokens), update (a
 * new ttl), delete; `undefined` for a refused one.
 */
function cachedContents(
  request: RecordedRequest,
  store: GeminiCacheStore,
  minimum: number,
): unknown {
  const name = request.path.match(/(cachedContents\/[^/?]+)/)?.[1];
  if (request.method === "POST" && name === undefined) {
    const body = JSON.parse(request.body);
    if (typeof body.ttl !== "string" || !/^\d+s$/.test(body.ttl)) {
      throw new Error("cachedContents: ttl must be a duration like 3600s");
    }
    const units = prefixUnits(body);
    const tokens = units.reduce((sum, unit) => sum + tokensOf(unit), 0);
    if (tokens < minimum) {
      throw new Error(`cachedContents: ${tokens} tokens, below the minimum`);
    }
    const created = `cachedContents/${store.calls.length + 1}`;
    store.entries.set(created, units);
    store.calls.push(`create ${created}`);
    return {
      name: created,
      model: body.model,
      expireTime: "2030-01-01T00:00:00Z",
      usageMetadata: { totalTokenCount: tokens },
    };
  }
  if (name === undefined || !store.entries.has(name)) {
    throw new Error(`cachedContents: no entry ${name}`);
  }
  if (request.method === "PATCH") {
    store.calls.push(`update ${name} ${JSON.parse(request.body).ttl}`);
    return { name, expireTime: "2030-01-01T01:00:00Z" };
  }
  if (request.method === "DELETE") {
    store.entries.delete(name);
    store.calls.push(`delete ${name}`);
    return {};
  }
  throw new Error(`cachedContents: ${request.method} is not served`);
}

/** A Gemini server (`…/models/{model}:generateContent`). */
export function geminiServer(minimum: number): {
  server: CacheServer & { readonly caches: GeminiCacheStore };
  answer: (request: RecordedRequest) => unknown;
} {
  const caches: GeminiCacheStore = { entries: new Map(), calls: [] };
  const server: CacheServer & { readonly caches: GeminiCacheStore } = {
    bodies: [],
    rejections: [],
    paths: [],
    caches,
  };
  const sent = new Set<number>();
  const idsOf = prefixIds();
  const answer = (request: RecordedRequest) => {
    server.paths.push(request.path);
    let units: string[];
    let explicit = 0;
    let body: Record<string, unknown>;
    try {
      if (request.path.includes("/cachedContents")) {
        return cachedContents(request, caches, minimum);
      }
      body = JSON.parse(request.body);
      if (
        !/\/models\/[^/]+:(generateContent|streamGenerateContent\?alt=sse)$/
          .test(request.path)
      ) {
        throw new Error(`unknown path ${request.path}`);
      }
      const entry = body.cachedContent;
      if (entry !== undefined) {
        if (
          body.systemInstruction !== undefined || body.tools !== undefined ||
          body.toolConfig !== undefined
        ) {
          throw new Error(
            "CachedContent can not be used with GenerateContent request " +
              "setting system_instruction, tools or tool_config.",
          );
        }
        const held = caches.entries.get(entry as string);
        if (held === undefined) throw new Error(`no entry ${entry}`);
        explicit = held.reduce((sum, unit) => sum + tokensOf(unit), 0);
        units = [...held, ...geminiUnits(body)];
      } else units = geminiUnits(body);
    } catch (error) {
      server.rejections.push((error as Error).message);
      return geminiRefusal((error as Error).message);
    }
    server.bodies.push(body);
    let total = 0;
    let cached = explicit;
    const ids = idsOf(units);
    units.forEach((unit, index) => {
      total += tokensOf(unit);
      const key = ids[index + 1];
      if (sent.has(key) && total >= minimum) cached = Math.max(cached, total);
    });
    for (let count = 1; count <= units.length; count++) sent.add(ids[count]);
    const usageMetadata = {
      promptTokenCount: total,
      ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
      candidatesTokenCount: 1,
      totalTokenCount: total + 1,
    };
    if (request.path.includes(":streamGenerateContent")) {
      // Two chunks: the text in two pieces, the usage with the last.
      return new EventStream(["o", "k"].map((text, index) => ({
        candidates: [{
          content: { role: "model", parts: [{ text }] },
          index: 0,
          ...(index === 1 ? { finishReason: "STOP" } : {}),
        }],
        ...(index === 1 ? { usageMetadata } : {}),
        modelVersion: "gemini-loopback",
        responseId: `loopback-${server.bodies.length}`,
      })));
    }
    return {
      candidates: [{
        content: { role: "model", parts: [{ text: "ok" }] },
        finishReason: "STOP",
        index: 0,
      }],
      usageMetadata: {
        promptTokenCount: total,
        ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
        candidatesTokenCount: 1,
        totalTokenCount: total + 1,
      },
      modelVersion: "gemini-loopback",
      responseId: `loopback-${server.bodies.length}`,
    };
  };
  return { server, answer };
}

/** Runs `run` against a fresh server made by `make`, closed afterwards. */
export function withCacheServer<T, S extends CacheServer = CacheServer>(
  make: () => {
    server: S;
    answer: (request: RecordedRequest) => unknown;
  },
  run: (baseURL: string, server: S) => Promise<T>,
): Promise<T> {
  const { server, answer } = make();
  return serveLoopback(answer, (baseURL) => run(baseURL, server));
}
