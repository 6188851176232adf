/**
 * Live values: the Observable form of a registration's input (a section's or
 * runtime context's `text`, a variable's or a tool source's value). Any kind
 * takes it with one call at validation (`liveOr(input, initial)`) and one at
 * build (`callSource(input, context, what)`); the registrar finds the live
 * value in the record (`liveIn(record)`) and registers it with
 * `registerLive`, which ties its subscription to the registration's lifetime.
 *
 * A live value is a cell: the source's latest value, read synchronously by
 * every assembly. What the source emits while it is being subscribed is the
 * initial value (no update); each later value or error asks the registrar to
 * announce an update. The cell holds one value, never a queue, so a source
 * that emits thousands of values costs one slot, and the views coalesce.
 *
 * @module
 */

import { isObservable, type Observable, type Subscription } from "rxjs";
import { callUserCode, userCodeFailed } from "../shared/user_code.ts";
import {
  quote,
  SystemPromptError,
  type SystemPromptErrorCode,
} from "../errors.ts";
import { isRevokedProxy } from "../shared/util.ts";

const PENDING = 0;
const VALUE = 1;
const FAILED = 2;

/** The latest value of an Observable, owned by one registration. */
export class LiveValue<T> {
  readonly #source: Observable<unknown>;
  readonly #initial: T;
  #state: typeof PENDING | typeof VALUE | typeof FAILED = PENDING;
  #latest: unknown;
  #subscription: Subscription | undefined;
  #closed = false;
  /** Set once the registration is committed; until then values are silent. */
  #onUpdate: (() => void) | undefined;
  /** A value that arrived after the subscription returned, before `arm`. */
  #missed = false;
  #subscribed = false;
  /** Resolves the promise of `firstDelivery()`, while one is waiting. */
  #delivered: (() => void) | undefined;
  #firstDelivery: Promise<void> | undefined;
  #firstSettled = false;

  /** A brand check: reads no property, so a revoked Proxy is simply not one. */
  static is(value: unknown): value is LiveValue<unknown> {
    return typeof value === "object" && value !== null && #source in value;
  }

  constructor(source: Observable<unknown>, initial: T) {
    this.#source = source;
    this.#initial = initial;
  }

  /**
   * Subscribes, once, before anything can stop the cell. What the source
   * delivers synchronously here is the initial value; an error here leaves
   * the cell failed (the registration still stands).
   */
  start(): void {
    this.#subscription = this.#source.subscribe({
      next: (value) => this.#set(VALUE, value),
      error: (error: unknown) => this.#set(FAILED, error),
      // Completing without a value: nothing more will come to wait for.
      complete: () => this.#settleFirst(),
    });
    this.#subscribed = true;
  }

  /**
   * Resolves once the source has delivered a value, errored, completed, or
   * the cell was stopped; `undefined` when that has already happened.
   */
  firstDelivery(): Promise<void> | undefined {
    if (this.#firstSettled) return undefined;
    return this.#firstDelivery ??= new Promise<void>((resolve) => {
      this.#delivered = resolve;
    });
  }

  #settleFirst(): void {
    this.#firstSettled = true;
    const delivered = this.#delivered;
    this.#delivered = undefined;
    delivered?.();
  }

  /** From now on each new value or error calls `onUpdate`. */
  arm(onUpdate: () => void): void {
    if (this.#closed) return;
    this.#onUpdate = onUpdate;
    if (this.#missed) onUpdate();
  }

  /**
   * Unsubscribes. Later deliveries are ignored; what the source's teardown
   * throws propagates (the caller removes the registration regardless).
   */
  stop(): void {
    this.#closed = true;
    this.#onUpdate = undefined;
    this.#settleFirst();
    const subscription = this.#subscription;
    this.#subscription = undefined;
    subscription?.unsubscribe();
  }

  /**
   * The latest value (unchecked: the kind checks its type), or the initial
   * value before the first one.
   *
   * @throws {SystemPromptError} `PROVIDER_FAILED` naming `what()`, with the
   * source's error as `cause`, once the source has errored.
   */
  read(what: () => string): unknown {
    if (this.#state === VALUE) return this.#latest;
    if (this.#state === PENDING) return this.#initial;
    throw userCodeFailed(
      `The ${what()} errored`,
      this.#latest,
      "; the registration reads as failed until it is disposed",
    );
  }

  #set(state: typeof VALUE | typeof FAILED, value: unknown): void {
    if (this.#closed) return;
    this.#state = state;
    this.#latest = value;
    this.#settleFirst();
    if (this.#onUpdate !== undefined) this.#onUpdate();
    else if (this.#subscribed) this.#missed = true;
  }
}

/**
 * The live values of one registry still waiting for their first delivery,
 * for `SystemPrompt.ready()`. Holds only the waiting ones: each leaves when
 * it delivers or is stopped.
 */
export class LiveFirsts {
  readonly #waiting = new Set<Promise<void>>();

  /** Waits for `live`'s first delivery too, unless it already happened. */
  track(live: LiveValue<unknown>): void {
    const first = live.firstDelivery();
    if (first === undefined || this.#waiting.has(first)) return;
    this.#waiting.add(first);
    void first.then(() => this.#waiting.delete(first));
  }

  /** Resolves once every value tracked so far has had its first delivery. */
  ready(): Promise<void> {
    return Promise.all(this.#waiting).then(() => undefined);
  }
}

/**
 * `input` as a {@linkcode LiveValue} when it is an Observable (reading
 * `initial` before its first value), else `input` unchanged.
 */
export function liveOr<T>(input: unknown, initial: T): unknown {
  return isObservableInput(input) ? new LiveValue(input, initial) : input;
}

/** Never throws: a revoked Proxy is neither an Observable nor live. */
function isObservableInput(input: unknown): input is Observable<unknown> {
  let observable = false;
  try {
    observable = isObservable(input);
  } catch {
    // isObservable reads the prototype, which a revoked Proxy cannot give.
  }
  return observable;
}

/**
 * Throws `INVALID_PROVIDER` unless `input` is a function that can be called
 * (a revoked Proxy of a function cannot) or live.
 */
export function assertSource(input: unknown, what: string): void {
  if (isRevokedProxy(input)) throw revokedFunction(what);
  if (typeof input === "function" || isLive(input)) return;
  throw new SystemPromptError(
    "INVALID_PROVIDER",
    `${what} must be a function or an Observable; got ${quote(input)}.`,
  );
}

/** Whether `input` is the live form (for a kind's validation message). */
export function isLive(input: unknown): input is LiveValue<unknown> {
  // Only this module makes LiveValues, so a hostile Proxy is never one; its
  // prototype must not be read.
  return LiveValue.is(input);
}

/**
 * The value of a provider input for one assembly: a live value's latest
 * value, or what a provider function returns (through `callUserCode`).
 */
export function callSource(
  input: unknown,
  context: unknown,
  what: () => string,
): unknown {
  if (isLive(input)) return input.read(what);
  return callUserCode(input as (context: unknown) => unknown, context, what);
}

/** The steps of a registration, as the registrar performs them. */
export interface LiveRegistration<T> {
  /** Throws what the commit would throw (a duplicate name), changing nothing. */
  check(): void;
  /** Commits, owning `stop` as the registration's teardown. */
  add(stop: () => void): T;
  /** Removes the committed registration. */
  remove(): void;
  /** Announces a new value of the committed registration. */
  update(): void;
}

/**
 * Registers `live`: subscribes after the checks and before the commit (what
 * the source delivers meanwhile is its initial value), so a source that
 * registers or disposes from inside its subscription meets a consistent
 * registry. The teardown unsubscribes, then removes the registration even
 * when the source's teardown throws.
 */
export function registerLive<T>(
  live: LiveValue<unknown>,
  steps: LiveRegistration<T>,
): T {
  steps.check();
  live.start();
  let result: T;
  try {
    result = steps.add(() => {
      try {
        live.stop();
      } finally {
        steps.remove();
      }
    });
  } catch (error) {
    live.stop();
    throw error;
  }
  live.arm(steps.update);
  return result;
}

/**
 * The live value a record holds, if any (records have a handful of fields).
 * A brand check, so a hostile value a record keeps is never read.
 */
export function liveIn(record: object): LiveValue<unknown> | undefined {
  return Object.values(record).find(isLive);
}

/** `INVALID_PROVIDER` (or `code`) for a revoked Proxy given as `what`. */
export function revokedFunction(
  what: string,
  code: SystemPromptErrorCode = "INVALID_PROVIDER",
): SystemPromptError {
  return new SystemPromptError(
    code,
    `${what} is a revoked Proxy, which can never be called; pass a live ` +
      `function (or an Observable).`,
  );
}
