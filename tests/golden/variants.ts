/**
 * The golden bodies' conversation variants (issue 45): each provider form
 * with the options the fixtures cover, started and resumed the same way,
 * and the model's answers synthesised in each SDK's shape (text, tool
 * calls, a thinking block last, usage figures), so that one script drives
 * every form.
 */
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import type {
  AssembleContext,
  ConversationOptions,
  ConversationReportOptions,
  PromptAssembly,
  ToolCall,
} from "../../mod.ts";
import type { PromptCacheReport } from "../../adapters/cache/mod.ts";

/** The four answer shapes. */
export type Kind = "anthropic" | "chat" | "responses" | "ai-sdk";

/** What the golden drivers need of a conversation. */
export interface Driven {
  readonly session: string;
  readonly openCalls: readonly ToolCall[];
  user(input: unknown): void;
  toolResult(
    id: string,
    content: string,
    options?: { isError?: boolean },
  ): void;
  request(
    context?: AssembleContext,
    options?: { awaiting?: "person" | "agent" },
  ): Promise<unknown>;
  record(answer: unknown): ToolCall[];
  save(): string;
  report(options: ConversationReportOptions): PromptCacheReport;
  fork(options?: ConversationOptions): Driven;
}

/** Something a conversation assembles from. */
export interface Assembling {
  assemble(context?: AssembleContext): Promise<PromptAssembly>;
}

/** One form with one set of options. */
export interface Variant {
  readonly name: string;
  readonly kind: Kind;
  start(prompt: Assembling, options: ConversationOptions): Driven;
  resume(prompt: Assembling, recording: string): Driven;
}

type Start = (prompt: never, options: never) => unknown;
type Resume = (prompt: never, text: string, options?: never) => unknown;

function variant(
  name: string,
  kind: Kind,
  start: Start,
  resume: Resume,
  own: Record<string, unknown>,
  resumeWith?: Record<string, unknown>,
): Variant {
  return {
    name,
    kind,
    start: (prompt, options) =>
      start(prompt as never, { ...own, ...options } as never) as Driven,
    resume: (prompt, text) =>
      (resumeWith === undefined
        ? resume(prompt as never, text)
        : resume(prompt as never, text, resumeWith as never)) as Driven,
  };
}

const CLAUDE = { model: "claude-sonnet-4-5", max_tokens: 1024 };
const GPT = { model: "gpt-5.6" };

/** The variants every session and scenario runs through. */
export const VARIANTS: readonly Variant[] = [
  variant(
    "anthropic",
    "anthropic",
    anthropicConversation,
    resumeAnthropicConversation,
    CLAUDE,
  ),
  variant(
    "anthropic-inline",
    "anthropic",
    anthropicConversation,
    resumeAnthropicConversation,
    { ...CLAUDE, toolChanges: "inline" },
    { toolChanges: "inline" },
  ),
  variant(
    "openai-chat",
    "chat",
    chatConversation,
    resumeChatConversation,
    { ...GPT, cache: true },
  ),
  variant(
    "openai-chat-nocache",
    "chat",
    chatConversation,
    resumeChatConversation,
    GPT,
  ),
  variant(
    "openai-responses",
    "responses",
    responsesConversation,
    resumeResponsesConversation,
    { ...GPT, cache: true },
  ),
  variant(
    "openai-responses-inline",
    "responses",
    responsesConversation,
    resumeResponsesConversation,
    { ...GPT, cache: true, toolChanges: "inline" },
    { toolChanges: "inline" },
  ),
  variant("ai-sdk", "ai-sdk", aiSdkConversation, resumeAiSdkConversation, {}),
  variant(
    "ai-sdk-nocache",
    "ai-sdk",
    aiSdkConversation,
    resumeAiSdkConversation,
    { cache: false },
  ),
];

/** The option matrix: each runs the option scenario. */
export const OPTION_VARIANTS: readonly Variant[] = [
  ...[0, 1, 4].map((max) =>
    variant(
      `anthropic-max${max}`,
      "anthropic",
      anthropicConversation,
      resumeAnthropicConversation,
      { ...CLAUDE, maxCacheBreakpoints: max },
    )
  ),
  variant(
    "anthropic-explicit",
    "anthropic",
    anthropicConversation,
    resumeAnthropicConversation,
    { ...CLAUDE, breakpoints: "explicit" },
  ),
  variant(
    "anthropic-diagnostics",
    "anthropic",
    anthropicConversation,
    resumeAnthropicConversation,
    { ...CLAUDE, diagnostics: true, header: "# Context" },
  ),
  variant(
    "openai-chat-stream",
    "chat",
    chatConversation,
    resumeChatConversation,
    { ...GPT, cache: { ttl: "12h" }, stream: true, max_completion_tokens: 99 },
    { stream: true },
  ),
  variant(
    "openai-chat-retention",
    "chat",
    chatConversation,
    resumeChatConversation,
    {
      ...GPT,
      cache: true,
      promptCacheRetention: "24h",
      promptCacheKey: "golden-key",
      toolChoiceMode: "required",
      strict: true,
    },
  ),
  ...[0, 4].map((max) =>
    variant(
      `openai-chat-max${max}`,
      "chat",
      chatConversation,
      resumeChatConversation,
      { ...GPT, cache: true, maxCacheBreakpoints: max },
    )
  ),
  variant(
    "openai-chat-explicit",
    "chat",
    chatConversation,
    resumeChatConversation,
    { ...GPT, cache: true, breakpoints: "explicit" },
  ),
  variant(
    "openai-responses-diagnostics",
    "responses",
    responsesConversation,
    resumeResponsesConversation,
    { ...GPT, cache: { ttl: "30m" }, diagnostics: true, max_output_tokens: 77 },
  ),
  variant(
    "openai-responses-retention",
    "responses",
    responsesConversation,
    resumeResponsesConversation,
    { ...GPT, promptCacheRetention: "24h", toolChoiceMode: "required" },
  ),
  variant(
    "openai-responses-max1",
    "responses",
    responsesConversation,
    resumeResponsesConversation,
    { ...GPT, cache: true, maxCacheBreakpoints: 1, strict: true },
  ),
  variant(
    "ai-sdk-max1",
    "ai-sdk",
    aiSdkConversation,
    resumeAiSdkConversation,
    { maxCacheBreakpoints: 1 },
  ),
  variant(
    "ai-sdk-explicit",
    "ai-sdk",
    aiSdkConversation,
    resumeAiSdkConversation,
    { breakpoints: "explicit", diagnostics: true },
  ),
];

/** One model turn to answer with. */
export interface Turn {
  /** The answer's number in its conversation (ids and usage follow it). */
  readonly n: number;
  readonly text: string;
  readonly calls: readonly {
    readonly id: string;
    readonly name: string;
    readonly input: unknown;
  }[];
  /** The answer ends with a thinking block (reasoning item). */
  readonly thinking?: boolean;
}

/** Usage figures that grow with the answer's number. */
function figures(n: number): { read: number; written: number; fresh: number } {
  return { read: n === 1 ? 0 : 1500 + 40 * n, written: 120 + n, fresh: 30 };
}

/** The model's answer to `turn` in the SDK shape of `kind`. */
export function answerOf(kind: Kind, turn: Turn): unknown {
  const { read, written, fresh } = figures(turn.n);
  switch (kind) {
    case "anthropic":
      return {
        id: `msg_${turn.n}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          ...(turn.text === "" ? [] : [{ type: "text", text: turn.text }]),
          ...turn.calls.map((call) => ({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: call.input,
          })),
          ...(turn.thinking === true
            ? [{ type: "thinking", thinking: "Hmm.", signature: "sig" }]
            : []),
        ],
        stop_reason: turn.calls.length === 0 ? "end_turn" : "tool_use",
        stop_sequence: null,
        usage: {
          input_tokens: fresh,
          cache_read_input_tokens: read,
          cache_creation_input_tokens: written,
          output_tokens: 12,
        },
      };
    case "chat":
      return {
        id: `chatcmpl_${turn.n}`,
        object: "chat.completion",
        model: "gpt-5.6",
        choices: [{
          index: 0,
          finish_reason: turn.calls.length === 0 ? "stop" : "tool_calls",
          message: {
            role: "assistant",
            content: turn.text === "" ? null : turn.text,
            ...(turn.calls.length === 0 ? {} : {
              tool_calls: turn.calls.map((call) => ({
                id: call.id,
                type: "function",
                function: {
                  name: call.name,
                  arguments: JSON.stringify(call.input),
                },
              })),
            }),
          },
        }],
        usage: {
          prompt_tokens: fresh + read + written,
          completion_tokens: 12,
          total_tokens: fresh + read + written + 12,
          prompt_tokens_details: {
            cached_tokens: read,
            cache_write_tokens: written,
          },
        },
      };
    case "responses":
      return {
        id: `resp_${turn.n}`,
        object: "response",
        model: "gpt-5.6",
        output: [
          ...(turn.text === "" ? [] : [{
            type: "message",
            id: `msg_${turn.n}`,
            role: "assistant",
            status: "completed",
            content: [{
              type: "output_text",
              text: turn.text,
              annotations: [],
            }],
          }]),
          ...turn.calls.map((call) => ({
            type: "function_call",
            id: `fc_${call.id}`,
            call_id: call.id,
            name: call.name,
            arguments: JSON.stringify(call.input),
            status: "completed",
          })),
          ...(turn.thinking === true
            ? [{ type: "reasoning", id: `rs_${turn.n}`, summary: [] }]
            : []),
        ],
        usage: {
          input_tokens: fresh + read + written,
          output_tokens: 12,
          total_tokens: fresh + read + written + 12,
          input_tokens_details: {
            cached_tokens: read,
            cache_write_tokens: written,
          },
        },
      };
    case "ai-sdk":
      return {
        response: {
          id: `gen_${turn.n}`,
          modelId: "claude-sonnet-4-5",
          messages: [{
            role: "assistant",
            content: [
              ...(turn.text === "" ? [] : [{ type: "text", text: turn.text }]),
              ...turn.calls.map((call) => ({
                type: "tool-call",
                toolCallId: call.id,
                toolName: call.name,
                input: call.input,
              })),
              ...(turn.thinking === true
                ? [{
                  type: "reasoning",
                  text: "Hmm.",
                  providerOptions: { anthropic: { signature: "sig" } },
                }]
                : []),
            ],
          }],
        },
        usage: {
          inputTokens: fresh + read + written,
          outputTokens: 12,
          totalTokens: fresh + read + written + 12,
          inputTokenDetails: {
            noCacheTokens: fresh,
            cacheReadTokens: read,
            cacheWriteTokens: written,
          },
        },
      };
  }
}

/** A clock that ticks 7 seconds a call, from a fixed instant. */
export function steppedClock(start = Date.UTC(2026, 11, 6)): () => number {
  let now = start;
  return () => (now += 7_000);
}

/** The token counter of every golden report: a quarter of the length. */
export const countTokens = (text: string): number => Math.ceil(text.length / 4);
