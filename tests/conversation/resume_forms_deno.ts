/**
 * The four provider forms of the save-and-resume process tests
 * (`resume_deno_test.ts` and its process A, `process_a_deno.ts`; not a test
 * itself): how each starts and resumes a conversation, sends its next
 * request through the real SDK client to a loopback server, and what the
 * scripted server answers in that API's wire shape.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
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
import type { SystemPrompt, ToolCall } from "../../mod.ts";
import {
  anthropicMessage,
  chatCompletion,
  openaiResponse,
} from "../adapters/loopback.ts";

/** The forms, by the name process A takes as its argument. */
export const FORM_NAMES = [
  "anthropic",
  "anthropic-inline",
  "openai-chat",
  "openai-responses",
  "openai-responses-inline",
  "ai-sdk",
] as const;

/** One form's name. */
export type FormName = typeof FORM_NAMES[number];

/** What the process tests drive of a conversation. */
export interface Driven {
  readonly resumed?: { steps: number; truncated: boolean };
  readonly openCalls: readonly ToolCall[];
  user(input: string): void;
  toolResult(id: string, content: string): void;
  /** Builds the next request and sends it through the SDK client. */
  send(baseURL: string, awaiting?: "person"): Promise<unknown>;
  /** Records what the SDK client returned; the calls to run. */
  record(answer: unknown): readonly ToolCall[];
}

/** The options both processes give: where lines go, what time it is. */
export interface ProcessOptions {
  onRecord: (line: string) => void;
  clock: () => number;
}

/** One form: its conversation and its server's scripted replies. */
export interface SdkForm {
  start(prompt: SystemPrompt, options: ProcessOptions): Driven;
  resume(
    prompt: SystemPrompt,
    recording: string,
    options: ProcessOptions,
  ): Driven;
  /** The server's reply calling these tools, in the API's wire shape. */
  calls(calls: readonly { id: string; name: string }[]): unknown;
  /** The server's text reply, in the API's wire shape. */
  text(text: string): unknown;
  /** The history items of a request body the server received. */
  items(body: string): unknown[];
  /** Whether an added tool goes into the history (`toolChanges: "inline"`). */
  readonly inline: boolean;
}

/** Process A's simulated time: a Monday. */
export const MONDAY: number = Date.parse("2026-12-07T23:50:00Z");
/** Process B's simulated time: the next day. */
export const TUESDAY: number = Date.parse("2026-12-08T09:00:00Z");

const KEY = "sk-loopback";

interface Shell<Body, Answer> {
  readonly resumed?: { steps: number; truncated: boolean };
  readonly openCalls: readonly ToolCall[];
  user(input: string): void;
  toolResult(id: string, content: string): void;
  request(
    context?: undefined,
    options?: { awaiting?: "person" | "agent" },
  ): Promise<Body>;
  record(answer: Answer): ToolCall[];
}

function driven<Body, Answer>(
  conv: Shell<Body, Answer>,
  send: (baseURL: string, body: Body) => Promise<Answer>,
): Driven {
  return {
    get resumed() {
      return conv.resumed;
    },
    get openCalls() {
      return conv.openCalls;
    },
    user: (input) => conv.user(input),
    toolResult: (id, content) => conv.toolResult(id, content),
    send: async (baseURL, awaiting) =>
      send(baseURL, await conv.request(undefined, { awaiting })),
    record: (answer) => conv.record(answer as Answer),
  };
}

function anthropicClient(baseURL: string): Anthropic {
  return new Anthropic({ apiKey: KEY, baseURL, maxRetries: 0 });
}

function openaiClient(baseURL: string): OpenAI {
  return new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
}

function anthropicCalls(calls: readonly { id: string; name: string }[]) {
  return anthropicMessage(
    calls.map(({ id, name }) => ({ type: "tool_use", id, name, input: {} })),
  );
}

function anthropicText(text: string) {
  return anthropicMessage([{ type: "text", text }]);
}

function responsesCalls(calls: readonly { id: string; name: string }[]) {
  return openaiResponse(calls.map(({ id, name }) => ({
    type: "function_call",
    id: `fc_${id}`,
    call_id: id,
    name,
    arguments: "{}",
    status: "completed",
  })));
}

function responsesText(text: string) {
  return openaiResponse([{
    type: "message",
    id: "msg_loopback",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  }]);
}

const messages = (body: string): unknown[] => JSON.parse(body).messages;

/** Each form by name. */
export const SDK_FORMS: Record<FormName, SdkForm> = {
  "anthropic": {
    start: (prompt, options) =>
      driven(
        anthropicConversation(prompt, {
          model: "claude-loopback",
          max_tokens: 1024,
          ...options,
        }),
        (baseURL, body) => anthropicClient(baseURL).beta.messages.create(body),
      ),
    resume: (prompt, recording, options) =>
      driven(
        resumeAnthropicConversation(prompt, recording, options),
        (baseURL, body) => anthropicClient(baseURL).beta.messages.create(body),
      ),
    calls: anthropicCalls,
    text: anthropicText,
    items: messages,
    inline: false,
  },
  "anthropic-inline": {
    start: (prompt, options) =>
      driven(
        anthropicConversation(prompt, {
          model: "claude-loopback",
          max_tokens: 1024,
          toolChanges: "inline",
          ...options,
        }),
        (baseURL, body) => anthropicClient(baseURL).beta.messages.create(body),
      ),
    resume: (prompt, recording, options) =>
      driven(
        resumeAnthropicConversation(prompt, recording, {
          toolChanges: "inline",
          ...options,
        }),
        (baseURL, body) => anthropicClient(baseURL).beta.messages.create(body),
      ),
    calls: anthropicCalls,
    text: anthropicText,
    items: messages,
    inline: true,
  },
  "openai-chat": {
    start: (prompt, options) =>
      driven(
        chatConversation(prompt, {
          model: "gpt-loopback",
          cache: true,
          ...options,
        }),
        (baseURL, body) => openaiClient(baseURL).chat.completions.create(body),
      ),
    resume: (prompt, recording, options) =>
      driven(
        resumeChatConversation(prompt, recording, options),
        (baseURL, body) => openaiClient(baseURL).chat.completions.create(body),
      ),
    calls: (calls) =>
      chatCompletion({
        role: "assistant",
        content: null,
        tool_calls: calls.map(({ id, name }) => ({
          id,
          type: "function",
          function: { name, arguments: "{}" },
        })),
      }),
    text: (text) => chatCompletion({ role: "assistant", content: text }),
    items: messages,
    inline: false,
  },
  "openai-responses": {
    start: (prompt, options) =>
      driven(
        responsesConversation(prompt, {
          model: "gpt-loopback",
          cache: true,
          ...options,
        }),
        (baseURL, body) => openaiClient(baseURL).responses.create(body),
      ),
    resume: (prompt, recording, options) =>
      driven(
        resumeResponsesConversation(prompt, recording, options),
        (baseURL, body) => openaiClient(baseURL).responses.create(body),
      ),
    calls: responsesCalls,
    text: responsesText,
    items: (body) => JSON.parse(body).input,
    inline: false,
  },
  "openai-responses-inline": {
    start: (prompt, options) =>
      driven(
        responsesConversation(prompt, {
          model: "gpt-loopback",
          cache: true,
          toolChanges: "inline",
          ...options,
        }),
        (baseURL, body) => openaiClient(baseURL).responses.create(body),
      ),
    resume: (prompt, recording, options) =>
      driven(
        resumeResponsesConversation(prompt, recording, {
          toolChanges: "inline",
          ...options,
        }),
        (baseURL, body) => openaiClient(baseURL).responses.create(body),
      ),
    calls: responsesCalls,
    text: responsesText,
    items: (body) => JSON.parse(body).input,
    inline: true,
  },
  "ai-sdk": {
    start: (prompt, options) =>
      driven(aiSdkConversation(prompt, options), generate),
    resume: (prompt, recording, options) =>
      driven(resumeAiSdkConversation(prompt, recording, options), generate),
    calls: anthropicCalls,
    text: anthropicText,
    items: messages,
    inline: false,
  },
};

/** One `generateText` call with `@ai-sdk/anthropic` at `baseURL`. */
function generate(
  baseURL: string,
  body: Awaited<
    ReturnType<ReturnType<typeof aiSdkConversation>["request"]>
  >,
) {
  const model = createAnthropic({ apiKey: KEY, baseURL })("claude-loopback");
  return generateText({ model, maxRetries: 0, maxOutputTokens: 256, ...body });
}
