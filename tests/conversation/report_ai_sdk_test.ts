/**
 * SPEC 9.8: an AI SDK conversation's report reads each step as the
 * Anthropic body `@ai-sdk/anthropic` sends for it (checked against the
 * real SDK in report_sdk_test.ts) and stands on usage and that comparison:
 * a changed section and a changed tool list are `layout` misses with their
 * contributor, observed and simulated totals side by side.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { AI_SDK_FORM } from "../../adapters/ai_sdk/form.ts";
import { parseRecording } from "../../src/conversation/recording.ts";
import { recordedRequests } from "../../src/conversation/report.ts";
import { aiSdkWireBody } from "../../adapters/ai_sdk/anthropic_body.ts";
import {
  agent,
  anthropicUsageOf,
  countTokens,
  SESSION,
  VERDICTS,
} from "./report_session.ts";

type Usage = ReturnType<typeof anthropicUsageOf>;

/** A generateText result as `@ai-sdk/anthropic` gives it for `usage`. */
function result(usage: Usage | undefined) {
  const read = usage?.cache_read_input_tokens ?? 0;
  const written = usage?.cache_creation_input_tokens ?? 0;
  const fresh = usage?.input_tokens ?? 0;
  return {
    response: {
      messages: [{
        role: "assistant" as const,
        content: [{ type: "text" as const, text: "Done." }],
      }],
    },
    usage: {
      inputTokens: fresh + read + written,
      inputTokenDetails: {
        noCacheTokens: fresh,
        cacheReadTokens: read,
        cacheWriteTokens: written,
      },
      outputTokens: 5,
      totalTokens: fresh + read + written + 5,
    },
  };
}

/** The session through an AI SDK conversation, answered with `usages`. */
async function runSession(usages: readonly (Usage | undefined)[]) {
  const { prompt, state } = agent();
  let now = 1_000_000;
  const conv = aiSdkConversation(prompt, {
    // 0.4's bytes: the section change is the layout miss reported.
    changes: "rebuild",
    diagnostics: true,
    clock: () => now,
  });
  for (const [index, step] of SESSION.entries()) {
    step.change?.(state);
    now = 1_000_000 + step.time;
    conv.user(step.question);
    await conv.request();
    conv.record(result(usages[index]));
  }
  await prompt.dispose();
  return conv;
}

/** The Anthropic bodies the report reads from a recording. */
function bodiesOf(recording: string): { body: unknown; time: number }[] {
  const { header, steps } = parseRecording(recording, "ai-sdk");
  const read = (answer: unknown) => AI_SDK_FORM.readAnswer(answer, () => {});
  return recordedRequests(
    header,
    steps,
    AI_SDK_FORM,
    (answer) => read(answer).messages,
  )
    .map((request, index) => ({
      body: request.body,
      time: SESSION[index].time,
    }));
}

describe("AI SDK conversation report", () => {
  it("gives a changed section and a changed tool list `layout` with their contributor", async () => {
    // The bodies do not depend on usage: a first run gives them, and the
    // second is answered with what Anthropic would read and write for them.
    const bodies = bodiesOf((await runSession([])).save());
    const usages = SESSION.map((step, index) =>
      anthropicUsageOf(bodies.slice(0, index + 1), step.evicted === true)
    );
    const conv = await runSession(usages);
    const report = conv.report({ countTokens });
    const judgements = report.requests.map((request) => request.judgement);
    assert.deepEqual(
      judgements.map((judgement) =>
        judgement?.missed ? judgement.verdict : undefined
      ),
      VERDICTS,
    );
    assert.equal(judgements[2]?.contributor?.name, "git");
    assert.equal(judgements[2]?.contributor?.registrar, "registry/git");
    assert.equal(judgements[2]?.contributor?.variable?.name, "branch");
    assert.equal(judgements[2]?.change?.region, "system");
    assert.equal(judgements[3]?.contributor?.name, "browse");
    assert.equal(judgements[3]?.contributor?.registrar, "registry/mcp");
    assert.equal(judgements[3]?.change?.region, "tools");
    // No diagnosis reaches the AI SDK.
    assert.ok(
      judgements.every((j) => j === undefined || j.provider.status === "none"),
    );
    assert.equal(judgements[4]?.expired, true);
    assert.equal(judgements[5]?.expired, false);
    // Observed and simulated both; they differ at the eviction only.
    assert.deepEqual(
      report.requests.map((request) => request.differsFromEstimate),
      [false, false, false, false, false, true],
    );
    assert.equal(report.totals.differsFromEstimate, true);
    // The estimate reads at the eviction what the provider did not.
    assert.equal(
      report.totals.estimate!.cachedTokens - report.totals.cacheReadTokens,
      report.requests[5].estimate!.cachedTokens,
    );
    assert.ok(report.requests[5].estimate!.cachedTokens > 0);
    assert.ok(report.totals.hitRatio! < report.totals.estimatedHitRatio!);
    assert.equal(
      report.totals.cacheReadTokens,
      usages.reduce((sum, usage) => sum + usage.cache_read_input_tokens, 0),
    );
  });

  it("lays a step out as @ai-sdk/anthropic does: merged user turns, marks as cache_control", () => {
    const mark = { type: "ephemeral" };
    const body = aiSdkWireBody(
      {
        system: [
          { role: "system", content: "Rules." },
          {
            role: "system",
            content: "Git.",
            providerOptions: { anthropic: { cacheControl: mark } },
          },
        ],
        tools: [{
          name: "read_file",
          description: "Read a file.",
          inputSchema: { type: "object" },
          providerOptions: { anthropic: { cacheControl: mark } },
        }],
      },
      [
        { role: "user", content: "Read a.ts." },
        {
          role: "assistant",
          content: [
            {
              type: "tool-call",
              toolCallId: "t1",
              toolName: "read_file",
              input: {},
            },
            { type: "text", text: "Reading." },
            { type: "text", text: "" },
          ],
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: "t1",
            toolName: "read_file",
            output: { type: "error-json", value: { missing: true } },
          }],
        },
        { role: "user", content: [{ type: "text", text: "Go on." }] },
      ],
      [{ message: 3, block: 0, mark }],
    );
    assert.deepEqual(body, {
      system: [
        { type: "text", text: "Rules." },
        { type: "text", text: "Git.", cache_control: mark },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Read a.ts." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "t1", name: "read_file", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: '{"missing":true}',
              is_error: true,
            },
            { type: "text", text: "Go on.", cache_control: mark },
          ],
        },
      ],
      tools: [{
        name: "read_file",
        description: "Read a file.",
        input_schema: { type: "object" },
        cache_control: mark,
      }],
      tool_choice: { type: "auto" },
    });
  });
});
