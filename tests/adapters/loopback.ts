/**
 * A recording HTTP server on 127.0.0.1 for the SDK round trips: it answers
 * each model API with a minimal valid response so the real clients resolve,
 * and records every request body byte for byte. Bounded in requests, body
 * size and time; always closed. Imported only by the `*_sdk_test.ts` files.
 */

import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

const MAX_REQUESTS = 16;
const MAX_BODY_BYTES = 1 << 20;
const TIME_LIMIT_MS = 20_000;

const CHAT_COMPLETION = {
  id: "chatcmpl-loopback",
  object: "chat.completion",
  created: 0,
  model: "gpt-loopback",
  choices: [{
    index: 0,
    message: { role: "assistant", content: "ok", refusal: null },
    finish_reason: "stop",
    logprobs: null,
  }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

const RESPONSE = {
  id: "resp_loopback",
  object: "response",
  created_at: 0,
  status: "completed",
  model: "gpt-loopback",
  output: [{
    type: "message",
    id: "msg_loopback",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "ok", annotations: [] }],
  }],
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
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  },
};

const MESSAGE = {
  id: "msg_loopback",
  type: "message",
  role: "assistant",
  model: "claude-loopback",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

function replyFor(path: string): unknown {
  if (path.endsWith("/chat/completions")) return CHAT_COMPLETION;
  if (path.endsWith("/responses")) return RESPONSE;
  if (path.endsWith("/messages")) return MESSAGE;
  return undefined;
}

/**
 * Starts the server on an ephemeral port, runs `body` with its base URL and
 * the requests recorded so far, and closes it whatever happens.
 */
export async function withLoopback<T>(
  body: (baseURL: string, requests: RecordedRequest[]) => Promise<T>,
): Promise<T> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    record(request, response, requests);
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
        () => reject(new Error(`loopback run exceeded ${TIME_LIMIT_MS} ms`)),
        TIME_LIMIT_MS,
      );
    });
    return await Promise.race([
      body(`http://127.0.0.1:${port}`, requests),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function record(
  request: IncomingMessage,
  response: ServerResponse,
  requests: RecordedRequest[],
): void {
  const chunks: Uint8Array[] = [];
  let size = 0;
  request.on("data", (chunk: Uint8Array) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.on("end", () => {
    const path = request.url ?? "";
    const reply = replyFor(path);
    if (requests.length >= MAX_REQUESTS || size > MAX_BODY_BYTES || !reply) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: "rejected by loopback" } }),
      );
      return;
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    requests.push({
      method: request.method ?? "",
      path,
      body: new TextDecoder().decode(bytes),
    });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(reply));
  });
}
