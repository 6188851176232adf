/**
 * `rxprompt inspect CONFIG --serve [--port N] [--session SESSION |
 * --recording FILE]`: the inspector page on 127.0.0.1 (the server is
 * `http.ts`). The state is sent whole on every change: each view
 * of the config follows `watch()`, every assembly bounded by `--timeout`,
 * and the config is imported again when its file is saved (the old one
 * disposed, its `dispose` export first). A config that fails to load, or
 * whose code throws outside an assembly, is one line on stderr (a load
 * error on the page too); the server stays up, and a saved fix shows. The
 * session (or recording) is charted after the server listens. It runs
 * until SIGINT or SIGTERM, then closes its connections and disposes the
 * config.
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
import type { AssembleContext } from "../../mod.ts";
import { type Args, DEFAULT_TIMEOUT_MS, PROVIDERS } from "../args.ts";
import { describeTarget, disposeConfig } from "../assembly.ts";
import { CliError, describeError } from "../cli_error.ts";
import {
  loadConfig,
  type PromptConfig,
  type Target,
  targets,
} from "../config.ts";
import { firstWithin, seconds, within, withSignal } from "../deadline.ts";
import {
  type CacheChart,
  chartOfRecording,
  chartsOfSimulation,
} from "./chart.ts";
import { listen, LOOPBACK } from "./http.ts";
import { failedView, type ScopeView, scopeView } from "./model.ts";
import { node } from "../node.ts";
import type { Output } from "../output.ts";
import { readmeWay } from "../readme_way.ts";
import { reportOfFile } from "../report.ts";
import { loadSession, runSession } from "../session.ts";
import { reportStrayErrors } from "../stray_errors.ts";
import { type CountTokens, tokenCounter } from "../tokens.ts";
import { fileChanges$ } from "../watch.ts";

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
  /**
   * `--timeout` in ms: the bound of every assembly of a view (one that
   * does not settle in time is shown as the view's error) and of each
   * step of the session.
   */
  timeoutMs: number;
  scopes: ScopeView[];
  /** The session module's path, when one was given. */
  session?: string;
  /** The recording's path, when one was given. */
  recording?: string;
  /**
   * The session is running (or the recording being read): the page is
   * served meanwhile, and the charts come when it ends.
   */
  charting: boolean;
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
  const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const count = memo(await tokenCounter());
  const state$ = new BehaviorSubject<InspectorState>({
    config: path,
    sequence: 1,
    status: "loading",
    timeoutMs,
    scopes: [],
    ...(args.session === undefined ? {} : { session: args.session }),
    ...(args.recording === undefined ? {} : { recording: args.recording }),
    charting: args.session !== undefined || args.recording !== undefined,
    charts: [],
    chartErrors: [],
  });
  const update = (change: Partial<InspectorState>) => {
    const previous = state$.value;
    state$.next({ ...previous, ...change, sequence: previous.sequence + 1 });
  };
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
        void disposeConfig(active, args);
      }
      active = loaded;
      return scopes$(loaded, { count, timeoutMs }).pipe(
        map((scopes) => ({ scopes })),
      );
    }),
  );
  // Listening comes first: the session (or the recording) is charted
  // meanwhile, and the page shows it when it is done.
  const server = await listen({
    host: LOOPBACK,
    port: args.port ?? 0,
    state$,
  });
  output.line(
    `rxprompt inspect: serving ${path} on ${server.url} (Ctrl-C stops)`,
  );
  // A replaced config's timer may still call its disposed registry.
  const stopReporting = reportStrayErrors(output, "the server");
  void charts(args, { count, timeoutMs }).then((charted) => {
    for (const error of charted.errors) output.error(error);
    update({
      charting: false,
      charts: charted.charts,
      chartErrors: charted.errors,
    });
  });
  const subscription = views$.subscribe((view) => {
    update(
      "error" in view
        ? { status: "config-error", error: view.error, scopes: [] }
        : { status: "ready", error: undefined, scopes: view.scopes },
    );
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
  if (active !== undefined) await disposeConfig(active, args);
  stopReporting();
  output.line("rxprompt inspect: stopped");
  return 0;
}

/** The charts of `--session` or `--recording`, with what went wrong. */
function charts(
  args: Args,
  options: { count: CountTokens; timeoutMs: number },
): Promise<{ charts: CacheChart[]; errors: string[] }> {
  if (args.recording !== undefined) {
    return recordingCharts(args.recording, options.timeoutMs);
  }
  if (args.session !== undefined) return sessionCharts(args.session, options);
  return Promise.resolve({ charts: [], errors: [] });
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

/**
 * Every view of `config`, each following its `watch()`; every assembly of
 * the page (each view's `explain()`) is bounded by `timeoutMs` and aborted
 * at the limit, and a view whose first `watch()` view does not come in
 * time shows that, still watching.
 */
function scopes$(
  config: PromptConfig,
  options: { count: CountTokens; timeoutMs: number },
): Observable<ScopeView[]> {
  const { count, timeoutMs } = options;
  const names = new Map(
    [...config.scopes].map(([name, key]) => [key, name] as const),
  );
  const views = targets(config).map((target: Target, position) => {
    const view = { ...target, position };
    const where = `config ${config.source}: the`;
    const watched$ = defer(() => {
      const context = config.context(target.key);
      return config.prompt.watch(context).pipe(
        switchMap(() =>
          from(within({
            timeoutMs,
            what: `${where} assembly of ${describeTarget(target)}`,
            why: "a provider or a listener never answered; it was aborted",
          }, (signal) =>
            scopeView(config.prompt, {
              ...view,
              context: (): AssembleContext => withSignal(context, signal),
            }, { count, names }))).pipe(
              catchError((error: unknown) =>
                of(failedView(view, oneLine(error)))
              ),
            )
        ),
      );
    }).pipe(
      catchError((error: unknown) => of(failedView(view, oneLine(error)))),
    );
    return firstWithin(watched$, {
      timeoutMs,
      late: () =>
        failedView(
          view,
          `${where} first view of ${describeTarget(target)} did not ` +
            `settle within ${seconds(timeoutMs)} (a provider or a listener ` +
            `never answered); still watching`,
        ),
    });
  });
  return combineLatest(views).pipe(debounceTime(0));
}

/** Runs the session once and charts it for every provider. */
async function sessionCharts(
  path: string,
  { count, timeoutMs }: { count: CountTokens; timeoutMs: number },
): Promise<{ charts: CacheChart[]; errors: string[] }> {
  try {
    const session = await loadSession(path, { timeoutMs });
    const steps = await runSession(session, { readme: readmeWay }, {
      timeoutMs,
      source: path,
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
  timeoutMs: number,
): Promise<{ charts: CacheChart[]; errors: string[] }> {
  try {
    const result = await reportOfFile(file, { timeoutMs });
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
