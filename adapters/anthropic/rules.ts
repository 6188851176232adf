/**
 * Anthropic's prompt-cache rules (SPEC 8.8): `cache_control` marks, four
 * per request, longer lifetimes first, a read looking back 20 blocks from
 * a mark; read by the simulator, the verdicts, the adapters and the
 * conversation's mark policy.
 *
 * @module
 */

import type {
  MarkRules,
  ProviderRules,
} from "../../src/cache/simulator/rules.ts";
import { ANTHROPIC_TTL, anthropicBody, anthropicItems } from "./body.ts";

/** Anthropic's marks (Bedrock's cache points follow them on Claude). */
export const ANTHROPIC_MARKS: MarkRules = {
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
