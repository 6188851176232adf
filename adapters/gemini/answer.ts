/**
 * A Gemini answer read back (SPEC 10.5): a `GenerateContentResponse`, or
 * the chunks of `generateContentStream` put together as one (each
 * chunk's parts in order, a text part joined to the text before it when
 * neither is a thought's end, the last chunk's usage), which is what the
 * recording keeps.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import type { FormAnswer } from "../../src/conversation/form.ts";
import type { ToolCall } from "../../src/conversation/types.ts";
import { isObject } from "../_kit/form_options.ts";
import type { GeminiContent } from "./conversation_types.ts";

/** Whether an answer is a stream's chunks (responses with candidates). */
function isChunks(answer: unknown): answer is Record<string, unknown>[] {
  return Array.isArray(answer) && answer.length > 0 &&
    answer.every((chunk) => isObject(chunk) && "candidates" in chunk);
}

/** An answer as a response: a stream's chunks put together, else itself. */
export function geminiResponseOf(answer: unknown): unknown {
  return isChunks(answer) ? streamResponse(answer) : answer;
}

/**
 * What the recording keeps of an answer: the response (or the chunks as
 * one) without the SDK's `sdkHttpResponse` (its headers).
 */
export function geminiRecordOf(answer: unknown): unknown {
  const response = geminiResponseOf(answer);
  if (!isObject(response)) return JSON.parse(JSON.stringify(response));
  const { sdkHttpResponse: _http, ...rest } = response;
  return JSON.parse(JSON.stringify(rest));
}

/** The chunks as one response: their parts, the last chunk's fields. */
function streamResponse(
  chunks: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  let candidate: Record<string, unknown> = {};
  for (const chunk of chunks) {
    const first = Array.isArray(chunk.candidates) ? chunk.candidates[0] : {};
    if (!isObject(first)) continue;
    candidate = { ...candidate, ...first };
    const content = first.content;
    if (!isObject(content) || !Array.isArray(content.parts)) continue;
    for (const part of content.parts) {
      if (!isObject(part)) continue;
      const last = parts.at(-1);
      if (
        last !== undefined && typeof last.text === "string" &&
        typeof part.text === "string" && last.thoughtSignature === undefined &&
        Object.keys(last).every((key) => key === "text" || key === "thought") &&
        last.thought === part.thought
      ) {
        const { text, ...restOfPart } = part;
        parts[parts.length - 1] = {
          ...last,
          text: last.text + text,
          ...restOfPart,
        };
      } else parts.push({ ...part });
    }
  }
  const last = chunks[chunks.length - 1];
  const { candidates: _candidates, sdkHttpResponse: _http, ...fields } = last;
  return {
    ...fields,
    candidates: [{ ...candidate, content: { role: "model", parts } }],
  };
}

/** An answer read: the model's turn, its function calls, its usage. */
export function readGeminiAnswer(
  answer: unknown,
  other: (answer: unknown) => void,
): FormAnswer<GeminiContent> {
  other(answer);
  const response = geminiResponseOf(answer);
  const candidates = isObject(response) ? response.candidates : undefined;
  const content = Array.isArray(candidates) && isObject(candidates[0])
    ? candidates[0].content
    : undefined;
  if (
    !isObject(content) || (content.role !== undefined &&
      content.role !== "model") ||
    !Array.isArray(content.parts)
  ) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes @google/genai's GenerateContentResponse (the first ` +
        `candidate's content, role "model", with parts), as ` +
        `ai.models.generateContent() returns it, or every chunk of ` +
        `generateContentStream(), in order.`,
    );
  }
  const calls: ToolCall[] = [];
  for (const part of content.parts as unknown[]) {
    if (!isObject(part)) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The candidate's content holds a part that is not an object.`,
      );
    }
    if (part.functionCall === undefined) continue;
    const call = part.functionCall;
    if (!isObject(call) || typeof call.name !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `A functionCall part of the answer has no string name.`,
      );
    }
    // Without an id of its own, a call is named by its place in the answer.
    const id = typeof call.id === "string"
      ? call.id
      : `${call.name}#${calls.length}`;
    calls.push({ id, name: call.name, input: call.args ?? {} });
  }
  return {
    messages: [{
      role: "model",
      parts: JSON.parse(JSON.stringify(content.parts)),
    }],
    calls,
    usage: isObject(response) ? response.usageMetadata ?? null : null,
  };
}
