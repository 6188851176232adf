/**
 * A loopback server on 127.0.0.1 that answers each request with the next
 * reply of a script (the model's side of a conversation), and records every
 * request body byte for byte. Bounded in requests and time; always closed.
 * Imported only by `*_sdk_test.ts` files.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const TIME_LIMIT_MS = 20_000;

/**
 * Runs `body` with the server's base URL and the bodies received so far;
 * request n is answered with `replies[n]` (past the end: HTTP 400).
 */
export async function withScript<T>(
  replies: readonly unknown[],
  body: (baseURL: string, received: string[]) => Promise<T>,
): Promise<T> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    request.on("end", () => {
      const reply = replies[received.length];
      received.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(reply === undefined ? 400 : 200, {
        "content-type": "application/json",
      });
      response.end(
        JSON.stringify(reply ?? { error: { message: "script ended" } }),
      );
    });
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
      body(`http://127.0.0.1:${port}`, received),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
