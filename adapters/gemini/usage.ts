/**
 * What Gemini reports (SPEC 10.5), field names as `@google/genai`'s
 * `GenerateContentResponseUsageMetadata` names them; no cache diagnosis.
 * Never throws.
 *
 * @module
 */

import {
  get,
  type Reader,
  usageObject,
} from "../../src/cache/report/usage_reader.ts";
import type { ReportedUsage } from "../../src/cache/report/usage_types.ts";

/**
 * A `GenerateContentResponse` (or a stream's last chunk): the prompt's
 * tokens (the cached ones included, as Gemini counts them), the cached
 * tokens (implicit or explicit), no writes (implicit caching bills none;
 * an explicit cache is written by its own call), and the output with the
 * thoughts.
 */
export function geminiUsage(
  response: Record<string, unknown>,
  reader: Reader,
  source: string,
): ReportedUsage {
  const id = get(response, "responseId");
  const model = get(response, "modelVersion");
  const result: ReportedUsage = {
    source,
    ...(typeof id === "string" ? { responseId: id } : {}),
    ...(typeof model === "string" ? { responseModel: model } : {}),
    diagnosis: { status: "none" },
  };
  const usage = usageObject(response, "usageMetadata", reader);
  if (usage === undefined) return result;
  result.inputTokens = reader.count(
    usage,
    "promptTokenCount",
    "usageMetadata.promptTokenCount",
  );
  result.cacheReadTokens = reader.optionalCount(
    usage,
    "cachedContentTokenCount",
    "usageMetadata.cachedContentTokenCount",
  );
  result.cacheWriteTokens = 0;
  const candidates = reader.optionalCount(
    usage,
    "candidatesTokenCount",
    "usageMetadata.candidatesTokenCount",
  );
  const thoughts = reader.optionalCount(
    usage,
    "thoughtsTokenCount",
    "usageMetadata.thoughtsTokenCount",
  );
  if (candidates !== undefined && thoughts !== undefined) {
    result.outputTokens = candidates + thoughts;
  }
  return result;
}
