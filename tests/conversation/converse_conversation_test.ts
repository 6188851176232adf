/**
 * SPEC 10.5: the Bedrock Converse conversation. Its cache points follow
 * the one mark policy and Bedrock's rules (four at most, lifetimes not
 * increasing from toolConfig to system to messages), a stream's events
 * record what the response records, gates refuse, a fork marks the prefix
 * it shares, a resume builds the same bytes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  converseConversation,
  type ConverseConversationBody,
  type ConverseStreamEvent,
  resumeConverseConversation,
} from "../../adapters/bedrock/mod.ts";
import { converseBody } from "../../adapters/bedrock/body.ts";
import { REASONING_OMITTED } from "../../adapters/_kit/form_options.ts";
import { rejects } from "../assertions.ts";
import { agent } from "./helpers.ts";

const MODEL = "anthropic.claude-sonnet-4-5";
const CONTEXT =
  "Runtime context (replaces any earlier runtime context):\nOn main.";

/** The body's cache points, in prefix order, as their lifetimes. */
function points(body: ConverseConversationBody): string[] {
  const found: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "cachePoint") {
          found.push((inner as { ttl?: string }).ttl ?? "5m");
        } else visit(inner);
      }
    }
  };
  visit([body.toolConfig, body.system, body.messages]);
  return found;
}

function answer(content: Record<string, unknown>[]) {
  return {
    output: { message: { role: "assistant", content } },
    stopReason: "end_turn",
    usage: {
      inputTokens: 10,
      outputTokens: 2,
      totalTokens: 12,
      cacheReadInputTokens: 30,
      cacheWriteInputTokens: 40,
    },
    $metadata: { httpStatusCode: 200, requestId: "r-1" },
  };
}

describe("converseConversation", () => {
  it("builds ConverseCommand input: cache points after the prefix and the last block", async () => {
    const a = agent();
    a.prompt.section({
      name: "rules",
      order: 10,
      text: "Rules.",
      cacheBreakpoint: true,
    });
    const conv = converseConversation(a.prompt, {
      modelId: MODEL,
      maxTokens: 512,
    });
    conv.user("Read a.ts.");
    const first = await conv.request();
    assert.equal(first.modelId, MODEL);
    assert.deepEqual(first.inferenceConfig, { maxTokens: 512 });
    assert.deepEqual(first.toolConfig?.tools.at(-1), {
      cachePoint: { type: "default" },
    });
    // The runtime context goes after the person's text, then the point.
    assert.deepEqual(first.messages, [{
      role: "user",
      content: [
        { text: "Read a.ts." },
        { text: CONTEXT },
        { cachePoint: { type: "default" } },
      ],
    }]);
    assert.ok(points(first).length <= 4);
    // The simulator reads it as Bedrock's rules do.
    assert.ok(converseBody(first).blocks.length > 0);
    const calls = conv.record(answer([
      { text: "Reading." },
      { toolUse: { toolUseId: "t1", name: "read_file", input: { p: 1 } } },
    ]));
    assert.deepEqual(calls, [{ id: "t1", name: "read_file", input: { p: 1 } }]);
    conv.toolResult("t1", "export {};");
    const second = await conv.request();
    assert.deepEqual(second.messages.slice(0, 2), [
      { role: "user", content: [{ text: "Read a.ts." }, { text: CONTEXT }] },
      {
        role: "assistant",
        content: [
          { text: "Reading." },
          { toolUse: { toolUseId: "t1", name: "read_file", input: { p: 1 } } },
        ],
      },
    ]);
    assert.deepEqual(second.messages[2], {
      role: "user",
      content: [
        { toolResult: { toolUseId: "t1", content: [{ text: "export {};" }] } },
        { cachePoint: { type: "default" } },
      ],
    });
    // The recording keeps no $metadata of the SDK's.
    assert.ok(!conv.save().includes("requestId"));
    await a.prompt.dispose();
  });

  it("gives every point one lifetime while a person is awaited, four at most", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    for (const [index, name] of ["a", "b", "c", "d", "e"].entries()) {
      prompt.section({
        name,
        order: index,
        text: `Part ${name}.`,
        cacheBreakpoint: true,
      });
    }
    const conv = converseConversation(prompt, { modelId: MODEL });
    conv.user("Hi.");
    const body = await conv.request(undefined, { awaiting: "person" });
    assert.deepEqual(points(body), ["1h", "1h", "1h", "1h"]);
    conv.record(answer([{ text: "Hello." }]));
    conv.user("Again.");
    const next = await conv.request();
    assert.deepEqual(points(next), ["5m", "5m", "5m", "5m"]);
    await prompt.dispose();
  });

  it("marks the previous request's end when a step adds more than 20 blocks", async () => {
    const a = agent();
    const conv = converseConversation(a.prompt, { modelId: MODEL });
    conv.user("Go.");
    await conv.request();
    const ids = Array.from({ length: 21 }, (_, index) => `t${index}`);
    conv.record(answer(ids.map((id) => ({
      toolUse: { toolUseId: id, name: "shell", input: {} },
    }))));
    for (const id of ids) conv.toolResult(id, "ok");
    const body = await conv.request();
    assert.deepEqual(body.messages[0].content.at(-1), {
      cachePoint: { type: "default" },
    });
    assert.deepEqual(body.messages[2].content.at(-1), {
      cachePoint: { type: "default" },
    });
    assert.ok(points(body).length <= 4);
    await a.prompt.dispose();
  });

  it("records a stream's events as the response they make", async () => {
    const events: ConverseStreamEvent[] = [
      { messageStart: { role: "assistant" } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Let " } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "me." } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      {
        contentBlockStart: {
          contentBlockIndex: 1,
          start: { toolUse: { toolUseId: "t1", name: "read_file" } },
        },
      },
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { toolUse: { input: '{"p":' } },
        },
      },
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { toolUse: { input: "1}" } },
        },
      },
      { contentBlockStop: { contentBlockIndex: 1 } },
      { messageStop: { stopReason: "tool_use" } },
      {
        metadata: {
          usage: {
            inputTokens: 10,
            outputTokens: 2,
            totalTokens: 12,
            cacheReadInputTokens: 30,
            cacheWriteInputTokens: 40,
          },
        },
      },
    ];
    const streamed = async () => {
      const a = agent();
      const conv = converseConversation(a.prompt, {
        modelId: MODEL,
        session: "s",
        clock: () => 0,
      });
      conv.user("Go.");
      await conv.request();
      return { conv, a };
    };
    const one = await streamed();
    const calls = one.conv.record(events);
    assert.deepEqual(calls, [{ id: "t1", name: "read_file", input: { p: 1 } }]);
    const two = await streamed();
    two.conv.record({
      output: {
        message: {
          role: "assistant",
          content: [
            { text: "Let me." },
            {
              toolUse: { toolUseId: "t1", name: "read_file", input: { p: 1 } },
            },
          ],
        },
      },
      stopReason: "tool_use",
      usage: events[9].metadata!.usage,
    });
    assert.equal(one.conv.save(), two.conv.save());
    const report = one.conv.report({ countTokens: (text) => text.length });
    assert.equal(report.requests[0].cacheReadTokens, 30);
    assert.equal(report.requests[0].cacheWriteTokens, 40);
    assert.equal(report.requests[0].inputTokens, 80);
    await one.a.prompt.dispose();
    await two.a.prompt.dispose();
  });

  it("refuses a call of a gated tool, marks a fork's shared prefix, resumes byte for byte", async () => {
    const a = agent();
    a.active = ["read_file"];
    const conv = converseConversation(a.prompt, { modelId: MODEL });
    conv.user("Go.");
    const first = await conv.request();
    // Every tool stays listed: the gate is the conversation's refusal.
    assert.equal(
      first.toolConfig?.tools.filter((tool) => "toolSpec" in tool).length,
      2,
    );
    const open = conv.record(answer([
      { toolUse: { toolUseId: "t1", name: "shell", input: {} } },
    ]));
    assert.deepEqual(open, []);
    const refused = await conv.request();
    const result = refused.messages[2].content[0] as {
      toolResult: { status?: string };
    };
    assert.equal(result.toolResult.status, "error");
    conv.record(answer([{ text: "Done." }]));
    const fork = conv.fork();
    fork.user("Other.");
    const forked = await fork.request();
    assert.ok(points(forked).length <= 4);
    assert.deepEqual(forked.system, refused.system);
    conv.user("More.");
    const next = await conv.request();
    const again = resumeConverseConversation(a.prompt, conv.save());
    // The resumed conversation is given the same input again.
    again.user("More.");
    assert.deepEqual(await again.request(), next);
    await a.prompt.dispose();
  });

  it("refuses what Bedrock would, with codes", async () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () => converseConversation(prompt, { model: MODEL } as never),
      rejects("INVALID_CONFIG", "modelId"),
    );
    assert.throws(
      () => converseConversation(prompt, { modelId: MODEL, maxTokens: 0 }),
      rejects("INVALID_CONFIG", "maxTokens"),
    );
    assert.throws(
      () =>
        converseConversation(prompt, {
          modelId: MODEL,
          maxCacheBreakpoints: 5,
        }),
      rejects("INVALID_CONFIG", "maxCacheBreakpoints"),
    );
    const conv = converseConversation(prompt, { modelId: MODEL });
    assert.throws(
      () => conv.user([{ text: "a" }, { cachePoint: { type: "default" } }]),
      rejects("INVALID_CONVERSATION_INPUT", "cachePoint"),
    );
    conv.user("Hi.");
    await conv.request();
    assert.throws(
      () => conv.record({ choices: [] } as never),
      rejects("RESPONSE_OF_OTHER_PROVIDER", "Amazon Bedrock Converse"),
    );
    assert.throws(
      () => conv.record({ output: { message: { role: "user" } } } as never),
      rejects("INVALID_RESPONSE", "ConverseResponse"),
    );
    assert.throws(
      () =>
        conv.record([
          { messageStart: { role: "assistant" } },
          { contentBlockDelta: { delta: { toolUse: { input: "{" } } } },
        ]),
      rejects("INVALID_RESPONSE", "not JSON"),
    );
    assert.equal(conv.messages.length, 0);
  });

  it("carries the steps after a background compaction without their reasoning, keeping a turn of reasoning alone", async () => {
    const a = agent();
    const conv = converseConversation(a.prompt, { modelId: MODEL });
    conv.user("Review #42.");
    await conv.request();
    conv.record(answer([{ text: "Looks fine." }]));
    const compaction = await conv.compact();
    const at = conv.messages.length;
    const reasoning = {
      reasoningContent: { reasoningText: { text: "Hm.", signature: "s" } },
    };
    // Three turns while the summary is written: reasoning and text, no
    // reasoning, reasoning alone.
    for (
      const content of [[reasoning, { text: "Done." }], [{ text: "Yes." }], [
        reasoning,
      ]]
    ) {
      conv.user("Next?");
      await conv.request();
      conv.record(answer(content));
    }
    const carried = conv.messages.slice(at);
    compaction.record(answer([{ text: "The summary." }]));
    conv.user("Go on.");
    const body = await conv.request();
    const messages = body.messages.map((message) => ({
      ...message,
      content: message.content.filter((block) => !("cachePoint" in block)),
    }));
    assert.deepEqual(messages.slice(2, 8), [
      carried[0],
      { role: "assistant", content: [{ text: "Done." }] },
      carried[2],
      carried[3],
      carried[4],
      { role: "assistant", content: [{ text: REASONING_OMITTED }] },
    ]);
    // The roles alternate, as Converse requires.
    assert.deepEqual(
      messages.map((message) => message.role),
      messages.map((_, index) => index % 2 === 0 ? "user" : "assistant"),
    );
    await a.prompt.dispose();
  });
});
