/**
 * The inspector's HTTP server (`node:http`, so it runs on Deno, Node and
 * Bun) on a loopback address only: the page, its script and style, the
 * current state as JSON (`/state`) and every new state as a server-sent
 * event (`/events`). It answers only requests addressed to this machine's
 * names, each with exactly one `Host` header.
 *
 * @module
 */

import type { BehaviorSubject } from "rxjs";
import { CliError, describeError } from "../cli_error.ts";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "./page.ts";

/** The only address the page is served on. */
export const LOOPBACK = "127.0.0.1";

/** The parts of `node:http` in use. */
interface Http {
  createServer(
    handler: (request: HttpRequest, response: HttpResponse) => void,
  ): HttpServer;
}

interface HttpRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  /** Every header line as sent: names and values, alternating. */
  rawHeaders?: string[];
  on(event: "close", listener: () => void): void;
}

interface HttpResponse {
  writeHead(status: number, headers: Record<string, string>): void;
  write(chunk: string): boolean;
  end(chunk?: string): void;
  on(event: "close", listener: () => void): void;
}

interface HttpServer {
  listen(port: number, host: string, done: () => void): void;
  once(event: "error", listener: (error: unknown) => void): void;
  off(event: "error", listener: (error: unknown) => void): void;
  address(): { port: number } | string | null;
  close(done: () => void): void;
  closeAllConnections?(): void;
}

/** A running inspector server. */
export interface InspectorServer {
  /** `http://127.0.0.1:PORT/`. */
  readonly url: string;
  readonly port: number;
  /** Ends the event streams, closes every connection and the server. */
  close(): Promise<void>;
}

/** Whether `host` names this machine's loopback interface only. */
export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

/**
 * Serves the page for `state$` on `host:port`.
 *
 * @throws {CliError} for a host that is not a loopback address (the page
 * shows a prompt and its contributors: it must not reach the network), or
 * a port that cannot be listened on
 */
export async function listen<State>(
  options: {
    host: string;
    port: number;
    state$: BehaviorSubject<State>;
  },
): Promise<InspectorServer> {
  const { host, port, state$ } = options;
  if (!isLoopback(host)) {
    throw new CliError(
      `inspect --serve binds ${LOOPBACK} only (the page shows the prompt ` +
        `and who contributed it); refusing ${JSON.stringify(host)}`,
    );
  }
  const http = await import(["node", "http"].join(":")) as unknown as Http;
  const streams = new Set<HttpResponse>();
  let bound = port;
  const server = http.createServer((request, response) => {
    handle(request, response, { port: bound, state$, streams });
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: unknown) => {
      const code = (error as { code?: unknown })?.code;
      reject(
        new CliError(
          `cannot serve on ${host}:${port}: ${
            code === "EADDRINUSE"
              ? "the port is in use (--port 0 picks a free one)"
              : describeError(error)
          }`,
        ),
      );
    };
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve();
    });
  });
  const address = server.address();
  bound = typeof address === "object" && address !== null ? address.port : port;
  const subscription = state$.subscribe((state) => {
    const event = `event: state\ndata: ${JSON.stringify(state)}\n\n`;
    for (const stream of streams) stream.write(event);
  });
  const shown = host === "::1" ? "[::1]" : host;
  return {
    url: `http://${shown}:${bound}/`,
    port: bound,
    close() {
      subscription.unsubscribe();
      for (const stream of streams) stream.end();
      streams.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}

const ASSETS: Record<string, { type: string; body: string }> = {
  "/": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/page.js": { type: "text/javascript; charset=utf-8", body: PAGE_JS },
  "/page.css": { type: "text/css; charset=utf-8", body: PAGE_CSS },
};

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; " +
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; " +
    "form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

function handle<State>(
  request: HttpRequest,
  response: HttpResponse,
  context: {
    port: number;
    state$: BehaviorSubject<State>;
    streams: Set<HttpResponse>;
  },
): void {
  const send = (status: number, type: string, body: string) => {
    response.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type });
    response.end(request.method === "HEAD" ? undefined : body);
  };
  // RFC 9112, 3.2: a request without a Host, or with more than one, is a
  // 400; the parser keeps only the first of several, so count the lines.
  const raw = request.rawHeaders;
  const hosts = Array.isArray(raw)
    ? raw.filter((name, index) =>
      index % 2 === 0 && name.toLowerCase() === "host"
    ).length
    : typeof request.headers.host === "string"
    ? 1
    : 0;
  if (hosts !== 1) {
    return send(
      400,
      "text/plain; charset=utf-8",
      `a request needs exactly one Host header; this one has ${hosts}\n`,
    );
  }
  // Another site's page that resolves its own name to 127.0.0.1 (DNS
  // rebinding) sends its own Host: only this machine's names are served.
  const hostHeader = request.headers.host;
  const allowed = [
    `127.0.0.1:${context.port}`,
    `localhost:${context.port}`,
    `[::1]:${context.port}`,
  ];
  if (typeof hostHeader !== "string" || !allowed.includes(hostHeader)) {
    return send(
      403,
      "text/plain; charset=utf-8",
      `rxprompt inspect serves ${LOOPBACK}:${context.port} only\n`,
    );
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return send(405, "text/plain; charset=utf-8", "GET only\n");
  }
  const path = (request.url ?? "/").split("?", 1)[0];
  if (path === "/state") {
    return send(
      200,
      "application/json; charset=utf-8",
      JSON.stringify(context.state$.value),
    );
  }
  if (path === "/events") {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/event-stream; charset=utf-8",
      Connection: "keep-alive",
    });
    response.write(
      `retry: 1000\nevent: state\ndata: ${
        JSON.stringify(context.state$.value)
      }\n\n`,
    );
    context.streams.add(response);
    response.on("close", () => context.streams.delete(response));
    return;
  }
  const asset = ASSETS[path];
  if (asset === undefined) {
    return send(404, "text/plain; charset=utf-8", "not found\n");
  }
  send(200, asset.type, asset.body);
}
