// Deno-only type proof: every adapter's output goes into the SDKs' own
// request types and typed methods with no cast. `deno check tests/` is the
// check; the runtime test below only confirms the fields land where stated.
// The SDKs are imported as types only, so nothing of them loads here.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type { generateText, LanguageModel, ModelMessage } from "ai";
import type { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { renderPrompt } from "../../mod.ts";
import { sampleAssembly, type TestAssembly } from "./fixtures.ts";

function chatParams(
  assembly: TestAssembly,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const { system, runtimeContext, tools } = toChatCompletions(assembly, {
    strict: true,
  });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [system];
  if (runtimeContext) messages.push(runtimeContext);
  return { model: "gpt-5", messages, tools };
}

function responsesParams(
  assembly: TestAssembly,
): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const { instructions, runtimeContext, tools } = toResponses(assembly);
  return {
    model: "gpt-5",
    instructions,
    input: runtimeContext ? [runtimeContext] : "Hello.",
    tools,
  };
}

function messagesParams(
  assembly: TestAssembly,
): Anthropic.MessageCreateParamsNonStreaming {
  const { system, tools, runtimeContext } = toMessages(assembly, {
    cache: { ttl: "1h" },
  });
  const messages: Anthropic.MessageParam[] = runtimeContext
    ? [runtimeContext]
    : [];
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system,
    tools,
    messages,
  };
}

/** With `cache` and gates: parts, marks, tool_choice and the key, no cast. */
function cachedChatParams(
  assembly: TestAssembly,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const { system, runtimeContext, tools, tool_choice, prompt_cache_key } =
    toChatCompletions({ ...assembly, activeTools: ["shell"] }, {
      cache: { ttl: "12h" },
      toolChoiceMode: "required",
    });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [system];
  if (runtimeContext) messages.push(runtimeContext);
  return { model: "gpt-5.6", messages, tools, tool_choice, prompt_cache_key };
}

/** Responses with `cache`: `system` first in `input`, no `instructions`. */
function cachedResponsesParams(
  assembly: TestAssembly,
): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const { system, runtimeContext, tools, tool_choice, prompt_cache_key } =
    toResponses({ ...assembly, activeTools: [] }, { cache: true });
  const input: OpenAI.Responses.ResponseInput = [system];
  if (runtimeContext) input.push(runtimeContext);
  return { model: "gpt-5.6", input, tools, tool_choice, prompt_cache_key };
}

/** The allowed-tools choices are the SDK's own shapes. */
export function toolChoices(assembly: TestAssembly): [
  OpenAI.Chat.ChatCompletionToolChoiceOption | undefined,
  OpenAI.Responses.ResponseCreateParams["tool_choice"],
] {
  const gated = { ...assembly, activeTools: ["shell"] };
  return [
    toChatCompletions(gated).tool_choice,
    toResponses(gated).tool_choice,
  ];
}

/** The typed client methods take the fields as they are. */
export function sendAll(
  openai: OpenAI,
  anthropic: Anthropic,
  assembly: TestAssembly,
): Promise<unknown>[] {
  const chat = toChatCompletions(assembly);
  const responses = toResponses(assembly, { strict: false });
  const messages = toMessages(assembly, {
    cache: true,
    maxCacheBreakpoints: 2,
  });
  return [
    openai.chat.completions.create({
      model: "gpt-5",
      messages: [chat.system],
      tools: chat.tools,
    }),
    openai.responses.create({
      model: "gpt-5",
      instructions: responses.instructions,
      input: "Hello.",
      tools: responses.tools,
    }),
    anthropic.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: messages.system,
      tools: messages.tools,
      messages: messages.runtimeContext ? [messages.runtimeContext] : [],
    }),
  ];
}

/** The AI SDK's `generateText` takes `toAISDK`'s fields as they are. */
export function aiSdkParams(
  fields: ReturnType<typeof toAISDK>,
  model: LanguageModel,
): Parameters<typeof generateText>[0] {
  const messages: ModelMessage[] = fields.runtimeContext
    ? [fields.runtimeContext]
    : [{ role: "user", content: "Hello." }];
  return { model, system: fields.system, tools: fields.tools, messages };
}

describe("adapter outputs typed as the SDKs' requests", () => {
  it("land in the request fields unchanged", () => {
    const assembly = sampleAssembly();
    const prompt = renderPrompt(assembly);
    assert.deepEqual(chatParams(assembly).messages, [
      { role: "system", content: prompt },
      { role: "user", content: "Today is Monday." },
    ]);
    assert.equal(responsesParams(assembly).instructions, prompt);
    const messages = messagesParams(assembly);
    assert.deepEqual(
      messages.tools,
      toMessages(assembly, { cache: { ttl: "1h" } }).tools,
    );
    assert.deepEqual(messages.messages, [{
      role: "user",
      content: "Today is Monday.",
    }]);
    const cached = cachedChatParams(assembly);
    assert.equal(typeof cached.prompt_cache_key, "string");
    assert.deepEqual(cached.tool_choice, {
      type: "allowed_tools",
      allowed_tools: {
        mode: "required",
        tools: [{ type: "function", function: { name: "shell" } }],
      },
    });
    const cachedResponses = cachedResponsesParams(assembly);
    assert.equal("instructions" in cachedResponses, false);
    assert.equal(cachedResponses.tool_choice, "none");
  });
});
