/**
 * The providers' caching facts as data (SPEC 8.8, 10.5): one rules object
 * per provider, read by the simulator and the verdicts, so a rule set is a
 * row here and not a branch in each reader.
 *
 * @module
 */

import type { Wire } from "./blocks.ts";
import type { CacheProvider } from "./types.ts";

const MINUTE = 60_000;

/**
 * A marker cache's facts: Anthropic's `cache_control`, Bedrock's
 * `cachePoint`.
 */
export interface MarkerFacts {
  /** The marker as the API names it, for messages. */
  readonly marker: string;
  /** The API's limit on markers per request. */
  readonly maxMarkers: number;
  /** Blocks before a marker that a lookup also checks. */
  readonly lookback: number;
  /**
   * What the minimum applies to: the whole prefix through the marker
   * (Anthropic), or each checkpoint's own tokens since the previous
   * checkpoint that was written (Bedrock: "the first checkpoint after
   * 1,024 tokens, the second after 2,048").
   */
  readonly minimumOf: "prefix" | "checkpoint";
  /** Where the API wants the lifetimes to decrease, for messages. */
  readonly order: string;
}

/** An automatic prefix cache's facts: OpenAI's, Gemini's implicit one. */
export interface AutomaticFacts {
  /** What is served is rounded down to a multiple of this, in tokens. */
  readonly step: number;
  /** How long an entry lives after its last use, in ms (assumed). */
  readonly ttl: number;
}

/** One provider's rules. */
export interface ProviderRules {
  /** The request body the rules read. */
  readonly wire: Wire;
  /** The default shortest cached prefix, in tokens. */
  readonly minimum: number;
  /**
   * How a response's usage tells the prefix it left cached: `marked`,
   * reads plus writes; `automatic`, the whole input (in `step`s, nothing
   * under the minimum); `either`, the larger (OpenAI explicit marks).
   */
  readonly reports: "marked" | "automatic" | "either";
  /** The marker facts, for marker caches. */
  readonly markers?: MarkerFacts;
  /** The automatic cache's facts, where the provider has one. */
  readonly automatic?: AutomaticFacts;
}

/** Anthropic's `cache_control` markers. */
export const ANTHROPIC_MARKERS: MarkerFacts = {
  marker: "cache_control",
  maxMarkers: 4,
  lookback: 20,
  minimumOf: "prefix",
  order: "(tools, then system, then messages)",
};

/**
 * Bedrock's `cachePoint` blocks (Converse): four per request, lifetimes
 * not increasing from `toolConfig` to `system` to `messages`, each
 * checkpoint holding the model's minimum since the previous one; Claude
 * models look back about 20 blocks from a checkpoint.
 */
export const BEDROCK_MARKERS: MarkerFacts = {
  marker: "cachePoint",
  maxMarkers: 4,
  lookback: 20,
  minimumOf: "checkpoint",
  order: "(toolConfig, then system, then messages)",
};

/** OpenAI's automatic caching: 128-token steps, 5 minutes (assumed). */
export const OPENAI_AUTOMATIC: AutomaticFacts = { step: 128, ttl: 5 * MINUTE };

/**
 * Gemini's implicit caching: the docs give neither a step nor a lifetime
 * ("a few minutes"); the cached counts it reports are not rounded, so the
 * step is one token, and the lifetime is assumed to be OpenAI's.
 */
export const GEMINI_IMPLICIT: AutomaticFacts = { step: 1, ttl: 5 * MINUTE };

/** Every provider's rules. */
export const PROVIDER_RULES: Readonly<Record<CacheProvider, ProviderRules>> = {
  anthropic: {
    wire: "anthropic",
    minimum: 1024,
    reports: "marked",
    markers: ANTHROPIC_MARKERS,
  },
  openai: {
    wire: "openai",
    minimum: 1024,
    reports: "automatic",
    automatic: OPENAI_AUTOMATIC,
  },
  "openai-explicit": {
    wire: "openai",
    minimum: 1024,
    reports: "either",
    automatic: OPENAI_AUTOMATIC,
  },
  // Claude Sonnet's minimum; Claude Haiku 4.5 and Opus 4.5 need 4,096.
  bedrock: {
    wire: "bedrock",
    minimum: 1024,
    reports: "marked",
    markers: BEDROCK_MARKERS,
  },
  // Gemini 3's minimum; Gemini 2.5 needs 1,024 to 2,048 by model.
  gemini: {
    wire: "gemini",
    minimum: 4096,
    reports: "automatic",
    automatic: GEMINI_IMPLICIT,
  },
};
