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
import { agent, continues, markCount, schema } from "./helpers.ts";
import {
  anthropicMessage,
  chatCompletion,
  openaiResponse,
  withScript,
} from "../adapters/loopback.ts";

const USAGE = { input_tokens: 100, output_tokens: 5 };

function anthropicReply(content: unknown[]): unknown {
  return anthropicMessage(content, USAGE);
}

function chatReply(message: Record<string, unknown>): unknown {
  return chatCompletion(message, USAGE);
}

function responsesReply(output: Record<string, unknown>[]): unknown {
  return openaiResponse(output, USAGE);
}

/** An `openai` client that talks to the loopback server, with no retries. */
function openaiClient(baseURL: string): OpenAI {
  return new OpenAI({ apiKey: "sk-loopback", baseURL, maxRetries: 0 });
}

/** A completed Responses `function_call` item numbered `n`. */
function functionCall(
  n: number,
  name: string,
  args: string,
): Record<string, unknown> {
  return {
    type: "function_call",
    id: `fc_${n}`,
    call_id: `call_${n}`,
    name,
    arguments: args,
    status: "completed",
  };
}

/**
 * The three steps every form takes: "Fix the test." answered with a tool
 * call, its result sent back, then the branch changes and "Thanks.".
 */
async function threeSteps<Answer>(
  a: ReturnType<typeof agent>,
  conv: {
    user(text: string): unknown;
    record(answer: Answer): readonly { id: string; name: string }[];
    toolResult(id: string, content: string): unknown;
  },
  send: () => Promise<Answer>,
): Promise<void> {
  conv.user("Fix the test.");
  for (let step = 0; step < 3; step++) {
    for (const call of conv.record(await send())) {
      conv.toolResult(call.id, `contents of ${call.name}`);
    }
    if (step === 1) {
      a.branch = "fix/test";
      conv.user("Thanks.");
    }
  }
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
        await threeSteps(a, conv, async () => {
          const message = await client.beta.messages.create(
            await conv.request(),
          );
          return message;
        });
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
        const client = openaiClient(baseURL);
        const conv = chatConversation(a.prompt, {
          model: "gpt-loopback",
          cache: true,
        });
        await threeSteps(a, conv, async () => {
          const completion: OpenAI.Chat.ChatCompletion = await client.chat
            .completions.create(await conv.request());
          return completion;
        });
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
        responsesReply([functionCall(1, "read_file", '{"path":"a.ts"}')]),
        responsesReply([message("Fixed.")]),
        responsesReply([message("Bye.")]),
      ];
      await withScript(replies, async (baseURL, received) => {
        const client = openaiClient(baseURL);
        const conv = responsesConversation(a.prompt, {
          model: "gpt-loopback",
          cache: true,
        });
        await threeSteps(a, conv, async () => {
          const response: OpenAI.Responses.Response = await client.responses
            .create(await conv.request(undefined, { awaiting: "person" }));
          return response;
        });
        checkBodies(received);
        const last = JSON.parse(received[2]);
        assert.deepEqual(last.prompt_cache_options, { ttl: "12h" });
        assert.equal(last.input[0].role, "system");
      });
      await a.prompt.dispose();
    });

    it("openai responses inline: an added tool in an additional_tools item", async () => {
      const a = agent();
      const replies = [
        responsesReply([functionCall(1, "read_file", '{"path":"a.ts"}')]),
        responsesReply([functionCall(2, "grep", '{"pattern":"x"}')]),
        responsesReply([]),
      ];
      await withScript(replies, async (baseURL, received) => {
        const client = openaiClient(baseURL);
        const conv = responsesConversation(a.prompt, {
          model: "gpt-loopback",
          cache: true,
          toolChanges: "inline",
        });
        let sent = 0;
        await threeSteps(a, conv, async () => {
          if (sent++ === 1) a.tools = [...a.tools, schema("grep")];
          const response: OpenAI.Responses.Response = await client.responses
            .create(await conv.request());
          return response;
        });
        checkBodies(received);
        const second = JSON.parse(received[1]);
        assert.deepEqual(
          second.input.slice(-3).map((item: { type?: string }) => item.type),
          ["function_call", "function_call_output", "additional_tools"],
        );
        assert.equal(second.input.at(-1).tools[0].name, "grep");
        assert.equal(second.tools.length, 2);
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
        await threeSteps(a, conv, async () => {
          const result = await generateText({
            model,
            maxRetries: 0,
            maxOutputTokens: 256,
            ...await conv.request(),
          });
          return result;
        });
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
