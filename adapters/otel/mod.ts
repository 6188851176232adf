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
 *     source: "anthropic-messages",
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

import { loadOtelApi } from "./api.ts";

// The optional peer is imported with the module: importing `./otel` without
// `@opentelemetry/api` fails here, at once, with what to install
// (MISSING_PEER_DEPENDENCY), and the other entry points never load it.
await loadOtelApi();

export {
  recordRequestSpan,
  type RequestSpan,
  requestSpanAttributes,
  type RequestSpanOptions,
  type SpanAttributeValue,
  type SpanTracer,
} from "./span.ts";
export {
  type ConversationSpans,
  conversationSpans,
  type ConversationSpansOptions,
} from "./conversation.ts";
