/**
 * Amazon Bedrock's prompt-cache rules (SPEC 10.5): `cachePoint` blocks
 * (Converse), four per request, lifetimes not increasing from `toolConfig`
 * to `system` to `messages`, each checkpoint holding the model's minimum
 * since the previous one; Claude models look back about 20 blocks.
 *
 * @module
 */

import type { ProviderRules } from "../../src/cache/simulator/rules.ts";
import { ANTHROPIC_MARKS } from "../anthropic/rules.ts";
import { converseBody, isConverseBody } from "./body.ts";

/** Bedrock's rules (Claude Sonnet's minimum; Haiku 4.5 and Opus 4.5 need 4,096). */
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
