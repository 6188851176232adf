/**
 * OpenAI's prompt-cache rules (SPEC 8.8): the automatic prefix cache
 * (128-token steps, 5 minutes, assumed), and explicit
 * `prompt_cache_breakpoint` marks beside it (gpt-5.6 and later: read at
 * the latest 80, three written, four in `mode: "explicit"`).
 *
 * @module
 */

import type {
  AutomaticRules,
  ProviderRules,
} from "../../src/cache/simulator/rules.ts";
import { OPENAI_TTL, openAIBody, openAIItems, openAIItemTtl } from "./body.ts";

const MINUTE = 60_000;

/** OpenAI's automatic caching: 128-token steps, 5 minutes (assumed). */
const OPENAI_AUTOMATIC: AutomaticRules = {
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
  claimsAnyBody: true,
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
