/**
 * Every provider's rules (SPEC 8.8, 10.5), one row each. Temporary (issue
 * 45): the rows move to each provider's adapter folder, and this table to
 * the adapters' form table.
 *
 * @module
 */

import { ANTHROPIC_TTL } from "./block_shapes.ts";
import {
  anthropicBody,
  anthropicItems,
  OPENAI_TTL,
  openAIBody,
  openAIItems,
  openAIItemTtl,
} from "./blocks.ts";
import { converseBody, isConverseBody } from "./blocks_converse.ts";
import { geminiBody } from "./blocks_gemini.ts";
import type { MarkRules, ProviderRules } from "./rules.ts";
import type { CacheProvider } from "./types.ts";

const MINUTE = 60_000;

/**
 * Anthropic's `cache_control` marks: four per request, longer lifetimes
 * first, a read looking back 20 blocks from a mark.
 */
const ANTHROPIC_MARKS: MarkRules = {
  name: "cache_control",
  order: "(tools, then system, then messages)",
  limit: 4,
  prefix: { default: 3, max: 4 },
  onTools: true,
  lookbackBlocks: 20,
  minimumOf: "prefix",
  ttls: [ANTHROPIC_TTL["5m"], ANTHROPIC_TTL["1h"]],
  ttlsNonIncreasing: true,
  personTtl: "1h",
};

/** Anthropic's rules. */
export const ANTHROPIC_RULES: ProviderRules = {
  id: "anthropic",
  reads: "marks",
  marks: ANTHROPIC_MARKS,
  minPrefixTokens: 1024,
  readPrice: 0.1,
  readBody: anthropicBody,
  readItems: (_fields, name) => anthropicItems(name),
  claimsBody: (body) =>
    body.system !== undefined && body.input === undefined &&
    body.instructions === undefined,
};

/** OpenAI's automatic caching: 128-token steps, 5 minutes (assumed). */
const OPENAI_AUTOMATIC = {
  stepTokens: 128,
  ttlMs: 5 * MINUTE,
  retention: { "24h": 24 * 60 * MINUTE },
};

/** OpenAI's automatic prefix cache. */
export const OPENAI_RULES: ProviderRules = {
  id: "openai",
  reads: "automatic",
  automatic: OPENAI_AUTOMATIC,
  minPrefixTokens: 1024,
  readPrice: 0.1,
  writesBilledAsInput: true,
  readBody: openAIBody,
  readItems: (fields, name) => openAIItems(name, openAIItemTtl(fields)),
  claimsBody: () => true,
};

/** OpenAI's explicit `prompt_cache_breakpoint` marks (gpt-5.6 and later). */
export const OPENAI_EXPLICIT_RULES: ProviderRules = {
  ...OPENAI_RULES,
  id: "openai-explicit",
  reads: "marks-and-automatic",
  writesBilledAsInput: false,
  marks: {
    name: "prompt_cache_breakpoint",
    order: "",
    prefix: { default: 2, max: 4 },
    onTools: false,
    lookbackBlocks: 0,
    minimumOf: "prefix",
    ttls: [OPENAI_TTL["30m"], OPENAI_TTL["12h"]],
    ttlsNonIncreasing: false,
    personTtl: "12h",
    explicit: { read: 80, write: 3, writeExplicitMode: 4 },
  },
};

/**
 * Bedrock's `cachePoint` blocks (Converse): four per request, lifetimes not
 * increasing from `toolConfig` to `system` to `messages`, each checkpoint
 * holding the model's minimum since the previous one; Claude models look
 * back about 20 blocks. Claude Sonnet's minimum; Haiku 4.5 and Opus 4.5
 * need 4,096.
 */
export const BEDROCK_RULES: ProviderRules = {
  id: "bedrock",
  reads: "marks",
  marks: {
    ...ANTHROPIC_MARKS,
    name: "cachePoint",
    order: "(toolConfig, then system, then messages)",
    minimumOf: "checkpoint",
  },
  minPrefixTokens: 1024,
  readPrice: 0.1,
  readBody: converseBody,
  claimsBody: isConverseBody,
};

/**
 * Gemini's implicit caching: the docs give neither a step nor a lifetime
 * ("a few minutes"); the cached counts it reports are not rounded, so the
 * step is one token, and the lifetime is assumed to be OpenAI's. Gemini
 * 3's minimum; Gemini 2.5 needs 1,024 to 2,048 by model.
 */
export const GEMINI_RULES: ProviderRules = {
  id: "gemini",
  reads: "automatic",
  automatic: { stepTokens: 1, ttlMs: 5 * MINUTE, retention: {} },
  minPrefixTokens: 4096,
  readPrice: 0.1,
  readBody: geminiBody,
  claimsBody: (body) => body.contents !== undefined,
};

/** Every provider's rules, by id. */
export const PROVIDER_RULES: Readonly<Record<CacheProvider, ProviderRules>> = {
  anthropic: ANTHROPIC_RULES,
  openai: OPENAI_RULES,
  "openai-explicit": OPENAI_EXPLICIT_RULES,
  bedrock: BEDROCK_RULES,
  gemini: GEMINI_RULES,
};

/** The rules ids, in the order reports list them. */
export const CACHE_PROVIDERS: readonly CacheProvider[] = [
  "anthropic",
  "openai",
  "openai-explicit",
  "bedrock",
  "gemini",
];

/**
 * The order a body of unknown provider is recognized in (the bound's): the
 * most particular shapes first, OpenAI's (which takes any other) last.
 */
export const BODY_ORDER: readonly ProviderRules[] = [
  GEMINI_RULES,
  BEDROCK_RULES,
  ANTHROPIC_RULES,
  OPENAI_RULES,
];

/** The rules of a provider id, or `undefined` for another value. */
export function rulesNamed(id: unknown): ProviderRules | undefined {
  return (CACHE_PROVIDERS as readonly unknown[]).includes(id)
    ? PROVIDER_RULES[id as CacheProvider]
    : undefined;
}
