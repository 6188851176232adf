/**
 * The cache report's functions that take a provider's id
 * (`@rxprompt/system-prompt/cache`): each resolves it in the form table's
 * rules and runs the core's simulator, report or contract with them.
 *
 * @module
 */

import type { PromptExplanation } from "../../src/explain/explanation.ts";
import { simulateRequests } from "../../src/cache/simulator/simulate.ts";
import { bestLayoutOf } from "../../src/cache/simulator/best_layout.ts";
import { judgeRequestWith } from "../../src/cache/report/verdict.ts";
import { cacheReportWith } from "../../src/cache/report/report.ts";
import { sharedPrefixWith } from "../../src/cache/contract/shared_prefix.ts";
import type {
  BestLayout,
  CacheRequest,
  CacheSimulation,
  CountTokens,
} from "../../src/cache/simulator/types.ts";
import type {
  CacheJudgement,
  PromptCacheReport,
  ReportedRequest,
} from "../../src/cache/report/types.ts";
import type { SharedPrefix } from "../../src/cache/contract/golden_types.ts";
import { type FormId, formNamed, RULE_TABLE } from "../forms.ts";
import type { ReportedUsage } from "../../src/cache/report/usage_types.ts";
import type {
  CacheReportOptions,
  JudgeRequestOptions,
  SharedPrefixOptions,
  SimulateCacheOptions,
} from "./options.ts";

/**
 * Simulates a provider's prompt cache over `requests`, in order: per
 * request the input, cached and written tokens, the cost in uncached input
 * tokens, and the first block not served with the reason. The rules are
 * SPEC 8.8's, from the providers' documentation (see docs/caching.md, "How
 * much will the cache serve?"); the figures are an estimate.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for options that are not
 * valid, and, naming the request's index, for a body that is not one of
 * the accepted shapes, a `countTokens` that throws or returns anything but
 * a non-negative integer, a time before the previous request's, or
 * markers the API would refuse (more than four Anthropic markers, a
 * 1-hour marker after a 5-minute one)
 *
 * @example Two Anthropic requests: the second reads the first's prefix
 * ```ts
 * import { simulateCache } from "@rxprompt/system-prompt/cache";
 *
 * const system = [{
 *   type: "text",
 *   text: "You are a careful coding agent. ".repeat(300),
 *   cache_control: { type: "ephemeral" },
 * }];
 * const { requests } = simulateCache([
 *   { body: { system, messages: [{ role: "user", content: "Hi." }] } },
 *   { body: { system, messages: [{ role: "user", content: "Bye." }] } },
 * ], { provider: "anthropic", countTokens: (text) => Math.ceil(text.length / 4) });
 * console.log(requests[1].cachedTokens); // 2400
 * ```
 */
export function simulateCache(
  requests: readonly CacheRequest[],
  options: SimulateCacheOptions,
): CacheSimulation {
  return simulateRequests(requests, options, RULE_TABLE);
}

/**
 * The best-layout bound of each request and in total: the tokens a cache
 * could serve if everything unchanged since the thread's previous request
 * came first. Compare `simulateCache`'s cached tokens with it.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` naming the request's index
 * for a body that is not an accepted shape, a `countTokens` that throws or
 * returns anything but a non-negative integer, or unordered times
 *
 * @example
 * ```ts
 * import { bestLayoutTokens } from "@rxprompt/system-prompt/cache";
 *
 * const system = "Rules.\n\nToday is Monday.";
 * const bound = bestLayoutTokens([
 *   { body: { system, messages: [{ role: "user", content: "Hi." }] } },
 *   {
 *     body: {
 *       system: "Rules.\n\nToday is Tuesday.",
 *       messages: [{ role: "user", content: "Hi." }, { role: "user", content: "More." }],
 *     },
 *   },
 * ], (text) => text.length);
 * console.log(bound.requests[1].boundTokens); // 11: "Rules.\n\n" and "Hi."
 * ```
 */
export function bestLayoutTokens(
  requests: readonly CacheRequest[],
  countTokens: CountTokens,
): BestLayout {
  return bestLayoutOf(requests, countTokens, RULE_TABLE.bodyOrder);
}

/**
 * Judges `current` against `previous` (SPEC 9.3, 9.8).
 *
 * `missed` when the reported read is below the previous request's cached
 * or written prefix by more than one 128-token step. Then the verdict, in
 * this order: `request` when the model changed; `layout` or `conversation`
 * when the bodies diverge inside that prefix (tools or system, or
 * messages); `request` when another cache-keyed option changed
 * (`tool_choice`, `thinking`, …); `provider` with `expired` when the time
 * between the two requests passed the prefix's lifetime (its last mark's
 * `ttl`; 5 minutes for OpenAI's automatic cache); `layout` when the
 * simulator predicts the same miss (our marks could not reach the prefix);
 * else `provider` (eviction or routing). `unknown` when a body or the
 * figures could not be read. With both requests' `explanation`, a layout
 * change (or a `tool_choice` that a tool gate changed) names its
 * contributor (`attributeChange`).
 *
 * Never throws on what the provider sent; a body that is not of the
 * provider's shape gives `unknown` with the reason.
 *
 * @param pair the request before and this one
 * @param options the provider's rules and a token counter (`prices` are
 * not used here); `estimates`: the simulator's results for `previous` and
 * `current` when the caller already ran `simulateCache` over the session
 * (else the two requests are simulated alone)
 * @returns the judgement
 *
 * @example A lapse: same bytes, ten minutes later, nothing read
 * ```ts
 * import { judgeRequest } from "@rxprompt/system-prompt/cache";
 *
 * const system = [{ type: "text", text: "Rules. ".repeat(2000), cache_control: { type: "ephemeral" } }];
 * const body = { model: "claude-sonnet-4-5", system, messages: [{ role: "user", content: "Hi." }] };
 * const usage = (read: number, written: number) => ({
 *   source: "anthropic-messages" as const,
 *   inputTokens: read + written + 4,
 *   cacheReadTokens: read,
 *   cacheWriteTokens: written,
 *   diagnosis: { status: "none" as const },
 * });
 * const judgement = judgeRequest({
 *   previous: { body, usage: usage(0, 3500), time: 0 },
 *   current: { body, usage: usage(0, 3500), time: 10 * 60_000 },
 * }, { provider: "anthropic", countTokens: (text) => Math.ceil(text.length / 4) });
 * console.log(judgement.verdict, judgement.expired); // provider true
 * ```
 */
export function judgeRequest(
  pair: { previous: ReportedRequest; current: ReportedRequest },
  options: JudgeRequestOptions,
): CacheJudgement {
  return judgeRequestWith(pair, options, RULE_TABLE);
}

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
  return cacheReportWith(requests, options, RULE_TABLE);
}

/**
 * The tokens a child's first request shares with its parent's, under one
 * provider's rules, and where they first differ.
 *
 * Both requests are read in wire order as provider-neutral entries: each
 * tool's JSON, then each non-empty section's rendered text (the figures
 * are an estimate: the provider's own framing is not counted). The shared
 * prefix is the longest run of identical entries that ends where the
 * provider can cache: on Anthropic after a tool or at the end of a system
 * block (where a marker can go; `renderPromptBlocks` cuts them); on OpenAI
 * explicit at the end of a system block, or as the automatic rule, which
 * rounds the identical tokens down to a multiple of 128. Below
 * `minPrefixTokens` (default 1024) nothing is cached. The divergence names
 * the first differing entry on each side and its registrar: a child whose
 * prompt differs at the first entry reuses nothing.
 *
 * @param parent what `prompt.explain({ scope: parent })` resolved to
 * @param child what `prompt.explain({ scope: child })` resolved to
 * @param options `provider`, `countTokens`, `minPrefixTokens`
 * @returns the shared tokens, the prefix they end at, and the divergence
 * @throws {SystemPromptError} `INVALID_CONFIG` for a bad option;
 * `INVALID_ASSEMBLY` for a side that is not an explanation
 *
 * @example A sub-agent with its own persona shares the stable tools and identity
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { sharedPrefix } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt();
 * prompt.fork({ label: "files" }).tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
 * }));
 * prompt.scope("coder").section({ name: "persona", order: -10, text: "You write code." });
 * prompt.scope("reviewer").section({ name: "persona", order: -10, text: "You review code." });
 * const shared = sharedPrefix(
 *   await prompt.explain({ scope: "coder" }),
 *   await prompt.explain({ scope: "reviewer" }),
 *   { provider: "anthropic", countTokens: (text) => text.length, minPrefixTokens: 0 },
 * );
 * console.log(shared.end, shared.divergence?.child?.entry); // "section:harness:identity" "section:persona"
 * await prompt.dispose();
 * ```
 */
export function sharedPrefix(
  parent: PromptExplanation,
  child: PromptExplanation,
  options: SharedPrefixOptions,
): SharedPrefix {
  return sharedPrefixWith(parent, child, options, RULE_TABLE);
}

/**
 * Reads what a provider reported for one request: the input tokens (cache
 * reads and writes included, on every provider, as SPEC 9.8 and the
 * OpenTelemetry GenAI conventions count them), the cache reads and writes
 * (writes by lifetime where the provider says), the output tokens, the
 * response's id and model, and the provider's cache diagnosis.
 *
 * `response` is what the SDK returned: an Anthropic `Message` (or
 * `finalMessage()`), an OpenAI `ChatCompletion` (the last chunk of a stream
 * with `include_usage`), an OpenAI `Response` (`finalResponse()`), an AI
 * SDK `generateText` / `streamText` result's `{ usage }` (or the
 * `LanguageModelUsage` itself), a Bedrock `ConverseResponse` (or a
 * `ConverseStream` metadata event), or a Gemini `GenerateContentResponse`
 * (a stream's last chunk).
 *
 * Never throws: an unreadable figure is `undefined` and listed in
 * `malformed` with its raw value; an unknown diagnosis is `status:
 * "unknown"` with the raw value in `raw`.
 *
 * @param response the provider's response, as the SDK returned it
 * @param source the form it came from (0.4's names, `"anthropic"` and
 * `"bedrock"`, are read as `"anthropic-messages"` and `"bedrock-converse"`)
 * @returns the normalised usage
 *
 * @example An Anthropic response that read 3,000 tokens and wrote 500
 * ```ts
 * import { readReportedUsage } from "@rxprompt/system-prompt/cache";
 *
 * const usage = readReportedUsage({
 *   id: "msg_2",
 *   model: "claude-sonnet-4-5",
 *   usage: {
 *     input_tokens: 40,
 *     cache_read_input_tokens: 3000,
 *     cache_creation_input_tokens: 500,
 *     cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 0 },
 *     output_tokens: 120,
 *   },
 *   diagnostics: null,
 * }, "anthropic-messages");
 * console.log(usage.inputTokens, usage.cacheReadTokens); // 3540 3000
 * console.log(JSON.stringify(usage.cacheWrites)); // {"5m":500}
 * ```
 */
export function readReportedUsage(
  response: unknown,
  source: FormId | "anthropic" | "bedrock",
): ReportedUsage {
  const form = formNamed(source);
  if (form !== undefined) return form.readUsage(response);
  return {
    source: "ai-sdk",
    diagnosis: { status: "none" },
    malformed: [{ field: "source", raw: source }],
  };
}
