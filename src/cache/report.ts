/**
 * `cacheReport`: a conversation's cache report from what the provider
 * reported (SPEC 9.3): per request the reported figures, the simulator's
 * estimate for the same bodies and the judgement against the request
 * before; totals with the hit ratio, the writes, the re-write factor and
 * the cost.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { parseBody, type ParsedBody } from "./blocks.ts";
import type { CacheLifetime, ReportedUsage } from "./reported_types.ts";
import type {
  CacheJudgement,
  CachePrices,
  CacheReportOptions,
  CacheReportRequest,
  CacheVerdict,
  PromptCacheReport,
  PromptCacheReportTotals,
  ReportedRequest,
} from "./report_types.ts";
import { PROVIDER_RULES } from "./rules.ts";
import { defaultMinimum, simulateCache } from "./simulate.ts";
import {
  CACHE_PROVIDERS,
  type CacheProvider,
  type CacheSimulation,
  type CacheTotals,
} from "./types.ts";
import { judgeRequest, prefixTokens, STEP_TOKENS } from "./verdict.ts";

const DEFAULT_PRICES = {
  input: 1,
  cacheRead: 0.1,
  cacheWrite: { "5m": 1.25, "1h": 2, "30m": 1.25, "12h": 1.25 },
} as const;

/**
 * The cache report of a conversation's requests, in the order sent: per
 * request the reported input (cache reads and writes included), reads and
 * writes, the cost at the prices, the simulator's estimate for the same
 * body and whether the observed read differs from it, and the judgement
 * against the request before (`judgeRequest`: a miss's verdict, the
 * provider's reason beside it, the contributor when explanations are
 * given). Totals: hit ratio, writes, distinct prefix tokens and the
 * re-write factor, cost, the estimate's totals, and the misses by verdict.
 *
 * A request's previous one is the one before it in its thread, or for a
 * thread's first request the one before it in the list.
 *
 * Never throws on what the provider reported (an unreadable usage counts
 * in `unreadableRequests` and gives `unknown`). A body the simulator
 * cannot read leaves the estimates out (`estimateError` says why).
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` when `requests` is not an
 * array or the options are not valid
 *
 * @example Two Anthropic requests: the second read the first's prefix
 * ```ts
 * import { cacheReport, readReportedUsage } from "@rxprompt/system-prompt/cache";
 *
 * const system = [{ type: "text", text: "House rules. ".repeat(800), cache_control: { type: "ephemeral" } }];
 * const body = (question: string) => ({
 *   model: "claude-sonnet-4-5",
 *   system,
 *   messages: [{ role: "user", content: question }],
 * });
 * const response = (read: number, written: number) => ({
 *   usage: {
 *     input_tokens: 8,
 *     cache_read_input_tokens: read,
 *     cache_creation_input_tokens: written,
 *     output_tokens: 40,
 *   },
 * });
 * const report = cacheReport([
 *   { body: body("Build it."), usage: readReportedUsage(response(0, 2600), "anthropic") },
 *   { body: body("Test it."), usage: readReportedUsage(response(2600, 0), "anthropic") },
 * ], { provider: "anthropic", countTokens: (text) => Math.ceil(text.length / 4) });
 * console.log(report.totals.hitRatio?.toFixed(2), report.totals.rewriteFactor); // 0.50 1
 * console.log(report.requests[1].judgement?.missed); // false
 * ```
 */
export function cacheReport(
  requests: readonly ReportedRequest[],
  options: CacheReportOptions,
): PromptCacheReport {
  readOptions(options, requests);
  const minimum = options.minPrefixTokens ?? defaultMinimum(options.provider);
  const { simulation, error } = simulate(requests, options);
  const parsed = requests.map((request) => parsed_(request, options.provider));
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
      differsFromEstimate: estimate !== undefined &&
        usage.cacheReadTokens !== undefined &&
        Math.abs(usage.cacheReadTokens - estimate.cachedTokens) > STEP_TOKENS,
    };
    if (estimate !== undefined) result.estimate = estimate;
    const cost = costOf(usage, parsed[index], options);
    if (cost !== undefined) result.cost = cost;
    let judgement: CacheJudgement | undefined;
    if (before >= 0) {
      const previousEstimate = simulation?.requests[before];
      judgement = judgeRequest(
        { previous: requests[before], current: request },
        {
          ...options,
          ...(estimate !== undefined && previousEstimate !== undefined
            ? { estimates: { previous: previousEstimate, current: estimate } }
            : {}),
        },
      );
      result.judgement = judgement;
    }
    const own = parsed[index] === undefined
      ? undefined
      : prefixTokens(usage, parsed[index]!, options, minimum);
    distinct.push(Math.max(0, (own ?? 0) - (judgement?.repeatedTokens ?? 0)));
    results.push(result);
  });
  return {
    requests: results,
    totals: totalsOf(results, distinct, simulation?.totals, error),
  };
}

function readOptions(
  options: CacheReportOptions,
  requests: readonly ReportedRequest[],
): void {
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
  if (!CACHE_PROVIDERS.includes(options.provider)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `cacheReport's provider is ${
        JSON.stringify(options.provider)
      }; expected one of ${CACHE_PROVIDERS.map((p) => `"${p}"`).join(", ")}`,
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
}

function simulate(
  requests: readonly ReportedRequest[],
  options: CacheReportOptions,
): { simulation?: CacheSimulation; error?: string } {
  try {
    return {
      simulation: simulateCache(
        requests.map(({ body, time }) => ({
          body,
          ...(time !== undefined ? { time } : {}),
        })),
        {
          provider: options.provider,
          countTokens: options.countTokens,
          ...(options.minPrefixTokens !== undefined
            ? { minPrefixTokens: options.minPrefixTokens }
            : {}),
        },
      ),
    };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function parsed_(
  request: ReportedRequest,
  provider: CacheProvider,
): ParsedBody | undefined {
  try {
    return parseBody(request.body, PROVIDER_RULES[provider].wire);
  } catch {
    return undefined;
  }
}

function figures(
  usage: ReportedUsage,
): Pick<
  CacheReportRequest,
  "inputTokens" | "cacheReadTokens" | "cacheWriteTokens"
> {
  const result: Pick<
    CacheReportRequest,
    "inputTokens" | "cacheReadTokens" | "cacheWriteTokens"
  > = {};
  if (usage.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage.cacheReadTokens !== undefined) {
    result.cacheReadTokens = usage.cacheReadTokens;
  }
  if (usage.cacheWriteTokens !== undefined) {
    result.cacheWriteTokens = usage.cacheWriteTokens;
  }
  return result;
}

/**
 * The cost at the prices: uncached input, reads, and writes by lifetime
 * (reported, else told by the body's marks when they all share one).
 */
export function costOf(
  usage: ReportedUsage,
  body: ParsedBody | undefined,
  options: Pick<CacheReportOptions, "provider" | "prices">,
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
  else if (options.provider === "openai") {
    // The automatic cache bills no writes: they are input.
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
function markLifetime(body: ParsedBody | undefined): CacheLifetime | undefined {
  if (body === undefined) return undefined;
  const labels = new Set(
    body.blocks.flatMap((block) =>
      block.marker === undefined ? [] : [block.marker.label]
    ),
  );
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
