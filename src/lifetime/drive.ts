/**
 * The members of the ownership tree and the iterative driver that tears a
 * subtree down. Internal to ../lifetime.ts.
 *
 * @module
 */

import { isPromiseLike } from "../shared/util.ts";
import type { Disposer, Teardown } from "./disposer.ts";
import {
  type BodyState,
  DONE,
  type Failure,
  IDLE,
  RUNNING,
  type Settlement,
  settleWith,
  type State,
} from "./states.ts";

const RESOLVED: Promise<void> = Promise.resolve();
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ??
  Symbol.for("Symbol.asyncDispose");
let nextPosition = 0;

/**
 * Every exact disposer is `dispose` bound to its member: a bound function
 * holds its member without a closure's context, and inherits
 * `[Symbol.asyncDispose]` from this prototype instead of owning it. Both
 * show in the memory a registration keeps.
 */
const DISPOSER_PROTOTYPE: object = Object.create(Function.prototype, {
  [asyncDispose]: {
    value: function asyncDispose(this: () => Promise<void>): Promise<void> {
      return this();
    },
  },
});

/**
 * The token an exact disposer answers with its member. Asking the disposer
 * itself keeps no table and no property per registration (a WeakMap's
 * entry, or a property on each function, costs about 40 bytes each).
 */
const ASK_MEMBER: object = Object.freeze({});

function dispose(this: Member, ask?: unknown): Promise<void> | Member {
  if (ask === ASK_MEMBER) return this;
  if (this.state === IDLE) drive(this);
  return this.outcome();
}
Object.setPrototypeOf(dispose, DISPOSER_PROTOTYPE);

/**
 * The member behind an exact disposer, or `undefined` for any other value.
 * Only a function that inherits from the disposers' prototype is asked, and
 * only an answer that names a member whose disposer it is counts.
 */
export function memberOf(teardown: Teardown): Member | undefined {
  let member: unknown;
  try {
    if (Object.getPrototypeOf(teardown) !== DISPOSER_PROTOTYPE) {
      return undefined;
    }
    member = (teardown as (ask: object) => unknown)(ASK_MEMBER);
  } catch {
    return undefined; // a hostile Proxy is not an exact disposer
  }
  if (member instanceof Member && member.disposer === teardown) return member;
  // Whatever a look-alike returned, nothing is left unhandled.
  if (isPromiseLike(member)) Promise.resolve(member).catch(() => {});
  return undefined;
}

/** Something a lifetime owns: a teardown or a child lifetime. */
export class Member {
  owner: LifetimeNode | undefined;
  /** Its place in the owner's teardown order (greater is newer). */
  position: number;
  state: State = IDLE;
  /** Its neighbours in its owner's list, while it is listed there. */
  previous: Member | undefined = undefined;
  next: Member | undefined = undefined;
  readonly disposer: Disposer;
  #settlement: Settlement | undefined;

  constructor(owner: LifetimeNode | undefined) {
    this.owner = owner;
    this.position = nextPosition++;
    this.disposer = dispose.bind(this) as Disposer;
  }

  /** What its teardown failed with, once done. */
  get failure(): Failure | undefined {
    return this.#settlement?.failure;
  }

  /** Takes the newest position (on adoption). */
  reposition(): void {
    this.position = nextPosition++;
  }

  /** The one promise every call of the disposer returns. */
  outcome(): Promise<void> {
    const settlement = this.#settlement ??= {};
    if (settlement.promise !== undefined) return settlement.promise;
    if (this.state === DONE) {
      const failure = settlement.failure;
      return settlement.promise = failure === undefined
        ? RESOLVED
        : Promise.reject(failure.error);
    }
    const promise = new Promise<void>((resolve, reject) => {
      settlement.settle = (failure) => {
        if (failure === undefined) resolve();
        else reject(failure.error);
      };
    });
    PENDING_DISPOSALS.set(promise, this);
    return settlement.promise = promise;
  }

  /** Calls `waiter` in a microtask once this member is done. */
  whenDone(waiter: () => void): void {
    ((this.#settlement ??= {}).waiters ??= []).push(waiter);
  }

  /** Records the end of its teardown and leaves its owner. */
  finish(failure: Failure | undefined): void {
    this.state = DONE;
    const settlement = this.#settlement;
    if (settlement !== undefined || failure !== undefined) {
      settleWith(this.#settlement ??= {}, failure);
    }
    const owner = this.owner;
    this.owner = undefined;
    owner?.detach(this);
  }
}

/**
 * What the driver and the effect runner need of a lifetime (implemented by
 * `Lifetime` in ../lifetime.ts, which builds on them).
 */
export interface LifetimeNode extends Member {
  /** The first of what it owns now (linked by `next`); `undefined` if nothing. */
  first: Member | undefined;
  closing: boolean;
  /** The effect body of a composite; `undefined` for a registrar's. */
  body: BodyState | undefined;
  /** For a root: where failures go that no caller awaits. */
  readonly report: ((error: unknown) => void) | undefined;
  /** Marks it disposing and asks its effect body to stop. */
  close(): void;
  /** Whether it must stay listed in its owner. */
  needed(): boolean;
  /** What it owns now, newest listed first. */
  listed(): Member[];
  add(member: Member): void;
  detach(member: Member): void;
}

/**
 * A teardown function owned by a lifetime, called with `argument` when one
 * was given: one shared function can then tear down many registrations,
 * each naming its own.
 */
export class Leaf extends Member {
  teardown: ((argument?: unknown) => unknown) | undefined;
  readonly argument: unknown;

  constructor(owner: LifetimeNode, teardown: Teardown, argument?: unknown) {
    super(owner);
    this.teardown = teardown;
    this.argument = argument;
  }
}

/**
 * The member whose disposer returned each promise made before its teardown
 * ended, so that a teardown returning one can be recognised in constant
 * time (only a hit walks the owners).
 */
const PENDING_DISPOSALS = new WeakMap<object, Member>();

/** Whether `promise` is the still pending disposal of one of `leaf`'s owners. */
function awaitsOwner(leaf: Leaf, promise: PromiseLike<unknown>): boolean {
  const member = PENDING_DISPOSALS.get(promise);
  if (member === undefined || member.state === DONE) return false;
  for (let node = leaf.owner; node !== undefined; node = node.owner) {
    if (node === member) return true;
  }
  return false;
}

/** One lifetime being torn down: its members, newest first. */
interface Frame {
  readonly lifetime: LifetimeNode;
  readonly members: readonly Member[];
  index: number;
  readonly errors: unknown[];
  readonly parent: Frame | undefined;
}

function open(lifetime: LifetimeNode, parent: Frame | undefined): Frame {
  const members = lifetime.listed().sort((a, b) => b.position - a.position);
  return { lifetime, members, index: 0, errors: [], parent };
}

/** The failure of a finished frame: its body's, its teardowns', or both. */
function failureOf(frame: Frame): Failure | undefined {
  const { errors } = frame;
  const teardown: Failure | undefined = errors.length === 0
    ? undefined
    : errors.length === 1
    ? { error: errors[0] }
    : {
      error: new AggregateError(
        errors,
        `${errors.length} teardowns failed; the others completed.`,
      ),
    };
  const body = frame.lifetime.body?.failure;
  if (body === undefined) return teardown;
  if (teardown === undefined) return body;
  return {
    error: new AggregateError(
      [body.error, teardown.error],
      `An effect body failed, and so did its teardown.`,
    ),
  };
}

/**
 * Tears `root` down with everything it owns, newest first, depth first,
 * awaiting each asynchronous teardown, a running effect body, and members
 * whose teardown someone else started. Iterative: no stack depth grows with
 * the tree. Synchronous trees finish before `drive` returns.
 */
export function drive(root: Member): void {
  new Driver(root).resume();
}

/** One teardown in progress: a cursor over a stack of frames. */
class Driver {
  #frame: Frame | undefined;
  #next: Member | undefined;
  readonly resume: () => void = () => this.#run();

  constructor(root: Member) {
    this.#next = root;
  }

  #run(): void {
    for (;;) {
      const member = this.#next;
      if (member !== undefined) {
        this.#next = undefined;
        member.state = RUNNING;
        const suspended = member instanceof Leaf
          ? this.#startLeaf(member)
          : this.#startLifetime(member as LifetimeNode);
        if (suspended) return;
        continue;
      }
      const frame = this.#frame;
      if (frame === undefined) return;
      if (frame.index < frame.members.length) {
        const owned = frame.members[frame.index++];
        if (owned.owner !== frame.lifetime || owned.state === DONE) continue;
        if (owned.state === RUNNING) {
          owned.whenDone(this.resume); // started elsewhere: wait, don't report
          return;
        }
        this.#next = owned;
        continue;
      }
      this.#frame = frame.parent;
      this.#record(frame.lifetime, failureOf(frame));
    }
  }

  #record(member: Member, failure: Failure | undefined): void {
    member.finish(failure);
    if (failure !== undefined) this.#frame?.errors.push(failure.error);
  }

  /** Starts a leaf; true when it went asynchronous. */
  #startLeaf(leaf: Leaf): boolean {
    const teardown = leaf.teardown!;
    leaf.teardown = undefined;
    const { argument } = leaf;
    let pending: PromiseLike<unknown> | undefined;
    try {
      const result = argument === undefined ? teardown() : teardown(argument);
      if (isPromiseLike(result)) pending = result;
    } catch (error) {
      this.#record(leaf, { error });
      return false;
    }
    if (pending === undefined) {
      this.#record(leaf, undefined);
      return false;
    }
    if (awaitsOwner(leaf, pending)) {
      // `() => plugin.dispose()` for its own registrar or an ancestor: the
      // teardown returns a disposal that is already running and waits for
      // this leaf. Awaiting it would wait for itself, for ever: the leaf is
      // done, and the disposal's own failure is its callers' to handle.
      Promise.resolve(pending).catch(() => {});
      this.#record(leaf, undefined);
      return false;
    }
    Promise.resolve(pending).then(() => {
      this.#record(leaf, undefined);
      this.#run();
    }, (error: unknown) => {
      this.#record(leaf, { error });
      this.#run();
    });
    return true;
  }

  /** Starts a lifetime; true when it waits for its effect body to stop. */
  #startLifetime(lifetime: LifetimeNode): boolean {
    lifetime.close();
    const body = lifetime.body;
    if (body === undefined || !body.running) {
      this.#frame = open(lifetime, this.#frame);
      return false;
    }
    (body.waiters ??= []).push(() =>
      queueMicrotask(() => {
        this.#frame = open(lifetime, this.#frame);
        this.#run();
      })
    );
    return true;
  }
}
