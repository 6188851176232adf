/**
 * What Anthropic Messages reports (SPEC 9.3, 9.8): a `Message`'s usage
 * (`input_tokens` leaves the cache out: reads and writes are added back,
 * writes by lifetime) and its cache diagnosis, as `@anthropic-ai/sdk`'s
 * `Usage` and `Diagnostics` name them. Never throws.
 *
 * @module
 */

import {
  get,
  identity,
  isCount,
  isRecord,
  lifetimes,
  type Reader,
  usageObject,
} from "../../src/cache/report/usage_reader.ts";
import type {
  ProviderDiagnosis,
  ProviderMissReason,
  ReportedUsage,
} from "../../src/cache/report/usage_types.ts";

const ANTHROPIC_REASONS: readonly string[] = [
  "model_changed",
  "system_changed",
  "tools_changed",
  "messages_changed",
];

export function anthropicUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  const result: ReportedUsage = {
    source,
    ...identity(response),
    diagnosis: anthropicDiagnosis(response, reader),
  };
  const usage = usageObject(response, "usage", reader);
  if (usage === undefined) return result;
  const uncached = reader.count(usage, "input_tokens", "usage.input_tokens");
  const read = reader.optionalCount(
    usage,
    "cache_read_input_tokens",
    "usage.cache_read_input_tokens",
  );
  const creation = reader.object(
    usage,
    "cache_creation",
    "usage.cache_creation",
  );
  const fiveMinutes = creation === undefined ? 0 : reader.optionalCount(
    creation,
    "ephemeral_5m_input_tokens",
    "usage.cache_creation.ephemeral_5m_input_tokens",
  );
  const oneHour = creation === undefined ? 0 : reader.optionalCount(
    creation,
    "ephemeral_1h_input_tokens",
    "usage.cache_creation.ephemeral_1h_input_tokens",
  );
  const rawWritten = get(usage, "cache_creation_input_tokens");
  let written = reader.optionalCount(
    usage,
    "cache_creation_input_tokens",
    "usage.cache_creation_input_tokens",
  );
  const breakdown = fiveMinutes !== undefined && oneHour !== undefined;
  if ((rawWritten === undefined || rawWritten === null) && breakdown) {
    written = fiveMinutes + oneHour;
  }
  result.cacheReadTokens = read;
  result.cacheWriteTokens = written;
  if (
    creation !== undefined && breakdown && fiveMinutes + oneHour === written
  ) {
    result.cacheWrites = lifetimes({ "5m": fiveMinutes, "1h": oneHour });
  }
  // Anthropic's input_tokens leaves the cache out (SPEC 9.8).
  if (uncached !== undefined && read !== undefined && written !== undefined) {
    result.inputTokens = uncached + read + written;
  }
  result.outputTokens = reader.count(
    usage,
    "output_tokens",
    "usage.output_tokens",
  );
  const compaction = compactionIteration(get(usage, "iterations"));
  if (compaction !== undefined) result.compaction = compaction;
  return result;
}

/**
 * The `compaction` entries of `usage.iterations`, added up, when a
 * `message` entry is beside them: then the top-level fields are the
 * message's and the compaction's tokens are not in them. Alone (an
 * on-demand compaction), the top-level fields are the request's own.
 */
function compactionIteration(
  iterations: unknown,
): ReportedUsage["compaction"] {
  if (!Array.isArray(iterations)) return undefined;
  const entries = iterations.filter(isRecord);
  if (!entries.some((entry) => entry.type === "message")) return undefined;
  const sum = {
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
  };
  let found = false;
  for (const entry of entries) {
    if (entry.type !== "compaction") continue;
    const count = (name: string) => {
      const value = get(entry, name);
      return isCount(value) ? value : 0;
    };
    found = true;
    const read = count("cache_read_input_tokens");
    const written = count("cache_creation_input_tokens");
    sum.inputTokens += count("input_tokens") + read + written;
    sum.cacheReadTokens += read;
    sum.cacheWriteTokens += written;
    sum.outputTokens += count("output_tokens");
  }
  return found ? sum : undefined;
}

function anthropicDiagnosis(
  response: Record<string, unknown>,
  reader: Reader,
): ProviderDiagnosis {
  const diagnostics = get(response, "diagnostics");
  if (diagnostics === undefined || diagnostics === null) {
    return { status: "none" };
  }
  if (!isRecord(diagnostics)) {
    reader.bad("diagnostics", diagnostics);
    return { status: "unknown", raw: diagnostics };
  }
  const reason = get(diagnostics, "cache_miss_reason");
  // null: the comparison had not finished; no diagnosis, not a hit.
  if (reason === null || reason === undefined) return { status: "none" };
  if (!isRecord(reason)) {
    reader.bad("diagnostics.cache_miss_reason", reason);
    return { status: "unknown", raw: reason };
  }
  const type = get(reason, "type");
  if (type === "unavailable") return { status: "unavailable", raw: reason };
  if (type === "previous_message_not_found") {
    return { status: "not_found", raw: reason };
  }
  if (typeof type !== "string" || !ANTHROPIC_REASONS.includes(type)) {
    reader.bad("diagnostics.cache_miss_reason.type", type);
    return { status: "unknown", raw: reason };
  }
  const missed = get(reason, "cache_missed_input_tokens");
  const diagnosis: ProviderDiagnosis = {
    status: "miss",
    reason: type as ProviderMissReason,
    raw: reason,
  };
  if (isCount(missed)) diagnosis.missedTokens = missed;
  else {
    reader.bad(
      "diagnostics.cache_miss_reason.cache_missed_input_tokens",
      missed,
    );
  }
  return diagnosis;
}
