/**
 * Properties of reading what the provider reported, over generated payloads
 * (fixed seed): any value, for any API, reads without a throw; every count
 * is a non-negative integer or undefined; a field of the wrong type is
 * named in `malformed` with the very value found; an unknown diagnosis
 * keeps its raw value; and the report built on such usages never throws,
 * giving `unknown` where a figure is missing.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cacheReport,
  judgeRequest,
  readReportedUsage,
  type ReportedUsage,
  type UsageSource,
} from "../../../adapters/cache/mod.ts";
import { fuzzRuns } from "../../fuzz_runs.ts";

const SEED = 9_032_026;
const RUNS = fuzzRuns(300);
const SOURCES: UsageSource[] = [
  "anthropic-messages",
  "openai-chat",
  "openai-responses",
  "ai-sdk",
];

/** A count, or anything else a broken payload could hold, or nothing. */
const field = fc.oneof(
  { weight: 4, arbitrary: fc.nat(200_000) },
  { weight: 1, arbitrary: fc.anything() },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, NaN, "12", null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const anthropicReason = fc.oneof(
  fc.record({
    type: fc.constantFrom(
      "model_changed",
      "system_changed",
      "tools_changed",
      "messages_changed",
      "cache_evicted",
    ),
    cache_missed_input_tokens: field,
  }),
  fc.record({
    type: fc.constantFrom(
      "unavailable",
      "previous_message_not_found",
      42,
    ),
  }),
  fc.anything(),
);

const anthropicResponse = fc.record({
  id: fc.oneof(fc.string(), fc.anything()),
  usage: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        input_tokens: field,
        cache_read_input_tokens: field,
        cache_creation_input_tokens: field,
        cache_creation: fc.oneof(
          fc.record({
            ephemeral_5m_input_tokens: field,
            ephemeral_1h_input_tokens: field,
          }),
          fc.anything(),
        ),
        output_tokens: field,
      }, { requiredKeys: [] }),
    },
    { weight: 1, arbitrary: fc.anything() },
  ),
  diagnostics: fc.oneof(
    fc.constant(null),
    fc.record({
      cache_miss_reason: fc.oneof(anthropicReason, fc.constant(null)),
    }),
    fc.anything(),
  ),
}, { requiredKeys: [] });

const openAIResponse = fc.record({
  usage: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        input_tokens: field,
        prompt_tokens: field,
        completion_tokens: field,
        output_tokens: field,
        input_tokens_details: fc.oneof(
          fc.record({
            cached_tokens: field,
            cache_write_tokens: field,
            cache_write_tokens_details: fc.oneof(
              fc.record({ ttl_30m_tokens: field, ttl_12h_tokens: field }),
              fc.anything(),
            ),
          }, { requiredKeys: [] }),
          fc.anything(),
        ),
        prompt_tokens_details: fc.oneof(
          fc.record({ cached_tokens: field, cache_write_tokens: field }, {
            requiredKeys: [],
          }),
          fc.anything(),
        ),
      }, { requiredKeys: [] }),
    },
    { weight: 1, arbitrary: fc.anything() },
  ),
  prompt_cache_diagnostics: fc.oneof(
    fc.record({
      type: fc.constantFrom("cache_miss", "cache_hit", "unavailable", "other"),
      reason: fc.oneof(
        fc.constantFrom("input_changed", "tools_changed", "moon_phase"),
        fc.anything(),
      ),
      cache_missed_tokens: field,
      comparison_reusable_tokens: field,
    }, { requiredKeys: ["type"] }),
    fc.anything(),
  ),
}, { requiredKeys: [] });

const aiSdkResponse = fc.record({
  usage: fc.oneof(
    fc.record({
      inputTokens: field,
      inputTokenDetails: fc.oneof(
        fc.record({
          noCacheTokens: field,
          cacheReadTokens: field,
          cacheWriteTokens: field,
        }, { requiredKeys: [] }),
        fc.anything(),
      ),
      outputTokens: field,
    }, { requiredKeys: [] }),
    fc.anything(),
  ),
}, { requiredKeys: [] });

const anyResponse = fc.oneof(
  anthropicResponse,
  openAIResponse,
  aiSdkResponse,
  fc.anything(),
);

function isCountOrAbsent(value: unknown): boolean {
  return value === undefined ||
    (typeof value === "number" && Number.isSafeInteger(value) && value >= 0);
}

function counts(usage: ReportedUsage): unknown[] {
  return [
    usage.inputTokens,
    usage.cacheReadTokens,
    usage.cacheWriteTokens,
    usage.outputTokens,
    usage.diagnosis.missedTokens,
    usage.diagnosis.reusableTokens,
    ...Object.values(usage.cacheWrites ?? {}),
  ];
}

/** The value at a dotted path of the response, as the reader saw it. */
function at(response: unknown, path: string): unknown {
  if (path === "response" || path === "source") return response;
  let value = response;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Checks `check` on what `readReportedUsage` reads from any response. */
function forEveryReading(
  check: (
    reading: { response: unknown; source: UsageSource; usage: ReportedUsage },
  ) => void,
): void {
  fc.assert(
    fc.property(
      anyResponse,
      fc.constantFrom(...SOURCES),
      (response, source) =>
        check({ response, source, usage: readReportedUsage(response, source) }),
    ),
    { seed: SEED, numRuns: RUNS },
  );
}

describe("readReportedUsage (properties)", () => {
  it("never throws; counts are non-negative integers or undefined", () => {
    forEveryReading(({ source, usage }) => {
      assert.equal(usage.source, source);
      for (const value of counts(usage)) {
        assert.ok(isCountOrAbsent(value), `not a count: ${String(value)}`);
      }
      if (
        usage.inputTokens !== undefined &&
        usage.cacheReadTokens !== undefined &&
        usage.cacheWriteTokens !== undefined && source === "anthropic-messages"
      ) {
        assert.ok(
          usage.inputTokens >=
            usage.cacheReadTokens + usage.cacheWriteTokens,
        );
      }
    });
  });

  it("names each malformed field with the very value found there", () => {
    forEveryReading(({ response, usage }) => {
      for (const { field, raw } of usage.malformed ?? []) {
        assert.ok(Object.is(at(response, field), raw), field);
        // A readable count is never a malformed count (objects, types and
        // reasons are other checks).
        if (/tokens$/i.test(field)) {
          assert.ok(raw === undefined || !isCountOrAbsent(raw), field);
        }
      }
    });
  });

  it("keeps the raw value of a diagnosis it cannot name", () => {
    fc.assert(
      fc.property(anthropicResponse, openAIResponse, (anthropic, openai) => {
        for (
          const [response, source, key] of [
            [anthropic, "anthropic-messages", "diagnostics"],
            [openai, "openai-responses", "prompt_cache_diagnostics"],
          ] as const
        ) {
          const usage = readReportedUsage(response, source);
          if (usage.diagnosis.status !== "unknown") continue;
          const raw = (response as Record<string, unknown>)[key];
          const inner = source === "anthropic-messages" &&
              typeof raw === "object" && raw !== null &&
              !Array.isArray(raw)
            ? (raw as Record<string, unknown>).cache_miss_reason
            : raw;
          assert.ok(
            Object.is(usage.diagnosis.raw, inner) ||
              Object.is(usage.diagnosis.raw, raw),
          );
          assert.ok((usage.malformed?.length ?? 0) > 0);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("gives a report that never throws, unknown where a figure is missing", () => {
    const body = {
      model: "claude-sonnet-4-5",
      system: [{
        type: "text",
        text: "Rules. ".repeat(800),
        cache_control: { type: "ephemeral" },
      }],
      messages: [{ role: "user", content: "Hi." }],
    };
    fc.assert(
      fc.property(
        fc.array(anthropicResponse, { minLength: 2, maxLength: 4 }),
        (responses) => {
          const requests = responses.map((response, index) => ({
            body,
            usage: readReportedUsage(response, "anthropic"),
            time: index * 1000,
          }));
          const options = {
            provider: "anthropic" as const,
            countTokens: (text: string) => Math.ceil(text.length / 4),
          };
          const report = cacheReport(requests, options);
          assert.equal(report.requests.length, requests.length);
          requests.slice(1).forEach((current, index) => {
            const judgement = judgeRequest(
              { previous: requests[index], current },
              options,
            );
            if (current.usage.cacheReadTokens === undefined) {
              assert.equal(judgement.verdict, "unknown");
            }
          });
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(100) },
    );
  });
});
