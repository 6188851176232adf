// Deno-only: issue 34's "done when". A conversation with `diagnostics` sends
// its bodies through the real `@anthropic-ai/sdk` and `openai` clients (no
// cast: the bodies go to the typed methods) to a loopback server that
// answers each with the usage the simulator estimates for the body that
// reached the wire and the diagnosis the provider would give, a read of 0
// where the provider evicted the prefix. Between the steps a section
// changes, the tool list changes, the user lapses and the provider evicts:
// `conv.report()` and `rxprompt report FILE` give each miss its verdict and
// contributor, with the observed and simulated totals and their difference.
// The AI SDK's steps go through the real `generateText` and
// `@ai-sdk/anthropic`; its report reads them as the bodies that reached the
// wire, with no diagnosis.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { AI_SDK_FORM } from "../../adapters/ai_sdk/form.ts";
import { parseRecording } from "../../src/conversation/recording.ts";
import { recordedRequests } from "../../src/conversation/report.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { conversationSpans } from "../../adapters/otel/mod.ts";
import {
  type PromptCacheReport,
  simulateCache,
} from "../../adapters/cache/mod.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { rxprompt } from "../cli/cli_process.ts";
import { openaiResponse } from "../adapters/loopback.ts";
import { wholeAnthropicMessage } from "../cache/report/reported_fixtures.ts";
import {
  agent,
  anthropicUsageOf,
  assertSessionMisses,
  countTokens,
  SESSION,
  VERDICTS,
} from "./report_session.ts";

/** A loopback server answering each request with `reply(index, bodies)`. */
async function withServer<T>(
  reply: (index: number, bodies: unknown[]) => unknown,
  body: (baseURL: string, received: unknown[]) => Promise<T>,
): Promise<T> {
  const received: unknown[] = [];
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    request.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(reply(received.length - 1, received)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await body(`http://127.0.0.1:${port}`, received);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The loopback client options both SDK clients take. */
const LOOPBACK_CLIENT = { apiKey: "sk-loopback", maxRetries: 0 };

/** `bodies` with the times of SESSION's steps, for the simulator. */
function timed(bodies: unknown[]): { body: unknown; time: number }[] {
  return bodies.map((body, at) => ({ body, time: SESSION[at].time }));
}

/**
 * Plays SESSION: before each step its change, the clock moved `at` the
 * step's time (from 1 000 000), its question, then `send`.
 */
async function playSteps(
  state: ReturnType<typeof agent>["state"],
  conv: { user(text: string): unknown },
  options: { at: (time: number) => void; send: () => Promise<void> },
): Promise<void> {
  for (const step of SESSION) {
    step.change?.(state);
    options.at(1_000_000 + step.time);
    conv.user(step.question);
    await options.send();
  }
}

function verdictsOf(report: PromptCacheReport): unknown[] {
  return report.requests.map((request) =>
    request.judgement?.missed ? request.judgement.verdict : undefined
  );
}

function tokensOf(
  estimate: {
    inputTokens: number;
    cachedTokens: number;
    writtenTokens: number;
  },
): number[] {
  return [estimate.inputTokens, estimate.cachedTokens, estimate.writtenTokens];
}

/** `rxprompt report FILE --json` of a recording. */
async function reportOfRecording(text: string): Promise<PromptCacheReport> {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(file, text);
    const run = await rxprompt(["report", file, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout).report;
  } finally {
    await Deno.remove(file);
  }
}

describe("the conversation's report through the real SDKs", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("@anthropic-ai/sdk: a changed section, a changed tool list, a lapse, an eviction", async () => {
    const { prompt, state } = agent();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }).getTracer("report-test");
    const spans = conversationSpans({ tracer, countTokens });
    let now = 1_000_000;
    const conv = anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      // 0.4's bytes: the git section's change is the layout miss reported.
      changes: "rebuild",
      diagnostics: true,
      clock: () => now,
      onRequest: spans,
    });
    try {
      const reply = (index: number, bodies: unknown[]): Anthropic.Message =>
        wholeAnthropicMessage(
          `msg_0${index}`,
          {
            ...anthropicUsageOf(
              timed(bodies),
              SESSION[index].evicted === true,
            ),
            inference_geo: null,
            server_tool_use: null,
            service_tier: "standard",
          } as Anthropic.Messages.Usage,
          SESSION[index].reason as Anthropic.Messages.CacheMissReason | null,
        );
      const received = await withServer(reply, async (baseURL, received) => {
        const client = new Anthropic({ ...LOOPBACK_CLIENT, baseURL });
        await playSteps(state, conv, {
          at: (time) => now = time,
          send: async () =>
            void conv.record(
              await client.messages.create(await conv.request()),
            ),
        });
        return received;
      });
      // Each request names the previous answer for the diagnosis.
      assert.deepEqual(
        received.map((body) => (body as { diagnostics?: unknown }).diagnostics),
        [null, "msg_00", "msg_01", "msg_02", "msg_03", "msg_04"].map((id) => ({
          previous_message_id: id,
        })),
      );
      const report = conv.report({ countTokens });
      assert.deepEqual(verdictsOf(report), VERDICTS);
      assertSessionMisses(report);
      const judgements = report.requests.map((request) => request.judgement);
      assert.equal(judgements[2]?.provider.reason, "system_changed");
      assert.equal(judgements[2]?.providerAgrees, true);
      assert.equal(judgements[3]?.provider.reason, "tools_changed");
      // Observed and simulated both, and they differ at the eviction.
      assert.ok(report.totals.estimate !== undefined);
      assert.equal(report.totals.differsFromEstimate, true);

      // The recording says the same through `rxprompt report FILE`.
      const fromFile = await reportOfRecording(conv.save());
      assert.deepEqual(verdictsOf(fromFile), VERDICTS);
      assert.equal(fromFile.requests[2].judgement?.contributor?.name, "git");
      assert.equal(
        fromFile.requests[3].judgement?.contributor?.name,
        "browse",
      );
      assert.equal(fromFile.totals.differsFromEstimate, true);

      // One span per request, with the verdict.
      await spans.flush();
      const finished = exporter.getFinishedSpans();
      assert.equal(finished.length, SESSION.length);
      const attributes = finished.map((span) => span.attributes);
      assert.deepEqual(
        attributes.map((a) => a["rxprompt.cache.verdict"]),
        [undefined, undefined, "layout", "layout", "provider", "provider"],
      );
      assert.equal(
        attributes[2]["rxprompt.cache.contributor"],
        "registry/git:section:git",
      );
      assert.equal(
        attributes[3]["rxprompt.cache.provider_reason"],
        "tools_changed",
      );
      assert.equal(attributes[0]["gen_ai.conversation.id"], conv.session);
      assert.equal(attributes[0]["gen_ai.response.id"], "msg_00");
      assert.ok(
        (attributes[0]["rxprompt.tool.contributors"] as string[]).includes(
          "registry/files:read_file",
        ),
      );
      assert.equal(
        finished[4].startTime[0],
        (1_000_000 + SESSION[4].time) / 1000,
      );
    } finally {
      await prompt.dispose();
    }
  });

  it("openai Responses: the same session, prompt_cache_diagnostics beside the verdicts", async () => {
    const { prompt, state } = agent();
    let now = 1_000_000;
    const conv = responsesConversation(prompt, {
      // 0.4's bytes: the section change is the layout miss reported.
      changes: "rebuild",
      model: "gpt-5.6",
      diagnostics: true,
      clock: () => now,
    });
    const diagnoses: (OpenAI.Responses.Response["prompt_cache_diagnostics"])[] =
      [
        undefined,
        { type: "cache_hit" },
        {
          type: "cache_miss",
          reason: "input_changed",
          cache_missed_tokens: 2800,
        },
        { type: "cache_miss", reason: "tools_changed" },
        { type: "unavailable" },
        { type: "unavailable" },
      ] as OpenAI.Responses.Response["prompt_cache_diagnostics"][];
    try {
      const reply = (index: number, bodies: unknown[]) => {
        const estimate = simulateCache(
          timed(bodies),
          { provider: "openai", countTokens },
        ).requests[index];
        const output = [{
          type: "message",
          id: `msg_${index}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Done.", annotations: [] }],
        }];
        return {
          ...openaiResponse(output, {
            input_tokens: estimate.inputTokens,
            output_tokens: 5,
            cached_tokens: SESSION[index].evicted ? 0 : estimate.cachedTokens,
          }),
          id: `resp_0${index}`,
          model: "gpt-5.6",
          ...(diagnoses[index] === undefined
            ? {}
            : { prompt_cache_diagnostics: diagnoses[index] }),
        };
      };
      const received = await withServer(reply, async (baseURL, received) => {
        const client = new OpenAI({ ...LOOPBACK_CLIENT, baseURL });
        await playSteps(state, conv, {
          at: (time) => now = time,
          send: async () =>
            void conv.record(
              await client.responses.create(await conv.request()),
            ),
        });
        return received;
      });
      assert.deepEqual(
        received.map((body) =>
          (body as {
            prompt_cache_options?: { comparison_response_id?: unknown };
          })
            .prompt_cache_options?.comparison_response_id
        ),
        [null, "resp_00", "resp_01", "resp_02", "resp_03", "resp_04"],
      );
      const report = conv.report({ countTokens });
      assert.deepEqual(verdictsOf(report), VERDICTS);
      assertSessionMisses(report);
      const judgements = report.requests.map((request) => request.judgement);
      assert.equal(judgements[2]?.provider.reason, "input_changed");
      const fromFile = await reportOfRecording(conv.save());
      assert.deepEqual(verdictsOf(fromFile), VERDICTS);
      assert.equal(fromFile.requests[3].judgement?.contributor?.name, "browse");
    } finally {
      await prompt.dispose();
    }
  });
  it("ai: generateText through @ai-sdk/anthropic, no diagnosis: the same verdicts", async () => {
    const { prompt, state } = agent();
    let now = 1_000_000;
    const conv = aiSdkConversation(prompt, {
      // 0.4's bytes: the section change is the layout miss reported.
      changes: "rebuild",
      diagnostics: true,
      clock: () => now,
    });
    try {
      // What `@ai-sdk/anthropic` parses: no diagnosis reaches the SDK.
      const reply = (index: number, bodies: unknown[]) => ({
        id: `msg_0${index}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Done." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: anthropicUsageOf(
          timed(bodies),
          SESSION[index].evicted === true,
        ),
      });
      const received = await withServer(reply, async (baseURL, received) => {
        const model = createAnthropic({ apiKey: "sk-loopback", baseURL })(
          "claude-sonnet-4-5",
        );
        await playSteps(state, conv, {
          at: (time) => now = time,
          send: async () =>
            void conv.record(
              await generateText({
                model,
                maxRetries: 0,
                maxOutputTokens: 1024,
                ...await conv.request(),
              }),
            ),
        });
        return received;
      });
      // Each step laid out from the recording is the body that reached the
      // wire, byte for byte (the model and max_tokens are generateText's).
      const { header, steps } = parseRecording(conv.save(), "ai-sdk");
      const read = (answer: unknown) =>
        AI_SDK_FORM.readAnswer(answer, () => {});
      assert.deepEqual(
        recordedRequests(
          header,
          steps,
          AI_SDK_FORM,
          (answer) => read(answer).messages,
        )
          .map((request) => JSON.stringify(request.body)),
        received.map((body) => {
          const { model: _, max_tokens: __, ...sent } = body as Record<
            string,
            unknown
          >;
          return JSON.stringify(sent);
        }),
      );
      const report = conv.report({ countTokens });
      assert.deepEqual(
        report.requests.map(({ estimate }) => tokensOf(estimate!)),
        simulateCache(
          timed(received),
          { provider: "anthropic", countTokens },
        ).requests.map(tokensOf),
      );
      assert.deepEqual(verdictsOf(report), VERDICTS);
      assertSessionMisses(report);
      const judgements = report.requests.map((request) => request.judgement);
      assert.equal(judgements[2]?.provider.status, "none");
      assert.ok(report.totals.estimate !== undefined);
      assert.equal(report.totals.differsFromEstimate, true);

      const fromFile = await reportOfRecording(conv.save());
      assert.deepEqual(verdictsOf(fromFile), VERDICTS);
      assert.equal(fromFile.requests[2].judgement?.contributor?.name, "git");
      assert.equal(fromFile.requests[3].judgement?.contributor?.name, "browse");
      assert.equal(fromFile.totals.differsFromEstimate, true);
    } finally {
      await prompt.dispose();
    }
  });
});
