/**
 * The loopback servers of the SDK round trips: HTTP on 127.0.0.1 that reads
 * each request body byte for byte, answers it with JSON the real clients
 * accept, and is always closed. `serveLoopback` is the one server;
 * `withLoopback` answers each model API with a minimal valid response,
 * `withScript` answers with the next reply of a script (the model's side of
 * a conversation). Bounded in requests, body size and time. Imported only by
 * the `*_sdk_test.ts` and `*_deno_test.ts` files, their `*_deno.ts`
 * fixtures, the rule-enforcing servers they run (`loopback_caches.ts`,
 * `thinking_server.ts`, `compaction_server.ts`) and the demo.
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
  /** Its headers, names in lower case (repeated ones joined by ", "). */
  headers: Record<string, string>;
}

/** How long a loopback run may take. */
export interface LoopbackOptions {
  /** Fail the run after this many milliseconds (default 20 000). */
  timeLimitMs?: number;
}

const MAX_REQUESTS = 16;
const MAX_BODY_BYTES = 1 << 20;
const TIME_LIMIT_MS = 20_000;
/** The tokens a reply reports, in Anthropic's names (`cached_tokens`: OpenAI's read). */
type TokenUsage = {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
};

const LOOPBACK_USAGE: TokenUsage = { input_tokens: 1, output_tokens: 1 };

/**
 * A whole Anthropic `Message` with `content`; it stops for its tool calls
 * (`stop_reason: "tool_use"`) when it has any, as the API's do.
 */
export function anthropicMessage(
  content: unknown[],
  usage: TokenUsage = LOOPBACK_USAGE,
): Record<string, unknown> {
  const calls = content.some((block) =>
    (block as { type?: unknown }).type === "tool_use"
  );
  return {
    id: "msg_loopback",
    type: "message",
    role: "assistant",
    model: "claude-loopback",
    content,
    stop_reason: calls ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage,
  };
}

/** A reply sent as server-sent events (a streamed answer). */
export class EventStream {
  constructor(readonly events: readonly Record<string, unknown>[]) {}
}

/** A reply of bytes with a content type of its own (an AWS event stream). */
export class BinaryReply {
  constructor(readonly contentType: string, readonly body: Uint8Array) {}
}

/** A reply with a status of its own and a JSON body (an API's error). */
export class StatusReply {
  constructor(readonly status: number, readonly body: unknown) {}
}

/**
 * An Anthropic `Message` (as {@linkcode anthropicMessage} makes it)
 * streamed: its events as `client.messages.stream` reads them, each tool
 * call's input in one `input_json_delta`.
 */
export function anthropicStream(message: Record<string, unknown>): EventStream {
  const content = message.content as Record<string, unknown>[];
  const blocks = content.flatMap((block, index) => {
    const start = block.type === "tool_use"
      ? { ...block, input: {} }
      : block.type === "text"
      ? { ...block, text: "" }
      : block;
    const delta = block.type === "tool_use"
      ? [{
        type: "content_block_delta",
        index,
        delta: {
          type: "input_json_delta",
          partial_json: JSON.stringify(block.input),
        },
      }]
      : block.type === "text"
      ? [{
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      }]
      : [];
    return [
      { type: "content_block_start", index, content_block: start },
      ...delta,
      { type: "content_block_stop", index },
    ];
  });
  const usage = message.usage as TokenUsage;
  return new EventStream([
    {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null },
    },
    ...blocks,
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: "message_stop" },
  ]);
}

/** A whole OpenAI `ChatCompletion` whose one choice is `message`. */
export function chatCompletion(
  message: Record<string, unknown>,
  usage: TokenUsage = LOOPBACK_USAGE,
): Record<string, unknown> {
  return {
    id: "chatcmpl-loopback",
    object: "chat.completion",
    created: 0,
    model: "gpt-loopback",
    choices: [{
      index: 0,
      message: { refusal: null, ...message },
      finish_reason: "stop",
      logprobs: null,
    }],
    usage: {
      prompt_tokens: usage.input_tokens,
      completion_tokens: usage.output_tokens,
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
  };
}

/** A whole OpenAI Responses `Response` with `output`. */
export function openaiResponse(
  output: Record<string, unknown>[],
  usage: TokenUsage = LOOPBACK_USAGE,
): Record<string, unknown> {
  return {
    id: "resp_loopback",
    object: "response",
    created_at: 0,
    status: "completed",
    model: "gpt-loopback",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
  };
}

const MESSAGE = anthropicMessage([{ type: "text", text: "ok" }]);
const CHAT_COMPLETION = chatCompletion({ role: "assistant", content: "ok" });
const RESPONSE = openaiResponse([{
  type: "message",
  id: "msg_loopback",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "ok", annotations: [] }],
}]);

/** The minimal valid answer of the model API at `path`, if any. */
export function replyFor(path: string): unknown {
  if (path.endsWith("/chat/completions")) return CHAT_COMPLETION;
  if (path.endsWith("/responses")) return RESPONSE;
  if (path.endsWith("/messages")) return MESSAGE;
  return undefined;
}

/**
 * Starts a server on an ephemeral port that answers each request with
 * `answer(request)` (HTTP 200, JSON or an {@linkcode EventStream}'s
 * events; a {@linkcode StatusReply}: its status and body; `undefined` or a
 * body over 1 MiB: HTTP 400),
 * runs `run` with its base URL, and closes it whatever happens; the run
 * fails after `timeLimitMs`.
 */
export async function serveLoopback<T>(
  answer: (request: RecordedRequest) => unknown,
  run: (baseURL: string) => Promise<T>,
  options: LoopbackOptions = {},
): Promise<T> {
  const timeLimitMs = options.timeLimitMs ?? TIME_LIMIT_MS;
  const server = createServer((request, response) => {
    readBody(request).then((body) => {
      const reply = body === undefined ? undefined : answer({
        method: request.method ?? "",
        path: request.url ?? "",
        body,
        headers: headersOf(request),
      });
      if (reply instanceof StatusReply) {
        response.writeHead(reply.status, {
          "content-type": "application/json",
        });
        response.end(JSON.stringify(reply.body));
        return;
      }
      if (reply instanceof BinaryReply) {
        response.writeHead(200, { "content-type": reply.contentType });
        response.end(reply.body);
        return;
      }
      if (reply instanceof EventStream) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(
          reply.events.map((event) =>
            // An event without a type is data alone (Gemini's stream).
            `${event.type === undefined ? "" : `event: ${event.type}\n`}` +
            `data: ${JSON.stringify(event)}\n\n`
          ).join(""),
        );
        return;
      }
      response.writeHead(reply === undefined ? 400 : 200, {
        "content-type": "application/json",
      });
      response.end(
        JSON.stringify(reply ?? { error: { message: "rejected by loopback" } }),
      );
    }, () => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`loopback run exceeded ${timeLimitMs} ms`)),
        timeLimitMs,
      );
    });
    return await Promise.race([run(`http://127.0.0.1:${port}`), timeout]);
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Runs `body` with the base URL of a server answering each model API with
 * a minimal valid response, and the requests recorded so far (at most 16;
 * a request past them, or to another path, is answered with HTTP 400).
 */
export function withLoopback<T>(
  body: (baseURL: string, requests: RecordedRequest[]) => Promise<T>,
): Promise<T> {
  const requests: RecordedRequest[] = [];
  return serveLoopback((request) => {
    const reply = replyFor(request.path);
    if (requests.length >= MAX_REQUESTS || reply === undefined) {
      return undefined;
    }
    requests.push(request);
    return reply;
  }, (baseURL) => body(baseURL, requests));
}

/**
 * Runs `body` with the base URL of a scripted server and the bodies
 * received so far; request n is answered with `replies[n]` (past the end:
 * HTTP 400).
 */
export function withScript<T>(
  replies: readonly unknown[],
  body: (baseURL: string, received: string[]) => Promise<T>,
): Promise<T> {
  const received: string[] = [];
  return serveLoopback((request) => {
    const reply = replies[received.length];
    received.push(request.body);
    return reply;
  }, (baseURL) => body(baseURL, received));
}

/** The request's headers, names in lower case. */
function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) {
      headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return headers;
}

/** The request body as text, or `undefined` when it is over 1 MiB. */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > MAX_BODY_BYTES) return resolve(undefined);
      const bytes = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
      resolve(new TextDecoder().decode(bytes));
    });
    request.on("error", reject);
  });
}
