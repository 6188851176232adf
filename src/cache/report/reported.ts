/**
 * What the provider reported (SPEC 9.3, 9.8, 10.5): a response's usage and
 * cache diagnosis, read from Anthropic Messages, OpenAI Chat Completions,
 * OpenAI Responses, an AI SDK result, Bedrock Converse or Gemini into one
 * shape (the last two in `reported_converse_gemini.ts`). Field names are those of the
 * installed SDKs' own types (`@anthropic-ai/sdk` `Usage`, `Diagnostics`,
 * `CacheMissReason`; `openai` `CompletionUsage`, `ResponseUsage`,
 * `Response.prompt_cache_diagnostics`; `ai` `LanguageModelUsage`).
 *
 * Reading never throws: a field that is missing where the types require it,
 * of the wrong type, or a reason no SDK names, leaves that figure
 * `undefined` (or the diagnosis `unknown`) and keeps the raw value in
 * `malformed`.
 *
 * @module
 */

import {
  absent,
  get,
  isCount,
  isRecord,
  lifetimes,
  Reader,
  usageObject,
} from "./usage_reader.ts";
import { bedrockUsage, geminiUsage } from "./reported_converse_gemini.ts";
import type {
  ProviderDiagnosis,
  ProviderMissReason,
  ReportedUsage,
  UsageSource,
} from "./usage_types.ts";

const ANTHROPIC_REASONS: readonly string[] = [
  "model_changed",
  "system_changed",
  "tools_changed",
  "messages_changed",
];
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

const SOURCES: readonly UsageSource[] = [
  "anthropic",
  "openai-chat",
  "openai-responses",
  "ai-sdk",
  "bedrock",
  "gemini",
];

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
 * @param source the API it came from
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
 * }, "anthropic");
 * console.log(usage.inputTokens, usage.cacheReadTokens); // 3540 3000
 * console.log(JSON.stringify(usage.cacheWrites)); // {"5m":500}
 * ```
 */
export function readReportedUsage(
  response: unknown,
  source: UsageSource,
): ReportedUsage {
  const reader = new Reader();
  const known = (SOURCES as readonly unknown[]).includes(source);
  const usage: ReportedUsage = !known
    ? unknownSource(source, reader)
    : !isRecord(response)
    ? notAResponse(source, response, reader)
    : source === "anthropic"
    ? anthropic(response, reader)
    : source === "openai-chat"
    ? openAIChat(response, reader)
    : source === "openai-responses"
    ? openAIResponses(response, reader)
    : source === "bedrock"
    ? bedrockUsage(response, reader)
    : source === "gemini"
    ? geminiUsage(response, reader)
    : aiSdk(response, reader);
  if (reader.malformed.length > 0) usage.malformed = reader.malformed;
  return usage;
}

function unknownSource(source: unknown, reader: Reader): ReportedUsage {
  reader.bad("source", source);
  return { source: "ai-sdk", diagnosis: { status: "none" } };
}

function notAResponse(
  source: UsageSource,
  response: unknown,
  reader: Reader,
): ReportedUsage {
  reader.bad("response", response);
  return { source, diagnosis: { status: "none" } };
}

function identity(
  response: Record<string, unknown>,
): { responseId?: string; responseModel?: string } {
  const id = get(response, "id");
  const model = get(response, "model");
  return {
    ...(typeof id === "string" ? { responseId: id } : {}),
    ...(typeof model === "string" ? { responseModel: model } : {}),
  };
}

function anthropic(
  response: Record<string, unknown>,
  reader: Reader,
): ReportedUsage {
  const result: ReportedUsage = {
    source: "anthropic",
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
  return result;
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

function openAIChat(
  response: Record<string, unknown>,
  reader: Reader,
): ReportedUsage {
  // Chat Completions has no cache diagnosis (SPEC 9.7).
  const result: ReportedUsage = {
    source: "openai-chat",
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

function openAIResponses(
  response: Record<string, unknown>,
  reader: Reader,
): ReportedUsage {
  const result: ReportedUsage = {
    source: "openai-responses",
    ...identity(response),
    diagnosis: openAIDiagnosis(response, reader),
  };
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

function aiSdk(
  response: Record<string, unknown>,
  reader: Reader,
): ReportedUsage {
  // A result's `usage`, or the LanguageModelUsage itself.
  const usage = get(response, "usage") === undefined &&
      get(response, "inputTokens") !== undefined
    ? response
    : usageObject(response, "usage", reader);
  const result: ReportedUsage = {
    source: "ai-sdk",
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
