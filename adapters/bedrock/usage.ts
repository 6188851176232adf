/**
 * What Amazon Bedrock Converse reports (SPEC 10.5), field names as
 * `@aws-sdk/client-bedrock-runtime`'s `TokenUsage` names them; no cache
 * diagnosis. Never throws.
 *
 * @module
 */

import {
  get,
  isRecord,
  lifetimes,
  type Reader,
  usageObject,
} from "../../src/cache/report/usage_reader.ts";
import type {
  CacheLifetime,
  ReportedUsage,
} from "../../src/cache/report/usage_types.ts";

/**
 * A `ConverseResponse` (or a `ConverseStream` metadata event: anything with
 * `usage`). Bedrock's `inputTokens` leaves the cache out, as Anthropic's
 * does: the reads and writes are added back.
 */
export function bedrockUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  const result: ReportedUsage = {
    source,
    diagnosis: { status: "none" },
  };
  const usage = usageObject(response, "usage", reader);
  if (usage === undefined) return result;
  const uncached = reader.count(usage, "inputTokens", "usage.inputTokens");
  const read = reader.optionalCount(
    usage,
    "cacheReadInputTokens",
    "usage.cacheReadInputTokens",
  );
  const written = reader.optionalCount(
    usage,
    "cacheWriteInputTokens",
    "usage.cacheWriteInputTokens",
  );
  result.cacheReadTokens = read;
  result.cacheWriteTokens = written;
  const byLifetime = cacheDetails(usage, reader);
  if (
    byLifetime !== undefined && written !== undefined &&
    Object.values(byLifetime).reduce((sum, count) => sum + count, 0) === written
  ) {
    result.cacheWrites = lifetimes(byLifetime);
  }
  if (uncached !== undefined && read !== undefined && written !== undefined) {
    result.inputTokens = uncached + read + written;
  }
  result.outputTokens = reader.count(
    usage,
    "outputTokens",
    "usage.outputTokens",
  );
  return result;
}

/** `usage.cacheDetails` by lifetime, or undefined when absent or unreadable. */
function cacheDetails(
  usage: Record<string, unknown>,
  reader: Reader,
): Partial<Record<CacheLifetime, number>> | undefined {
  const details = get(usage, "cacheDetails");
  if (details === undefined || details === null) return undefined;
  if (!Array.isArray(details)) {
    reader.bad("usage.cacheDetails", details);
    return undefined;
  }
  const counts: Partial<Record<CacheLifetime, number>> = {};
  for (const [index, detail] of details.entries()) {
    const field = `usage.cacheDetails[${index}]`;
    const ttl = isRecord(detail) ? get(detail, "ttl") : undefined;
    if (!isRecord(detail) || (ttl !== "5m" && ttl !== "1h")) {
      reader.bad(field, detail);
      return undefined;
    }
    const tokens = reader.count(detail, "inputTokens", `${field}.inputTokens`);
    if (tokens === undefined) return undefined;
    counts[ttl] = (counts[ttl] ?? 0) + tokens;
  }
  return counts;
}
