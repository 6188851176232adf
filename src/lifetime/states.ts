/**
 * The states a member of the ownership tree goes through, how failures are
 * boxed, and the epoch that dates cached "still open" verdicts. The lowest
 * room of the lifetime: internal to ../lifetime.ts.
 *
 * @module
 */

/** Not started. */
export const IDLE = 0;
/** Its teardown is running (started by its disposer or by an owner). */
export const RUNNING = 1;
/** Torn down, successfully or not. */
export const DONE = 2;
export type State = typeof IDLE | typeof RUNNING | typeof DONE;

/** A thrown value, boxed so that `undefined` can be thrown too. */
export interface Failure {
  readonly error: unknown;
}

/** The running state of a composite's effect body. */
export interface BodyState {
  running: boolean;
  readonly controller: AbortController;
  /** What the body threw on its own (not its abort). */
  failure: Failure | undefined;
  /** Drivers waiting for the body to stop. */
  waiters: (() => void)[] | undefined;
}

/** Bumped when a lifetime starts closing or changes owner. */
let epoch = 0;

/** Marks every cached "open" verdict stale (an owner changed). */
export function ownersChanged(): void {
  epoch++;
}

/** The current epoch: an "open" verdict cached at an older one is stale. */
export function ownersEpoch(): number {
  return epoch;
}

/**
 * How a member's teardown ended, and who waits for it. Made when someone
 * asks (a disposer call, a waiting driver) or a teardown fails: a live
 * registration does not carry it.
 */
export interface Settlement {
  failure?: Failure;
  promise?: Promise<void>;
  settle?: (failure: Failure | undefined) => void;
  waiters?: (() => void)[];
}

/** Records `failure` and wakes whoever waits for it. */
export function settleWith(
  settlement: Settlement,
  failure: Failure | undefined,
): void {
  settlement.failure = failure;
  const { settle, waiters } = settlement;
  settlement.settle = undefined;
  settlement.waiters = undefined;
  settle?.(failure);
  if (waiters !== undefined) {
    for (const waiter of waiters) queueMicrotask(waiter);
  }
}
