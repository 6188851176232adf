/**
 * Running an effect body into its composite: collecting and adopting what
 * it yields, stopping it on disposal, and reporting its failures. Internal
 * to ../lifetime.ts.
 *
 * @module
 */

import { readGuarded, SystemPromptError } from "../errors.ts";
import { isPromiseLike } from "../shared/util.ts";
import type { EffectBody, Teardown } from "./disposer.ts";
import { drive, Leaf, type LifetimeNode, memberOf } from "./drive.ts";
import { type BodyState, DONE, IDLE, ownersChanged } from "./states.ts";

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

function reportToConsole(error: unknown): void {
  console.error("An effect failed while no dispose() was awaiting it:", error);
}

/** The root's reporter (read before teardown detaches `composite`). */
function reporterOf(composite: LifetimeNode): (error: unknown) => void {
  let report = reportToConsole;
  for (
    let node: LifetimeNode | undefined = composite;
    node;
    node = node.owner
  ) {
    if (node.report !== undefined) report = node.report;
  }
  return report;
}

/**
 * Tears `composite` down after its sync body threw. True when it finished
 * synchronously; otherwise a later failure is reported, never an unhandled
 * rejection, and the disposer's promise still rejects for whoever calls it.
 */
function tearDownUnclaimed(composite: LifetimeNode): boolean {
  const report = reporterOf(composite);
  drive(composite);
  if (composite.state === DONE) return true;
  composite.outcome().catch(report);
  return false;
}

/** Calls `body` and drives what it returns into `composite`. */
export function runEffect(composite: LifetimeNode, body: EffectBody): void {
  const state = composite.body!;
  let iterator: ReturnType<EffectBody>;
  try {
    iterator = body(state.controller.signal);
    assertIterator(iterator);
  } catch (error) {
    failSync(composite, error);
  }
  if (Symbol.asyncIterator in iterator) {
    pump(composite, iterator as AsyncIterator<Teardown>, state);
    return;
  }
  const sync = iterator as Iterator<Teardown>;
  try {
    for (let step = sync.next(); !step.done; step = sync.next()) {
      collect(composite, step.value);
      if (composite.closing) {
        sync.return?.();
        break;
      }
    }
  } catch (error) {
    failSync(composite, error);
  }
  endBody(composite, state);
}

function assertIterator(
  value: unknown,
): asserts value is ReturnType<EffectBody> {
  if (typeof value !== "object" || value === null) {
    throw invalidEffect(
      `it returned ${value === null ? "null" : typeof value}`,
    );
  }
  const next = readGuarded(
    () => (value as { next?: unknown }).next,
    "INVALID_EFFECT",
    () =>
      "An effect body must return a generator (function* or async " +
      "function*); reading next() of what it returned threw.",
  );
  if (typeof next === "function") return;
  if (isPromiseLike(value)) {
    Promise.resolve(value).catch(() => {});
    throw invalidEffect(
      "it returned a Promise (an async function, not an async generator)",
    );
  }
  throw invalidEffect("it returned an object without next()");
}

/**
 * A synchronous body failed: unwind what it collected and throw. Teardown
 * failures known now are thrown with the body's error; those of an
 * asynchronous remainder go to the root's reporter. When an owner's
 * teardown already runs the composite, its failures are that teardown's.
 */
function failSync(composite: LifetimeNode, error: unknown): never {
  endBody(composite, composite.body!);
  if (composite.state === IDLE && tearDownUnclaimed(composite)) {
    const failure = composite.failure;
    if (failure !== undefined) {
      throw new AggregateError(
        [error, failure.error],
        `An effect body failed, and so did its teardown.`,
      );
    }
  }
  throw error;
}

async function pump(
  composite: LifetimeNode,
  iterator: AsyncIterator<Teardown>,
  state: BodyState,
): Promise<void> {
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) break;
      collect(composite, step.value);
      if (composite.closing) {
        await iterator.return?.();
        break;
      }
    }
  } catch (error) {
    if (!isAbortOf(error, state.controller.signal)) state.failure = { error };
  }
  endBody(composite, state);
  // Failed on its own: nobody awaits this teardown.
  if (state.failure !== undefined && composite.state === IDLE) {
    const report = reporterOf(composite);
    drive(composite);
    composite.outcome().catch(report);
  }
}

/** The body stopped: wake waiting teardowns, unlist an empty composite. */
function endBody(composite: LifetimeNode, state: BodyState): void {
  state.running = false;
  const waiters = state.waiters;
  state.waiters = undefined;
  if (waiters !== undefined) { for (const waiter of waiters) waiter(); }
  if (composite.state === IDLE && !composite.needed()) {
    const owner = composite.owner;
    owner?.detach(composite);
  }
}

function collect(composite: LifetimeNode, teardown: Teardown): void {
  if (typeof teardown !== "function") {
    throw new SystemPromptError(
      "INVALID_EFFECT",
      `An effect body yielded ${typeof teardown}; it may only yield ` +
        `teardown functions (for example the disposer a registration returns).`,
    );
  }
  const member = memberOf(teardown);
  if (member === undefined) {
    composite.add(new Leaf(composite, teardown));
    return;
  }
  if (member.state !== IDLE) return;
  const lifetime = member instanceof Leaf ? undefined : member as LifetimeNode;
  if (lifetime !== undefined) {
    for (
      let node: LifetimeNode | undefined = composite;
      node;
      node = node.owner
    ) {
      if (node === lifetime) {
        throw new SystemPromptError(
          "INVALID_EFFECT",
          `An effect yielded the disposer of a registrar that owns the ` +
            `effect itself; it can only adopt disposers from outside its own ` +
            `chain of owners.`,
        );
      }
    }
    ownersChanged();
  }
  const previous = member.owner;
  member.owner = composite;
  member.reposition();
  previous?.detach(member);
  if (lifetime === undefined || lifetime.needed()) composite.add(member);
}
