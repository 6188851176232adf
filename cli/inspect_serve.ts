/**
 * `rxprompt inspect CONFIG --serve [--port N] [--session SESSION |
 * --recording FILE]`: the
 * inspector page on 127.0.0.1. The server (`node:http`, so it runs on
 * Deno, Node and Bun) sends the page, its script and style (no external
 * assets, no build step), the current state as JSON, and every new state
 * as a server-sent event: each view of the config follows `watch()`, and
 * the config is imported again when its file is saved. A config that fails
 * to load is one line on stderr and on the page; the server stays up, and
 * a saved fix shows. It runs until SIGINT or SIGTERM, then closes its
 * connections and disposes the config.
 *
 * @module
 */

import {
  BehaviorSubject,
  catchError,
  combineLatest,
  concat,
  debounceTime,
  defer,
  from,
  map,
  type Observable,
  of,
  switchMap,
} from "rxjs";
import type { Args } from "./args.ts";
import { disposeConfig } from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import {
  loadConfig,
  type PromptConfig,
  type Target,
  targets,
} from "./config.ts";
import {
  type CacheChart,
  chartOfRecording,
  chartsOfSimulation,
} from "./inspect_chart.ts";
import { failedView, type ScopeView, scopeView } from "./inspect_model.ts";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "./inspect_page.ts";
import { node } from "./node.ts";
import type { Output } from "./output.ts";
import { readmeWay } from "./readme_way.ts";
import { reportOfFile } from "./report.ts";
import { loadSession, runSession } from "./session.ts";
import { PROVIDERS } from "./simulate.ts";
import { type CountTokens, tokenCounter } from "./tokens.ts";
import { fileChanges$ } from "./watch.ts";

/** The only address the page is served on. */
export const LOOPBACK = "127.0.0.1";

/** Everything the page shows; sent whole on every change. */
export interface InspectorState {
  /** The config's path, as given. */
  config: string;
  /** Counts the states sent (1 for the first). */
  sequence: number;
  /** `loading` until the config's first views are in. */
  status: "loading" | "ready" | "config-error";
  /** The config's load error, in one line (`status: "config-error"`). */
  error?: string;
  scopes: ScopeView[];
  /** The session module's path, when one was given. */
  session?: string;
  /** The recording's path, when one was given. */
  recording?: string;
  /** One chart per provider of the session's requests (or the recording's). */
  charts: CacheChart[];
  /** Why the session (or a provider's chart) could not be charted. */
  chartErrors: string[];
}

/** How long file events settle before the config is imported again. */
const SETTLE_MS = 50;

/** Runs `inspect --serve` until interrupted; resolves to the exit code. */
export async function serveInspect(
  args: Args,
  output: Output,
): Promise<number> {
  const path = args.configs[0];
  const count = memo(await tokenCounter());
  const session = args.recording !== undefined
    ? await recordingCharts(args.recording, args.timeoutMs)
    : args.session === undefined
    ? { charts: [], errors: [] }
    : await sessionCharts(args.session, count);
  for (const error of session.errors) output.error(error);
  const state$ = new BehaviorSubject<InspectorState>({
    config: path,
    sequence: 1,
    status: "loading",
    scopes: [],
    ...(args.session === undefined ? {} : { session: args.session }),
    ...(args.recording === undefined ? {} : { recording: args.recording }),
    charts: session.charts,
    chartErrors: session.errors,
  });
  let active: PromptConfig | undefined;
  const configs$: Observable<PromptConfig | { error: string }> = concat(
    defer(() => load(path, args)),
    fileChanges$(node.resolve(path)).pipe(
      debounceTime(SETTLE_MS),
      switchMap(() => defer(() => load(path, args, true))),
    ),
  );
  const views$ = configs$.pipe(
    switchMap((loaded) => {
      if ("error" in loaded) {
        output.error(`config error: ${loaded.error}`);
        return of({ error: loaded.error });
      }
      if (active !== undefined && active.prompt !== loaded.prompt) {
        void disposeConfig(active);
      }
      active = loaded;
      return scopes$(loaded, count).pipe(map((scopes) => ({ scopes })));
    }),
  );
  const server = await listen({
    host: LOOPBACK,
    port: args.port ?? 0,
    state$,
  });
  output.line(
    `rxprompt inspect: serving ${path} on ${server.url} (Ctrl-C stops)`,
  );
  const subscription = views$.subscribe((update) => {
    const previous = state$.value;
    state$.next({
      ...previous,
      sequence: previous.sequence + 1,
      ...("error" in update
        ? { status: "config-error", error: update.error, scopes: [] }
        : { status: "ready", error: undefined, scopes: update.scopes }),
    });
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  subscription.unsubscribe();
  await server.close();
  if (active !== undefined) await disposeConfig(active);
  output.line("rxprompt inspect: stopped");
  return 0;
}

/** The config, or its load error in one line. */
async function load(
  path: string,
  args: Args,
  fresh = false,
): Promise<PromptConfig | { error: string }> {
  try {
    return await loadConfig(path, { fresh, timeoutMs: args.timeoutMs });
  } catch (error) {
    return { error: oneLine(error) };
  }
}

/** Every view of `config`, each following its `watch()`. */
function scopes$(
  config: PromptConfig,
  count: CountTokens,
): Observable<ScopeView[]> {
  const names = new Map(
    [...config.scopes].map(([name, key]) => [key, name] as const),
  );
  const views = targets(config).map((target: Target, position) => {
    const view = { ...target, position, context: () => ({}) };
    return defer(() => {
      const context = config.context(target.key);
      view.context = () => context;
      return config.prompt.watch(context);
    }).pipe(
      switchMap(() => from(scopeView(config.prompt, view, { count, names }))),
      catchError((error: unknown) => of(failedView(view, oneLine(error)))),
    );
  });
  return combineLatest(views).pipe(debounceTime(0));
}

/** Runs the session once and charts it for every provider. */
async function sessionCharts(
  path: string,
  count: CountTokens,
): Promise<{ charts: CacheChart[]; errors: string[] }> {
  try {
    const steps = await runSession(await loadSession(path), {
      readme: readmeWay,
    });
    return chartsOfSimulation(steps, {
      session: path,
      providers: PROVIDERS,
      count,
    });
  } catch (error) {
    return { charts: [], errors: [`session error: ${oneLine(error)}`] };
  }
}

/** Reads the recording and charts its reported requests. */
async function recordingCharts(
  file: string,
  timeoutMs: number | undefined,
): Promise<{ charts: CacheChart[]; errors: string[] }> {
  try {
    const result = await reportOfFile(file, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    return { charts: [chartOfRecording(result)], errors: [] };
  } catch (error) {
    return { charts: [], errors: [`recording error: ${oneLine(error)}`] };
  }
}

/** An error as one line: a `CliError`'s message, else its first line. */
function oneLine(error: unknown): string {
  const text = error instanceof CliError ? error.message : describeError(error);
  return text.split("\n", 1)[0];
}

function memo(count: CountTokens): CountTokens {
  const counted = new Map<string, number>();
  return (text) => {
    let tokens = counted.get(text);
    if (tokens === undefined) counted.set(text, tokens = count(text));
    return tokens;
  };
}

// --- the HTTP server -------------------------------------------------------

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
export async function listen(
  options: {
    host: string;
    port: number;
    state$: BehaviorSubject<InspectorState>;
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

function handle(
  request: HttpRequest,
  response: HttpResponse,
  context: {
    port: number;
    state$: BehaviorSubject<InspectorState>;
    streams: Set<HttpResponse>;
  },
): void {
  const send = (status: number, type: string, body: string) => {
    response.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type });
    response.end(request.method === "HEAD" ? undefined : body);
  };
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
