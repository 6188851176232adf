/**
 * The span of one request (`./otel`): its attributes, and recording it.
 *
 * @module
 */

import type { PromptExplanation } from "../../mod.ts";
import type { CacheJudgement, ReportedUsage } from "../cache/mod.ts";
import { renderPromptBlocks } from "../../src/render/blocks.ts";
import { loadOtelApi } from "./api.ts";
import { promptCacheKey } from "../openai/cache_key.ts";

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
  // Bedrock Converse names it modelId.
  set("gen_ai.request.model", stringOf(body.model) ?? stringOf(body.modelId));
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
    const tools = toolDefinitions(toolsOf(body));
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
  text(body.system); // Anthropic, Bedrock Converse
  text(body.instructions); // OpenAI Responses
  const config = isRecord(body.config) ? body.config : {};
  if (isRecord(config.systemInstruction)) {
    text(config.systemInstruction.parts); // Gemini
  }
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

/**
 * A body's tools, each a record with a name: `tools` (Anthropic, OpenAI),
 * Bedrock's `toolConfig.tools` specs, Gemini's function declarations.
 */
function toolsOf(body: Record<string, unknown>): unknown[] {
  if (Array.isArray(body.tools)) return body.tools;
  const config = isRecord(body.toolConfig)
    ? body.toolConfig
    : isRecord(body.config)
    ? body.config
    : {};
  if (!Array.isArray(config.tools)) return [];
  return config.tools.flatMap((tool: unknown) =>
    !isRecord(tool)
      ? []
      : isRecord(tool.toolSpec)
      ? [tool.toolSpec]
      : Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations
      : []
  );
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
    const schema = isRecord(tool.inputSchema)
      ? tool.inputSchema.json
      : undefined;
    const parameters = tool.input_schema ?? tool.parameters ??
      tool.parametersJsonSchema ?? schema ?? fn?.parameters;
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
