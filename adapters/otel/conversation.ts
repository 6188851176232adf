/**
 * `conversationSpans`: a conversation's `onRequest` that records one span
 * per request through `recordRequestSpan` (`./otel`).
 *
 * @module
 */

import type { ConversationRequest } from "../../mod.ts";
import { formNamed } from "../forms.ts";
import {
  type CacheJudgement,
  type CacheProvider,
  judgeRequest,
} from "../cache/mod.ts";
import {
  recordRequestSpan,
  type RequestSpan,
  type RequestSpanOptions,
} from "./span.ts";

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
      provider: formNamed(request.form)?.otelProvider ?? request.form,
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
    }, { provider: cacheProvider as CacheProvider, countTokens });
  } catch {
    return undefined;
  }
}
