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
 * recursion, so ownership chains of any depth tear down; effect bodies run
 * in ./lifetime/effect.ts.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { isRevokedProxy } from "../shared/util.ts";
import type { Disposer, EffectBody, Teardown } from "./disposer.ts";
import { Leaf, type LifetimeNode, Member } from "./drive.ts";
import {
  type BodyState,
  ownersChanged,
  ownersEpoch,
  RUNNING,
} from "./states.ts";
import { runEffect } from "./effect.ts";

export type { Disposer, EffectBody, Teardown };

/** Options of a {@linkcode Lifetime}. */
export interface LifetimeOptions {
  /** Where a root reports failures that no caller awaits. */
  readonly report?: (error: unknown) => void;
}

/**
 * A node of the ownership tree: owns teardowns and child lifetimes, and
 * tears them all down, last in first out, when its own disposer runs.
 */
export class Lifetime extends Member implements LifetimeNode {
  declare owner: Lifetime | undefined;
  /**
   * What it owns now, as a list threaded through the members themselves,
   * newest listed first; `undefined` while it owns nothing. Not a `Set`:
   * listing a member then costs two of its fields and touches no table that
   * grows with the owner (a root with 100,000 registrations).
   */
  first: Member | undefined = undefined;
  closing = false;
  /** The effect body of a composite; `undefined` for a registrar's. */
  body: BodyState | undefined;
  /** For a root: where failures go that no caller awaits. */
  readonly report: ((error: unknown) => void) | undefined;
  /** The epoch at which the whole chain of owners was last seen open. */
  #openAt = -1;

  /**
   * @param owner the lifetime that owns this one; its creation position in
   * the owner's teardown order is taken now.
   * @param options.report for a root: where failures go that no caller
   * awaits (an async effect body that failed on its own, the asynchronous
   * unwinding after a sync body threw); `console.error` by default.
   * @throws {SystemPromptError} `DISPOSED` when the owner is disposed.
   */
  constructor(owner?: Lifetime, options?: LifetimeOptions) {
    owner?.assertOpen("create a child");
    super(owner);
    this.report = options?.report;
  }

  /** This lifetime's pre-bound exact disposer. */
  get dispose(): Disposer {
    return this.disposer;
  }

  /** True once this lifetime or any of its owners has started disposing. */
  get disposed(): boolean {
    return Lifetime.#closed(this);
  }

  /** Walks up from `start` to the first owner already seen open. */
  static #closed(start: Lifetime): boolean {
    let node: Lifetime | undefined = start;
    while (node !== undefined && node.#openAt !== ownersEpoch()) {
      if (node.closing) return true;
      node = node.owner;
    }
    for (let open = start; open !== node; open = open.owner!) {
      open.#openAt = ownersEpoch();
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

  /**
   * Owns `teardown` and returns its exact disposer. With `argument`, the
   * teardown runs as `teardown(argument)`: one function shared by many
   * registrations costs no closure per registration.
   */
  own<A>(teardown: (argument: A) => unknown, argument?: A): Disposer {
    this.assertOpen("register a teardown");
    const leaf = new Leaf(this, teardown as Teardown, argument);
    this.add(leaf);
    return leaf.disposer;
  }

  /** Marks this lifetime disposing and asks its effect body to stop. */
  close(): void {
    this.closing = true;
    ownersChanged();
    this.body?.controller.abort();
  }

  /** Whether it must stay listed in its owner. */
  needed(): boolean {
    return this.first !== undefined || this.body?.running === true;
  }

  /** What it owns now, newest listed first. */
  listed(): Member[] {
    const members: Member[] = [];
    for (let member = this.first; member !== undefined; member = member.next) {
      members.push(member);
    }
    return members;
  }

  /**
   * Whether `member` is in this lifetime's list. A member is listed in its
   * owner only, so its own links tell, without a search.
   */
  #lists(member: Member): boolean {
    return member.previous !== undefined || this.first === member;
  }

  #link(member: Member): void {
    if (this.#lists(member)) return;
    const first = this.first;
    member.next = first;
    if (first !== undefined) first.previous = member;
    this.first = member;
  }

  #unlink(member: Member): boolean {
    if (!this.#lists(member)) return false;
    const { previous, next } = member;
    if (previous === undefined) this.first = next;
    else previous.next = next;
    if (next !== undefined) next.previous = previous;
    member.previous = member.next = undefined;
    return true;
  }

  /** Adds `member`, listing this lifetime (and its owners) if needed. */
  add(member: Member): void {
    this.#link(member);
    Lifetime.#list(this);
  }

  static #list(start: Lifetime): void {
    let node = start;
    for (let owner = node.owner; owner !== undefined; owner = node.owner) {
      if (owner.#lists(node)) return;
      owner.#link(node);
      node = owner;
    }
  }

  /** Removes `member`; unlists lifetimes that became idle and empty. */
  detach(member: Member): void {
    if (!this.#unlink(member)) return;
    Lifetime.#unlist(this);
  }

  static #unlist(start: Lifetime): void {
    let node = start;
    while (node.state !== RUNNING && !node.closing && !node.needed()) {
      const owner = node.owner;
      if (owner === undefined || !owner.#unlink(node)) return;
      node = owner;
    }
  }

  /**
   * Builds a composite from `body`: a child lifetime that takes its place in
   * this lifetime's teardown order now, before `body` runs, and collects
   * what `body` yields. Yielded exact disposers are adopted (moved here from
   * their previous owner). `body` gets an `AbortSignal` that aborts when the
   * composite starts disposing.
   *
   * @throws {SystemPromptError} `INVALID_EFFECT` for a body that is not a
   * generator function (a revoked Proxy included) or yields a non-function; whatever a synchronous
   * body throws, after the collected teardowns started in reverse (with the
   * failures of those that finished synchronously, as an `AggregateError`).
   */
  effect(body: EffectBody): Disposer {
    if (isRevokedProxy(body)) {
      throw new SystemPromptError(
        "INVALID_EFFECT",
        `An effect body is a revoked Proxy, which can never be called; pass ` +
          `a generator function (function* or async function*).`,
      );
    }
    if (typeof body !== "function") {
      throw new SystemPromptError(
        "INVALID_EFFECT",
        `An effect body must be a generator function (function* or async ` +
          `function*) that yields teardown functions; got ${typeof body}.`,
      );
    }
    const composite = new Lifetime(this);
    composite.body = {
      running: true,
      controller: new AbortController(),
      failure: undefined,
      waiters: undefined,
    };
    this.add(composite);
    runEffect(composite, body);
    return composite.disposer;
  }
}
