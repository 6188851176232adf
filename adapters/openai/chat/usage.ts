/**
 * What OpenAI Chat Completions reports (SPEC 9.3, 9.8): a `ChatCompletion`'s
 * usage (the last chunk of a stream with `include_usage`), as `openai`'s
 * `CompletionUsage` names it; Chat Completions has no cache diagnosis.
 * Never throws.
 *
 * @module
 */

import {
  absent,
  get,
  identity,
  type Reader,
  usageObject,
} from "../../../src/cache/report/usage_reader.ts";
import type { ReportedUsage } from "../../../src/cache/report/usage_types.ts";

export function chatUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  // Chat Completions has no cache diagnosis (SPEC 9.7).
  const result: ReportedUsage = {
    source,
    ...identity(response),
    diagnosis: { status: "none" },
  };
  const usage = usageObject(response, "usage", reader);
  if (usage === undefined) return result;
  result.inputTokens = reader.count(
    usage,
    "prompt_tokens",
    "usage.prompt_tokens",
  );
  const details = reader.object(
    usage,
    "prompt_tokens_details",
    "usage.prompt_tokens_details",
  );
  const detailsBroken = details === undefined &&
    !absent(get(usage, "prompt_tokens_details"));
  result.cacheReadTokens = detailsBroken ? undefined : reader.optionalCount(
    details,
    "cached_tokens",
    "usage.prompt_tokens_details.cached_tokens",
  );
  result.cacheWriteTokens = detailsBroken ? undefined : reader.optionalCount(
    details,
    "cache_write_tokens",
    "usage.prompt_tokens_details.cache_write_tokens",
  );
  result.outputTokens = reader.count(
    usage,
    "completion_tokens",
    "usage.completion_tokens",
  );
  return result;
}
