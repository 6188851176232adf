/**
 * The public `change$`: the layers' changes delivered in commit order to
 * every subscriber, with subscribers contained. What a subscriber throws is
 * reported to the registry's `onSubscriberError` instead of being rethrown
 * by RxJS from a timer (which ends the host process), so a faulty
 * subscriber affects neither the registry's state nor the other
 * subscribers.
 *
 * @module
 */

import {
  Observable,
  type Observer,
  type OperatorFunction,
  Subject,
  type Subscription,
} from "rxjs";

/**
 * `source` (hot) re-emitted so that every subscriber sees its values in
 * order: a value emitted while an earlier one is still being delivered (a
 * subscriber registered or disposed something) waits until the earlier one
 * reached every subscriber. Subscribes to `source` now; completes with it.
 */
export function inCommitOrder<T>(source: Observable<T>): Observable<T> {
  const ordered = new Subject<T>();
  const pending: T[] = [];
  let delivering = false;
  source.subscribe({
    next(value) {
      pending.push(value);
      if (delivering) return;
      delivering = true;
      try {
        for (let index = 0; index < pending.length; index++) {
          ordered.next(pending[index]);
        }
      } finally {
        pending.length = 0;
        delivering = false;
      }
    },
    complete: () => ordered.complete(),
  });
  return ordered.asObservable();
}

/** Receives what a subscriber threw and the value it was handling. */
export type SubscriberErrorReporter = (error: unknown, value: unknown) => void;

/** The default reporter: `console.error`. */
export function reportToConsole(error: unknown, value: unknown): void {
  console.error("A change$ subscriber threw; the registry goes on.", error, {
    change: value,
  });
}

/**
 * `source` as an observable whose direct subscribers, and the subscribers of
 * every `pipe()` made from it, cannot throw into RxJS: their `next`, `error`
 * and `complete` callbacks are guarded, and an error with no `error`
 * callback is reported instead of rethrown.
 */
export class ContainedObservable<T> extends Observable<T> {
  readonly #report: SubscriberErrorReporter;

  constructor(source: Observable<T>, report: SubscriberErrorReporter) {
    super((subscriber) => source.subscribe(subscriber));
    this.#report = report;
  }

  override subscribe(
    observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null,
  ): Subscription {
    return super.subscribe(guard(observerOrNext, this.#report));
  }

  // deno-lint-ignore no-explicit-any
  override pipe(...operations: OperatorFunction<any, any>[]): Observable<any> {
    // deno-lint-ignore no-explicit-any
    const piped = (super.pipe as (...ops: unknown[]) => Observable<any>)(
      ...operations,
    );
    return new ContainedObservable(piped, this.#report);
  }
}

function guard<T>(
  observerOrNext:
    | Partial<Observer<T>>
    | ((value: T) => void)
    | null
    | undefined,
  report: SubscriberErrorReporter,
): Partial<Observer<T>> {
  const observer = typeof observerOrNext === "function"
    ? { next: observerOrNext }
    : observerOrNext ?? {};
  const next = observer.next;
  const error = observer.error;
  const complete = observer.complete;
  return {
    next: (value) => safely(() => next?.call(observer, value), value, report),
    error: (failure) =>
      error === undefined
        ? safeReport(report, failure, undefined)
        : safely(() => error.call(observer, failure), undefined, report),
    complete: () => safely(() => complete?.call(observer), undefined, report),
  };
}

function safely(
  run: () => void,
  value: unknown,
  report: SubscriberErrorReporter,
): void {
  try {
    run();
  } catch (error) {
    safeReport(report, error, value);
  }
}

/** A reporter that throws falls back to the console; nothing escapes. */
function safeReport(
  report: SubscriberErrorReporter,
  error: unknown,
  value: unknown,
): void {
  try {
    report(error, value);
  } catch (reportError) {
    try {
      console.error("onSubscriberError threw", reportError, error);
    } catch {
      // Nothing is left to report through.
    }
  }
}
