/**
 * The simulation behind `simulateCache`: how many input tokens a
 * provider's prompt cache would serve for a session's requests (SPEC 8.8). An estimate: the tokenizer is
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
import type { ProviderRules, RuleTable } from "./rules.ts";
import { memoised, PrefixIndex, prepare, type Prepared } from "./prefixes.ts";
import type {
  CacheRequest,
  CacheRequestResult,
  CacheSimulation,
  CacheTotals,
  CountTokens,
} from "./types.ts";

/**
 * Simulates `table`'s provider's prompt cache over `requests`, in order
 * (`simulateCache` of `./cache`, which gives the table).
 */
export function simulateRequests(
  requests: readonly CacheRequest[],
  options: unknown,
  table: RuleTable,
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
    table,
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
  table: RuleTable,
): { simulation: CacheSimulation; prepared: Prepared[] } {
  const { rules, countTokens, minimum } = readOptions(options, table);
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
  table: RuleTable,
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
  const rules = table.named(provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `provider is ${kind(provider)}; expected one of ${
        table.ids.map((name) => `"${name}"`).join(", ")
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
