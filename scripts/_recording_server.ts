/**
 * A one-request recording server on 127.0.0.1 for the demo: it answers the
 * Anthropic Messages API with a minimal valid message, so the real client
 * resolves, and keeps the request body it received. Bounded in body size
 * and time; always closed.
 *
 * @module
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const MAX_BODY_BYTES = 1 << 20;
const TIME_LIMIT_MS = 10_000;

const MESSAGE = {
  id: "msg_local",
  type: "message",
  role: "assistant",
  model: "claude-local",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

/** The one request the server recorded. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

/**
 * Starts the server on an ephemeral port, runs `send` with its base URL and
 * returns the one request it received; the server is closed
 * whatever happens, and the run fails after 10 seconds.
 */
export async function recordOneRequest(
  send: (baseURL: string) => Promise<unknown>,
): Promise<RecordedRequest> {
  const recorded: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    readBody(request).then((body) => {
      const path = request.url ?? "";
      const accepted = recorded.length === 0 && path.endsWith("/messages");
      if (accepted) recorded.push({ method: request.method ?? "", path, body });
      response.writeHead(accepted ? 200 : 400, {
        "content-type": "application/json",
      });
      response.end(JSON.stringify(accepted ? MESSAGE : { error: "rejected" }));
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
        () => reject(new Error(`no answer within ${TIME_LIMIT_MS} ms`)),
        TIME_LIMIT_MS,
      );
    });
    await Promise.race([send(`http://127.0.0.1:${port}`), timeout]);
    if (recorded.length !== 1) {
      throw new Error("the server recorded no request");
    }
    return recorded[0];
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error("request body too large"));
      else chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > MAX_BODY_BYTES) return;
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
