/**
 * `./otel` records one span per request through the real
 * `@opentelemetry/sdk-trace-base` in-memory exporter, with the GenAI
 * semantic-convention attributes spelled as `@opentelemetry/semantic-conventions`
 * 1.45.0 spells them, the opt-in content attributes only on opt-in, and
 * the `rxprompt.*` attributes from a real registry's explanation and a
 * judgement; without `@opentelemetry/api` it rejects with
 * `MISSING_PEER_DEPENDENCY`.
 */

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { SpanKind } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  anthropicConversation,
  toMessages,
} from "../../adapters/anthropic/mod.ts";
import { promptCacheKey } from "../../adapters/openai/mod.ts";
import { converseConversation } from "../../adapters/bedrock/mod.ts";
import { geminiConversation } from "../../adapters/gemini/mod.ts";
import {
  conversationSpans,
  recordRequestSpan,
  requestSpanAttributes,
} from "../../adapters/otel/mod.ts";
import { loadOtelApi, resetOtelApi } from "../../adapters/otel/api.ts";
import { judgeRequest, readReportedUsage } from "../../adapters/cache/mod.ts";
import {
  anthropicMessage,
  anthropicUsage,
} from "../cache/report/reported_fixtures.ts";

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, tracer: provider.getTracer("test") };
}

const anthropicBody = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  tools: [{
    name: "read_file",
    description: "Read a file.",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  }],
  system: [{ type: "text", text: "You are a coding agent." }],
  messages: [{ role: "user", content: "Fix the test." }],
};
const usage = readReportedUsage(
  anthropicMessage("msg_01", anthropicUsage(20, 4096, { "5m": 300 })),
  "anthropic",
);

describe("recordRequestSpan", () => {
  afterEach(() => resetOtelApi());

  it("records one CLIENT span with the GenAI attributes", async () => {
    const { exporter, tracer } = tracing();
    await recordRequestSpan({
      provider: "anthropic",
      body: anthropicBody,
      usage,
      conversationId: "conv_1",
      startTime: 1_700_000_000_000,
      endTime: 1_700_000_001_500,
    }, { tracer });
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 1);
    const [span] = spans;
    assert.equal(span.name, "chat claude-sonnet-4-5");
    assert.equal(span.kind, SpanKind.CLIENT);
    assert.deepEqual(span.attributes, {
      [ATTR_GEN_AI_OPERATION_NAME]: "chat",
      [ATTR_GEN_AI_PROVIDER_NAME]: "anthropic",
      [ATTR_GEN_AI_REQUEST_MODEL]: "claude-sonnet-4-5",
      [ATTR_GEN_AI_CONVERSATION_ID]: "conv_1",
      [ATTR_GEN_AI_RESPONSE_ID]: "msg_01",
      [ATTR_GEN_AI_RESPONSE_MODEL]: "claude-sonnet-4-5",
      // Anthropic's input_tokens plus its cache reads and writes.
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 20 + 4096 + 300,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 212,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 4096,
      [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 300,
    });
    // 1.5 s between the request's times.
    assert.deepEqual(span.duration, [1, 500_000_000]);
  });

  it("records the system instructions and tool definitions on opt-in only", () => {
    const plain = requestSpanAttributes({
      provider: "anthropic",
      body: anthropicBody,
    });
    assert.equal(plain[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS], undefined);
    assert.equal(plain[ATTR_GEN_AI_TOOL_DEFINITIONS], undefined);
    const opted = requestSpanAttributes(
      { provider: "anthropic", body: anthropicBody },
      { recordSystemInstructions: true, recordToolDefinitions: true },
    );
    assert.deepEqual(
      JSON.parse(String(opted[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS])),
      [{ type: "text", content: "You are a coding agent." }],
    );
    assert.deepEqual(JSON.parse(String(opted[ATTR_GEN_AI_TOOL_DEFINITIONS])), [{
      type: "function",
      name: "read_file",
      description: "Read a file.",
      parameters: anthropicBody.tools[0].input_schema,
    }]);
  });

  it("reads the OpenAI shapes' instructions and tools", () => {
    const options = {
      recordSystemInstructions: true,
      recordToolDefinitions: true,
    };
    const chat = requestSpanAttributes({
      provider: "openai",
      body: {
        model: "gpt-5.6",
        tools: [{
          type: "function",
          function: { name: "shell", description: "Run.", parameters: {} },
        }],
        messages: [
          { role: "developer", content: "Be brief." },
          { role: "user", content: "Hi." },
          { role: "system", content: "not an instruction: after the user" },
        ],
      },
    }, options);
    assert.deepEqual(
      JSON.parse(String(chat[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS])),
      [
        { type: "text", content: "Be brief." },
      ],
    );
    assert.deepEqual(JSON.parse(String(chat[ATTR_GEN_AI_TOOL_DEFINITIONS])), [
      { type: "function", name: "shell", description: "Run.", parameters: {} },
    ]);
    const responses = requestSpanAttributes({
      provider: "openai",
      body: { model: "gpt-5.6", instructions: "Be kind.", input: "Hi." },
    }, options);
    assert.deepEqual(
      JSON.parse(String(responses[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS])),
      [{ type: "text", content: "Be kind." }],
    );
  });

  it("names the contributors, the prefix hash and the verdict", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.section({
        name: "rules",
        order: 10,
        text: "House rules. ".repeat(400),
        cacheBreakpoint: true,
      });
      const git = prompt.fork({ label: "git" });
      let branch = "main";
      git.variable("branch", () => branch);
      git.section({ name: "git", order: 20, text: "Branch {{branch}}." });
      git.tools(() => ({
        schemas: [{ name: "git_log", description: "Log.", parameters: {} }],
      }));
      const before = await prompt.explain();
      branch = "fix/cache";
      const after = await prompt.explain();
      const body = (explanation: typeof before) => ({
        model: "claude-sonnet-4-5",
        ...toMessages(explanation.assembly, { cache: true }),
        messages: [{ role: "user", content: "Go." }],
      });
      const answered = (read: number, written: number) =>
        readReportedUsage(
          anthropicMessage("msg", anthropicUsage(5, read, { "5m": written })),
          "anthropic",
        );
      const judgement = judgeRequest({
        previous: {
          body: body(before),
          usage: answered(0, 1320),
          explanation: before,
        },
        current: {
          body: body(after),
          usage: answered(1300, 10),
          explanation: after,
        },
      }, {
        provider: "anthropic",
        countTokens: (t) => Math.ceil(t.length / 4),
      });
      assert.equal(judgement.missed, false); // the rules block still read
      const { exporter, tracer } = tracing();
      await recordRequestSpan({
        provider: "anthropic",
        body: body(after),
        explanation: after,
        judgement: {
          ...judgement,
          missed: true,
          verdict: "layout",
          change: { region: "system", block: "system:1" },
          contributor: {
            kind: "section",
            name: "git",
            change: "changed",
            registrar: "registry/git",
            layer: "global",
          },
        },
      }, { tracer });
      const { attributes } = exporter.getFinishedSpans()[0];
      assert.deepEqual(attributes["rxprompt.system.contributors"], [
        "registry:rules",
        "registry/git:git",
      ]);
      assert.deepEqual(attributes["rxprompt.tool.contributors"], [
        "registry/git:git_log",
      ]);
      assert.equal(
        attributes["rxprompt.prefix.hash"],
        promptCacheKey(after.assembly),
      );
      assert.equal(attributes["rxprompt.cache.verdict"], "layout");
      assert.equal(attributes["rxprompt.cache.missed"], true);
      assert.equal(attributes["rxprompt.cache.change"], "system:1");
      assert.equal(
        attributes["rxprompt.cache.contributor"],
        "registry/git:section:git",
      );
    } finally {
      await prompt.dispose();
    }
  });

  it("rejects with MISSING_PEER_DEPENDENCY without @opentelemetry/api", async () => {
    const missing = new Error("Cannot find package '@opentelemetry/api'");
    const loading = loadOtelApi(() => Promise.reject(missing));
    const recording = recordRequestSpan({ provider: "openai", body: {} });
    for (const attempt of [loading, recording]) {
      await assert.rejects(attempt, (error) => {
        assert.ok(error instanceof SystemPromptError);
        assert.equal(error.code, "MISSING_PEER_DEPENDENCY");
        assert.match(error.message, /npm install @opentelemetry\/api/);
        assert.equal(error.cause, missing);
        return true;
      });
    }
    // A later attempt imports again (the failure is not kept).
    const api = await loadOtelApi();
    assert.equal(api.SpanKind.CLIENT, SpanKind.CLIENT);
  });
});

describe("conversationSpans", () => {
  afterEach(() => resetOtelApi());

  it("records a span per committed request of a conversation, with the verdict", async () => {
    const { exporter, tracer } = tracing();
    const spans = conversationSpans({ tracer });
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 10, text: "Rule. ".repeat(1500) });
    // An epoch time, as the default clock gives: the SDK takes a number
    // below performance.now() for a performance timestamp, so a small one
    // would depend on how long the test process has run.
    let now = 1_700_000_005_000;
    const conv = anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      diagnostics: true,
      clock: () => now,
      onRequest: spans,
    });
    const answers = [
      anthropicMessage("msg_01", anthropicUsage(10, 0, { "5m": 2300 })),
      anthropicMessage("msg_02", anthropicUsage(10, 0, { "5m": 2310 }), {
        type: "system_changed",
        cache_missed_input_tokens: 2300,
      }),
    ];
    try {
      for (const [index, answer] of answers.entries()) {
        conv.user(`Step ${index}.`);
        await conv.request();
        now += 1_000;
        conv.record({
          ...answer,
          type: "message",
          role: "assistant",
          content: [{ type: "text", text: "Done." }],
        });
      }
      await spans.flush();
      const finished = exporter.getFinishedSpans();
      assert.equal(finished.length, 2);
      assert.equal(finished[0].name, "chat claude-sonnet-4-5");
      assert.equal(finished[0].kind, SpanKind.CLIENT);
      assert.equal(finished[0].attributes["gen_ai.provider.name"], "anthropic");
      assert.equal(finished[0].attributes["rxprompt.cache.verdict"], undefined);
      assert.deepEqual(
        finished[0].attributes["rxprompt.system.contributors"],
        ["registry:rules"],
      );
      // The second read nothing of the first's prefix: the provider's miss.
      assert.equal(finished[1].attributes["rxprompt.cache.missed"], true);
      assert.equal(
        finished[1].attributes["rxprompt.cache.verdict"],
        "provider",
      );
      assert.equal(
        finished[1].attributes["rxprompt.cache.provider_reason"],
        "system_changed",
      );
      assert.deepEqual(finished[1].startTime, [1_700_000_006, 0]);
      assert.deepEqual(finished[1].endTime, [1_700_000_007, 0]);
    } finally {
      await prompt.dispose();
    }
  });

  it("names Bedrock Converse and Gemini spans through the table of forms", async () => {
    const { exporter, tracer } = tracing();
    // Through the table: the span's provider is the form's own name.
    const spans = conversationSpans({
      tracer,
      recordSystemInstructions: true,
      recordToolDefinitions: true,
    });
    const prompt = new SystemPrompt({ persona: "You are terse." });
    prompt.tools(() => ({
      schemas: [{ name: "read_file", description: "Read.", parameters: {} }],
    }));
    const bedrock = converseConversation(prompt, {
      modelId: "anthropic.claude-sonnet-4-5",
      onRequest: spans,
    });
    const gemini = geminiConversation(prompt, {
      model: "gemini-3-flash",
      onRequest: spans,
    });
    try {
      bedrock.user("Hi.");
      await bedrock.request();
      bedrock.record({
        output: { message: { role: "assistant", content: [{ text: "Ok." }] } },
        usage: {
          inputTokens: 3,
          outputTokens: 1,
          cacheReadInputTokens: 20,
          cacheWriteInputTokens: 5,
        },
      });
      gemini.user("Hi.");
      await gemini.request();
      gemini.record({
        candidates: [{ content: { role: "model", parts: [{ text: "Ok." }] } }],
        usageMetadata: { promptTokenCount: 30, cachedContentTokenCount: 20 },
      });
      await spans.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
      const finished = exporter.getFinishedSpans();
      const byName = new Map(finished.map((span) => [span.name, span]));
      const converse = byName.get("chat anthropic.claude-sonnet-4-5")!;
      assert.equal(converse.attributes["gen_ai.provider.name"], "aws.bedrock");
      assert.equal(
        converse.attributes["gen_ai.usage.cache_read.input_tokens"],
        20,
      );
      assert.match(
        String(converse.attributes["gen_ai.tool.definitions"]),
        /"name":"read_file"/,
      );
      assert.match(
        String(converse.attributes["gen_ai.system_instructions"]),
        /You are terse/,
      );
      const google = byName.get("chat gemini-3-flash")!;
      assert.equal(google.attributes["gen_ai.provider.name"], "gcp.gemini");
      assert.equal(
        google.attributes["gen_ai.usage.cache_read.input_tokens"],
        20,
      );
    } finally {
      await prompt.dispose();
    }
  });

  it("flush() rejects with MISSING_PEER_DEPENDENCY without @opentelemetry/api; record() goes on", async () => {
    const missing = new Error("Cannot find package '@opentelemetry/api'");
    await assert.rejects(loadOtelApi(() => Promise.reject(missing)));
    const spans = conversationSpans();
    const blocked = loadOtelApi(() => Promise.reject(missing));
    spans({
      session: "s",
      step: 1,
      form: "openai-chat",
      body: {},
      usage: { source: "openai-chat", diagnosis: { status: "none" } },
      sentAt: 0,
      time: 1,
    });
    await assert.rejects(blocked);
    await assert.rejects(spans.flush(), (error) => {
      assert.ok(error instanceof SystemPromptError);
      assert.equal(error.code, "MISSING_PEER_DEPENDENCY");
      return true;
    });
    await spans.flush(); // the failure is reported once
  });
});
