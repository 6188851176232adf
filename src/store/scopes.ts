/**
 * Scope chains: registry-wide bindings of a child scope key to its parent.
 * The chain of `S` is `S`, its parent, its parent's parent, …; an assembly
 * for `S` reads the global layer and every layer on that chain, farthest
 * first. An assembly resolves its chain synchronously when it takes its
 * snapshot, so it reads one consistent state of the bindings; a watcher
 * follows its chain through a `BehaviorSubject` that ticks after every bind
 * and unbind.
 *
 * @module
 */

import {
  BehaviorSubject,
  distinctUntilChanged,
  map,
  type Observable,
  switchMap,
} from "rxjs";
import { describeScope, SystemPromptError } from "../errors.ts";
import type { Layers, Snapshot } from "./layers.ts";
import type { ScopeKey } from "../types.ts";

/** One binding; compared by identity, so a stale disposer unbinds nothing. */
interface Binding {
  readonly parent: ScopeKey;
}

type Bindings = ReadonlyMap<ScopeKey, Binding>;

/** The bindings of one registry. */
export class ScopeBindings {
  // Mutated in place, so a bind costs the same however many scopes are
  // bound; the subject carries the map itself after each change.
  readonly #map = new Map<ScopeKey, Binding>();
  readonly #bindings = new BehaviorSubject<Bindings>(this.#map);
  /**
   * How many scopes are bound to each parent. A bind can close a cycle only
   * through a child that is itself a parent: binding a scope without
   * children (as when a chain is built from its root down) skips the walk,
   * so building a chain of n scopes costs O(n), not O(n²).
   */
  readonly #children = new Map<ScopeKey, number>();

  /**
   * The chain of `scope`, farthest first and ending with `scope` itself:
   * the order in which a snapshot reads the scope layers.
   */
  chainOf(scope: ScopeKey): ScopeKey[] {
    return chainIn(this.#map, scope);
  }

  /** The chain of `scope` now and after every bind or unbind that changes it. */
  chain$(scope: ScopeKey): Observable<readonly ScopeKey[]> {
    return this.#bindings.pipe(
      map((bindings) => chainIn(bindings, scope)),
      distinctUntilChanged(sameKeys),
    );
  }

  /**
   * Binds `child` to `parent` and returns the function that removes exactly
   * this binding (a no-op once it is gone).
   *
   * @throws {SystemPromptError} `SCOPE_ALREADY_BOUND` when `child` has a
   * parent; `SCOPE_CYCLE` when `parent`'s chain reaches `child`.
   */
  bind(child: ScopeKey, parent: ScopeKey): () => boolean {
    const bindings = this.#map;
    const existing = bindings.get(child);
    if (existing !== undefined) {
      throw new SystemPromptError(
        "SCOPE_ALREADY_BOUND",
        `${capitalize(describeScope(child))} is already bound to ` +
          `${describeScope(existing.parent)}; a scope has at most one ` +
          `parent. Dispose that binding first.`,
      );
    }
    if (
      this.#children.has(child) || Object.is(child, parent) || child === parent
    ) {
      assertNoCycle(bindings, child, parent);
    }
    const binding: Binding = { parent };
    this.#map.set(child, binding);
    this.#children.set(parent, (this.#children.get(parent) ?? 0) + 1);
    this.#bindings.next(this.#map);
    return () => this.#unbind(child, binding);
  }

  #unbind(child: ScopeKey, binding: Binding): boolean {
    if (this.#map.get(child) !== binding) return false;
    this.#map.delete(child);
    const siblings = this.#children.get(binding.parent)! - 1;
    if (siblings === 0) this.#children.delete(binding.parent);
    else this.#children.set(binding.parent, siblings);
    this.#bindings.next(this.#map);
    return true;
  }

  /** Completes every `chain$` stream. */
  complete(): void {
    this.#bindings.complete();
  }
}

/**
 * The combined layer states of `scope`'s chain (the global layer alone
 * without a scope), switching to the new chain's layers after a bind or
 * unbind that changes it.
 */
export function chainSnapshot$(
  layers: Layers,
  scopes: ScopeBindings,
  scope: ScopeKey | null | undefined,
): Observable<Snapshot> {
  if (scope === undefined || scope === null) return layers.snapshot$([]);
  return scopes.chain$(scope).pipe(
    switchMap((chain) => layers.snapshot$(chain)),
  );
}

function chainIn(bindings: Bindings, scope: ScopeKey): ScopeKey[] {
  const chain: ScopeKey[] = [scope];
  // A bind never closes a cycle, so the walk ends.
  for (
    let binding = bindings.get(scope);
    binding !== undefined;
    binding = bindings.get(binding.parent)
  ) {
    chain.push(binding.parent);
  }
  return chain.reverse();
}

function assertNoCycle(
  bindings: Bindings,
  child: ScopeKey,
  parent: ScopeKey,
): void {
  let key: ScopeKey | undefined = parent;
  let steps = 0;
  while (key !== undefined) {
    if (Object.is(key, child) || (key === child)) {
      const through = steps === 0
        ? "a scope cannot be its own parent"
        : `${describeScope(parent)} already inherits from it through ` +
          `${steps} binding${steps === 1 ? "" : "s"}`;
      throw new SystemPromptError(
        "SCOPE_CYCLE",
        `Binding ${describeScope(child)} to ${
          describeScope(parent)
        } would close a cycle: ${through}. A chain must end in a scope ` +
          `without a parent.`,
      );
    }
    key = bindings.get(key)?.parent;
    steps++;
  }
}

/** Same chains, keys compared as a `Map` compares them (NaN is NaN). */
function sameKeys(a: readonly ScopeKey[], b: readonly ScopeKey[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (!sameKey(a[index], b[index])) return false;
  }
  return true;
}

function sameKey(a: ScopeKey, b: ScopeKey): boolean {
  return a === b || (a !== a && b !== b);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
