// Deno-only: a session sent through the real `@anthropic-ai/sdk` and
// `openai` clients to a loopback server that answers with realistic usage
// and diagnosis payloads; the report reads what the SDKs returned and the
// bodies that reached the wire.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  cacheReport,
  type CacheRequestResult,
  readReportedUsage,
  type ReportedRequest,
  simulateCache,
} from "../../../adapters/cache/mod.ts";
import { openaiResponse, withScript } from "../../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../../adapters/sdk_permissions.ts";
import { agent, type Step } from "./agent_fixture.ts";
import {
  anthropicUsage,
  responsesResponse,
  wholeAnthropicMessage,
} from "./reported_fixtures.ts";
import { assertSessionMisses } from "../../conversation/report_session.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const MINUTE = 60_000;

describe("the report through the real SDKs", { skip: SDK_PERMISSIONS }, () => {
  it("Anthropic: a changed section, a changed tool list, a lapse, an eviction", async () => {
    const { prompt, state, step } = agent();
    try {
      const steps: Step[] = [];
      steps.push(await step("Read the failing test.", 0));
      steps.push(await step("Fix it.", 20_000));
      state.branch = "fix/cache";
      steps.push(await step("Commit.", 40_000));
      state.mcp = ["search", "browse"];
      steps.push(await step("Look it up.", 60_000));
      steps.push(await step("Continue.", 60_000 + 10 * MINUTE));
      steps.push(await step("The docs.", 60_000 + 10 * MINUTE + 30_000));
      const estimates: CacheRequestResult[] = simulateCache(
        steps.map(({ body, time }) => ({ body, time })),
        { provider: "anthropic", countTokens },
      ).requests;
      const reply = (
        index: number,
        reason: Anthropic.Messages.CacheMissReason | null,
        read = estimates[index].cachedTokens,
      ) => {
        const { inputTokens, cachedTokens, writtenTokens } = estimates[index];
        const prefix = cachedTokens + writtenTokens;
        return wholeAnthropicMessage(
          `msg_${index}`,
          anthropicUsage(inputTokens - prefix, read, { "5m": prefix - read }),
          reason,
        );
      };
      const replies = [
        reply(0, null),
        reply(1, null),
        reply(2, { type: "system_changed", cache_missed_input_tokens: 2800 }),
        reply(3, { type: "tools_changed", cache_missed_input_tokens: 4100 }),
        reply(4, { type: "unavailable" }),
        reply(5, { type: "unavailable" }, 0), // evicted
      ];
      const requests = await withScript(replies, async (baseURL, received) => {
        const client = new Anthropic({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
        });
        const requests: ReportedRequest[] = [];
        let previousId: string | null = null;
        for (const [index, { body, time, explanation }] of steps.entries()) {
          const params = {
            ...body,
            diagnostics: { previous_message_id: previousId },
          } as unknown as Anthropic.MessageCreateParamsNonStreaming;
          const answer = await client.messages.create(params);
          previousId = answer.id;
          requests.push({
            body: JSON.parse(received[index]), // the body as it reached the wire
            usage: readReportedUsage(answer, "anthropic"),
            time,
            explanation,
          });
        }
        return requests;
      });
      const report = cacheReport(requests, {
        provider: "anthropic",
        countTokens,
      });
      const judgements = report.requests.map((request) => request.judgement);
      assert.deepEqual(
        judgements.map((judgement) => judgement?.verdict),
        [undefined, undefined, "layout", "layout", "provider", "provider"],
      );
      assertSessionMisses(report);
      assert.equal(judgements[2]?.provider.reason, "system_changed");
      // Observed and simulated are both there; they part at the eviction.
      assert.ok(report.totals.estimate !== undefined);
      assert.equal(report.totals.differsFromEstimate, true);
      assert.deepEqual(
        report.requests.map((request) => request.differsFromEstimate),
        [false, false, false, false, false, true],
      );
    } finally {
      await prompt.dispose();
    }
  });

  it("OpenAI Responses: prompt_cache_diagnostics beside the verdict", async () => {
    const rules = "Answer in English. ".repeat(400);
    const tools: OpenAI.Responses.FunctionTool[] = [{
      type: "function",
      name: "shell",
      description: "Run a command.",
      parameters: {},
      strict: false,
    }];
    const bodies: OpenAI.Responses.ResponseCreateParamsNonStreaming[] = [
      { model: "gpt-5.6", tools, instructions: rules, input: "One?" },
      {
        model: "gpt-5.6",
        tools,
        instructions: rules.replace("English", "French"),
        input: "Two?",
      },
    ];
    const full = (
      payload: ReturnType<typeof responsesResponse>,
    ): OpenAI.Responses.Response =>
      ({
        ...openaiResponse([]),
        ...payload,
      }) as unknown as OpenAI.Responses.Response;
    const replies = [
      full(responsesResponse(1925, 0)),
      full(responsesResponse(1925, 0, {}, {
        type: "cache_miss",
        reason: "input_changed",
        cache_missed_tokens: 1890,
        comparison_reusable_tokens: 1925,
      })),
    ];
    const requests = await withScript(replies, async (baseURL, received) => {
      const client = new OpenAI({
        apiKey: "sk-loopback",
        baseURL,
        maxRetries: 0,
      });
      const requests: ReportedRequest[] = [];
      let previous: string | undefined;
      for (const [index, body] of bodies.entries()) {
        const answer = await client.responses.create({
          ...body,
          ...(previous !== undefined
            ? { prompt_cache_options: { comparison_response_id: previous } }
            : {}),
        });
        previous = answer.id;
        requests.push({
          body: JSON.parse(received[index]),
          usage: readReportedUsage(answer, "openai-responses"),
        });
      }
      return requests;
    });
    const report = cacheReport(requests, { provider: "openai", countTokens });
    const judgement = report.requests[1].judgement;
    assert.equal(judgement?.verdict, "layout");
    assert.equal(judgement?.change?.region, "system");
    assert.equal(judgement?.provider.reason, "input_changed");
    assert.equal(judgement?.provider.reusableTokens, 1925);
    assert.equal(judgement?.providerAgrees, true);
  });
});
