/**
 * `cacheReport`: a conversation's cache report from what the provider
 * reported (SPEC 9.3): per request the reported figures, the simulator's
 * estimate for the same bodies and the judgement against the request
 * before; totals with the hit ratio, the writes, the re-write factor and
 * the cost.
 *
 * @module
 */

import { SystemPromptError } from "../../errors.ts";
import { type BodyView, viewOfBody } from "../simulator/body_view.ts";
import {
  type GrowingBody,
  GrowingReader,
  type GrowingRequest,
  wholeBody,
} from "./growing.ts";
import type { CacheLifetime, ReportedUsage } from "./usage_types.ts";
import type {
  CacheEstimates,
  CacheJudgement,
  CachePrices,
  CacheReportRequest,
  CacheVerdict,
  PromptCacheReport,
  PromptCacheReportTotals,
  ReportedRequest,
  ReportOptions,
} from "./types.ts";
import type { ProviderRules, RuleTable } from "../simulator/rules.ts";
import { simulateRequests, simulateWith } from "../simulator/simulate.ts";
import type {
  CacheSimulation,
  CacheTotals,
  SimulateOptions,
} from "../simulator/types.ts";
import { judgeViews, unreadable } from "./verdict.ts";
import {
  estimateOf,
  JUDGE_SLACK_TOKENS,
  prefixTokens,
} from "./prefix_tokens.ts";

const DEFAULT_PRICES = {
  input: 1,
  cacheRead: 0.1,
  cacheWrite: { "5m": 1.25, "1h": 2, "30m": 1.25, "12h": 1.25 },
} as const;

/**
 * The cache report of a conversation's requests under `table`'s provider
 * (`cacheReport` of `./cache`, which gives the table).
 */
export function cacheReportWith(
  requests: readonly ReportedRequest[],
  options: ReportOptions,
  table: RuleTable,
): PromptCacheReport {
  const rules = readOptions(options, requests, table);
  const { simulation, error } = simulate(requests, options, table);
  const views = requests.map((request): ReadBody => {
    try {
      return viewOfBody(request.body, rules);
    } catch (error) {
      return { error };
    }
  });
  return reportOf(requests, views, { simulation, error }, {
    ...options,
    rules,
    estimate: (previous, current) =>
      estimateOf(requests[previous], requests[current], options, table),
  });
}

/**
 * The cache report of a session's requests whose bodies grow (a
 * conversation's, SPEC 9.3): `cacheReport` of their whole bodies, each
 * item read once (`growing.ts`) so that the report costs the session's
 * items, not every request's whole history. What the simulator refuses
 * (a body of another shape, a time out of order, markers the API would
 * refuse) is reported as `cacheReport` reports it, from the whole bodies,
 * as is every request under rules with no `readItems`.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` as `cacheReport`
 */
export function growingCacheReport(
  requests: readonly GrowingRequest[],
  options: ReportOptions,
  table: RuleTable,
): PromptCacheReport {
  const rules = readOptions(
    options,
    requests as unknown as readonly ReportedRequest[],
    table,
  );
  const whole = () =>
    cacheReportWith(
      requests.map((request) => ({
        ...request,
        body: wholeBody(request.body),
      })),
      options,
      table,
    );
  // Rules that read only whole bodies: each body read whole.
  if (rules.readItems === undefined) return whole();
  let run;
  try {
    run = simulateWith(
      requests.map(({ body, time }) => ({
        body,
        ...(time === undefined ? {} : { time }),
      })),
      simulateOptions(options),
      { caller: "simulateCache", keep: true },
      (rules, index, count) => {
        const reader = new GrowingReader(rules, index, count);
        return (body, request) => reader.read(body as GrowingBody, request);
      },
      table,
    );
  } catch (error) {
    if (!(error instanceof SystemPromptError)) throw error;
    return whole();
  }
  return reportOf(requests, run.prepared, { simulation: run.simulation }, {
    ...options,
    rules,
    // The simulation gave every request its estimate.
    estimate: () => undefined,
  });
}

/** A request's body read, or why it could not be. */
type ReadBody = BodyView | { readonly error: unknown };

/** The report of requests whose bodies are read (`views`) and simulated. */
function reportOf(
  requests: readonly Omit<ReportedRequest, "body">[],
  views: readonly ReadBody[],
  simulated: { simulation?: CacheSimulation; error?: string },
  options: ReportOptions & {
    readonly rules: ProviderRules;
    /** The estimates of a pair when the session's simulation failed. */
    estimate: (previous: number, current: number) => CacheEstimates | undefined;
  },
): PromptCacheReport {
  const { simulation, error } = simulated;
  const { rules } = options;
  const minimum = options.minPrefixTokens ?? rules.minPrefixTokens;
  const readable = (view: ReadBody) => "error" in view ? undefined : view;
  const lastOfThread = new Map<string, number>();
  const results: CacheReportRequest[] = [];
  const distinct: number[] = [];
  requests.forEach((request, index) => {
    const thread = request.thread ?? "";
    const before = lastOfThread.get(thread) ?? (index > 0 ? index - 1 : -1);
    lastOfThread.set(thread, index);
    const { usage } = request;
    const estimate = simulation?.requests[index];
    const result: CacheReportRequest = {
      index,
      ...figures(usage),
      ...(request.summarizes === true ? { summarizes: true } : {}),
      differsFromEstimate: estimate !== undefined &&
        usage.cacheReadTokens !== undefined &&
        Math.abs(usage.cacheReadTokens - estimate.cachedTokens) >
          JUDGE_SLACK_TOKENS,
    };
    if (estimate !== undefined) result.estimate = estimate;
    const view = readable(views[index]);
    const cost = costOf(usage, view, options);
    if (cost !== undefined) result.cost = cost;
    let judgement: CacheJudgement | undefined;
    if (before >= 0) {
      const previousEstimate = simulation?.requests[before];
      const previousView = views[before];
      const currentView = views[index];
      judgement = "error" in previousView
        ? unreadable(request, previousView.error)
        : "error" in currentView
        ? unreadable(request, currentView.error)
        : judgeViews(
          { previous: requests[before], current: request },
          { before: previousView, after: currentView },
          {
            ...options,
            estimates: () =>
              estimate !== undefined && previousEstimate !== undefined
                ? { previous: previousEstimate, current: estimate }
                : options.estimate(before, index),
          },
        );
      result.judgement = judgement;
    }
    const own = view === undefined
      ? undefined
      : prefixTokens(usage, view, rules, minimum);
    distinct.push(Math.max(0, (own ?? 0) - (judgement?.repeatedTokens ?? 0)));
    results.push(result);
  });
  return {
    requests: results,
    totals: totalsOf(results, distinct, simulation?.totals, error),
  };
}

function readOptions(
  options: ReportOptions,
  requests: readonly ReportedRequest[],
  table: RuleTable,
): ProviderRules {
  if (!Array.isArray(requests)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      "cacheReport's requests must be an array of { body, usage, time? }",
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      "cacheReport needs options { provider, countTokens, prices? }",
    );
  }
  const rules = table.named(options.provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `cacheReport's provider is ${
        JSON.stringify(options.provider)
      }; expected one of ${table.ids.map((p) => `"${p}"`).join(", ")}`,
    );
  }
  if (typeof options.countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      "cacheReport's countTokens must be a function (text) => tokens",
    );
  }
  requests.forEach((request, index) => {
    if (
      typeof request !== "object" || request === null ||
      typeof request.usage !== "object" || request.usage === null
    ) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `cacheReport's request ${index} is not { body, usage, time? } ` +
          "(usage as readReportedUsage returns it)",
      );
    }
  });
  return rules;
}

function simulate(
  requests: readonly ReportedRequest[],
  options: ReportOptions,
  table: RuleTable,
): { simulation?: CacheSimulation; error?: string } {
  try {
    return {
      simulation: simulateRequests(
        requests.map(({ body, time }) => ({
          body,
          ...(time !== undefined ? { time } : {}),
        })),
        simulateOptions(options),
        table,
      ),
    };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The simulator's options of a report's. */
function simulateOptions(options: ReportOptions): SimulateOptions {
  return {
    provider: options.provider,
    countTokens: options.countTokens,
    ...(options.minPrefixTokens !== undefined
      ? { minPrefixTokens: options.minPrefixTokens }
      : {}),
  };
}

function figures(
  usage: ReportedUsage,
): Pick<
  CacheReportRequest,
  "inputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "compaction"
> {
  const result: Pick<
    CacheReportRequest,
    "inputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "compaction"
  > = {};
  if (usage.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage.cacheReadTokens !== undefined) {
    result.cacheReadTokens = usage.cacheReadTokens;
  }
  if (usage.cacheWriteTokens !== undefined) {
    result.cacheWriteTokens = usage.cacheWriteTokens;
  }
  if (usage.compaction !== undefined) result.compaction = usage.compaction;
  return result;
}

/**
 * The cost at the prices: uncached input, reads, and writes by lifetime
 * (reported, else told by the body's marks when they all share one).
 */
export function costOf(
  usage: ReportedUsage,
  body: BodyView | undefined,
  options: Pick<ReportOptions, "prices"> & { rules: ProviderRules },
): number | undefined {
  const { inputTokens: input, cacheReadTokens: read } = usage;
  const written = usage.cacheWriteTokens;
  if (input === undefined || read === undefined || written === undefined) {
    return undefined;
  }
  const uncached = input - read - written;
  if (uncached < 0) return undefined;
  const prices: CachePrices = options.prices ?? {};
  const inputPrice = prices.input ?? DEFAULT_PRICES.input;
  const readPrice = prices.cacheRead ?? DEFAULT_PRICES.cacheRead;
  const writePrice = (lifetime: CacheLifetime | "unknown") =>
    prices.cacheWrite?.[lifetime] ??
      (lifetime === "unknown"
        ? undefined
        : DEFAULT_PRICES.cacheWrite[lifetime]);
  let writes: number | undefined;
  if (written === 0) writes = 0;
  else if (options.rules.writesBilledAsInput === true) {
    // An automatic cache bills no writes: they are input.
    writes = written * inputPrice;
  } else if (usage.cacheWrites !== undefined) {
    writes = 0;
    for (const [lifetime, tokens] of Object.entries(usage.cacheWrites)) {
      const price = writePrice(lifetime as CacheLifetime);
      if (price === undefined) return undefined;
      writes += tokens * price;
    }
  } else {
    const lifetime = markLifetime(body);
    const price = writePrice(lifetime ?? "unknown");
    if (price === undefined) return undefined;
    writes = written * price;
  }
  return uncached * inputPrice + read * readPrice + writes;
}

/** The lifetime every mark of the body shares, if one. */
function markLifetime(body: BodyView | undefined): CacheLifetime | undefined {
  if (body === undefined) return undefined;
  const labels = new Set(body.marks.map((at) => body.marker(at)!.label));
  if (labels.size !== 1) return undefined;
  const [label] = labels;
  return label as CacheLifetime;
}

function totalsOf(
  results: readonly CacheReportRequest[],
  distinct: readonly number[],
  estimate: CacheTotals | undefined,
  error: string | undefined,
): PromptCacheReportTotals {
  let inputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let unreadableRequests = 0;
  let cost: number | undefined = 0;
  const verdicts: Record<CacheVerdict, number> = {
    layout: 0,
    conversation: 0,
    request: 0,
    provider: 0,
    unknown: 0,
    compaction: 0,
  };
  for (const result of results) {
    const { inputTokens: input, cacheReadTokens: read } = result;
    const written = result.cacheWriteTokens;
    if (input === undefined || read === undefined || written === undefined) {
      unreadableRequests += 1;
    } else {
      inputTokens += input;
      cacheReadTokens += read;
      cacheWriteTokens += written;
    }
    // The provider's compaction inside the request, reported apart.
    const compaction = result.compaction;
    if (compaction !== undefined) {
      inputTokens += compaction.inputTokens;
      cacheReadTokens += compaction.cacheReadTokens;
      cacheWriteTokens += compaction.cacheWriteTokens;
    }
    cost = cost === undefined || result.cost === undefined
      ? undefined
      : cost + result.cost;
    const verdict = result.judgement?.verdict;
    if (verdict !== undefined) verdicts[verdict] += 1;
  }
  const distinctPrefixTokens = distinct.reduce((sum, n) => sum + n, 0);
  const totals: PromptCacheReportTotals = {
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    distinctPrefixTokens,
    unreadableRequests,
    verdicts,
    differsFromEstimate: false,
  };
  if (inputTokens > 0) totals.hitRatio = cacheReadTokens / inputTokens;
  if (cacheWriteTokens > 0 && distinctPrefixTokens > 0) {
    totals.rewriteFactor = cacheWriteTokens / distinctPrefixTokens;
  }
  if (cost !== undefined && results.length > 0) totals.cost = cost;
  if (estimate !== undefined) {
    totals.estimate = estimate;
    totals.estimatedHitRatio = estimate.inputTokens === 0
      ? 0
      : estimate.cachedTokens / estimate.inputTokens;
    totals.differsFromEstimate = totals.hitRatio !== undefined &&
      Math.abs(totals.hitRatio - totals.estimatedHitRatio) > 0.05;
  }
  if (error !== undefined) totals.estimateError = error;
  return totals;
}
