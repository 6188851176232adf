/**
 * Lifetimes: the ownership tree behind registrars, exact disposers and
 * effects. Knows nothing of prompts.
 *
 * A lifetime owns entries (teardowns) in creation order and tears them down
 * last in, first out, awaiting each one that returns a promise. Every entry
 * has exactly one disposer function, the "exact" disposer: the owner runs
 * that same function, so an effect can adopt it by identity and move it to
 * its own position in the teardown order.
 *
 * @module
 */

import { SystemPromptError } from "./errors.ts";
import { isPromiseLike } from "./_util.ts";

/**
 * The function a registration returns: calling it removes exactly that
 * registration. Idempotent (every call returns the same promise), awaitable,
 * and `AsyncDisposable`, so `await using` and `AsyncDisposableStack#use`
 * work. Never wrap it before yielding it from an effect: the effect adopts
 * the exact function.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * {
 *   await using _rules = prompt.section({ name: "rules", order: 10, text: "Be brief." });
 *   // "rules" is part of every assembly here
 * }
 * // and removed here
 * ```
 */
export type Disposer = (() => Promise<void>) & AsyncDisposable;

/**
 * A teardown an effect may yield: any function, possibly async. Exact
 * disposers are teardowns too, and are adopted rather than wrapped.
 *
 * @example
 * ```ts
 * import type { Teardown } from "@rxprompt/system-prompt";
 *
 * const closeWatcher: Teardown = async () => {
 *   await Promise.resolve(); // e.g. close a file watcher
 * };
 * ```
 */
export type Teardown = () => unknown;

/**
 * The body of an effect: a generator function, sync or async, that yields
 * teardowns. Yielded exact disposers are adopted; other functions are
 * collected as they are.
 *
 * @example
 * ```ts
 * import type { EffectBody } from "@rxprompt/system-prompt";
 *
 * const body: EffectBody = function* () {
 *   const timer = setInterval(() => {}, 1000);
 *   yield () => clearInterval(timer);
 * };
 * ```
 */
export type EffectBody = () =>
  | Iterator<Teardown, unknown, undefined>
  | AsyncIterator<Teardown, unknown, undefined>;

const RESOLVED: Promise<void> = Promise.resolve();
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ??
  Symbol.for("Symbol.asyncDispose");
const entryOf = new WeakMap<Teardown, Entry>();

function noop(): void {}

/** One owned teardown, and its exact disposer. */
class Entry {
  owner: Lifetime | undefined;
  readonly disposer: Disposer;
  #teardown: Teardown | undefined;
  #done: Promise<void> | undefined;

  constructor(owner: Lifetime | undefined, teardown: Teardown) {
    this.owner = owner;
    this.#teardown = teardown;
    const disposer = (): Promise<void> => this.#settle();
    const exact = Object.assign(disposer, { [asyncDispose]: disposer });
    entryOf.set(exact, this);
    this.disposer = exact;
  }

  get started(): boolean {
    return this.#teardown === undefined;
  }

  /**
   * Starts the teardown once, detached from its owner. Returns a promise only
   * when there is something to await, so a tree of synchronous teardowns
   * unwinds synchronously; a synchronous failure is thrown.
   */
  run(): PromiseLike<void> | undefined {
    const teardown = this.#teardown;
    if (teardown === undefined) {
      return this.#done === RESOLVED ? undefined : this.#done;
    }
    this.#teardown = undefined;
    this.owner?.release(this);
    this.owner = undefined;
    let result: unknown;
    try {
      result = teardown();
    } catch (error) {
      this.#done = Promise.reject(error);
      this.#done.catch(noop);
      throw error;
    }
    if (!isPromiseLike(result)) {
      this.#done = RESOLVED;
      return undefined;
    }
    return this.#done = Promise.resolve(result).then(noop);
  }

  #settle(): Promise<void> {
    if (this.#done === undefined) {
      try {
        this.run();
      } catch {
        // #done holds the rejection.
      }
    }
    return this.#done ?? RESOLVED;
  }
}

/** Runs entries in the given order, each awaited; errors are collected. */
function runAll(entries: readonly Entry[]): PromiseLike<void> | undefined {
  const errors: unknown[] = [];
  let index = 0;
  function proceed(): PromiseLike<void> | undefined {
    while (index < entries.length) {
      let pending: PromiseLike<void> | undefined;
      try {
        pending = entries[index++].run();
      } catch (error) {
        errors.push(error);
        continue;
      }
      if (pending !== undefined) {
        return pending.then(proceed, (error) => {
          errors.push(error);
          return proceed();
        });
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) {
      throw new AggregateError(
        errors,
        `${errors.length} teardowns failed; the others completed.`,
      );
    }
    return undefined;
  }
  return proceed();
}

/**
 * A node of the ownership tree: owns teardowns and child lifetimes, and
 * tears them all down, last in first out, when its own disposer runs.
 */
export class Lifetime {
  readonly #entries = new Set<Entry>();
  readonly #entry: Entry;
  #closing = false;
  /** An async effect body: teardown waits for it to stop. */
  #body: Promise<void> | undefined;
  /** What an async effect body threw, rethrown by the teardown. */
  #bodyFailure: { error: unknown } | undefined;

  /**
   * @param owner the lifetime that owns this one; it takes its place in the
   * owner's teardown order now.
   * @throws {SystemPromptError} `DISPOSED` when the owner is disposed.
   */
  constructor(owner?: Lifetime) {
    owner?.assertOpen("create a child");
    this.#entry = new Entry(owner, () => this.#teardown());
    if (owner !== undefined) owner.#entries.add(this.#entry);
  }

  /** This lifetime's pre-bound exact disposer. */
  get dispose(): Disposer {
    return this.#entry.disposer;
  }

  /** True once this lifetime or any of its owners has started disposing. */
  get disposed(): boolean {
    return this.#chainHas((lifetime) => lifetime.#closing);
  }

  /** Whether `test` holds for this lifetime or any of its owners. */
  #chainHas(test: (lifetime: Lifetime) => boolean): boolean {
    const owner = this.#entry.owner;
    return test(this) || (owner !== undefined && owner.#chainHas(test));
  }

  /**
   * @throws {SystemPromptError} `DISPOSED`, saying what could not be done.
   */
  assertOpen(action: string, where = "this registrar"): void {
    if (this.disposed) {
      throw new SystemPromptError(
        "DISPOSED",
        `Cannot ${action}: ${where} is disposed or disposing; register ` +
          `through a registrar that is still alive.`,
      );
    }
  }

  /** Owns `teardown` and returns its exact disposer. */
  own(teardown: Teardown): Disposer {
    this.assertOpen("register a teardown");
    const entry = new Entry(this, teardown);
    this.#entries.add(entry);
    return entry.disposer;
  }

  /** Detaches `entry` from this lifetime (it is running on its own). */
  release(entry: Entry): void {
    this.#entries.delete(entry);
  }

  /**
   * Builds a composite from `body`: a child lifetime that takes its place in
   * this lifetime's teardown order now, before `body` runs, and collects
   * what `body` yields. Yielded exact disposers are adopted (moved here from
   * their previous owner).
   *
   * @throws {SystemPromptError} `INVALID_EFFECT` for a body that is not a
   * generator function or yields a non-function; whatever a synchronous
   * body throws, after the collected teardowns started in reverse.
   */
  effect(body: EffectBody): Disposer {
    if (typeof body !== "function") {
      throw new SystemPromptError(
        "INVALID_EFFECT",
        `An effect body must be a generator function (function* or ` +
          `async function*) that yields teardown functions; got ${typeof body}.`,
      );
    }
    const composite = new Lifetime(this);
    let iterator: ReturnType<EffectBody>;
    try {
      iterator = body();
      if (
        typeof iterator !== "object" || iterator === null ||
        typeof iterator.next !== "function"
      ) {
        throw new SystemPromptError(
          "INVALID_EFFECT",
          `An effect body must be a generator function (function* or ` +
            `async function*); it returned ${
              iterator === null ? "null" : typeof iterator
            }.`,
        );
      }
    } catch (error) {
      composite.dispose();
      throw error;
    }
    if (Symbol.asyncIterator in iterator) {
      composite.#body = composite.#pump(iterator as AsyncIterator<Teardown>);
      return composite.dispose;
    }
    try {
      const sync = iterator as Iterator<Teardown>;
      for (let step = sync.next(); !step.done; step = sync.next()) {
        composite.#collect(step.value);
      }
    } catch (error) {
      composite.dispose();
      throw error;
    }
    return composite.dispose;
  }

  async #pump(iterator: AsyncIterator<Teardown>): Promise<void> {
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done) return;
        this.#collect(step.value);
        if (this.#closing) {
          await iterator.return?.();
          return;
        }
      }
    } catch (error) {
      // The teardown unwinds what was collected and rethrows this, so the
      // error surfaces as the rejection of the composite's disposer
      // (unhandled, hence loud, unless someone awaits it).
      this.#bodyFailure = { error };
      if (!this.#closing) this.dispose();
    }
  }

  #collect(teardown: Teardown): void {
    if (typeof teardown !== "function") {
      throw new SystemPromptError(
        "INVALID_EFFECT",
        `An effect body yielded ${typeof teardown}; it may only yield ` +
          `teardown functions (for example the disposer a registration returns).`,
      );
    }
    const entry = entryOf.get(teardown);
    if (entry === undefined) {
      this.#entries.add(new Entry(this, teardown));
      return;
    }
    if (entry.started) return;
    if (this.#chainHas((lifetime) => lifetime.#entry === entry)) {
      throw new SystemPromptError(
        "INVALID_EFFECT",
        `An effect yielded the disposer of a registrar that owns the ` +
          `effect itself; it can only adopt disposers from outside its own ` +
          `chain of owners.`,
      );
    }
    entry.owner?.release(entry);
    entry.owner = this;
    this.#entries.add(entry);
  }

  #teardown(): PromiseLike<void> | undefined {
    this.#closing = true;
    const body = this.#body;
    if (body === undefined) return runAll([...this.#entries].reverse());
    return body.then(async () => {
      const failure = this.#bodyFailure;
      try {
        await runAll([...this.#entries].reverse());
      } catch (teardownError) {
        if (failure === undefined) throw teardownError;
        throw new AggregateError(
          [failure.error, teardownError],
          `An effect body failed, and so did its teardown.`,
        );
      }
      if (failure !== undefined) throw failure.error;
    });
  }
}
