/**
 * What an AI SDK result reports (SPEC 9.3): a `generateText` /
 * `streamText` result's `{ usage }` (or the `LanguageModelUsage` itself),
 * as `ai`'s `LanguageModelUsage` names it; no cache diagnosis. Never
 * throws.
 *
 * @module
 */

import {
  get,
  isCount,
  isRecord,
  type Reader,
  usageObject,
} from "../../src/cache/report/usage_reader.ts";
import type { ReportedUsage } from "../../src/cache/report/usage_types.ts";

export function aiSdkUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  // A result's `usage`, or the LanguageModelUsage itself.
  const usage = get(response, "usage") === undefined &&
      get(response, "inputTokens") !== undefined
    ? response
    : usageObject(response, "usage", reader);
  const result: ReportedUsage = {
    source,
    diagnosis: { status: "none" },
  };
  const meta = get(response, "response");
  if (isRecord(meta)) {
    const id = get(meta, "id");
    const model = get(meta, "modelId");
    if (typeof id === "string") result.responseId = id;
    if (typeof model === "string") result.responseModel = model;
  }
  if (usage === undefined) return result;
  // Every figure is `number | undefined` in the types: undefined is "the
  // provider did not say", not malformed.
  const maybe = (
    record: Record<string, unknown> | undefined,
    key: string,
    field: string,
  ): number | undefined => {
    const raw = record === undefined ? undefined : get(record, key);
    if (raw === undefined || raw === null) return undefined;
    return isCount(raw) ? raw : reader.bad(field, raw);
  };
  const details = reader.object(
    usage,
    "inputTokenDetails",
    "usage.inputTokenDetails",
  );
  result.cacheReadTokens = maybe(
    details,
    "cacheReadTokens",
    "usage.inputTokenDetails.cacheReadTokens",
  );
  result.cacheWriteTokens = maybe(
    details,
    "cacheWriteTokens",
    "usage.inputTokenDetails.cacheWriteTokens",
  );
  const noCache = maybe(
    details,
    "noCacheTokens",
    "usage.inputTokenDetails.noCacheTokens",
  );
  const total = maybe(usage, "inputTokens", "usage.inputTokens");
  const parts = noCache !== undefined && result.cacheReadTokens !== undefined &&
      result.cacheWriteTokens !== undefined
    ? noCache + result.cacheReadTokens + result.cacheWriteTokens
    : undefined;
  // The AI SDK's inputTokens already counts the cache; a provider package
  // that left it out is caught by the parts' sum.
  result.inputTokens = total === undefined
    ? parts
    : parts === undefined
    ? total
    : Math.max(total, parts);
  result.outputTokens = maybe(usage, "outputTokens", "usage.outputTokens");
  return result;
}
