/**
 * Realistic provider payloads, typed by the installed SDKs' own types:
 * Anthropic `Usage` and `Diagnostics`, OpenAI `CompletionUsage`,
 * `ResponseUsage` and `Response.prompt_cache_diagnostics`, and the AI SDK's
 * `LanguageModelUsage`.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { LanguageModelUsage } from "ai";

/** An Anthropic `Usage` (input_tokens leaves the cache out). */
export function anthropicUsage(
  uncached: number,
  read: number,
  written: { "5m"?: number; "1h"?: number } = {},
): Anthropic.Messages.Usage {
  const fiveMinutes = written["5m"] ?? 0;
  const oneHour = written["1h"] ?? 0;
  return {
    cache_creation: {
      ephemeral_5m_input_tokens: fiveMinutes,
      ephemeral_1h_input_tokens: oneHour,
    },
    cache_creation_input_tokens: fiveMinutes + oneHour,
    cache_read_input_tokens: read,
    inference_geo: null,
    input_tokens: uncached,
    output_tokens: 212,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

/** The parts of an Anthropic `Message` the report reads. */
export function anthropicMessage(
  id: string,
  usage: Anthropic.Messages.Usage,
  reason: Anthropic.Messages.CacheMissReason | null = null,
  diagnosed = reason !== null,
): {
  id: string;
  model: string;
  usage: Anthropic.Messages.Usage;
  diagnostics: Anthropic.Messages.Diagnostics | null;
} {
  return {
    id,
    model: "claude-sonnet-4-5",
    usage,
    diagnostics: diagnosed ? { cache_miss_reason: reason } : null,
  };
}

/** A whole Anthropic `Message` as the API sends it: "Done.", with its diagnosis. */
export function wholeAnthropicMessage(
  id: string,
  usage: Anthropic.Messages.Usage,
  reason: Anthropic.Messages.CacheMissReason | null,
): Anthropic.Messages.Message {
  return {
    id,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "Done.", citations: null }],
    container: null,
    context_management: null,
    diagnostics: { cache_miss_reason: reason },
    stop_details: null,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage,
  } as Anthropic.Messages.Message;
}

/** An OpenAI `ChatCompletion`'s id, model and usage. */
export function chatCompletion(
  prompt: number,
  cached: number,
  written?: number,
): { id: string; model: string; usage: OpenAI.CompletionUsage } {
  return {
    id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    model: "gpt-5.6",
    usage: {
      prompt_tokens: prompt,
      completion_tokens: 90,
      total_tokens: prompt + 90,
      prompt_tokens_details: {
        cached_tokens: cached,
        ...(written !== undefined ? { cache_write_tokens: written } : {}),
      },
    },
  };
}

/** An OpenAI Responses `Response`'s id, model, usage and diagnosis. */
export function responsesResponse(
  input: number,
  cached: number,
  written: { "30m"?: number; "12h"?: number } = {},
  diagnosis?: OpenAI.Responses.Response["prompt_cache_diagnostics"],
): {
  id: string;
  model: string;
  usage: OpenAI.Responses.ResponseUsage;
  prompt_cache_diagnostics?: OpenAI.Responses.Response[
    "prompt_cache_diagnostics"
  ];
} {
  const thirty = written["30m"] ?? 0;
  const twelve = written["12h"] ?? 0;
  return {
    id: "resp_67ccd2bed1ec8190b14f964abc054267",
    model: "gpt-5.6",
    usage: {
      input_tokens: input,
      input_tokens_details: {
        cached_tokens: cached,
        cache_write_tokens: thirty + twelve,
        cache_write_tokens_details: {
          ttl_30m_tokens: thirty,
          ttl_12h_tokens: twelve,
        },
      },
      output_tokens: 75,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 75,
    },
    ...(diagnosis !== undefined ? { prompt_cache_diagnostics: diagnosis } : {}),
  };
}

/** An AI SDK result's usage. */
export function aiSdkResult(
  noCache: number,
  read: number,
  written: number,
): { usage: LanguageModelUsage } {
  return {
    usage: {
      inputTokens: noCache + read + written,
      inputTokenDetails: {
        noCacheTokens: noCache,
        cacheReadTokens: read,
        cacheWriteTokens: written,
      },
      outputTokens: 30,
      outputTokenDetails: { textTokens: 30, reasoningTokens: 0 },
      totalTokens: noCache + read + written + 30,
    },
  };
}
