/**
 * `rxprompt watch CONFIG [--scope NAME]`: the rendered prompt, then what
 * changed, each time a view arrives: when the registry changes (the
 * config's `watch()` stream) and when the config file changes (the config
 * is imported anew; the modules it imports stay cached). Runs until
 * SIGINT or SIGTERM. `--json` writes one JSON object per line.
 *
 * @module
 */

import {
  catchError,
  concat,
  debounceTime,
  defer,
  finalize,
  from,
  map,
  type Observable,
  of,
  switchMap,
} from "rxjs";
import {
  diffAssemblies,
  type PromptAssembly,
  type PromptDiff,
} from "../mod.ts";
import { type Args, DEFAULT_TIMEOUT_MS } from "./args.ts";
import { firstWithin, seconds } from "./deadline.ts";
import { describeTarget, disposeConfig, rendered } from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import {
  loadConfig,
  type PromptConfig,
  type Target,
  target,
} from "./config.ts";
import { markerHits } from "./cache_hits.ts";
import { diffReport } from "./diff_report.ts";
import { node } from "./node.ts";
import type { Output } from "./output.ts";
import { reportStrayErrors } from "./stray_errors.ts";

/** Why a view was printed. */
type Reason = "start" | "reload" | "change";

/** What the watch prints, in order. */
type WatchEvent =
  | {
    event: "view";
    reason: Reason;
    assembly: PromptAssembly;
    prompt: string;
    runtimeContext: string;
    diff?: PromptDiff;
  }
  | { event: "error"; reason: Reason; message: string }
  | { event: "config-error"; message: string };

/** How long file events settle before the config is imported again. */
const SETTLE_MS = 50;

/** Runs `watch` until interrupted; resolves to the exit code. */
export async function watch(args: Args, output: Output): Promise<number> {
  const path = args.configs[0];
  const initial = await loadConfig(path, { timeoutMs: args.timeoutMs });
  const chosen = target(initial, args.scope);
  let active: PromptConfig = initial;
  let previous: { assembly: PromptAssembly; prompt: string } | undefined;
  const print = printer(output, args, chosen, (view) => {
    const diff = view.diff ??
      (previous === undefined
        ? undefined
        : diffOrUndefined(previous.assembly, view.assembly));
    const before = previous;
    previous = view;
    return { diff, before };
  });
  const events$ = concat(of(initial), reloads$(path, chosen, args)).pipe(
    switchMap((loaded): Observable<WatchEvent> => {
      if ("event" in loaded) return of(loaded);
      if (loaded.prompt !== active.prompt) void disposeConfig(active, args);
      active = loaded;
      // The reloaded config's own key: an object key (an agent) is a new
      // object in the new module.
      const own = target(loaded, chosen.name);
      return views$(loaded, own, {
        first: loaded === initial ? "start" : "reload",
        timeoutMs: args.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      });
    }),
  );
  const stopReporting = reportStrayErrors(output, "the watch");
  await new Promise<void>((resolveStop, rejectStop) => {
    const subscription = events$.subscribe({
      next: print,
      error: rejectStop,
      complete: resolveStop,
    });
    function stop(): void {
      subscription.unsubscribe();
      resolveStop();
    }
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  }).finally(async () => {
    await disposeConfig(active, args);
    stopReporting();
  });
  return 0;
}

/** The config, imported anew after each settled change of its file. */
function reloads$(
  path: string,
  chosen: Target,
  args: Args,
): Observable<PromptConfig | WatchEvent> {
  return fileChanges$(node.resolve(path)).pipe(
    debounceTime(SETTLE_MS),
    switchMap(() =>
      defer(async () => {
        const config = await loadConfig(path, {
          fresh: true,
          timeoutMs: args.timeoutMs,
        });
        target(config, chosen.name); // the scope must still exist
        return config;
      }).pipe(
        catchError((error: unknown) => of(configError(error))),
      )
    ),
  );
}

/**
 * Changes of `file`, seen through its folder: an editor that saves by
 * replacing the file would end a watch on the file itself.
 */
export function fileChanges$(file: string): Observable<void> {
  const name = node.basename(file);
  return defer(() => {
    const controller = new AbortController();
    const events = node.watch(node.dirname(file), {
      signal: controller.signal,
    });
    return from(events).pipe(
      catchError((error: unknown) => {
        if ((error as { name?: unknown })?.name === "AbortError") return [];
        throw new CliError(`cannot watch ${file}: ${describeError(error)}`);
      }),
      switchMap((event) =>
        event.filename === null || event.filename === name ? of(undefined) : []
      ),
      finalize(() => controller.abort()),
    );
  });
}

/**
 * The config's views of `chosen`, as events. A first view that does not
 * arrive within `timeoutMs` is reported as an error event, and the watch
 * goes on: a later change may still bring a view.
 */
function views$(
  config: PromptConfig,
  chosen: Target,
  { first, timeoutMs }: { first: Reason; timeoutMs: number },
): Observable<WatchEvent> {
  const events$ = defer(() => config.prompt.watch(config.context(chosen.key)))
    .pipe(
      map((view, index): WatchEvent => {
        const reason = index === 0 ? first : "change";
        if ("error" in view) {
          return { event: "error", reason, message: describeError(view.error) };
        }
        try {
          return {
            event: "view",
            reason,
            ...rendered(view.assembly),
            ...diffOf(view),
          };
        } catch (error) {
          return { event: "error", reason, message: describeError(error) };
        }
      }),
      catchError((error: unknown) => of(configError(error))),
    );
  return firstWithin(events$, {
    timeoutMs,
    late: () => ({
      event: "error",
      reason: first,
      message: `config ${config.source}: the first view of ${
        describeTarget(chosen)
      } did not settle within ${
        seconds(timeoutMs)
      } (a provider or a listener never answered); still watching`,
    }),
  });
}

/** The event of a config that failed to load or to build the registry. */
function configError(error: unknown): WatchEvent {
  return {
    event: "config-error",
    message: error instanceof CliError ? error.message : describeError(error),
  };
}

function diffOf(view: { diff?: PromptDiff }): { diff?: PromptDiff } {
  return view.diff === undefined ? {} : { diff: view.diff };
}

function diffOrUndefined(
  before: PromptAssembly,
  after: PromptAssembly,
): PromptDiff | undefined {
  try {
    return diffAssemblies(before, after);
  } catch {
    return undefined;
  }
}

/**
 * Prints each event. `track` returns a view's diff against the previously
 * printed view (across reloads too) and that view.
 */
function printer(
  output: Output,
  args: Args,
  chosen: Target,
  track: (
    view: { assembly: PromptAssembly; prompt: string; diff?: PromptDiff },
  ) => {
    diff?: PromptDiff;
    before?: { assembly: PromptAssembly; prompt: string };
  },
): (event: WatchEvent) => void {
  const { dim, red } = output.style;
  const what = describeTarget(chosen);
  return (event) => {
    if (event.event !== "view") {
      if (args.json) return output.json(event);
      const label = event.event === "error"
        ? "assembly failed"
        : "config error";
      return output.line(`${red(label)}: ${event.message}`);
    }
    const { diff, before } = track(event);
    if (args.json) {
      return output.json({ ...event, ...(diff === undefined ? {} : { diff }) });
    }
    output.line(dim(`--- ${what}: ${HEADINGS[event.reason]} ---`));
    if (diff === undefined || before === undefined) {
      return output.line(event.prompt);
    }
    const prompts = {
      before: before.prompt,
      after: event.prompt,
      hits: markerHits(before.assembly, event.assembly, diff.cache),
    };
    for (const line of diffReport(diff, prompts, output.style)) {
      output.line(line);
    }
  };
}

const HEADINGS: Record<Reason, string> = {
  start: "first view",
  reload: "config reloaded",
  change: "registry changed",
};
