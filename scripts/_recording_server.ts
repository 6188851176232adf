/**
 * A one-request recording server on 127.0.0.1 for the demo: it answers the
 * Anthropic Messages API with a minimal valid message, so the real client
 * resolves, and keeps the request body it received. Bounded in body size
 * and time; always closed (the loopback server of the SDK round trips).
 *
 * @module
 */

import {
  anthropicMessage,
  type RecordedRequest,
  serveLoopback,
} from "../tests/adapters/loopback.ts";

export type { RecordedRequest };

const MESSAGE = anthropicMessage([{ type: "text", text: "ok" }]);

/**
 * Starts the server on an ephemeral port, runs `send` with its base URL and
 * returns the one request it received; the server is closed
 * whatever happens, and the run fails after 10 seconds.
 */
export async function recordOneRequest(
  send: (baseURL: string) => Promise<unknown>,
): Promise<RecordedRequest> {
  const recorded: RecordedRequest[] = [];
  await serveLoopback(
    (request) => {
      if (recorded.length > 0 || !request.path.endsWith("/messages")) {
        return undefined;
      }
      recorded.push(request);
      return MESSAGE;
    },
    send,
    { timeLimitMs: 10_000 },
  );
  if (recorded.length !== 1) throw new Error("the server recorded no request");
  return recorded[0];
}
