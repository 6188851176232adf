/**
 * The HTTP side of the deferred-tool loopback servers: 127.0.0.1, an
 * ephemeral port, each request body read whole (at most 8 MiB: a 300-tool
 * body is about 200 KiB) and answered with the status and JSON the rules
 * give, always closed, bounded in time. Imported by the `*_sdk_test.ts`
 * files of this folder only.
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received. */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

/** What a server answers: an HTTP status and a JSON body. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
}

const MAX_BODY_BYTES = 8 << 20;
const MAX_REQUESTS = 64;
const TIME_LIMIT_MS = 30_000;

/**
 * Serves `answer` while `run` runs with the base URL, then closes; the run
 * fails after `timeLimitMs` (default 30 s), and past 64 requests every
 * request is answered 429.
 */
export async function serveRules<T>(
  answer: (request: Received) => Reply,
  run: (baseURL: string) => Promise<T>,
  { timeLimitMs = TIME_LIMIT_MS }: { timeLimitMs?: number } = {},
): Promise<T> {
  let served = 0;
  const server = createServer((request, response) => {
    readBody(request).then((body) => {
      let reply: Reply;
      if (body === undefined) {
        reply = { status: 413, body: { error: { message: "too large" } } };
      } else if (++served > MAX_REQUESTS) {
        reply = { status: 429, body: { error: { message: "too many" } } };
      } else {
        try {
          reply = answer({
            method: request.method ?? "",
            path: request.url ?? "",
            body,
          });
        } catch (error) {
          // A script that asks the model for the impossible: a server fault.
          reply = { status: 500, body: { error: { message: String(error) } } };
        }
      }
      response.writeHead(reply.status, {
        "content-type": "application/json",
        // The SDKs retry a 5xx and a 429 unless told not to.
        "x-should-retry": "false",
      });
      response.end(JSON.stringify(reply.body));
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

/** The request body as text, or `undefined` past 8 MiB. */
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

/** Tokens of a text: a quarter of its length, rounded up (as elsewhere in the tests). */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A rule a request broke: answered 400 with this message. */
export class RuleBroken extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

export function record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
