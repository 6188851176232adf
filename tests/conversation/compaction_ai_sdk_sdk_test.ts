// Deno-only: the providers' server-side compaction through the AI SDK
// (issue 47, SPEC 10.2), through the real `ai` package with
// `@ai-sdk/openai` and `@ai-sdk/anthropic` against the loopback servers
// that enforce the providers' compaction rules (tests/adapters/
// compaction_server.ts, thinking_server.ts). OpenAI Responses'
// `context_management` rides `@ai-sdk/openai`'s provider options and its
// compaction item comes back as a part the conversation records; Anthropic's
// block loses its `encrypted_content` and `tool_changes` in
// `@ai-sdk/anthropic`, so the conversation refuses it before the API would.
// A background compaction's carried turns through `@ai-sdk/amazon-bedrock`
// to the Bedrock server of tests/adapters/loopback_caches.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  aiSdkConversation,
  type AISDKConversationBody,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { openaiServer } from "../adapters/compaction_server.ts";
import { anthropicServer } from "../adapters/thinking_server.ts";
import { bedrockServer, withCacheServer } from "../adapters/loopback_caches.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";

const THRESHOLD = 1_000;
const NOTE = "a line of the file under test; ".repeat(10);

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Keep every change small and run the tests after it. ".repeat(20),
  });
  prompt.runtimeContext({ name: "git", order: 0, text: "On main." });
  return prompt;
}

const isCompaction = (part: unknown) =>
  (part as { type?: string }).type === "custom" &&
  (part as { kind?: string }).kind === "openai.compaction";

describe("serverCompaction through ai with @ai-sdk/openai (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("context_management rides the provider options; the compaction item starts the history", async () => {
    const server = openaiServer({ minimumCacheTokens: 64 });
    await serveLoopback(server.answer, async (baseURL) => {
      const model = createOpenAI({ apiKey: "sk-loopback", baseURL })(
        "gpt-5.6",
      );
      const prompt = registry();
      const options = {
        cache: false,
        serverCompaction: { threshold: THRESHOLD },
      };
      const conv = aiSdkConversation(prompt, options);
      const send = (body: AISDKConversationBody) =>
        ai.generateText({
          model,
          maxRetries: 0,
          ...body,
          // The body's provider options, with this harness's own merged in.
          providerOptions: {
            openai: { ...body.providerOptions!.openai, store: false },
          },
        });
      let resumed: typeof conv | undefined;
      for (let turn = 0; turn < 30; turn++) {
        conv.user(`Task ${turn}: ${NOTE}`);
        resumed?.user(`Task ${turn}: ${NOTE}`);
        const body = await conv.request();
        if (resumed !== undefined) {
          assert.deepEqual(await resumed.request(), body, `turn ${turn}`);
        }
        assert.deepEqual(body.providerOptions, {
          openai: {
            contextManagement: [{
              type: "compaction",
              compactThreshold: THRESHOLD,
            }],
          },
        });
        const answer = await send(body);
        assert.deepEqual(conv.record(answer), []);
        resumed?.record(answer);
        // Resumed right after the first compaction: the same bytes after.
        if (resumed === undefined && server.accepted.at(-1)!.compacted) {
          resumed = resumeAiSdkConversation(prompt, conv.save());
        }
      }
      assert.deepEqual(server.rejections, []);
      const compacted = server.accepted.flatMap((request, index) =>
        request.compacted ? [index] : []
      );
      assert.ok(compacted.length >= 2, `compacted at ${compacted}`);
      assert.ok(resumed !== undefined);
      const lines = conv.save().trim().split("\n").slice(1).map((line) =>
        JSON.parse(line)
      );
      for (const index of compacted) {
        assert.equal(lines[index].compacted, true, `step ${index + 1}`);
        // The next request: the system, then the compaction item, and
        // nothing of the history before it.
        const input = server.accepted[index + 1].body.input as Record<
          string,
          unknown
        >[];
        assert.equal(input[0].role, "developer");
        assert.equal(input[1].type, "compaction");
        assert.equal(server.accepted[index + 1].start, 1);
        // What the provider's compaction dropped is told again.
        assert.match(JSON.stringify(input.slice(2)), /On main\./);
      }
      // The report counts each: the rewrite after it judged `compaction`.
      const verdicts = conv.report({ countTokens: (text) => text.length / 4 })
        .requests.map((request) => request.judgement?.verdict);
      assert.equal(
        verdicts.filter((verdict) => verdict === "compaction").length,
        compacted.filter((index) => index + 1 < verdicts.length).length,
        verdicts.join(),
      );
      const first = conv.messages[0] as { content: unknown[] };
      assert.ok(first.content.some(isCompaction));
      await prompt.dispose();
    });
  });

  it("refuses a serverCompaction other than { threshold }", () => {
    for (const serverCompaction of [{ trigger: 1000 }, { threshold: 0 }, 5]) {
      assert.throws(
        () =>
          aiSdkConversation(new SystemPrompt(), { serverCompaction } as never),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "INVALID_CONFIG" &&
          /serverCompaction/.test(error.message),
      );
    }
  });
});

describe("Anthropic compaction through ai with @ai-sdk/anthropic (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a compaction block comes back without encrypted_content: refused, nothing recorded", async () => {
    const server = anthropicServer({
      minimumCacheTokens: 64,
      script: () => [{ type: "text", text: "ok" }],
    });
    await serveLoopback(server.answer, async (baseURL) => {
      const raw: { content: Record<string, unknown>[] }[] = [];
      const model = createAnthropic({
        apiKey: "sk-loopback",
        baseURL: `${baseURL}/v1`,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          raw.push(await response.clone().json());
          return response;
        },
      })("claude-fable-5-1");
      const prompt = registry();
      const conv = aiSdkConversation(prompt);
      conv.user(`Task 0: ${NOTE.repeat(8)}`);
      const body = await conv.request();
      const answer = await ai.generateText({
        model,
        maxRetries: 0,
        ...body,
        providerOptions: {
          anthropic: {
            contextManagement: {
              edits: [{
                type: "compact_20260112",
                trigger: { type: "input_tokens", value: 100 },
              }],
            },
          },
        },
      });
      // What @ai-sdk/anthropic made of the server's block.
      assert.equal(server.accepted[0].stopReason, "end_turn");
      const block = raw[0].content[0];
      assert.equal(block.type, "compaction");
      assert.ok(typeof block.encrypted_content === "string");
      const part = answer.response.messages[0].content[0] as unknown as {
        providerOptions: { anthropic: Record<string, unknown> };
      };
      assert.equal(part.providerOptions.anthropic.type, "compaction");
      assert.equal(part.providerOptions.anthropic.encrypted_content, undefined);
      const saved = conv.save();
      assert.throws(
        () => conv.record(answer),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "COMPACTION_UNSUPPORTED" &&
          /encrypted_content/.test(error.message),
      );
      assert.equal(conv.save(), saved);
      await prompt.dispose();
    });
  });
});

describe("a background compaction through ai with @ai-sdk/amazon-bedrock", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("an answer of reasoning alone is left out; the person's turns around it go as one Converse turn", async () => {
    await withCacheServer(() => bedrockServer(256), async (url, server) => {
      const model = createAmazonBedrock({
        region: "us-east-1",
        accessKeyId: "AKIDLOOPBACK",
        secretAccessKey: "loopback",
        baseURL: url,
      })("anthropic.claude-sonnet-4-5");
      const prompt = registry();
      const conv = aiSdkConversation(prompt, { cache: false });
      const send = (body: AISDKConversationBody) =>
        ai.generateText({ model, maxRetries: 0, ...body });
      conv.user("Task 0.");
      conv.record(await send(await conv.request()));
      const compaction = await conv.compact();
      const summary = await send(compaction.body);
      // While it runs, the model answers with its reasoning alone.
      conv.user("Task 1.");
      await send(await conv.request());
      conv.record({
        response: {
          messages: [{
            role: "assistant",
            content: [{
              type: "reasoning",
              text: "Hm.",
              providerOptions: { bedrock: { signature: "sig" } },
            }],
          }],
        },
        usage: { inputTokens: 1, outputTokens: 1 },
      });
      compaction.record(summary);
      conv.user("Go on.");
      const body = await conv.request();
      // The summary, then the person's two turns: the model's turn of
      // reasoning alone is left out (its reasoning is bound to the longer
      // prefix) ...
      assert.deepEqual(body.messages.map((message) => message.role), [
        "user",
        "user",
        "user",
      ]);
      await send(body);
      // ... and @ai-sdk/amazon-bedrock joins consecutive user messages into
      // one turn, which Converse takes (the server refuses turns that do
      // not alternate, as the API does).
      assert.deepEqual(server.rejections, []);
      const sent = server.bodies.at(-1)!.messages as {
        role: string;
        content: { text?: string }[];
      }[];
      assert.deepEqual(sent.map((message) => message.role), ["user"]);
      assert.match(JSON.stringify(sent[0].content), /Task 1\..*Go on\./);
      await prompt.dispose();
    });
  });
});
