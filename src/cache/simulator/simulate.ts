/**
 * `simulateCache`: how many input tokens a provider's prompt cache would
 * serve for a session's requests (SPEC 8.8). An estimate: the tokenizer is
 * the caller's, and framing tokens (roles, separators, tool wrappers) are
 * not counted.
 *
 * @module
 */

import { SystemPromptError } from "../../errors.ts";
import { kind, type ParsedBody } from "./blocks.ts";
import { MarkerCache } from "./marker_cache.ts";
import { AutomaticPrefixCache } from "./automatic_cache.ts";
import { ExplicitCache } from "./explicit_cache.ts";
import type { ProviderRules } from "./rules.ts";
import { CACHE_PROVIDERS, rulesNamed } from "./rule_table.ts";
import { memoised, PrefixIndex, prepare, type Prepared } from "./prefixes.ts";
import type {
  CacheRequest,
  CacheRequestResult,
  CacheSimulation,
  CacheTotals,
  CountTokens,
  SimulateCacheOptions,
} from "./types.ts";

/**
 * Simulates a provider's prompt cache over `requests`, in order: per
 * request the input, cached and written tokens, the cost in uncached input
 * tokens, and the first block not served with the reason. The rules are
 * SPEC 8.8's, from the providers' documentation (see docs/caching.md, "How
 * much will the cache serve?"); the figures are an estimate.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for options that are not
 * valid, and, naming the request's index, for a body that is not one of
 * the accepted shapes, a `countTokens` that throws or returns anything but
 * a non-negative integer, a time before the previous request's, or
 * markers the API would refuse (more than four Anthropic markers, a
 * 1-hour marker after a 5-minute one)
 *
 * @example Two Anthropic requests: the second reads the first's prefix
 * ```ts
 * import { simulateCache } from "@rxprompt/system-prompt/cache";
 *
 * const system = [{
 *   type: "text",
 *   text: "You are a careful coding agent. ".repeat(300),
 *   cache_control: { type: "ephemeral" },
 * }];
 * const { requests } = simulateCache([
 *   { body: { system, messages: [{ role: "user", content: "Hi." }] } },
 *   { body: { system, messages: [{ role: "user", content: "Bye." }] } },
 * ], { provider: "anthropic", countTokens: (text) => Math.ceil(text.length / 4) });
 * console.log(requests[1].cachedTokens); // 2400
 * ```
 */
export function simulateCache(
  requests: readonly CacheRequest[],
  options: SimulateCacheOptions,
): CacheSimulation {
  return simulateWith(
    requests,
    options,
    { caller: "simulateCache", keep: false },
    (rules, index, count) => (body, request) => {
      const parsed: ParsedBody = rules.readBody(body);
      return prepare(
        { ...request, fields: body as Record<string, unknown>, ...parsed },
        index,
        count,
      );
    },
  ).simulation;
}

/** Reads one request's body (given the simulation's index and counter). */
export type BodyReader = (
  rules: ProviderRules,
  index: PrefixIndex,
  count: CountTokens,
) => (body: unknown, request: { index: number; time: number }) => Prepared;

/**
 * `simulateCache` with each body read by `reader` (a session's growing
 * bodies, `growing.ts`): the simulation, and with `keep` every request as
 * read (bodies read whole and kept would hold every body at once).
 */
export function simulateWith(
  requests: unknown,
  options: unknown,
  how: { caller: string; keep: boolean },
  reader: BodyReader,
): { simulation: CacheSimulation; prepared: Prepared[] } {
  const { rules, countTokens, minimum } = readOptions(options);
  const list = readList(requests, how.caller);
  const index = new PrefixIndex();
  const count = memoised(countTokens);
  const rule = ruleFor(rules, index, count, minimum);
  const read = reader(rules, index, count);
  const results: CacheRequestResult[] = [];
  const prepared: Prepared[] = [];
  let previous: number | undefined;
  list.forEach((request, at) => {
    const view = guarded(at, () => {
      const { body, time } = readRequest(request, previous);
      return read(body, { index: at, time });
    });
    previous = view.time;
    results.push(guarded(at, () => rule.step(view)));
    index.record();
    if (how.keep) prepared.push(view);
  });
  return {
    simulation: { requests: results, totals: totalsOf(results) },
    prepared,
  };
}

interface Rule {
  step(request: Prepared): CacheRequestResult;
}

function ruleFor(
  rules: ProviderRules,
  index: PrefixIndex,
  count: CountTokens,
  minimum: number,
): Rule {
  switch (rules.reads) {
    case "marks-and-automatic":
      return new ExplicitCache(index, count, { minimum, rules });
    case "marks":
      return new MarkerCache(index, minimum, rules);
    case "automatic":
      return new AutomaticPrefixCache(index, { count, minimum, rules });
  }
}

function totalsOf(results: readonly CacheRequestResult[]): CacheTotals {
  const totals: CacheTotals = {
    inputTokens: 0,
    cachedTokens: 0,
    writtenTokens: 0,
    promptTokens: 0,
    cost: 0,
  };
  for (const result of results) {
    totals.inputTokens += result.inputTokens;
    totals.cachedTokens += result.cachedTokens;
    totals.writtenTokens += result.writtenTokens;
    totals.promptTokens += result.promptTokens;
    totals.cost += result.cost;
  }
  return totals;
}

function readOptions(
  options: unknown,
): { rules: ProviderRules; countTokens: CountTokens; minimum: number } {
  const read = guardedRead(() => {
    if (typeof options !== "object" || options === null) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `simulateCache's options are ${
          kind(options)
        }; expected { provider, countTokens, minPrefixTokens? }`,
      );
    }
    const { provider, countTokens, minPrefixTokens } = options as Record<
      string,
      unknown
    >;
    return { provider, countTokens, minPrefixTokens };
  }, "simulateCache's options cannot be read");
  const { provider, countTokens, minPrefixTokens } = read;
  const rules = rulesNamed(provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `provider is ${kind(provider)}; expected one of ${
        CACHE_PROVIDERS.map((name) => `"${name}"`).join(", ")
      }`,
    );
  }
  if (typeof countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `countTokens is ${kind(countTokens)}; expected a function (text) => ` +
        `a non-negative integer`,
    );
  }
  const minimum = minPrefixTokens ?? rules.minPrefixTokens;
  if (
    typeof minimum !== "number" || !Number.isSafeInteger(minimum) || minimum < 0
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `minPrefixTokens is ${
        kind(minPrefixTokens)
      }; expected a non-negative integer (default ${rules.minPrefixTokens})`,
    );
  }
  return { rules, countTokens: countTokens as CountTokens, minimum };
}

/**
 * A copy of the request list, read once.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` when it is not an array
 */
export function readList(requests: unknown, caller: string): unknown[] {
  return guardedRead(() => {
    if (!Array.isArray(requests)) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${caller}'s requests are ${kind(requests)}; expected an array of ` +
          `{ body, time?, thread? }`,
      );
    }
    return [...requests];
  }, `${caller}'s requests cannot be read`);
}

/** A request's body, time (defaulted and checked) and thread. */
export function readRequest(
  request: unknown,
  previous: number | undefined,
): { body: unknown; time: number; thread: string | undefined } {
  if (typeof request !== "object" || request === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `the request is ${kind(request)}; expected { body, time?, thread? }`,
    );
  }
  const { body, time, thread } = request as Record<string, unknown>;
  if (thread !== undefined && typeof thread !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `thread is ${kind(thread)}; expected a string`,
    );
  }
  if (time === undefined) {
    return { body, time: previous === undefined ? 0 : previous + 1000, thread };
  }
  if (typeof time !== "number" || !Number.isFinite(time)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `time is ${kind(time)}; expected a finite number of milliseconds`,
    );
  }
  if (previous !== undefined && time < previous) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `time ${time} is before the previous request's (${previous}); ` +
        `requests must be in time order`,
    );
  }
  return { body, time, thread };
}

/**
 * Runs `read` for request `at`: any failure becomes a `SystemPromptError`
 * whose message starts with the request's index (the original as cause).
 */
export function guarded<T>(at: number, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SystemPromptError) {
      throw new SystemPromptError(
        error.code,
        `request ${at}: ${error.message}`,
        {
          cause: error.cause ?? error,
        },
      );
    }
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `request ${at} cannot be read: a getter or Proxy of it threw, or ` +
        `JSON.stringify failed on it (a cycle, a BigInt)`,
      { cause: error },
    );
  }
}

function guardedRead<T>(read: () => T, message: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SystemPromptError) throw error;
    throw new SystemPromptError("INVALID_CONFIG", message, { cause: error });
  }
}
