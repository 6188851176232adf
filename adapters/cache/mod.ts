/**
 * The cache report and the cache contract (`@rxprompt/system-prompt/cache`).
 *
 * The report: how much of a session's input a provider's prompt cache would
 * serve, under Anthropic's `cache_control` rules, OpenAI's automatic prefix
 * cache or OpenAI's explicit `prompt_cache_breakpoint` marks, and the
 * best-layout bound to compare it with. Pure functions over the request
 * bodies a harness sends; the figures are an estimate (the tokenizer is the
 * caller's, framing tokens are not counted).
 *
 * The contract (for CI, `rxprompt check --golden` and `--shares`): a golden
 * manifest of each scope's cached tiers, contributor by contributor
 * (`goldenManifest`, `formatGoldenManifest`, `parseGoldenManifest`,
 * `compareGoldenManifests`), and what a sub-agent's first request shares
 * with its parent's (`sharedPrefix`). Pure functions over what
 * `explain()` returns.
 *
 * @example Efficiency and the bound of a two-request session
 * ```ts
 * import { bestLayoutTokens, simulateCache } from "@rxprompt/system-prompt/cache";
 *
 * const countTokens = (text: string) => Math.ceil(text.length / 4);
 * const tools = [{ type: "function", function: { name: "shell", parameters: {} } }];
 * const system = { role: "system", content: "Follow the house rules. ".repeat(250) };
 * const requests = [
 *   { body: { tools, messages: [system, { role: "user", content: "Build it." }] } },
 *   { body: { tools, messages: [system, { role: "user", content: "Test it." }] } },
 * ];
 * const { totals } = simulateCache(requests, { provider: "openai", countTokens });
 * const bound = bestLayoutTokens(requests, countTokens);
 * console.log(totals.cachedTokens, bound.totals.boundTokens); // 1408 1516
 * ```
 *
 * @module
 */

export {
  bestLayoutTokens,
  cacheReport,
  judgeRequest,
  readReportedUsage,
  sharedPrefix,
  simulateCache,
} from "./cache.ts";
export type {
  CacheReportOptions,
  JudgeRequestOptions,
  SharedPrefixOptions,
  SimulateCacheOptions,
} from "./options.ts";
export type { CacheProvider, FormId, UsageSource } from "../forms.ts";
export {
  compareGoldenManifests,
  goldenManifest,
} from "../../src/cache/contract/golden.ts";
export {
  formatGoldenManifest,
  parseGoldenManifest,
} from "../../src/cache/contract/golden_format.ts";
export {
  GOLDEN_MANIFEST_FORMAT,
  GOLDEN_MANIFEST_VERSION,
} from "../../src/cache/contract/golden_types.ts";
export type {
  CompareGoldenOptions,
  GoldenChange,
  GoldenDifference,
  GoldenManifest,
  GoldenManifestEntry,
  GoldenManifestOptions,
  GoldenManifestScope,
  GoldenManifestTier,
  GoldenView,
  SharedPrefix,
  SharedPrefixSide,
} from "../../src/cache/contract/golden_types.ts";
export type {
  BestLayout,
  BestLayoutRequest,
  CacheMiss,
  CacheRequest,
  CacheRequestResult,
  CacheSimulation,
  CacheTotals,
  CountTokens,
} from "../../src/cache/simulator/types.ts";
export type {
  CacheSession,
  SessionMessage,
  SessionRequest,
  SessionStep,
  SessionStepState,
  SessionToolCall,
  SessionToolResult,
} from "./session_types.ts";
export { attributeChange } from "../../src/cache/report/contributor.ts";
export type {
  CacheLifetime,
  InputTransformation,
  ProviderDiagnosis,
  ProviderMissReason,
  ReportedUsage,
} from "../../src/cache/report/usage_types.ts";
export type {
  BodyRegion,
  CacheContributor,
  CacheEstimates,
  CacheJudgement,
  CachePrices,
  CacheReportRequest,
  CacheVerdict,
  PromptCacheReport,
  PromptCacheReportTotals,
  ReportedRequest,
  TransformationFinding,
} from "../../src/cache/report/types.ts";
export type {
  CacheStorageReport,
  DeferredToolsReport,
  InlineChange,
} from "../../src/cache/report/conversation_findings.ts";
