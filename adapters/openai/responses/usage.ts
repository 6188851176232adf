/**
 * What OpenAI Responses reports (SPEC 9.3, 9.8): a `Response`'s usage and
 * its `prompt_cache_diagnostics`, as `openai`'s `ResponseUsage` and
 * `Response.prompt_cache_diagnostics` name them. Never throws.
 *
 * @module
 */

import {
  absent,
  get,
  identity,
  isCount,
  isRecord,
  lifetimes,
  type Reader,
  usageObject,
} from "../../../src/cache/report/usage_reader.ts";
import type {
  InputTransformation,
  ProviderDiagnosis,
  ProviderMissReason,
  ReportedUsage,
} from "../../../src/cache/report/usage_types.ts";

const OPENAI_REASONS: readonly string[] = [
  "model_changed",
  "prompt_cache_key_changed",
  "tools_changed",
  "text_format_changed",
  "reasoning_effort_changed",
  "verbosity_changed",
  "context_compacted",
  "input_changed",
  "service_tier_changed",
];

export function responsesUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  const result: ReportedUsage = {
    source,
    ...identity(response),
    diagnosis: openAIDiagnosis(response, reader),
  };
  // `input_transformations`: reasoning inputs withheld, by item id.
  const entries = get(response, "input_transformations");
  const withheld = Array.isArray(entries)
    ? entries.flatMap((entry): InputTransformation[] =>
      isRecord(entry) && typeof get(entry, "reason") === "string" &&
        get(entry, "action") === "removed"
        ? [{
          kind: "dropped",
          reason: get(entry, "reason") as string,
          ...(typeof get(entry, "id") === "string"
            ? { id: get(entry, "id") as string }
            : {}),
        }]
        : []
    )
    : [];
  if (withheld.length > 0) result.inputTransformations = withheld;
  const usage = usageObject(response, "usage", reader);
  if (usage === undefined) return result;
  result.inputTokens = reader.count(
    usage,
    "input_tokens",
    "usage.input_tokens",
  );
  const details = reader.object(
    usage,
    "input_tokens_details",
    "usage.input_tokens_details",
  );
  const detailsBroken = details === undefined &&
    !absent(get(usage, "input_tokens_details"));
  result.cacheReadTokens = detailsBroken ? undefined : reader.optionalCount(
    details,
    "cached_tokens",
    "usage.input_tokens_details.cached_tokens",
  );
  result.cacheWriteTokens = detailsBroken ? undefined : reader.optionalCount(
    details,
    "cache_write_tokens",
    "usage.input_tokens_details.cache_write_tokens",
  );
  const byLifetime = details === undefined ? undefined : reader.object(
    details,
    "cache_write_tokens_details",
    "usage.input_tokens_details.cache_write_tokens_details",
  );
  if (byLifetime !== undefined) {
    const thirty = reader.optionalCount(
      byLifetime,
      "ttl_30m_tokens",
      "usage.input_tokens_details.cache_write_tokens_details.ttl_30m_tokens",
    );
    const twelve = reader.optionalCount(
      byLifetime,
      "ttl_12h_tokens",
      "usage.input_tokens_details.cache_write_tokens_details.ttl_12h_tokens",
    );
    if (
      thirty !== undefined && twelve !== undefined &&
      thirty + twelve === result.cacheWriteTokens
    ) {
      result.cacheWrites = lifetimes({ "30m": thirty, "12h": twelve });
    }
  }
  result.outputTokens = reader.count(
    usage,
    "output_tokens",
    "usage.output_tokens",
  );
  return result;
}

function openAIDiagnosis(
  response: Record<string, unknown>,
  reader: Reader,
): ProviderDiagnosis {
  const diagnosis = get(response, "prompt_cache_diagnostics");
  if (diagnosis === undefined || diagnosis === null) return { status: "none" };
  if (!isRecord(diagnosis)) {
    reader.bad("prompt_cache_diagnostics", diagnosis);
    return { status: "unknown", raw: diagnosis };
  }
  const type = get(diagnosis, "type");
  if (type === "cache_hit") return { status: "hit", raw: diagnosis };
  if (type === "unavailable") return { status: "unavailable", raw: diagnosis };
  if (type === "comparison_response_not_found") {
    return { status: "not_found", raw: diagnosis };
  }
  const reason = get(diagnosis, "reason");
  if (
    type !== "cache_miss" || typeof reason !== "string" ||
    !OPENAI_REASONS.includes(reason)
  ) {
    reader.bad(
      type === "cache_miss"
        ? "prompt_cache_diagnostics.reason"
        : "prompt_cache_diagnostics.type",
      type === "cache_miss" ? reason : type,
    );
    return { status: "unknown", raw: diagnosis };
  }
  const result: ProviderDiagnosis = {
    status: "miss",
    reason: reason as ProviderMissReason,
    raw: diagnosis,
  };
  const missed = get(diagnosis, "cache_missed_tokens");
  if (isCount(missed)) result.missedTokens = missed;
  else reader.bad("prompt_cache_diagnostics.cache_missed_tokens", missed);
  const reusable = get(diagnosis, "comparison_reusable_tokens");
  if (isCount(reusable)) result.reusableTokens = reusable;
  else if (reusable !== undefined) {
    reader.bad("prompt_cache_diagnostics.comparison_reusable_tokens", reusable);
  }
  return result;
}
