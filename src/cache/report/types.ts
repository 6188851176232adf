/**
 * The types of the cache report over what the provider reported (SPEC 9.3,
 * 9.8): one request judged against the one before, the contributor behind
 * a layout change, and the report of a whole conversation.
 *
 * @module
 */

import type { PromptExplanation } from "../../explain/explanation.ts";
import type { ScopeKey } from "../../types.ts";
import type {
  CacheStorageReport,
  DeferredToolsReport,
  InlineChange,
} from "./conversation_findings.ts";
import type {
  CacheLifetime,
  InputTransformation,
  ProviderDiagnosis,
  ReportedUsage,
} from "./usage_types.ts";
import type {
  CacheRequestResult,
  CacheTotals,
  CountTokens,
} from "../simulator/types.ts";

/**
 * Why a request read less from the cache than the one before allowed:
 *
 * - `layout`: our bytes changed (tools or system), or our marks could not
 *   reach the prefix (the simulator predicts the same miss);
 * - `conversation`: the history (messages, input items) changed;
 * - `request`: the model or another request option that keys the cache
 *   (`tool_choice`, `thinking`, `reasoning`, `prompt_cache_key`, …)
 *   changed;
 * - `provider`: bytes and marks identical: a lapse (`expired` beside it),
 *   an eviction or routing;
 * - `unknown`: the figures or bodies could not be read;
 * - `compaction`: the one rewrite expected after a conversation's
 *   compaction (its history starts again at the summary).
 *
 * @example
 * ```ts
 * import type { CacheVerdict } from "@rxprompt/system-prompt/cache";
 *
 * const verdict: CacheVerdict = "layout";
 * ```
 */
export type CacheVerdict =
  | "layout"
  | "conversation"
  | "request"
  | "provider"
  | "unknown"
  | "compaction";

/**
 * A region of a request body, in wire order after the request options:
 * `model`, other `options`, `tools`, `system`, `messages` (or Responses
 * `input`).
 *
 * @example
 * ```ts
 * import type { BodyRegion } from "@rxprompt/system-prompt/cache";
 *
 * const region: BodyRegion = "tools";
 * ```
 */
export type BodyRegion = "model" | "options" | "tools" | "system" | "messages";

/**
 * One request as the report reads it: the body sent, what the provider
 * reported, and optionally when it was sent and the explanation of the
 * assembly behind it (for the contributor of a layout change).
 *
 * @example
 * ```ts
 * import type { ReportedRequest } from "@rxprompt/system-prompt/cache";
 *
 * const request: ReportedRequest = {
 *   body: { model: "claude-sonnet-4-5", system: "Be brief.", messages: [] },
 *   usage: { source: "anthropic-messages", inputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0, diagnosis: { status: "none" } },
 *   time: 0,
 * };
 * ```
 */
export interface ReportedRequest {
  /** The wire body sent (as the adapters or the conversation built it). */
  body: unknown;
  /** What `readReportedUsage` read from the response. */
  usage: ReportedUsage;
  /** When it was sent, in ms (any origin); needed to tell a lapse. */
  time?: number;
  /** The conversation it belongs to (default: one thread). */
  thread?: string;
  /** `prompt.explain(context)` of the assembly behind the body. */
  explanation?: PromptExplanation;
  /**
   * The registration behind this request's change of tools or system
   * since the previous request, attributed when it was built
   * (`attributeChange`; a conversation's recording keeps it): used when
   * the two explanations are not given.
   */
  contributor?: CacheContributor;
  /**
   * The first request after a conversation's compaction was swapped in,
   * or a request the provider compacted inside (its usage counts the
   * compaction's pass): its rewrite of the history (or of the head), or
   * its read on identical bytes, is the verdict `compaction`.
   */
  compacted?: boolean;
  /** A conversation's summarizing request (`compact()`, `compactAt`). */
  summarizes?: boolean;
}

/**
 * The registration behind a layout change, from `diffAssemblies` and
 * `explain()`: what changed (a section, a tool, the active tools) and who
 * registered it (the registrar's label, layer and scope), with the
 * variable behind a section whose own text did not change, and the gate
 * behind a tool that became inactive.
 *
 * @example
 * ```ts
 * import type { CacheContributor } from "@rxprompt/system-prompt/cache";
 *
 * const contributor: CacheContributor = {
 *   kind: "section",
 *   name: "git",
 *   change: "changed",
 *   registrar: "plugin/git",
 *   layer: "global",
 *   variable: { name: "branch", registrar: "plugin/git", layer: "global" },
 * };
 * ```
 */
export interface CacheContributor {
  /** What changed. */
  kind: "section" | "tool" | "activeTools";
  /** The section's or tool's name (for `activeTools`, the first tool named). */
  name: string;
  /** How. */
  change: "added" | "removed" | "changed" | "reordered";
  /** The label of the registrar that registered it (absent for a listener's). */
  registrar?: string;
  /** The layer it came from. */
  layer?: "global" | "scope" | "listener";
  /** The scope key of its layer. */
  scope?: ScopeKey;
  /** For a section: the changed variable it references, and who registered it. */
  variable?: {
    name: string;
    registrar?: string;
    layer: "global" | "scope" | "listener";
    scope?: ScopeKey;
  };
  /** For a tool left out of the active tools: the gate that left it out. */
  gate?: string;
  /** `diffAssemblies`' `cache.brokenBy` (`tool:NAME`, `section:NAME`). */
  brokenBy?: string;
}

/**
 * One request judged against the one before it (SPEC 9.3, 9.8). Token
 * figures are the provider's; the repeated share of a prefix that
 * diverges is estimated with the caller's `countTokens`, scaled to the
 * provider's count of the previous request.
 *
 * @example
 * ```ts
 * import type { CacheJudgement } from "@rxprompt/system-prompt/cache";
 *
 * function line(judgement: CacheJudgement): string {
 *   return judgement.verdict === undefined
 *     ? "read what it could"
 *     : `${judgement.verdict}: ${judgement.reason}`;
 * }
 * ```
 */
export interface CacheJudgement {
  /**
   * The tokens of the previous request's cached or written prefix (reads
   * plus writes; for OpenAI's automatic cache, its whole input rounded
   * down to 128 tokens, 0 under the minimum). Undefined when its usage
   * could not be read.
   */
  previousPrefixTokens?: number;
  /** Of those, the tokens this request repeats byte for byte (marks aside). */
  repeatedTokens?: number;
  /** What this request read from the cache, as reported. */
  readTokens?: number;
  /**
   * The read is below the previous prefix by more than one 128-token step:
   * this request read less than the one before would allow. Undefined when
   * the figures could not be read.
   */
  missed?: boolean;
  /**
   * SPEC 9.8: the read is below `repeatedTokens` by more than one 128-token
   * step (the bytes were there, the cache did not serve them).
   */
  readLessThanItCould?: boolean;
  /** Present when `missed`, or when the figures could not be read. */
  verdict?: CacheVerdict;
  /**
   * With `provider`: the time since the prefix was last read passed its
   * lifetime (a lapse, not an eviction).
   */
  expired?: boolean;
  /** The prefix's lifetime that `expired` compared with, in ms. */
  lifetimeMs?: number;
  /** The first difference rxprompt found between the two bodies. */
  change?: {
    region: BodyRegion;
    /**
     * `tool:NAME`, `system:I` or `message:I.J` for a content region: the
     * first block of this request that differs from the previous one (a
     * tool added at the end of the list, not the system block after it),
     * or the previous request's block that this one dropped.
     */
    block?: string;
    /** The option's key for `model` and `options`. */
    option?: string;
  };
  /** The layout change's registration, when both explanations were given. */
  contributor?: CacheContributor;
  /** The provider's diagnosis, beside ours (never trusted over the bytes). */
  provider: ProviderDiagnosis;
  /**
   * Whether the provider's reason names the region rxprompt found (OpenAI's
   * `input_changed` matches `system` and `messages`); absent without a
   * reason.
   */
  providerAgrees?: boolean;
  /** The simulator's estimate of this request (8.8), for the same bodies. */
  estimate?: CacheRequestResult;
  /** The simulator predicts the miss too (its read below its own bound). */
  estimatePredictsMiss?: boolean;
  /** The verdict in words. */
  reason: string;
}

/**
 * Prices in uncached input tokens (SPEC 8.8's defaults: input 1, cache
 * reads 0.1, writes 1.25 for Anthropic 5-minute and OpenAI explicit
 * entries, 2 for Anthropic 1-hour entries, 1 for OpenAI's automatic
 * cache, which bills no writes). A write whose lifetime is neither
 * reported nor told by the body's marks has no default: without
 * `cacheWrite.unknown` the cost is left out and the report shows tokens.
 *
 * @example
 * ```ts
 * import type { CachePrices } from "@rxprompt/system-prompt/cache";
 *
 * // Dollars per million tokens instead of relative prices.
 * const prices: CachePrices = {
 *   input: 3,
 *   cacheRead: 0.3,
 *   cacheWrite: { "5m": 3.75, "1h": 6 },
 * };
 * ```
 */
export interface CachePrices {
  /** An uncached input token (default 1). */
  input?: number;
  /** A token read from the cache (default 0.1). */
  cacheRead?: number;
  /**
   * A written token by lifetime, and `unknown` for writes of no known
   * lifetime (no default).
   */
  cacheWrite?: Partial<Record<CacheLifetime | "unknown", number>>;
}

/** A report's options (`CacheReportOptions`, its provider an id). */
export interface ReportOptions {
  /** Whose caching rules the bodies follow: a rules id. */
  provider: string;
  countTokens: CountTokens;
  minPrefixTokens?: number;
  prices?: CachePrices;
}

/**
 * The simulator's estimates (`simulateCache`, SPEC 8.8) of two consecutive
 * requests, as a whole-session simulation gave them.
 *
 * @example
 * ```ts
 * import { type CacheEstimates, simulateCache } from "@rxprompt/system-prompt/cache";
 *
 * const body = { messages: [{ role: "user", content: "Hello." }] };
 * const { requests } = simulateCache([{ body }, { body }], {
 *   provider: "openai",
 *   countTokens: (text) => text.length,
 * });
 * const estimates: CacheEstimates = { previous: requests[0], current: requests[1] };
 * ```
 */
export interface CacheEstimates {
  /** The estimate of the request before. */
  previous: CacheRequestResult;
  /** The estimate of the request judged. */
  current: CacheRequestResult;
}

/** A judgement's options (`JudgeRequestOptions`, its provider an id). */
export interface JudgeOptions extends ReportOptions {
  estimates?: CacheEstimates;
}

/**
 * One request of a {@linkcode PromptCacheReport}.
 *
 * @example
 * ```ts
 * import type { CacheReportRequest } from "@rxprompt/system-prompt/cache";
 *
 * function hit(request: CacheReportRequest): number | undefined {
 *   const { inputTokens, cacheReadTokens } = request;
 *   return inputTokens && cacheReadTokens !== undefined ? cacheReadTokens / inputTokens : undefined;
 * }
 * ```
 */
export interface CacheReportRequest {
  /** Its index in the list given. */
  index: number;
  /** Reported input tokens, cache reads and writes included. */
  inputTokens?: number;
  /** Reported cache reads. */
  cacheReadTokens?: number;
  /** Reported cache writes. */
  cacheWriteTokens?: number;
  /** The cost at the prices; absent when a price or a figure is missing. */
  cost?: number;
  /**
   * The simulator's estimate for the same body (absent when the simulator
   * could not read the bodies: `totals.estimateError`).
   */
  estimate?: CacheRequestResult;
  /**
   * The observed read differs from the estimate by more than one 128-token
   * step.
   */
  differsFromEstimate: boolean;
  /** The judgement against the request before (absent for the first). */
  judgement?: CacheJudgement;
  /**
   * A compaction the provider ran inside the request, reported apart
   * (`ReportedUsage.compaction`); the totals count it.
   */
  compaction?: ReportedUsage["compaction"];
  /** A conversation's summarizing request (`compact()`, `compactAt`). */
  summarizes?: boolean;
  /**
   * What the provider dropped from this request's input, or showed though
   * its check failed (`input_transformations`), each with the request
   * whose answer held it and, when the recording knows it, the
   * registration whose change since then caused it. Absent when none.
   */
  transformations?: TransformationFinding[];
  /**
   * What a conversation's request told the model inline (SPEC 10.1:
   * `changes: "inline"`) instead of editing its prefix: a change the
   * request carries after the history, not a miss. Absent when none.
   */
  inline?: InlineChange[];
}

/**
 * A thinking block or reasoning item a provider dropped (SPEC 10.1): the
 * entry it reported, where the block came from, and who changed the
 * prefix it was bound to.
 *
 * @example
 * ```ts
 * import type { TransformationFinding } from "@rxprompt/system-prompt/cache";
 *
 * const finding: TransformationFinding = {
 *   kind: "dropped",
 *   reason: "prefix_binding_mismatch",
 *   item: 1,
 *   part: 0,
 *   producedBy: 0,
 *   contributor: { kind: "section", name: "git", change: "changed", layer: "global" },
 * };
 * ```
 */
export interface TransformationFinding extends InputTransformation {
  /** The index of the request whose answer held the block. */
  producedBy?: number;
  /**
   * The registration behind the first change of the tools or system
   * prompt since that request (with the conversation's `diagnostics`).
   */
  contributor?: CacheContributor;
}

/**
 * The totals of a {@linkcode PromptCacheReport}: observed, and the
 * simulator's for the same bodies.
 *
 * @example
 * ```ts
 * import type { PromptCacheReportTotals } from "@rxprompt/system-prompt/cache";
 *
 * function summary(totals: PromptCacheReportTotals): string {
 *   return `hit ratio ${totals.hitRatio?.toFixed(2)} (estimate ${totals.estimatedHitRatio?.toFixed(2)})`;
 * }
 * ```
 */
export interface PromptCacheReportTotals {
  /** Reported input tokens (requests whose figure was unreadable left out). */
  inputTokens: number;
  /** Reported cache reads. */
  cacheReadTokens: number;
  /** Reported cache writes. */
  cacheWriteTokens: number;
  /** Reads ÷ input; absent when no input was reported. */
  hitRatio?: number;
  /**
   * The tokens of distinct prefixes: per request, its cached or written
   * prefix minus what it repeats of the previous one.
   */
  distinctPrefixTokens: number;
  /** Writes ÷ distinct prefix tokens (1 = nothing written twice). */
  rewriteFactor?: number;
  /** The cost at the prices; absent when any request's is. */
  cost?: number;
  /** The requests whose usage could not be read in full. */
  unreadableRequests: number;
  /** The simulator's totals for the same bodies. */
  estimate?: CacheTotals;
  /** The simulator's cached ÷ input. */
  estimatedHitRatio?: number;
  /** Why the simulator could not estimate the bodies, if it could not. */
  estimateError?: string;
  /** Observed and estimated hit ratios differ by more than 0.05. */
  differsFromEstimate: boolean;
  /** The misses by verdict. */
  verdicts: Record<CacheVerdict, number>;
}

/**
 * What `cacheReport` returns (SPEC 9.3): per request the reported figures,
 * the estimate and the judgement; the totals.
 *
 * @example
 * ```ts
 * import type { PromptCacheReport } from "@rxprompt/system-prompt/cache";
 *
 * function layoutMisses(report: PromptCacheReport): number[] {
 *   return report.requests
 *     .filter((request) => request.judgement?.verdict === "layout")
 *     .map((request) => request.index);
 * }
 * ```
 */
export interface PromptCacheReport {
  /** Per request, in the order given. */
  requests: CacheReportRequest[];
  /** The sums and ratios. */
  totals: PromptCacheReportTotals;
  /**
   * A conversation's report whose requests sent deferred tools (SPEC
   * §10.3): what deferring saved. Absent otherwise.
   */
  deferred?: DeferredToolsReport;
  /**
   * A conversation's report whose requests named a stored cache entry (a
   * resource the provider bills by the hour, as Gemini's explicit
   * `cachedContents`): what storing the entries cost. Absent otherwise.
   */
  storage?: CacheStorageReport;
}
