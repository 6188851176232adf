/**
 * Hostile values for the fuzz suite: proxies (revoked, throwing), objects
 * whose getters throw, frozen and cyclic objects, symbol keys, objects
 * without a prototype, and user code that throws, rejects or hangs. Each
 * value is built fresh by its arbitrary, so a revoked proxy is never reused
 * across runs.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { SystemPromptError } from "../../mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** The fixed seed of every property of the suite (printed in test names). */
export const FUZZ_SEED = 20_261_202;

/** Runs per property: 1,000 in CI, fewer under `RXPROMPT_FUZZ_RUNS`. */
export const FUZZ_RUNS: number = fuzzRuns(1000);

/** The options of every `fc.assert` of the suite. */
export const FUZZ_OPTIONS = { seed: FUZZ_SEED, numRuns: FUZZ_RUNS };

/** What a fuzz suite's name says, so that a failure replays. */
export const FUZZ_LABEL = `(seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs)`;

/** Field names the module reads from what users give it. */
const FIELDS = [
  "name",
  "order",
  "text",
  "cacheBreakpoint",
  "signal",
  "scope",
  "schemas",
  "knownNames",
  "description",
  "parameters",
  "persona",
  "toolOrder",
  "includeHarnessIdentity",
  "onSubscriberError",
  "label",
  "sections",
  "tools",
  "variables",
  "then",
  "toString",
  "valueOf",
  "constructor",
  "message",
  "budget",
  "maxTokens",
  "countTokens",
  "priority",
  "required",
];

function fail(what: string): never {
  throw new Error(`hostile ${what}`);
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingProxy(): object {
  return new Proxy({}, {
    get: () => fail("get"),
    has: () => fail("has"),
    ownKeys: () => fail("ownKeys"),
    getOwnPropertyDescriptor: () => fail("getOwnPropertyDescriptor"),
    getPrototypeOf: () => fail("getPrototypeOf"),
    set: () => fail("set"),
    defineProperty: () => fail("defineProperty"),
  });
}

function throwingGetters(): object {
  const object: Record<string | symbol, unknown> = {};
  for (const field of [...FIELDS, Symbol.iterator, Symbol.toPrimitive]) {
    Object.defineProperty(object, field, {
      get: () => fail(`getter ${String(field)}`),
      enumerable: true,
    });
  }
  return object;
}

function revokedFunction(): unknown {
  const { proxy, revoke } = Proxy.revocable(function revoked() {}, {});
  revoke();
  return proxy;
}

/** `fn` behind a Proxy whose `name` getter throws; calls go through. */
function throwingName<F extends object>(fn: F): F {
  return new Proxy(fn, {
    get: (target, key, receiver) =>
      key === "name" ? fail("name getter") : Reflect.get(target, key, receiver),
  });
}

/** `target` with a `Symbol.iterator` getter that throws. */
function throwingIterator<T extends object>(target: T): T {
  return Object.defineProperty(target, Symbol.iterator, {
    get: () => fail("Symbol.iterator getter"),
  });
}

function cyclic(): object {
  const object: Record<string, unknown> = { name: "cycle", type: "object" };
  object.self = object;
  object.parameters = object;
  return object;
}

function symbolKeyed(): object {
  return { [Symbol("key")]: { nested: true }, name: "s", order: 1, text: "t" };
}

function throwingToString(): object {
  return {
    toString: () => fail("toString"),
    valueOf: () => fail("valueOf"),
  };
}

/** Fresh hostile objects, by name (shrinks to the name). */
const FACTORIES: Record<string, () => unknown> = {
  "revoked proxy": revokedProxy,
  "throwing proxy": throwingProxy,
  "throwing getters": throwingGetters,
  "cycle": cyclic,
  "symbol keys": symbolKeyed,
  "no prototype": () => Object.create(null),
  "throwing toString": throwingToString,
  "frozen section": () =>
    Object.freeze({ name: "frozen", order: 1, text: "f" }),
  "frozen array": () => Object.freeze(["a", "b"]),
  "array with fields": () =>
    Object.assign([], { name: "t", order: 1, text: "x", description: "d" }),
  "function": () => function named() {},
  "async function": () => async () => {},
  "generator function": () => function* () {},
  "symbol": () => Symbol("value"),
  "bigint": () => 10n,
  "date": () => new Date(0),
  "map": () => new Map(),
  "error": () => new TypeError("a value"),
  "revoked function": revokedFunction,
  "throwing name function": () => throwingName(function named() {}),
  "throwing iterator array": () => throwingIterator(["read", "shell"]),
  "throwing iterator object": () =>
    throwingIterator({ name: "t", order: 1, text: "x" }),
};

/**
 * Builds one input of a case. Arbitraries yield builders, not the values:
 * fast-check inspects what it generates, and a revoked Proxy would break
 * fast-check itself; a builder also makes each run's value fresh.
 */
export type Make<T = unknown> = () => T;

/** `arbitrary`'s plain values as builders. */
export function plain<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Make<T>> {
  return arbitrary.map((value) => () => value);
}

/** One of the hostile objects above, built fresh (shrinks to its name). */
export const hostileObjectArb: fc.Arbitrary<Make> = fc
  .constantFrom(...Object.keys(FACTORIES))
  .map((name) => {
    const make = () => FACTORIES[name]();
    return Object.assign(make, { toString: () => name });
  });

/** Anything: primitives, JSON-like data, and hostile objects. */
export const hostileArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 2, arbitrary: hostileObjectArb },
  {
    weight: 1,
    arbitrary: plain(
      fc.constantFrom(
        undefined,
        null,
        0,
        -0,
        NaN,
        Infinity,
        "",
        "x",
        " ",
        true,
        false,
      ),
    ),
  },
  { weight: 1, arbitrary: plain(fc.anything({ maxDepth: 2, maxKeys: 3 })) },
);

/** An object of optional fields, each built by its own builder. */
export function recordOf(
  shape: Record<string, fc.Arbitrary<Make>>,
): fc.Arbitrary<Make<Record<string, unknown>>> {
  return fc.record(shape, { requiredKeys: [] }).map((parts) => () =>
    Object.fromEntries(
      Object.entries(parts).map(([key, make]) => [key, (make as Make)()]),
    )
  );
}

/** Misbehaving user code and the value it throws, returns or rejects with. */
export interface UserCode {
  readonly behaviour: "throw" | "return" | "reject" | "hang";
  readonly value: unknown;
  readonly run: (...args: unknown[]) => unknown;
}

/** {@linkcode UserCode} of every behaviour, with hostile values. */
export const userCodeArb: fc.Arbitrary<Make<UserCode>> = fc
  .tuple(fc.constantFrom("throw", "return", "reject", "hang"), hostileArb)
  .map(([behaviour, make]) => () => {
    const value = make();
    const run = behaviour === "throw"
      ? () => {
        throw value;
      }
      : behaviour === "return"
      ? () => value
      : behaviour === "reject"
      ? () => Promise.reject(value)
      : () => new Promise(() => {});
    return { behaviour, value, run } as UserCode;
  });

/** How a user function is wrapped: as it is, or hostile to reading. */
const FUNCTION_WRAPPERS: Record<string, (run: UserCode["run"]) => unknown> = {
  "plain": (run) => run,
  // Called as it is; reading its name throws.
  "throwing name": (run) => throwingName(run),
  "revoked": () => revokedFunction(),
};

/**
 * A misbehaving user function (the value it uses stays hidden), sometimes
 * behind a Proxy whose `name` getter throws, or a revoked Proxy.
 */
export const hostileFunctionArb: fc.Arbitrary<Make> = fc
  .tuple(userCodeArb, fc.constantFrom(...Object.keys(FUNCTION_WRAPPERS)))
  .map(([make, wrapper]) => () => FUNCTION_WRAPPERS[wrapper](make().run));

/** A value the module may receive: hostile data or misbehaving user code. */
export const anyInputArb: fc.Arbitrary<Make> = fc.oneof(
  hostileArb,
  hostileFunctionArb,
);

/** `error` as text for an assertion message; never throws. */
export function describeValue(error: unknown): string {
  try {
    return error instanceof Error
      ? `${error.name}: ${error.message}`
      : String(error);
  } catch {
    return "an undescribable value";
  }
}

/**
 * Asserts that `error` is a `SystemPromptError` with a stable code, or one
 * of `passedThrough` (values that SPEC passes on as they are: what a
 * listener throws, an abort reason).
 */
export function assertTyped(
  error: unknown,
  passedThrough: readonly unknown[] = [],
): void {
  if (passedThrough.includes(error)) return;
  assert.ok(
    error instanceof SystemPromptError,
    `expected a SystemPromptError, got ${describeValue(error)}`,
  );
  assert.match(error.code, /^[A-Z][A-Z_]+$/);
  assert.equal(typeof error.message, "string");
}

/** Calls `run`; a throw must be typed. Returns the result, if any. */
export function typedOrValue<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    assertTyped(error);
    return undefined;
  }
}
