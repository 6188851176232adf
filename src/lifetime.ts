/**
 * Lifetimes: the ownership tree behind registrars, exact disposers and
 * effects. Knows nothing of prompts.
 *
 * A lifetime owns members (teardowns and child lifetimes), each with a
 * creation position, and tears them down newest first, awaiting each one
 * that returns a promise. Every member has exactly one disposer function,
 * the "exact" disposer: the owner runs that same member, so an effect can
 * adopt it by identity and move it to its own position in the teardown
 * order. A child lifetime is listed in its owner only while it owns
 * something (or runs an effect body), so an empty, unreachable child costs
 * nothing. Teardown is driven by `drive` in ./lifetime/drive.ts, without
 * recursion, so ownership chains of any depth tear down.
 *
 * @module
 */

import { SystemPromptError } from "./errors.ts";
import { isPromiseLike } from "./_util.ts";
import {
  type BodyState,
  drive,
  IDLE,
  Leaf,
  Member,
  memberOf,
  RUNNING,
} from "./lifetime/drive.ts";

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
 * collected as they are. `signal` aborts when the effect is disposed: a
 * body that awaits must stop on it, because disposal waits for the body to
 * stop before it runs the collected teardowns.
 *
 * @example
 * ```ts
 * import type { EffectBody } from "@rxprompt/system-prompt";
 *
 * const body: EffectBody = async function* (signal) {
 *   const timer = setInterval(() => {}, 1000);
 *   yield () => clearInterval(timer);
 *   await new Promise((resolve) => signal.addEventListener("abort", resolve));
 * };
 * ```
 */
export type EffectBody = (
  signal: AbortSignal,
) =>
  | Iterator<Teardown, unknown, undefined>
  | AsyncIterator<Teardown, unknown, undefined>;

/** Bumped when a lifetime starts closing or changes owner. */
let epoch = 0;

/** Whether `error` is how a body stops on its aborted `signal`. */
function isAbortOf(error: unknown, signal: AbortSignal): boolean {
  if (!signal.aborted) return false;
  if (error === signal.reason) return true;
  try {
    return (error as { name?: unknown } | null)?.name === "AbortError";
  } catch {
    return false;
  }
}

function invalidEffect(detail: string): SystemPromptError {
  return new SystemPromptError(
    "INVALID_EFFECT",
    `An effect body must be a generator function (function* or async ` +
      `function*) that yields teardown functions; ${detail}.`,
  );
}

/**
 * A node of the ownership tree: owns teardowns and child lifetimes, and
 * tears them all down, last in first out, when its own disposer runs.
 */
export class Lifetime extends Member {
  /** What it owns now; `undefined` while it owns nothing. */
  members: Set<Member> | undefined;
  closing = false;
  /** The effect body of a composite; `undefined` for a registrar's. */
  body: BodyState | undefined;
  /** The epoch at which the whole chain of owners was last seen open. */
  #openAt = -1;

  /**
   * @param owner the lifetime that owns this one; its creation position in
   * the owner's teardown order is taken now.
   * @throws {SystemPromptError} `DISPOSED` when the owner is disposed.
   */
  constructor(owner?: Lifetime) {
    owner?.assertOpen("create a child");
    super(owner);
  }

  /** This lifetime's pre-bound exact disposer. */
  get dispose(): Disposer {
    return this.disposer;
  }

  /** True once this lifetime or any of its owners has started disposing. */
  get disposed(): boolean {
    let node: Lifetime | undefined = this;
    while (node !== undefined && node.#openAt !== epoch) {
      if (node.closing) return true;
      node = node.owner;
    }
    for (let open: Lifetime = this; open !== node; open = open.owner!) {
      open.#openAt = epoch;
    }
    return false;
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
    const leaf = new Leaf(this, teardown);
    this.add(leaf);
    return leaf.disposer;
  }

  /** Marks this lifetime disposing and asks its effect body to stop. */
  close(): void {
    this.closing = true;
    epoch++;
    this.body?.controller.abort();
  }

  /** Whether it must stay listed in its owner. */
  needed(): boolean {
    return this.members !== undefined || this.body?.running === true;
  }

  /** Adds `member`, listing this lifetime (and its owners) if needed. */
  add(member: Member): void {
    (this.members ??= new Set()).add(member);
    let node: Lifetime = this;
    for (let owner = node.owner; owner !== undefined; owner = node.owner) {
      if (owner.members?.has(node)) return;
      (owner.members ??= new Set()).add(node);
      node = owner;
    }
  }

  /** Removes `member`; unlists lifetimes that became idle and empty. */
  detach(member: Member): void {
    const members = this.members;
    if (members === undefined || !members.delete(member)) return;
    if (members.size === 0) this.members = undefined;
    let node: Lifetime = this;
    while (node.state !== RUNNING && node.closing === false && !node.needed()) {
      const owner = node.owner;
      const siblings = owner?.members;
      if (siblings === undefined || !siblings.delete(node)) return;
      if (siblings.size === 0) owner!.members = undefined;
      node = owner!;
    }
  }

  /**
   * Builds a composite from `body`: a child lifetime that takes its place in
   * this lifetime's teardown order now, before `body` runs, and collects
   * what `body` yields. Yielded exact disposers are adopted (moved here from
   * their previous owner).
   *
   * @throws {SystemPromptError} `INVALID_EFFECT` for a body that is not a
   * generator function or yields a non-function; whatever a synchronous
   * body throws, after the collected teardowns started in reverse (with the
   * failures of those that finished synchronously, as an `AggregateError`).
   */
  effect(body: EffectBody): Disposer {
    if (typeof body !== "function") {
      throw invalidEffect(`got ${typeof body}`);
    }
    const composite = new Lifetime(this);
    const state: BodyState = {
      running: true,
      controller: new AbortController(),
      failure: undefined,
      waiters: undefined,
    };
    composite.body = state;
    this.add(composite);
    let iterator: ReturnType<EffectBody>;
    try {
      iterator = body(state.controller.signal);
      if (typeof iterator !== "object" || iterator === null) {
        throw invalidEffect(
          `it returned ${iterator === null ? "null" : typeof iterator}`,
        );
      }
      if (typeof iterator.next !== "function") {
        if (isPromiseLike(iterator)) {
          Promise.resolve(iterator).catch(() => {});
          throw invalidEffect(
            "it returned a Promise (an async function, not an async generator)",
          );
        }
        throw invalidEffect("it returned an object without next()");
      }
    } catch (error) {
      return composite.#failSync(error);
    }
    if (Symbol.asyncIterator in iterator) {
      composite.#pump(iterator as AsyncIterator<Teardown>, state);
      return composite.disposer;
    }
    const sync = iterator as Iterator<Teardown>;
    try {
      for (let step = sync.next(); !step.done; step = sync.next()) {
        composite.#collect(step.value);
        if (composite.closing) {
          sync.return?.();
          break;
        }
      }
    } catch (error) {
      return composite.#failSync(error);
    }
    composite.#endBody();
    return composite.disposer;
  }

  /**
   * A synchronous body failed: unwind what it collected and throw. Teardown
   * failures that are known now are thrown with the body's error; those of
   * an asynchronous remainder reject the composite's own promise, unhandled.
   */
  #failSync(error: unknown): never {
    this.#endBody();
    if (this.state !== RUNNING && !this.closing) {
      drive(this);
      if ((this.state as number) === RUNNING) {
        this.outcome();
      } else if (this.failure !== undefined) {
        throw new AggregateError(
          [error, this.failure.error],
          `An effect body failed, and so did its teardown.`,
        );
      }
    }
    throw error;
  }

  async #pump(
    iterator: AsyncIterator<Teardown>,
    state: BodyState,
  ): Promise<void> {
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done) break;
        this.#collect(step.value);
        if (this.closing) {
          await iterator.return?.();
          break;
        }
      }
    } catch (error) {
      if (!isAbortOf(error, state.controller.signal)) state.failure = { error };
    }
    this.#endBody();
    if (state.failure !== undefined && !this.closing) {
      // Failed on its own: nobody awaits this teardown, so its rejection
      // is unhandled, as the README says.
      drive(this);
      this.outcome();
    }
  }

  #endBody(): void {
    const state = this.body!;
    state.running = false;
    const waiters = state.waiters;
    state.waiters = undefined;
    if (waiters !== undefined) { for (const waiter of waiters) waiter(); }
    if (!this.needed() && this.state !== RUNNING && !this.closing) {
      // Unlist an effect that collected nothing.
      const owner = this.owner;
      if (owner?.members?.has(this)) owner.detach(this);
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
    const member = memberOf.get(teardown);
    if (member === undefined) {
      this.add(new Leaf(this, teardown));
      return;
    }
    if (member.state !== IDLE) return;
    if (member instanceof Lifetime) {
      for (let node: Lifetime | undefined = this; node; node = node.owner) {
        if (node === member) {
          throw new SystemPromptError(
            "INVALID_EFFECT",
            `An effect yielded the disposer of a registrar that owns the ` +
              `effect itself; it can only adopt disposers from outside its ` +
              `own chain of owners.`,
          );
        }
      }
      epoch++;
    }
    const previous = member.owner;
    member.owner = this;
    member.reposition();
    previous?.detach(member);
    if (!(member instanceof Lifetime) || member.needed()) this.add(member);
  }
}
