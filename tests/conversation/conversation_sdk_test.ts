// Deno-only: a three-step conversation with a tool round trip through the
// real `@anthropic-ai/sdk` and `openai` clients against a scripted loopback
// server. The bodies go to the clients' typed methods with no cast (the
// type proof is `deno check`), the SDKs' own answers go to record(), and
// the bodies received are checked for the prefix property and the marks.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  anthropicConversation,
  type AnthropicInlineConversationBody,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  type ChatConversationStreamingBody,
  responsesConversation,
} from "../../adapters/openai/mod.ts";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { agent, continues, markCount } from "./helpers.ts";
import { withScript } from "./scripted_loopback.ts";

const USAGE = { input_tokens: 100, output_tokens: 5 };

function anthropicReply(content: unknown[]): unknown {
  return {
    id: "msg_loopback",
    type: "message",
    role: "assistant",
    model: "claude-loopback",
    content,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: USAGE,
  };
}

function chatReply(message: Record<string, unknown>): unknown {
  return {
    id: "chatcmpl-loopback",
    object: "chat.completion",
    created: 0,
    model: "gpt-loopback",
    choices: [{
      index: 0,
      message: { refusal: null, ...message },
      finish_reason: "stop",
      logprobs: null,
    }],
    usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
  };
}

function responsesReply(output: Record<string, unknown>[]): unknown {
  return {
    id: "resp_loopback",
    object: "response",
    created_at: 0,
    status: "completed",
    model: "gpt-loopback",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 105,
    },
  };
}

/** Checks the prefix property and the marks of the bodies received. */
function checkBodies(received: string[]): void {
  const bodies = received.map((text) => JSON.parse(text));
  assert.equal(bodies.length, 3);
  const items = (body: { messages?: unknown[]; input?: unknown[] }) =>
    body.messages ?? body.input ?? [];
  for (let index = 0; index < bodies.length; index++) {
    assert.ok(markCount(bodies[index]) <= 4);
    if (index > 0) {
      assert.ok(continues(items(bodies[index - 1]), items(bodies[index])));
      assert.equal(
        JSON.stringify(bodies[index].tools),
        JSON.stringify(bodies[0].tools),
      );
    }
  }
}

/** Type proof only (not called): an inline-tools body goes to the beta API. */
export function inlineTools(
  client: Anthropic,
  body: AnthropicInlineConversationBody,
): Promise<Anthropic.Beta.BetaMessage> {
  return client.beta.messages.create(body);
}

/** Type proof only (not called): a streaming body takes the streaming overload. */
export function streams(
  client: OpenAI,
  body: ChatConversationStreamingBody,
): Promise<AsyncIterable<OpenAI.Chat.ChatCompletionChunk>> {
  return client.chat.completions.create(body);
}

describe(
  "conversation through the SDK clients",
  { skip: SDK_PERMISSIONS },
  () => {
    it("@anthropic-ai/sdk: three steps with a tool round trip", async () => {
      const a = agent();
      const replies = [
        anthropicReply([
          { type: "thinking", thinking: "Read it.", signature: "c2ln" },
          {
            type: "tool_use",
            id: "toolu_1",
            name: "read_file",
            input: { path: "a.ts" },
          },
        ]),
        anthropicReply([{ type: "text", text: "Fixed.", citations: null }]),
        anthropicReply([{ type: "text", text: "Bye." }]),
      ];
      await withScript(replies, async (baseURL, received) => {
        const client = new Anthropic({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
        });
        const conv = anthropicConversation(a.prompt, {
          model: "claude-loopback",
          max_tokens: 256,
        });
        conv.user("Fix the test.");
        for (let step = 0; step < 3; step++) {
          const message: Anthropic.Message = await client.messages.create(
            await conv.request(),
          );
          for (const call of conv.record(message)) {
            conv.toolResult(call.id, `contents of ${call.name}`);
          }
          if (step === 1) {
            a.branch = "fix/test";
            conv.user("Thanks.");
          }
        }
        checkBodies(received);
        const last = JSON.parse(received[2]);
        assert.deepEqual(
          last.messages.map((m: { role: string }) => m.role),
          ["user", "assistant", "user", "assistant", "user"],
        );
        assert.equal(last.messages[1].content[0].signature, "c2ln");
      });
      await a.prompt.dispose();
    });

    it("openai: three steps with a tool round trip", async () => {
      const a = agent();
      const replies = [
        chatReply({
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.ts"}' },
          }],
        }),
        chatReply({ role: "assistant", content: "Fixed." }),
        chatReply({ role: "assistant", content: "Bye." }),
      ];
      await withScript(replies, async (baseURL, received) => {
        const client = new OpenAI({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
        });
        const conv = chatConversation(a.prompt, {
          model: "gpt-loopback",
          cache: true,
        });
        conv.user("Fix the test.");
        for (let step = 0; step < 3; step++) {
          const completion: OpenAI.Chat.ChatCompletion = await client.chat
            .completions.create(await conv.request());
          for (const call of conv.record(completion)) {
            conv.toolResult(call.id, `contents of ${call.name}`);
          }
          if (step === 1) {
            a.branch = "fix/test";
            conv.user("Thanks.");
          }
        }
        checkBodies(received);
        const keys = received.map((text) => JSON.parse(text).prompt_cache_key);
        assert.equal(new Set(keys).size, 1);
      });
      await a.prompt.dispose();
    });

    it("openai responses: three steps with a tool round trip", async () => {
      const a = agent();
      const message = (text: string) => ({
        type: "message",
        id: `msg_${text}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      });
      const replies = [
        responsesReply([{
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "read_file",
          arguments: '{"path":"a.ts"}',
          status: "completed",
        }]),
        responsesReply([message("Fixed.")]),
        responsesReply([message("Bye.")]),
      ];
      await withScript(replies, async (baseURL, received) => {
        const client = new OpenAI({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
        });
        const conv = responsesConversation(a.prompt, {
          model: "gpt-loopback",
          cache: true,
        });
        conv.user("Fix the test.");
        for (let step = 0; step < 3; step++) {
          const response: OpenAI.Responses.Response = await client.responses
            .create(await conv.request(undefined, { awaiting: "person" }));
          for (const call of conv.record(response)) {
            conv.toolResult(call.id, `contents of ${call.name}`);
          }
          if (step === 1) {
            a.branch = "fix/test";
            conv.user("Thanks.");
          }
        }
        checkBodies(received);
        const last = JSON.parse(received[2]);
        assert.deepEqual(last.prompt_cache_options, { ttl: "12h" });
        assert.equal(last.input[0].role, "system");
      });
      await a.prompt.dispose();
    });

    it("ai: three generateText calls with a tool round trip", async () => {
      const a = agent();
      const replies = [
        anthropicReply([{
          type: "tool_use",
          id: "toolu_1",
          name: "read_file",
          input: { path: "a.ts" },
        }]),
        anthropicReply([{ type: "text", text: "Fixed." }]),
        anthropicReply([{ type: "text", text: "Bye." }]),
      ];
      await withScript(replies, async (baseURL, received) => {
        const model = createAnthropic({ apiKey: "sk-loopback", baseURL })(
          "claude-loopback",
        );
        const conv = aiSdkConversation(a.prompt);
        conv.user("Fix the test.");
        for (let step = 0; step < 3; step++) {
          const result = await generateText({
            model,
            maxRetries: 0,
            maxOutputTokens: 256,
            ...await conv.request(),
          });
          for (const call of conv.record(result)) {
            conv.toolResult(call.id, `contents of ${call.name}`);
          }
          if (step === 1) {
            a.branch = "fix/test";
            conv.user("Thanks.");
          }
        }
        checkBodies(received);
        const last = JSON.parse(received[2]);
        assert.deepEqual(
          last.messages.map((m: { role: string }) => m.role),
          ["user", "assistant", "user", "assistant", "user"],
        );
        assert.ok(markCount(last) >= 2);
      });
      await a.prompt.dispose();
    });
  },
);
