/**
 * A Converse answer read back (SPEC 10.5): a `ConverseResponse`, or the
 * events of a `ConverseStreamCommand`'s stream put together as one (the
 * message from its blocks, the stop reason, the `metadata` event's usage),
 * which is what the recording keeps.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import type { FormAnswer } from "../../src/conversation/form.ts";
import type { ToolCall } from "../../src/conversation/types.ts";
import { isObject } from "../_kit/form_options.ts";
import type { ConverseMessage } from "./conversation_types.ts";

/** Whether an answer is a `ConverseResponse` (its `output.message`). */
export function isConverseResponse(answer: Record<string, unknown>): boolean {
  return isObject(answer.output) && isObject(answer.output.message);
}

/** Whether an answer is a stream's events (its first has one known member). */
function isStreamEvents(answer: unknown): answer is unknown[] {
  return Array.isArray(answer) && answer.length > 0 &&
    answer.every((event) => isObject(event)) &&
    ("messageStart" in answer[0] || "contentBlockStart" in answer[0] ||
      "contentBlockDelta" in answer[0]);
}

/**
 * What the recording keeps of an answer: a response without the SDK's
 * `$metadata` (request id, attempts), or the stream's events as a response.
 */
export function converseRecordOf(answer: unknown): unknown {
  const response = isStreamEvents(answer) ? streamResponse(answer) : answer;
  if (!isObject(response)) return JSON.parse(JSON.stringify(response));
  const { $metadata: _metadata, ...rest } = response;
  return JSON.parse(JSON.stringify(rest));
}

/** An answer as a response: a stream's events put together, else itself. */
export function converseResponseOf(answer: unknown): unknown {
  return isStreamEvents(answer) ? streamResponse(answer) : answer;
}

/** The stream's events as a `ConverseResponse`. */
function streamResponse(events: readonly unknown[]): Record<string, unknown> {
  const blocks: Record<string, unknown>[] = [];
  const inputs = new Map<number, string>();
  let role: unknown = "assistant";
  let stopReason: unknown;
  let usage: unknown;
  const at = (index: unknown): number =>
    typeof index === "number" && Number.isInteger(index) && index >= 0
      ? index
      : blocks.length;
  for (const event of events as Record<string, unknown>[]) {
    if (isObject(event.messageStart)) role = event.messageStart.role;
    const start = event.contentBlockStart;
    if (isObject(start) && isObject(start.start)) {
      const toolUse = start.start.toolUse;
      if (isObject(toolUse)) {
        blocks[at(start.contentBlockIndex)] = {
          toolUse: {
            toolUseId: toolUse.toolUseId,
            name: toolUse.name,
            input: {},
          },
        };
      }
    }
    const delta = event.contentBlockDelta;
    if (isObject(delta) && isObject(delta.delta)) {
      const index = at(delta.contentBlockIndex);
      const piece = delta.delta;
      if (typeof piece.text === "string") {
        const block = blocks[index] ?? { text: "" };
        blocks[index] = { text: String(block.text ?? "") + piece.text };
      } else if (isObject(piece.toolUse)) {
        inputs.set(
          index,
          (inputs.get(index) ?? "") + String(piece.toolUse.input ?? ""),
        );
      } else if (isObject(piece.reasoningContent)) {
        const reasoning = piece.reasoningContent;
        const block = blocks[index] as
          | { reasoningContent: { reasoningText: Record<string, string> } }
          | undefined;
        const text = block?.reasoningContent.reasoningText ?? { text: "" };
        blocks[index] = {
          reasoningContent: {
            reasoningText: {
              ...text,
              text: text.text +
                (typeof reasoning.text === "string" ? reasoning.text : ""),
              ...(typeof reasoning.signature === "string"
                ? { signature: reasoning.signature }
                : {}),
            },
          },
        };
      }
    }
    if (isObject(event.messageStop)) stopReason = event.messageStop.stopReason;
    if (isObject(event.metadata)) usage = event.metadata.usage;
  }
  for (const [index, input] of inputs) {
    const parsed = parseInput(input);
    const block = blocks[index];
    if (!isObject(block) || !isObject(block.toolUse)) continue;
    block.toolUse = { ...block.toolUse, input: parsed };
  }
  return {
    output: { message: { role, content: blocks.filter(isObject) } },
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(usage === undefined ? {} : { usage }),
  };
}

/** A streamed tool input's JSON (`{}` for none). */
function parseInput(input: string): unknown {
  if (input === "") return {};
  try {
    return JSON.parse(input);
  } catch (error) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `A streamed toolUse input is not JSON (${JSON.stringify(input)}); ` +
        `record() takes every event of the stream, in order.`,
      { cause: error },
    );
  }
}

/** An answer read: the model's message, its tool uses, its usage. */
export function readConverseAnswer(
  answer: unknown,
  other: (answer: unknown) => void,
): FormAnswer<ConverseMessage> {
  other(answer);
  const response = isStreamEvents(answer)
    ? streamResponse(answer)
    : isObject(answer)
    ? answer
    : undefined;
  const message = response !== undefined && isObject(response.output)
    ? response.output.message
    : undefined;
  if (
    !isObject(message) || message.role !== "assistant" ||
    !Array.isArray(message.content)
  ) {
    throw new SystemPromptError(
      "INVALID_RESPONSE",
      `record() takes a ConverseResponse (output.message with role ` +
        `"assistant"), as client.send(new ConverseCommand(body)) returns ` +
        `it, or every event of a ConverseStreamCommand's stream, in order.`,
    );
  }
  const calls: ToolCall[] = [];
  for (const block of message.content as unknown[]) {
    if (!isObject(block)) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `The message's content holds a block that is not an object.`,
      );
    }
    if (block.toolUse === undefined) continue;
    const use = block.toolUse;
    if (
      !isObject(use) || typeof use.toolUseId !== "string" ||
      typeof use.name !== "string"
    ) {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `A toolUse block of the message has no string toolUseId and name.`,
      );
    }
    calls.push({ id: use.toolUseId, name: use.name, input: use.input });
  }
  return {
    messages: [{
      role: "assistant",
      content: JSON.parse(JSON.stringify(message.content)),
    }],
    calls,
    usage: response!.usage ?? null,
  };
}
