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
// to the Bedrock server of tests/adapters/loopback_caches.ts, and a
// client-side summary through `@ai-sdk/google` to its Gemini server.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  aiSdkConversation,
  type AISDKConversationBody,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { openaiServer } from "../adapters/compaction_server.ts";
import { anthropicServer } from "../adapters/thinking_server.ts";
import {
  bedrockServer,
  geminiServer,
  withCacheServer,
} from "../adapters/loopback_caches.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { REASONING_OMITTED } from "../../adapters/_kit/form_options.ts";

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

describe(
  "a background compaction through ai, an answer of reasoning alone carried",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    const providers = {
      "@ai-sdk/amazon-bedrock": {
        server: () => bedrockServer(256),
        model: (url: string) =>
          createAmazonBedrock({
            region: "us-east-1",
            accessKeyId: "AKIDLOOPBACK",
            secretAccessKey: "loopback",
            baseURL: url,
          })("anthropic.claude-sonnet-4-5"),
      },
      "@ai-sdk/google": {
        server: () => geminiServer(256),
        model: (url: string) =>
          createGoogleGenerativeAI({
            apiKey: "loopback",
            baseURL: `${url}/v1beta`,
          })("gemini-3-flash"),
      },
    };
    for (const [name, provider] of Object.entries(providers)) {
      it(`${name}: the turn keeps its place as a text, and the API takes the next request`, async () => {
        await withCacheServer(provider.server, async (url, server) => {
          const model = provider.model(url);
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
          // The instruction and the summary, the person's turn, the model's
          // turn without its reasoning (bound to the longer prefix), which
          // says so, and the person's next turn: the roles alternate ...
          assert.deepEqual(body.messages.map((message) => message.role), [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
          ]);
          assert.deepEqual(body.messages[3], {
            role: "assistant",
            content: [{ type: "text", text: REASONING_OMITTED }],
          });
          await send(body);
          // ... and the API takes them (the server refuses turns that do not
          // alternate, as the API does).
          assert.deepEqual(server.rejections, []);
          await prompt.dispose();
        });
      });
    }
  },
);

describe("a client-side summary through ai with @ai-sdk/google", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("the instruction, then the summary as the model's turn: Gemini takes the next request", async () => {
    await withCacheServer(() => geminiServer(256), async (url, server) => {
      const model = createGoogleGenerativeAI({
        apiKey: "loopback",
        baseURL: `${url}/v1beta`,
      })("gemini-3-flash");
      const prompt = registry();
      const conv = aiSdkConversation(prompt);
      const send = (body: AISDKConversationBody) =>
        ai.generateText({ model, maxRetries: 0, ...body });
      conv.user("Task 0.");
      conv.record(await send(await conv.request()));
      const compaction = await conv.compact();
      compaction.record(await send(compaction.body));
      const saved = conv.save();
      conv.user("Task 1.");
      const body = await conv.request();
      // @ai-sdk/google sends each message as a turn of its own: the
      // server refuses two user turns in a row, as Gemini does.
      await send(body);
      assert.deepEqual(server.rejections, []);
      const contents = server.bodies.at(-1)!.contents as {
        role: string;
        parts: { text?: string }[];
      }[];
      assert.deepEqual(contents.map((content) => content.role), [
        "user",
        "model",
        "user",
      ]);
      assert.match(contents[0].parts[0].text!, /^Summarize the conversation/);
      assert.deepEqual(contents[1].parts, [{ text: "ok" }]);
      // What the summary dropped is told again, with the person's message.
      assert.match(JSON.stringify(contents[2].parts), /Task 1\..*On main\./);
      // Resumed from the compaction, the same bytes.
      const resumed = resumeAiSdkConversation(prompt, saved);
      resumed.user("Task 1.");
      assert.deepEqual(await resumed.request(), body);
      await prompt.dispose();
    });
  });
});
