/**
 * An AI SDK step as the Anthropic Messages body `@ai-sdk/anthropic` sends
 * for it (SPEC 9.8: the AI SDK's report stands on usage and our own
 * comparison, and the comparison reads wire bodies). Pure: the recording's
 * head (system messages and tools), the history and the marks in, the
 * body's `system`, `messages`, `tools` and `tool_choice` out, laid out as
 * the provider lays them: consecutive user and tool messages merged into
 * one user message, assistant messages likewise, each `cacheControl`
 * provider option as `cache_control` on its block, empty assistant texts
 * dropped and tool calls moved after the texts they follow.
 *
 * @module
 */

import type { RecordingStep } from "../../src/conversation/recording.ts";
import type { MarkSites } from "../../src/conversation/marks.ts";
import { markedItem } from "../../src/conversation/report_layout.ts";
import { AI_SDK_SITES } from "./marks.ts";

type Json = Record<string, unknown>;

/** The Anthropic Messages body of an AI SDK step. */
export function aiSdkWireBody(
  head: Json,
  history: readonly unknown[],
  marks: RecordingStep["marks"],
): Json {
  const body: Json = { system: systemOf(head.system) };
  body.messages = messagesOf(withMarks(history, marks));
  return { ...body, ...toolFields(head) };
}

/** The body of an AI SDK step but for its `messages`. */
export function aiSdkFields(head: Json): Json {
  return { system: systemOf(head.system), ...toolFields(head) };
}

function toolFields(head: Json): Json {
  const tools = Array.isArray(head.tools) ? head.tools.map(toolOf) : [];
  return tools.length === 0 ? {} : { tools, tool_choice: { type: "auto" } };
}

/** `providerOptions.anthropic.cacheControl`, or nothing. */
function cacheControlOf(value: unknown): Json {
  if (!isObject(value) || !isObject(value.providerOptions)) return {};
  const anthropic = value.providerOptions.anthropic;
  if (!isObject(anthropic)) return {};
  const control = anthropic.cacheControl ?? anthropic.cache_control;
  return control === undefined ? {} : { cache_control: control };
}

function systemOf(system: unknown): Json[] {
  if (typeof system === "string") {
    return system === "" ? [] : [{ type: "text", text: system }];
  }
  if (!Array.isArray(system)) return [];
  return system.filter(isObject).map((message) => ({
    type: "text",
    text: String(message.content ?? ""),
    ...cacheControlOf(message),
  }));
}

function toolOf(entry: unknown): Json {
  const tool = isObject(entry) ? entry : {};
  return {
    name: tool.name,
    ...(tool.description === undefined
      ? {}
      : { description: tool.description }),
    ...(tool.inputSchema === undefined
      ? {}
      : { input_schema: tool.inputSchema }),
    ...cacheControlOf(tool),
  };
}

/** Each mark put back on its part as the form sets it. */
function withMarks(
  history: readonly unknown[],
  marks: RecordingStep["marks"],
): unknown[] {
  const result = [...history];
  for (const { message, block, mark } of marks) {
    const marked = markedItem(
      result[message],
      block,
      mark,
      AI_SDK_SITES as MarkSites<unknown>,
    );
    if (marked !== result[message]) result[message] = marked;
  }
  return result;
}

/** The role of the provider message an AI SDK message joins. */
export function groupRole(message: Json): "user" | "assistant" {
  return message.role === "assistant" ? "assistant" : "user";
}

/** The messages grouped and converted as the provider does. */
function messagesOf(history: readonly unknown[]): Json[] {
  const groups: { role: "user" | "assistant"; messages: Json[] }[] = [];
  for (const message of history) {
    if (!isObject(message)) continue;
    const role = groupRole(message);
    const last = groups.at(-1);
    if (last?.role === role) last.messages.push(message);
    else groups.push({ role, messages: [message] });
  }
  const result: Json[] = [];
  groups.forEach((group, index) => {
    const item = groupMessage(group, index === groups.length - 1);
    if (item !== undefined) result.push(item);
  });
  return result;
}

/**
 * The provider message of one group of consecutive AI SDK messages of one
 * role (`last`: the body's last group), or none for an assistant group
 * with nothing to send.
 */
export function groupMessage(
  group: { role: "user" | "assistant"; messages: readonly Json[] },
  last: boolean,
): Json | undefined {
  const content = group.role === "user"
    ? group.messages.flatMap(userParts)
    : assistantContent(group.messages, last);
  return group.role === "user" || content.length > 0
    ? { role: group.role, content }
    : undefined;
}

function partsOf(message: Json): Json[] {
  if (typeof message.content === "string") {
    return [{ type: "text", text: message.content }];
  }
  return Array.isArray(message.content) ? message.content.filter(isObject) : [];
}

/** A user or tool message's blocks; the message's mark on its last. */
function userParts(message: Json): Json[] {
  const parts = partsOf(message).filter((part) =>
    part.type !== "tool-approval-response"
  );
  return parts.map((part, index) => {
    const control = {
      ...(index === parts.length - 1 ? cacheControlOf(message) : {}),
      ...cacheControlOf(part),
    };
    if (part.type === "text") {
      return { type: "text", text: part.text, ...control };
    }
    if (part.type === "tool-result") {
      const output = isObject(part.output) ? part.output : {};
      const error = output.type === "error-text" ||
        output.type === "error-json";
      return {
        type: "tool_result",
        tool_use_id: part.toolCallId,
        content: resultContent(output),
        ...(error ? { is_error: true } : {}),
        ...cacheControlOf(output),
        ...control,
      };
    }
    // A file or another part: its own bytes stand for the provider's.
    const { providerOptions: _, ...rest } = part;
    return { ...rest, ...control };
  });
}

function resultContent(output: Json): unknown {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "execution-denied":
      return output.reason ?? "Tool call execution denied.";
    case "content":
      return Array.isArray(output.value)
        ? output.value.filter(isObject).map((part) =>
          part.type === "text" ? { type: "text", text: part.text } : part
        )
        : output.value;
    default:
      return JSON.stringify(output.value);
  }
}

/** An assistant group's blocks, tool calls after the texts they follow. */
function assistantContent(
  messages: readonly Json[],
  lastGroup: boolean,
): Json[] {
  const content: Json[] = [];
  messages.forEach((message, at) => {
    const parts = partsOf(message).filter((part) =>
      part.type !== "text" || String(part.text ?? "").length > 0
    );
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const control = {
        ...(last ? cacheControlOf(message) : {}),
        ...cacheControlOf(part),
      };
      const anthropic = isObject(part.providerOptions) &&
          isObject(part.providerOptions.anthropic)
        ? part.providerOptions.anthropic
        : {};
      if (part.type === "text") {
        const text = String(part.text);
        content.push({
          type: "text",
          text: lastGroup && at === messages.length - 1 && last
            ? text.trim()
            : text,
          ...(anthropic.citations == null
            ? {}
            : { citations: anthropic.citations }),
          ...control,
        });
      } else if (part.type === "reasoning") {
        if (typeof anthropic.signature === "string") {
          content.push({
            type: "thinking",
            thinking: part.text,
            signature: anthropic.signature,
          });
        } else if (typeof anthropic.redactedData === "string") {
          content.push({
            type: "redacted_thinking",
            data: anthropic.redactedData,
          });
        }
      } else if (part.type === "tool-call" && part.providerExecuted !== true) {
        content.push({
          type: "tool_use",
          id: part.toolCallId,
          name: part.toolName,
          input: part.input,
          ...control,
        });
      }
    });
  });
  return toolUsesLast(content);
}

/** `tool_use` blocks after the other blocks of each run between thinking. */
function toolUsesLast(content: readonly Json[]): Json[] {
  const result: Json[] = [];
  let run: Json[] = [];
  const flush = () => {
    result.push(
      ...run.filter((part) => part.type !== "tool_use"),
      ...run.filter((part) => part.type === "tool_use"),
    );
    run = [];
  };
  for (const part of content) {
    if (part.type === "thinking" || part.type === "redacted_thinking") {
      flush();
      result.push(part);
    } else run.push(part);
  }
  flush();
  return result;
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
