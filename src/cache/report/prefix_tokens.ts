/**
 * The tokens a verdict weighs (SPEC 9.3): a request's cached or written
 * prefix as the provider reported it, the part of it the next body
 * repeats, and the simulator's estimate of the two requests, with whether
 * it predicts the miss too. Pure.
 *
 * @module
 */

import type { BodyView } from "../simulator/body_view.ts";
import type { ReportedUsage } from "./usage_types.ts";
import type {
  CacheEstimates,
  ReportedRequest,
  ReportOptions,
} from "./types.ts";
import type { ProviderRules, RuleTable } from "../simulator/rules.ts";
import { simulateRequests } from "../simulator/simulate.ts";

/**
 * The tolerance of every comparison, in tokens: a read or a prefix within
 * this of another is taken as the same (OpenAI's cache granularity).
 */
export const JUDGE_SLACK_TOKENS = 128;

/**
 * The tokens of a request's cached or written prefix, as reported: reads
 * plus writes; an automatic cache (OpenAI's, Gemini's) writes every prompt,
 * so its whole input counts there (rounded down to its step, 128 on
 * OpenAI, 0 under the minimum, unless the request read from the cache:
 * the provider's word that its minimum is lower than the rules' default,
 * Gemini 3's for a Gemini 2.5 model).
 */
export function prefixTokens(
  usage: Pick<
    ReportedUsage,
    "cacheReadTokens" | "cacheWriteTokens" | "inputTokens"
  >,
  body: Pick<BodyView, "explicitMode">,
  rules: ProviderRules,
  minimum: number,
): number | undefined {
  const { cacheReadTokens: read, cacheWriteTokens: written, inputTokens } =
    usage;
  const step = rules.automatic?.stepTokens ?? JUDGE_SLACK_TOKENS;
  const automatic = inputTokens === undefined
    ? undefined
    : inputTokens < minimum && !((read ?? 0) > 0)
    ? 0
    : inputTokens - (inputTokens % step);
  const marked = read === undefined || written === undefined
    ? undefined
    : read + written;
  switch (rules.reads) {
    case "marks":
      return marked;
    case "automatic":
      return automatic;
    case "marks-and-automatic":
      if (body.explicitMode) return marked;
      if (marked === undefined || automatic === undefined) return undefined;
      return Math.max(marked, automatic);
  }
}

/**
 * The previous prefix's tokens the next body repeats: all of it when the
 * next body repeats every block, else the shared blocks' estimate scaled
 * to the provider's count of the previous request.
 */
export function repeatedTokens(
  shared: {
    before: BodyView;
    common: number;
    previousPrefix: number;
    total: number | undefined;
  },
  options: ReportOptions,
): number {
  const { before, common, previousPrefix, total } = shared;
  if (common === before.length) return previousPrefix;
  let sharedEstimate = 0;
  let allEstimate = 0;
  if (before.through !== undefined) {
    // Counted already, with the same counter (whose every answer was a
    // count, so safeCount's would be the same).
    sharedEstimate = before.through(common - 1);
    allEstimate = before.through(before.length - 1);
  } else {
    for (let index = 0; index < before.length; index++) {
      const tokens = safeCount(options.countTokens, before.block(index).text);
      allEstimate += tokens;
      if (index < common) sharedEstimate += tokens;
    }
  }
  const scale = total !== undefined && allEstimate > 0
    ? total / allEstimate
    : 1;
  return Math.min(previousPrefix, Math.floor(sharedEstimate * scale));
}

/** The simulator's estimates of `previous` and then `current`. */
export function estimateOf(
  previous: ReportedRequest,
  current: ReportedRequest,
  options: ReportOptions,
  table: RuleTable,
): CacheEstimates | undefined {
  try {
    const times = previous.time !== undefined && current.time !== undefined &&
      current.time >= previous.time;
    const simulation = simulateRequests([
      { body: previous.body, ...(times ? { time: previous.time } : {}) },
      { body: current.body, ...(times ? { time: current.time } : {}) },
    ], {
      provider: options.provider,
      countTokens: options.countTokens,
      ...(options.minPrefixTokens !== undefined
        ? { minPrefixTokens: options.minPrefixTokens }
        : {}),
    }, table);
    return {
      previous: simulation.requests[0],
      current: simulation.requests[1],
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether the simulator reads less than its own previous prefix and the
 * shared blocks allow, in its own tokens: the estimate's miss matches ours.
 */
export function estimatePredictsMiss(
  estimates: CacheEstimates,
  shared: { before: BodyView; after: BodyView; common: number },
  options: Pick<ReportOptions, "countTokens"> & { rules: ProviderRules },
  minimum: number,
): boolean {
  const { previous, current } = estimates;
  const { before, after, common } = shared;
  const simulatedPrefix = prefixTokens(
    {
      inputTokens: previous.inputTokens,
      cacheReadTokens: previous.cachedTokens,
      cacheWriteTokens: previous.writtenTokens,
    },
    before,
    options.rules,
    minimum,
  ) ?? 0;
  let repeated = 0;
  if (common === before.length) repeated = simulatedPrefix;
  else if (after.through !== undefined) repeated = after.through(common - 1);
  else {
    for (let index = 0; index < common; index += 1) {
      repeated += safeCount(options.countTokens, after.block(index).text);
    }
  }
  const could = Math.min(simulatedPrefix, repeated);
  return current.cachedTokens + JUDGE_SLACK_TOKENS < could;
}

function safeCount(count: ReportOptions["countTokens"], text: string) {
  try {
    const tokens = count(text);
    return Number.isFinite(tokens) && tokens > 0 ? tokens : 0;
  } catch {
    return 0;
  }
}
