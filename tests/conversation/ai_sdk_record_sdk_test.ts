// Deno-only: what the AI SDK returns is recorded as it is, through the real
// `generateText` and `streamText` of `ai` 7 (with `@ai-sdk/anthropic` 4)
// and `ai` 6 (with `@ai-sdk/anthropic` 3) against a scripted loopback
// server: an answer with one tool call, with two parallel calls, and text.
// A step that ends in tool calls has no `output` (its getter throws), which
// is what the Anthropic API's `stop_reason: "tool_use"` gives.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as ai7 from "ai";
import * as ai6 from "ai-6";
import { createAnthropic as createAnthropic4 } from "@ai-sdk/anthropic";
import { createAnthropic as createAnthropic3 } from "@ai-sdk/anthropic-3";
import {
  type AISDKAnswer,
  aiSdkConversation,
  type AISDKConversationBody,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { rejects } from "../assertions.ts";
import { agent } from "./helpers.ts";
import {
  anthropicMessage,
  anthropicStream,
  withScript,
} from "../adapters/loopback.ts";

const USAGE = { input_tokens: 100, output_tokens: 5 };

/** The model's first answer of each case, as Anthropic content blocks. */
const FIRST_ANSWERS: Record<string, Record<string, unknown>[]> = {
  "one tool call": [{
    type: "tool_use",
    id: "toolu_1",
    name: "read_file",
    input: { path: "a.ts" },
  }],
  "two parallel tool calls": [
    { type: "text", text: "Reading both." },
    { type: "tool_use", id: "toolu_1", name: "read_file", input: { p: 1 } },
    { type: "tool_use", id: "toolu_2", name: "shell", input: { cmd: "ls" } },
  ],
  "text": [{ type: "text", text: "Nothing to do." }],
};

/** What one SDK major sends a conversation's body with, and records. */
interface Sender {
  generate(baseURL: string, body: AISDKConversationBody): Promise<AISDKAnswer>;
  stream(baseURL: string, body: AISDKConversationBody): Promise<AISDKAnswer>;
}

const SETTINGS = { maxRetries: 0, maxOutputTokens: 256 };

const AI_7: Sender = {
  generate: async (baseURL, body) => {
    const model = createAnthropic4({ apiKey: "sk-loopback", baseURL })(
      "claude-loopback",
    );
    return await ai7.generateText({ model, ...SETTINGS, ...body });
  },
  stream: async (baseURL, body) => {
    const model = createAnthropic4({ apiKey: "sk-loopback", baseURL })(
      "claude-loopback",
    );
    const result = ai7.streamText({ model, ...SETTINGS, ...body });
    await result.consumeStream();
    return { response: await result.response, usage: await result.usage };
  },
};

// The conversation's types are the `ai` of this checkout's import map (7);
// a project on `ai` 6 type-checks the same calls against 6's own types
// (scripts/check_npm.ts), so here the body is handed over in 6's types.
type Ai6Body = {
  system: string | ai6.SystemModelMessage[];
  tools: ai6.ToolSet;
  messages: ai6.ModelMessage[];
};

const AI_6: Sender = {
  generate: async (baseURL, body) => {
    const model = createAnthropic3({ apiKey: "sk-loopback", baseURL })(
      "claude-loopback",
    );
    const result = await ai6.generateText({
      model,
      ...SETTINGS,
      ...body as unknown as Ai6Body,
    });
    return result as unknown as AISDKAnswer;
  },
  stream: async (baseURL, body) => {
    const model = createAnthropic3({ apiKey: "sk-loopback", baseURL })(
      "claude-loopback",
    );
    const result = ai6.streamText({
      model,
      ...SETTINGS,
      ...body as unknown as Ai6Body,
    });
    await result.consumeStream();
    return {
      response: await result.response,
      usage: await result.usage,
    } as unknown as AISDKAnswer;
  },
};

/** The tool calls an answer's content asks for. */
function callsOf(content: Record<string, unknown>[]): unknown[] {
  return content.filter((block) => block.type === "tool_use").map((
    block,
  ) => ({ id: block.id, name: block.name, input: block.input }));
}

describe(
  "AI SDK answers recorded as returned",
  { skip: SDK_PERMISSIONS },
  () => {
    for (const [major, sender] of [["ai 7", AI_7], ["ai 6", AI_6]] as const) {
      for (const call of ["generateText", "streamText"] as const) {
        for (const [name, content] of Object.entries(FIRST_ANSWERS)) {
          it(`${major} ${call}: ${name}`, async () => {
            const a = agent();
            const first = anthropicMessage(content, USAGE);
            const second = anthropicMessage([{ type: "text", text: "Done." }]);
            const replies = call === "streamText"
              ? [anthropicStream(first), anthropicStream(second)]
              : [first, second];
            const send = call === "streamText"
              ? sender.stream
              : sender.generate;
            await withScript(replies, async (baseURL, received) => {
              const conv = aiSdkConversation(a.prompt);
              conv.user("Fix the test.");
              const calls = conv.record(
                await send(baseURL, await conv.request()),
              );
              assert.deepEqual(calls, callsOf(content));
              for (const open of calls) conv.toolResult(open.id, "ok");
              if (calls.length === 0) conv.user("Thanks.");
              assert.deepEqual(
                conv.record(await send(baseURL, await conv.request())),
                [],
              );
              const sent = JSON.parse(received[1]);
              const results = sent.messages[2].content.filter((
                block: { type: string },
              ) => block.type === "tool_result");
              assert.deepEqual(
                results.map((block: { tool_use_id: string }) =>
                  block.tool_use_id
                ),
                calls.map((open) => open.id),
              );
              assert.equal(
                conv.report({ countTokens: () => 1 }).requests.length,
                2,
              );
              const resumed = resumeAiSdkConversation(a.prompt, conv.save());
              conv.user("Go on.");
              resumed.user("Go on.");
              assert.equal(
                JSON.stringify(await resumed.request()),
                JSON.stringify(await conv.request()),
              );
            });
            await a.prompt.dispose();
          });
        }
      }
    }

    it("ai 7: a result ending in a tool call is another provider's answer to an Anthropic conversation", async () => {
      const a = agent();
      await withScript(
        [anthropicMessage(FIRST_ANSWERS["one tool call"])],
        async (baseURL) => {
          const conv = aiSdkConversation(a.prompt);
          conv.user("Fix the test.");
          const result = await AI_7.generate(baseURL, await conv.request());
          const other = anthropicConversation(a.prompt, {
            model: "claude-loopback",
            max_tokens: 256,
          });
          other.user("Fix the test.");
          await other.request();
          assert.throws(
            () => other.record(result as never),
            rejects("RESPONSE_OF_OTHER_PROVIDER", "an AI SDK"),
          );
        },
      );
      await a.prompt.dispose();
    });

    it("ai 7: a streamText result whose fields are still promises is INVALID_RESPONSE saying what to record", async () => {
      const a = agent();
      await withScript(
        [anthropicStream(anthropicMessage(FIRST_ANSWERS["one tool call"]))],
        async (baseURL) => {
          const model = createAnthropic4({ apiKey: "sk-loopback", baseURL })(
            "claude-loopback",
          );
          const conv = aiSdkConversation(a.prompt);
          conv.user("Fix the test.");
          const result = ai7.streamText({
            model,
            ...SETTINGS,
            ...await conv.request(),
          });
          await result.consumeStream();
          assert.throws(
            () => conv.record(result as never),
            rejects("INVALID_RESPONSE", "await result.response"),
          );
          assert.equal(conv.save().split("\n").filter(Boolean).length, 1);
          conv.record({
            response: await result.response,
            usage: await result.usage,
          });
          assert.equal(conv.openCalls.length, 1);
        },
      );
      await a.prompt.dispose();
    });
  },
);
