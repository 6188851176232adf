/**
 * Gemini's prompt-cache rules (SPEC 10.5): implicit caching. The docs give
 * neither a step nor a lifetime ("a few minutes"); the cached counts it
 * reports are not rounded, so the step is one token, and the lifetime is
 * assumed to be OpenAI's.
 *
 * @module
 */

import type { ProviderRules } from "../../src/cache/simulator/rules.ts";
import { geminiBody } from "./body.ts";

/** Gemini's rules (Gemini 3's minimum; Gemini 2.5 needs 1,024 to 2,048 by model). */
export const GEMINI_RULES: ProviderRules = {
  id: "gemini",
  reads: "automatic",
  automatic: { stepTokens: 1, ttlMs: 5 * 60_000, retention: {} },
  minPrefixTokens: 4096,
  readPrice: 0.1,
  readBody: geminiBody,
  claimsBody: (body) => body.contents !== undefined,
};
