/**
 * OpenTelemetry spans for requests (`@rxprompt/system-prompt/otel`, SPEC
 * 9.4): one span per request with the OpenTelemetry GenAI semantic
 * conventions' attributes (model, provider, usage with cache reads and
 * writes; the system instructions and tool definitions on opt-in, since
 * they may be sensitive) and `rxprompt.*` attributes: the contributors of
 * each system block and tool, the stable prefix hash and the cache verdict.
 *
 * `@opentelemetry/api` is an optional peer dependency, imported with this
 * module: importing it without the package installed fails with
 * `MISSING_PEER_DEPENDENCY`, saying what to install.
 *
 * Attribute names are spelled as the GenAI registry spells them
 * (`model/gen-ai/registry.yaml` of open-telemetry/semantic-conventions up to
 * v1.41, now in open-telemetry/semantic-conventions-genai; the same
 * strings as `@opentelemetry/semantic-conventions@1.45.0`'s `incubating`
 * constants). See docs/cache_report.md.
 *
 * @example Record a request's span
 * ```ts
 * import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
 * import { recordRequestSpan } from "@rxprompt/system-prompt/otel";
 *
 * const exporter = new InMemorySpanExporter();
 * const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
 * await recordRequestSpan({
 *   provider: "anthropic",
 *   body: { model: "claude-sonnet-4-5", system: "Be brief.", messages: [] },
 *   usage: {
 *     source: "anthropic",
 *     inputTokens: 5000,
 *     cacheReadTokens: 4096,
 *     cacheWriteTokens: 0,
 *     diagnosis: { status: "none" },
 *   },
 * }, { tracer: provider.getTracer("my-harness") });
 * const [span] = exporter.getFinishedSpans();
 * console.log(span.name, span.attributes["gen_ai.usage.cache_read.input_tokens"]);
 * // chat claude-sonnet-4-5 4096
 * ```
 *
 * @module
 */

import type { ConversationRequest, PromptExplanation } from "../mod.ts";
import {
  type CacheJudgement,
  judgeRequest,
  type ReportedUsage,
} from "../src/cache/mod.ts";
import { renderPromptBlocks } from "../src/render/blocks.ts";
import { loadOtelApi } from "./_otel_api.ts";
import { promptCacheKey } from "./openai/cache_key.ts";

// The optional peer is imported with the module: importing `./otel` without
// `@opentelemetry/api` fails here, at once, with what to install
// (MISSING_PEER_DEPENDENCY), and the other entry points never load it.
await loadOtelApi();

/**
 * An attribute value as OpenTelemetry takes it: a primitive or a
 * homogeneous array of them.
 *
 * @example
 * ```ts
 * import type { SpanAttributeValue } from "@rxprompt/system-prompt/otel";
 *
 * const value: SpanAttributeValue = ["registry:rules", "registry/git:git"];
 * ```
 */
export type SpanAttributeValue =
  | string
  | number
  | boolean
  | string[]
  | number[]
  | boolean[];

/**
 * What this module needs of an OpenTelemetry `Tracer` (any `Tracer` of
 * `@opentelemetry/api` 1.x fits).
 *
 * @example
 * ```ts
 * import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
 * import type { SpanTracer } from "@rxprompt/system-prompt/otel";
 *
 * const tracer: SpanTracer = new BasicTracerProvider().getTracer("my-harness");
 * ```
 */
export interface SpanTracer {
  /** Starts a span. */
  startSpan(
    name: string,
    options?: {
      kind?: number;
      attributes?: Record<string, SpanAttributeValue>;
      startTime?: number | Date;
    },
  ): { end(endTime?: number | Date): void };
}

/**
 * One request to record.
 *
 * @example
 * ```ts
 * import type { RequestSpan } from "@rxprompt/system-prompt/otel";
 *
 * const request: RequestSpan = {
 *   provider: "openai",
 *   body: { model: "gpt-5.6", instructions: "Be brief.", input: "Hi." },
 *   startTime: Date.now() - 800,
 *   endTime: Date.now(),
 * };
 * ```
 */
export interface RequestSpan {
  /**
   * `gen_ai.provider.name`: `"anthropic"`, `"openai"`, or another of the
   * registry's well-known values (`"aws.bedrock"`, `"azure.ai.openai"`, …).
   */
  provider: string;
  /** The wire body sent: its `model`, system instructions and tools. */
  body: unknown;
  /** What `readReportedUsage` read from the response. */
  usage?: ReportedUsage;
  /** `explain()` of the assembly behind the body: the contributors. */
  explanation?: PromptExplanation;
  /** The judgement against the request before (`judgeRequest`). */
  judgement?: CacheJudgement;
  /** `gen_ai.conversation.id`. */
  conversationId?: string;
  /** When the request was sent (ms since the epoch, or a Date); default now. */
  startTime?: number | Date;
  /** When the answer came; default now. */
  endTime?: number | Date;
}

/**
 * Options of `recordRequestSpan` and `requestSpanAttributes`.
 *
 * @example
 * ```ts
 * import type { RequestSpanOptions } from "@rxprompt/system-prompt/otel";
 *
 * const options: RequestSpanOptions = { recordSystemInstructions: true };
 * ```
 */
export interface RequestSpanOptions {
  /** The tracer (default: the global provider's `@rxprompt/system-prompt`). */
  tracer?: SpanTracer;
  /** Record `gen_ai.system_instructions` (opt-in: may be sensitive). */
  recordSystemInstructions?: boolean;
  /** Record `gen_ai.tool.definitions` (opt-in: may be sensitive, large). */
  recordToolDefinitions?: boolean;
}

/** The tracer's name when none is given. */
const TRACER_NAME = "@rxprompt/system-prompt";

/**
 * The attributes of a request's span: the GenAI conventions'
 * `gen_ai.operation.name` (`chat`), `gen_ai.provider.name`,
 * `gen_ai.request.model`, `gen_ai.response.id`, `gen_ai.response.model`,
 * `gen_ai.conversation.id`, `gen_ai.usage.input_tokens` (cache reads and
 * writes included), `gen_ai.usage.output_tokens`,
 * `gen_ai.usage.cache_read.input_tokens`,
 * `gen_ai.usage.cache_creation.input_tokens`, on opt-in
 * `gen_ai.system_instructions` and `gen_ai.tool.definitions` (JSON
 * strings, the conventions' shapes); and `rxprompt.system.contributors`
 * (per system block, its sections as `registrar:name`),
 * `rxprompt.tool.contributors` (per tool), `rxprompt.prefix.hash` (the
 * stable prefix's `promptCacheKey`), `rxprompt.cache.verdict`,
 * `rxprompt.cache.expired`, `rxprompt.cache.missed`,
 * `rxprompt.cache.change`, `rxprompt.cache.contributor`,
 * `rxprompt.cache.provider_reason`. Pure, synchronous, needs no
 * OpenTelemetry package; a part that cannot be read is left out.
 *
 * @example
 * ```ts
 * import { requestSpanAttributes } from "@rxprompt/system-prompt/otel";
 *
 * const attributes = requestSpanAttributes({
 *   provider: "openai",
 *   body: { model: "gpt-5.6", instructions: "Be brief.", input: "Hi." },
 * }, { recordSystemInstructions: true });
 * console.log(attributes["gen_ai.system_instructions"]);
 * // [{"type":"text","content":"Be brief."}]
 * ```
 */
export function requestSpanAttributes(
  request: RequestSpan,
  options?: RequestSpanOptions,
): Record<string, SpanAttributeValue> {
  const attributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": String(request.provider),
  };
  const body = isRecord(request.body) ? request.body : {};
  const set = (key: string, value: SpanAttributeValue | undefined) => {
    if (value !== undefined) attributes[key] = value;
  };
  set("gen_ai.request.model", stringOf(body.model));
  set("gen_ai.conversation.id", request.conversationId);
  const usage = request.usage;
  if (usage !== undefined) {
    set("gen_ai.response.id", usage.responseId);
    set("gen_ai.response.model", usage.responseModel);
    set("gen_ai.usage.input_tokens", usage.inputTokens);
    set("gen_ai.usage.output_tokens", usage.outputTokens);
    set("gen_ai.usage.cache_read.input_tokens", usage.cacheReadTokens);
    set("gen_ai.usage.cache_creation.input_tokens", usage.cacheWriteTokens);
  }
  if (options?.recordSystemInstructions === true) {
    const instructions = systemInstructions(body);
    if (instructions.length > 0) {
      set("gen_ai.system_instructions", JSON.stringify(instructions));
    }
  }
  if (options?.recordToolDefinitions === true) {
    const tools = toolDefinitions(body.tools);
    if (tools.length > 0) {
      set("gen_ai.tool.definitions", JSON.stringify(tools));
    }
  }
  if (request.explanation !== undefined) {
    contributors(request.explanation, set);
  }
  const judgement = request.judgement;
  if (judgement !== undefined) {
    set("rxprompt.cache.missed", judgement.missed);
    set("rxprompt.cache.verdict", judgement.verdict);
    set("rxprompt.cache.expired", judgement.expired);
    const change = judgement.change;
    if (change !== undefined) {
      set(
        "rxprompt.cache.change",
        change.block ?? change.option ?? change.region,
      );
    }
    const contributor = judgement.contributor;
    if (contributor !== undefined) {
      set(
        "rxprompt.cache.contributor",
        `${contributor.registrar ?? contributor.layer ?? "unknown"}:` +
          `${contributor.kind}:${contributor.name}`,
      );
    }
    set("rxprompt.cache.provider_reason", judgement.provider.reason);
  }
  return attributes;
}

/**
 * Records one span for one request (kind `CLIENT`, named
 * `chat {gen_ai.request.model}` as the conventions say), with
 * {@linkcode requestSpanAttributes}, started and ended at the request's
 * times. Imports `@opentelemetry/api` on first use.
 *
 * @throws {SystemPromptError} `MISSING_PEER_DEPENDENCY` (a rejection) when
 * `@opentelemetry/api` cannot be imported
 *
 * @example With the global tracer provider
 * ```ts
 * import { recordRequestSpan } from "@rxprompt/system-prompt/otel";
 *
 * // Without a registered provider the global tracer records nothing.
 * await recordRequestSpan({
 *   provider: "openai",
 *   body: { model: "gpt-5.6", input: "Hi." },
 * });
 * ```
 */
export async function recordRequestSpan(
  request: RequestSpan,
  options?: RequestSpanOptions,
): Promise<void> {
  const api = await loadOtelApi();
  const tracer = options?.tracer ??
    (api.trace.getTracer(TRACER_NAME) as SpanTracer);
  const attributes = requestSpanAttributes(request, options);
  const model = attributes["gen_ai.request.model"];
  const span = tracer.startSpan(
    model === undefined ? "chat" : `chat ${model}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes,
      ...(request.startTime !== undefined
        ? { startTime: request.startTime }
        : {}),
    },
  );
  span.end(request.endTime);
}

/**
 * Options of {@linkcode conversationSpans}: those of
 * {@linkcode recordRequestSpan}, and the token counter the judgement of a
 * miss uses where two bodies diverge inside the cached prefix.
 *
 * @example
 * ```ts
 * import type { ConversationSpansOptions } from "@rxprompt/system-prompt/otel";
 *
 * const options: ConversationSpansOptions = { recordToolDefinitions: true };
 * ```
 */
export interface ConversationSpansOptions extends RequestSpanOptions {
  /** Counts a text's tokens (default: its length ÷ 4, an estimate). */
  countTokens?: (text: string) => number;
}

/**
 * A conversation's `onRequest` that records one span per request, and
 * waits for the spans still being recorded.
 *
 * @example
 * ```ts
 * import type { ConversationSpans } from "@rxprompt/system-prompt/otel";
 * import { conversationSpans } from "@rxprompt/system-prompt/otel";
 *
 * const spans: ConversationSpans = conversationSpans();
 * await spans.flush();
 * ```
 */
export interface ConversationSpans {
  /** Records the committed request's span (give it as `onRequest`). */
  (request: ConversationRequest): void;
  /**
   * Resolves when every span begun so far is recorded; rejects with the
   * first failure (e.g. `MISSING_PEER_DEPENDENCY`) since the last flush.
   */
  flush(): Promise<void>;
}

/** The `gen_ai.provider.name` of each conversation wire. */
const SPAN_PROVIDERS: Readonly<Record<string, string>> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai",
  "openai-responses": "openai",
};

/**
 * OpenTelemetry for a conversation (SPEC 9.4): pass the result as the
 * conversation's `onRequest`, and `record()` records one span per request
 * through {@linkcode recordRequestSpan}: the GenAI attributes, the
 * contributors (with the conversation's `diagnostics`), and the miss
 * verdict against the request before (`judgeRequest`). Spans are
 * recorded in the background; `flush()` waits for them.
 *
 * @example Spans of an Anthropic conversation
 * ```ts
 * import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 * import { conversationSpans } from "@rxprompt/system-prompt/otel";
 *
 * const exporter = new InMemorySpanExporter();
 * const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
 *   .getTracer("my-harness");
 * const spans = conversationSpans({ tracer });
 * const prompt = new SystemPrompt({ persona: "You are terse." });
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 64, onRequest: spans });
 * conv.user("Hi.");
 * await conv.request();
 * conv.record({
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "text", text: "Hello." }],
 *   usage: { input_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 3 },
 * });
 * await spans.flush();
 * const [span] = exporter.getFinishedSpans();
 * console.log(span.name, span.attributes["gen_ai.conversation.id"] === conv.session); // chat claude-sonnet-4-5 true
 * await prompt.dispose();
 * ```
 */
export function conversationSpans(
  options?: ConversationSpansOptions,
): ConversationSpans {
  const countTokens = options?.countTokens ??
    ((text: string) => Math.ceil(text.length / 4));
  let pending: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;
  const record = (request: ConversationRequest): void => {
    const judgement = judgementOf(request, countTokens);
    const span: RequestSpan = {
      provider: SPAN_PROVIDERS[request.provider] ?? request.provider,
      body: request.body,
      usage: request.usage,
      conversationId: request.session,
      startTime: request.sentAt,
      endTime: request.time,
      ...(request.explanation === undefined
        ? {}
        : { explanation: request.explanation }),
      ...(judgement === undefined ? {} : { judgement }),
    };
    const done = recordRequestSpan(span, options).catch((error: unknown) => {
      failure ??= { error };
    });
    pending.push(done);
  };
  return Object.assign(record, {
    async flush(): Promise<void> {
      const waiting = pending;
      pending = [];
      await Promise.all(waiting);
      const failed = failure;
      failure = undefined;
      if (failed !== undefined) throw failed.error;
    },
  });
}

/** The judgement of a request against the one before, if it can be made. */
function judgementOf(
  request: ConversationRequest,
  countTokens: (text: string) => number,
): CacheJudgement | undefined {
  const { previous, cacheProvider } = request;
  if (previous === undefined || cacheProvider === undefined) return undefined;
  try {
    return judgeRequest({
      previous,
      current: {
        body: request.body,
        usage: request.usage,
        time: request.sentAt,
        ...(request.explanation === undefined
          ? {}
          : { explanation: request.explanation }),
      },
    }, { provider: cacheProvider, countTokens });
  } catch {
    return undefined;
  }
}

/** The system instructions as the conventions' parts. */
function systemInstructions(
  body: Record<string, unknown>,
): { type: "text"; content: string }[] {
  const parts: { type: "text"; content: string }[] = [];
  const text = (content: unknown) => {
    if (typeof content === "string" && content !== "") {
      parts.push({ type: "text", content });
    } else if (Array.isArray(content)) {
      for (const part of content) {
        if (isRecord(part) && typeof part.text === "string") {
          parts.push({ type: "text", content: part.text });
        }
      }
    }
  };
  text(body.system); // Anthropic
  text(body.instructions); // OpenAI Responses
  if (Array.isArray(body.messages)) {
    // Chat Completions: the leading system and developer messages.
    for (const message of body.messages) {
      if (
        !isRecord(message) ||
        (message.role !== "system" && message.role !== "developer")
      ) break;
      text(message.content);
    }
  }
  return parts;
}

/** The tool definitions in the conventions' `{ type, name, … }` shape. */
function toolDefinitions(tools: unknown): Record<string, unknown>[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => {
    if (!isRecord(tool)) return [];
    const fn = isRecord(tool.function) ? tool.function : undefined;
    const name = stringOf(tool.name) ?? stringOf(fn?.name);
    if (name === undefined) return [];
    const description = stringOf(tool.description) ??
      stringOf(fn?.description);
    const parameters = tool.input_schema ?? tool.parameters ?? fn?.parameters;
    return [{
      type: "function",
      name,
      ...(description !== undefined ? { description } : {}),
      ...(parameters !== undefined ? { parameters } : {}),
    }];
  });
}

function contributors(
  explanation: PromptExplanation,
  set: (key: string, value: SpanAttributeValue | undefined) => void,
): void {
  const who = (origin: { registrar?: string; layer: string; name: string }) =>
    `${origin.registrar ?? origin.layer}:${origin.name}`;
  const sections = new Map(
    explanation.sections.map((origin) => [origin.name, who(origin)]),
  );
  try {
    const blocks = renderPromptBlocks(explanation.assembly);
    set(
      "rxprompt.system.contributors",
      blocks.map((block) =>
        block.sections.map((name) => sections.get(name) ?? name).join(", ")
      ),
    );
    set("rxprompt.prefix.hash", promptCacheKey(explanation.assembly));
  } catch {
    // An assembly that does not render has no blocks to name.
  }
  set("rxprompt.tool.contributors", explanation.tools.map(who));
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
