/**
 * The command line's one time bound (`--timeout SECONDS`): every wait on a
 * config's or a session's code (loading it, each assembly, each step, each
 * teardown) settles within it or becomes one {@linkcode CliError} that
 * names what did not settle and the limit. The library work the wait
 * started is aborted through the signal it was given.
 *
 * The pending timer also keeps the event loop alive: without it, a wait on
 * a promise nothing will ever settle ends Deno with "Top-level await
 * promise never resolved" and a code frame, not this line.
 *
 * @module
 */

import { Observable } from "rxjs";
import { DEFAULT_TIMEOUT_MS } from "./args.ts";
import { CliError } from "./cli_error.ts";

/** What a bounded wait names in its line, and how it ends. */
export interface Wait {
  /** The limit in milliseconds (default 10 s). */
  readonly timeoutMs?: number;
  /**
   * What did not settle, as the line starts: `config a.ts: the assembly of
   * the global view`.
   */
  readonly what: string;
  /** What it did not do (default `did not settle`). */
  readonly verb?: string;
  /** Why it may not have settled, in parentheses after the limit. */
  readonly why?: string;
}

/**
 * Runs `work` with a signal that aborts when `wait.timeoutMs` passes; the
 * result settles as `work`'s does, or rejects with a `CliError` at the
 * limit (whatever `work` does after it is ignored).
 *
 * @throws {CliError} `WHAT did not settle within N s (WHY); ...` at the
 * limit
 */
export async function within<T>(
  wait: Wait,
  work: (signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const timeoutMs = wait.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const expired = timedOut(wait, timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(expired);
      reject(expired);
    }, timeoutMs);
  });
  try {
    // Started inside the race: a synchronous throw rejects it.
    const running = Promise.resolve().then(() => work(controller.signal));
    return await Promise.race([running, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** The line of a wait that did not settle in time. */
function timedOut(wait: Wait, timeoutMs: number): CliError {
  return new CliError(
    `${wait.what} ${wait.verb ?? "did not settle"} within ` +
      seconds(timeoutMs) +
      (wait.why === undefined ? "" : ` (${wait.why})`) +
      `; fix it or pass --timeout SECONDS`,
  );
}

/** `2 s`, `0.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * `context` with `signal` as its own `signal` (combined with the one it
 * had), its prototype and other own fields kept.
 */
export function withSignal<C extends object>(
  context: C,
  signal: AbortSignal,
): C & { signal: AbortSignal } {
  const own = (context as { signal?: unknown }).signal;
  // A signal that is not one is the library's to reject, as given.
  if (own !== undefined && !(own instanceof AbortSignal)) {
    return context as C & { signal: AbortSignal };
  }
  const combined = own !== undefined && typeof AbortSignal.any === "function"
    ? AbortSignal.any([own, signal])
    : signal;
  return Object.assign(
    Object.create(Object.getPrototypeOf(context)),
    context,
    { signal: combined },
  );
}

/**
 * `source$`, with `late()` sent in its place when its first value has not
 * come within `timeoutMs`; the source is still followed (a `watch()` whose
 * first view never settles is reported, and a later change may bring one).
 */
export function firstWithin<T>(
  source$: Observable<T>,
  options: { timeoutMs: number; late: () => T },
): Observable<T> {
  return new Observable<T>((subscriber) => {
    let arrived = false;
    const timer = setTimeout(() => {
      if (!arrived) subscriber.next(options.late());
    }, options.timeoutMs);
    const subscription = source$.subscribe({
      next(value) {
        arrived = true;
        clearTimeout(timer);
        subscriber.next(value);
      },
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    return () => {
      clearTimeout(timer);
      subscription.unsubscribe();
    };
  });
}
