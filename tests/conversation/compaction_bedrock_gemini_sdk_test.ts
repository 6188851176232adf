// Deno-only: compaction on the Converse and Gemini conversations (issue 47,
// SPEC 10.2), the client-side summary, through the real
// BedrockRuntimeClient and @google/genai clients against the loopback
// servers that check the bodies as the APIs do (tests/adapters/
// loopback_caches.ts: Bedrock's cache points and alternating roles,
// Gemini's implicit prefix cache): a 300-step session whose `compactAt`
// trigger fires twice, each summarizing request the live request's exact
// prefix plus one instruction and reading at least 90% of its input from
// the cache, the request after it reading the tools and system prompt and
// writing only the summary and what follows, a background compaction, and a
// resume between the two compactions giving the same bytes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { type GenerateContentResponse, GoogleGenAI } from "@google/genai";
import { type SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  converseConversation,
  resumeConverseConversation,
} from "../../adapters/bedrock/mod.ts";
import {
  geminiConversation,
  resumeGeminiConversation,
} from "../../adapters/gemini/mod.ts";
import {
  bedrockServer,
  type CacheServer,
  geminiServer,
  withCacheServer,
} from "../adapters/loopback_caches.ts";
import { reviewRegistry } from "./helpers.ts";
import {
  AWS_SDK_PERMISSIONS,
  SDK_PERMISSIONS,
} from "../adapters/sdk_permissions.ts";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { REASONING_OMITTED } from "../../adapters/_kit/form_options.ts";

const MINIMUM = 256;
const STEPS = 300;
/** Crossed twice in 300 steps (about 75 tokens a step on both servers). */
const COMPACT_AT = 9_000;
const NOTE = "a line of the diff under review; ".repeat(8);
const INSTRUCTION = /^Summarize the conversation so far/;
const tokensOf = (unit: string) => Math.ceil(unit.length / 4);
const countTokens = tokensOf;

/** What a session needs of a conversation, whatever its form. */
interface Conv {
  user(text: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): unknown[];
  readonly continues: boolean;
  save(): string;
  compact(): Promise<{ body: unknown; record(answer: unknown): void }>;
  report(options: { countTokens: (text: string) => number }): {
    requests: {
      judgement?: { verdict?: string };
      summarizes?: boolean;
      cacheReadTokens?: number;
    }[];
  };
}

/**
 * `STEPS` requests, a turn each (the servers answer text), the compactAt
 * trigger answered in the loop (`continues`). Every conversation of
 * `convs` builds the same body (asserted) and records the same answer;
 * `at`, at a turn's end, may add one (a resume).
 */
async function session(
  convs: Conv[],
  send: (body: unknown) => Promise<unknown>,
  at?: (convs: Conv[]) => void,
): Promise<void> {
  let sent = 0;
  for (let turn = 0; sent < STEPS; turn++) {
    for (const conv of convs) conv.user(`Review part ${turn}: ${NOTE}`);
    do {
      const bodies = [];
      for (const conv of convs) bodies.push(await conv.request());
      for (const body of bodies.slice(1)) {
        assert.deepEqual(body, bodies[0], `request ${sent + 1}`);
      }
      const answer = await send(bodies[0]);
      sent++;
      for (const conv of convs) assert.deepEqual(conv.record(answer), []);
    } while (convs[0].continues && sent < STEPS);
    at?.(convs);
  }
}

/** The indexes of the summarizing requests among a server's bodies. */
function summarizing(
  server: CacheServer,
  lastText: (body: Record<string, unknown>) => string,
): number[] {
  return server.bodies.flatMap((body, index) =>
    INSTRUCTION.test(lastText(body)) ? [index] : []
  );
}

/** Both compactions judged `compaction`, none `layout`; the report marks them. */
async function checkReport(conv: Conv): Promise<void> {
  const requests = conv.report({ countTokens }).requests;
  const verdicts = requests.map((request) => request.judgement?.verdict);
  assert.equal(verdicts.filter((v) => v === "compaction").length, 2);
  assert.ok(!verdicts.includes("layout"), verdicts.join());
  assert.equal(requests.filter((request) => request.summarizes).length, 2);
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(file, conv.save());
    const lines = reportLines(await reportOfFile(file, {}));
    assert.equal(lines.filter((line) => / summary$/.test(line)).length, 2);
    assert.equal(lines.filter((line) => /\bcompaction$/.test(line)).length, 2);
  } finally {
    await Deno.remove(file);
  }
}

// --------------------------------------------------------- Bedrock Converse

type ConverseBody = Record<string, unknown> & {
  messages: { role: string; content: Record<string, unknown>[] }[];
};

function bedrockClient(endpoint: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "AKIDLOOPBACK", secretAccessKey: "x" },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
}

const converseText = (body: Record<string, unknown>) =>
  String(
    (body as ConverseBody).messages.at(-1)!.content.find((block) =>
      typeof block.text === "string"
    )?.text ?? "",
  );

/** A body's messages without their cache points. */
function withoutPoints(body: ConverseBody): unknown[] {
  return body.messages.map((message) => ({
    ...message,
    content: message.content.filter((block) => !("cachePoint" in block)),
  }));
}

/** The tools' and system texts' tokens, as the Bedrock server counts them. */
function converseHeadTokens(body: Record<string, unknown>): number {
  const tools = (body.toolConfig as { tools: Record<string, unknown>[] }).tools;
  const system = body.system as Record<string, unknown>[];
  return [
    ...tools.filter((tool) => !tool.cachePoint).map((tool) =>
      JSON.stringify(tool)
    ),
    ...system.flatMap((block) =>
      typeof block.text === "string" ? [block.text] : []
    ),
  ].reduce((sum, unit) => sum + tokensOf(unit), 0);
}

/** The server's bodies and the usage it answered each with. */
async function withBedrock(
  run: (
    send: (body: unknown) => Promise<ConverseCommandOutput>,
    server: CacheServer,
    usages: NonNullable<ConverseCommandOutput["usage"]>[],
  ) => Promise<void>,
): Promise<void> {
  await withCacheServer(() => bedrockServer(MINIMUM), async (url, server) => {
    const client = bedrockClient(url);
    const usages: NonNullable<ConverseCommandOutput["usage"]>[] = [];
    await run(
      async (body) => {
        // No cast of the body's type: the conversation's is the command's input.
        const input: ConverseCommandInput = body as ConverseCommandInput;
        const answer = await client.send(new ConverseCommand(input));
        usages.push(answer.usage!);
        return answer;
      },
      server,
      usages,
    );
  });
}

/** Converse refuses a conversation whose roles do not alternate. */
function checkAlternates(bodies: readonly Record<string, unknown>[]): void {
  for (const [index, body] of bodies.entries()) {
    const roles = (body as ConverseBody).messages.map((message) =>
      message.role
    );
    assert.ok(
      roles.every((role, at) => role === (at % 2 === 0 ? "user" : "assistant")),
      `request ${index + 1}: ${roles.join()}`,
    );
  }
}

/**
 * The swapped request sent through the real client and taken (its roles
 * alternate), then a resume after the swap: the same bytes.
 */
async function acceptedAndResumed(
  conv: ReturnType<typeof converseConversation>,
  swapped: unknown,
  { send, server, prompt }: {
    send: (body: unknown) => Promise<ConverseCommandOutput>;
    server: CacheServer;
    prompt: SystemPrompt;
  },
): Promise<void> {
  conv.record(await send(swapped));
  assert.deepEqual(server.rejections, []);
  checkAlternates(server.bodies);
  const resumed = resumeConverseConversation(prompt, conv.save());
  resumed.user("Last.");
  conv.user("Last.");
  assert.deepEqual(await resumed.request(), await conv.request());
}

function checkConverseSession(
  server: CacheServer,
  usages: NonNullable<ConverseCommandOutput["usage"]>[],
): void {
  assert.deepEqual(server.rejections, []);
  checkAlternates(server.bodies);
  const compactions = summarizing(server, converseText);
  assert.equal(compactions.length, 2, "the trigger fires twice");
  for (const index of compactions) {
    const body = server.bodies[index] as ConverseBody;
    const before = server.bodies[index - 1] as ConverseBody;
    // The live request's exact prefix: the same head, the same messages
    // (the last answer after them), then the instruction, unmarked.
    for (const key of ["modelId", "system", "toolConfig", "inferenceConfig"]) {
      assert.deepEqual(body[key], before[key], key);
    }
    assert.deepEqual(withoutPoints(body).slice(0, -2), withoutPoints(before));
    assert.equal(body.messages.at(-2)!.role, "assistant");
    assert.ok(!JSON.stringify(body.messages.at(-1)).includes("cachePoint"));
    const usage = usages[index];
    const input = usage.inputTokens! + usage.cacheReadInputTokens! +
      usage.cacheWriteInputTokens!;
    assert.equal(usage.cacheWriteInputTokens, 0, `compaction ${index} wrote`);
    assert.ok(
      usage.cacheReadInputTokens! >= 0.9 * input,
      `compaction ${index} read ${usage.cacheReadInputTokens} of ${input}`,
    );
    // The next request: the instruction and the summary, then the step.
    const after = server.bodies[index + 1] as ConverseBody;
    assert.match(converseText({ messages: [after.messages[0]] }), INSTRUCTION);
    assert.deepEqual(after.messages[1].content[0], { text: "ok" });
    const next = usages[index + 1];
    const head = converseHeadTokens(after);
    const total = next.inputTokens! + next.cacheReadInputTokens! +
      next.cacheWriteInputTokens!;
    assert.ok(next.cacheReadInputTokens! >= head, `after ${index}: read`);
    assert.ok(
      next.cacheWriteInputTokens! + next.inputTokens! <= total - head,
      `after ${index}: the head written again`,
    );
    // What the summary dropped is told again: the runtime context.
    assert.match(JSON.stringify(after.messages.slice(2)), /It is Monday\./);
  }
}

describe("compaction on converseConversation (issue 47)", {
  skip: AWS_SDK_PERMISSIONS,
}, () => {
  const options = {
    modelId: "anthropic.claude-sonnet-4-5",
    maxTokens: 256,
    compactAt: { inputTokens: COMPACT_AT },
  };

  it("a 300-step session crosses compactAt twice, each summary read from the cache", async () => {
    const prompt = reviewRegistry();
    await withBedrock(async (send, server, usages) => {
      const conv = converseConversation(prompt, options);
      await session([conv as unknown as Conv], send);
      checkConverseSession(server, usages);
      await checkReport(conv as unknown as Conv);
    });
    await prompt.dispose();
  });

  it("resumed between the two compactions, it sends the same bytes", async () => {
    const prompt = reviewRegistry();
    await withBedrock(async (send, server, usages) => {
      const conv = converseConversation(prompt, options);
      let resumed = false;
      await session([conv as unknown as Conv], send, (convs) => {
        if (resumed || summarizing(server, converseText).length !== 1) return;
        resumed = true;
        convs.push(
          resumeConverseConversation(prompt, conv.save()) as unknown as Conv,
        );
      });
      assert.ok(resumed);
      checkConverseSession(server, usages);
    });
    await prompt.dispose();
  });

  it("a summary without text (no block, or reasoning alone) is refused, nothing committed", async () => {
    const prompt = reviewRegistry();
    await withBedrock(async (send) => {
      const conv = converseConversation(prompt, {
        modelId: "anthropic.claude-sonnet-4-5",
      });
      conv.user("Review #42.");
      conv.record(await send(await conv.request()));
      const compaction = await conv.compact();
      const saved = conv.save();
      // No block, or the model's reasoning alone (no text to summarize).
      const reasoning = {
        reasoningContent: { reasoningText: { text: "Hm.", signature: "s" } },
      };
      for (const content of [[], [reasoning]]) {
        assert.throws(
          () =>
            compaction.record({
              output: { message: { role: "assistant", content } },
              stopReason: "end_turn",
              usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 },
            }),
          (error: unknown) =>
            error instanceof SystemPromptError &&
            error.code === "INVALID_RESPONSE" &&
            /holds no text/.test(error.message),
        );
        assert.equal(conv.save(), saved);
      }
      // The summary's own answer is still taken.
      compaction.record(await send(compaction.body));
      conv.user("And #43?");
      const body = await conv.request();
      assert.deepEqual(body.messages[1], {
        role: "assistant",
        content: [{ text: "ok" }],
      });
    });
    await prompt.dispose();
  });

  it("in the background: swapped at the turn's end, reasoning stripped from what it carries", async () => {
    const prompt = reviewRegistry();
    await withBedrock(async (send, server) => {
      const model = { modelId: "anthropic.claude-sonnet-4-5" };
      const conv = converseConversation(prompt, model);
      for (const text of ["Review #42.", "And #43?"]) {
        conv.user(text);
        conv.record(await send(await conv.request()));
      }
      const compaction = await conv.compact();
      const summary = await send(compaction.body);
      const at = conv.messages.length;
      // The harness goes on while the compaction runs; this answer's
      // reasoning is signed against the whole history.
      conv.user("And #44?");
      await send(await conv.request());
      conv.record({
        output: {
          message: {
            role: "assistant",
            content: [
              {
                reasoningContent: {
                  reasoningText: { text: "Hm.", signature: "sig" },
                },
              },
              { text: "Done." },
            ],
          },
        },
        stopReason: "end_turn",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      });
      const carried = conv.messages.slice(at);
      compaction.record(summary);
      conv.user("And #45?");
      const swapped = await conv.request() as unknown as ConverseBody;
      const messages = withoutPoints(swapped);
      // The instruction and the summary, then what was carried, unbound.
      assert.deepEqual(messages.slice(0, 2), [
        withoutPoints(compaction.body as unknown as ConverseBody).at(-1),
        { role: "assistant", content: [{ text: "ok" }] },
      ]);
      assert.deepEqual(messages.slice(2, 4), [
        carried[0],
        { role: "assistant", content: [{ text: "Done." }] },
      ]);
      // The runtime context the summary dropped, told again after them.
      assert.match(JSON.stringify(messages[4]), /It is Monday\./);
      await acceptedAndResumed(conv, swapped, { send, server, prompt });
    });
    await prompt.dispose();
  });

  it("in the background: an answer of reasoning only keeps its turn, and Converse takes the next request", async () => {
    const prompt = reviewRegistry();
    await withBedrock(async (send, server) => {
      const model = { modelId: "anthropic.claude-sonnet-4-5" };
      const conv = converseConversation(prompt, model);
      conv.user("Review #42.");
      conv.record(await send(await conv.request()));
      const compaction = await conv.compact();
      const summary = await send(compaction.body);
      // While it runs, the model answers with its reasoning alone (its
      // output limit reached, say): signed against the whole history.
      conv.user("And #43?");
      await send(await conv.request());
      conv.record({
        output: {
          message: {
            role: "assistant",
            content: [{
              reasoningContent: {
                reasoningText: { text: "Hm.", signature: "sig" },
              },
            }],
          },
        },
        stopReason: "max_tokens",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      });
      compaction.record(summary);
      conv.user("Go on.");
      const swapped = await conv.request() as unknown as ConverseBody;
      const messages = withoutPoints(swapped) as ConverseBody["messages"];
      // The summary, the person's turn carried, the model's turn kept
      // without its reasoning, then the person's next turn.
      assert.deepEqual(
        messages.map((message) => message.role),
        ["user", "assistant", "user", "assistant", "user"],
      );
      assert.deepEqual(messages[3], {
        role: "assistant",
        content: [{ text: REASONING_OMITTED }],
      });
      assert.match(JSON.stringify(messages[4]), /Go on\./);
      // The real client sends it (the server refuses turns that do not
      // alternate, as Converse does), and a resume sends the same bytes.
      await acceptedAndResumed(conv, swapped, { send, server, prompt });
    });
    await prompt.dispose();
  });
});

// ------------------------------------------------------------------- Gemini

type GeminiBody = Record<string, unknown> & {
  contents: { role: string; parts: Record<string, unknown>[] }[];
};

const geminiText = (body: Record<string, unknown>) =>
  String((body as GeminiBody).contents.at(-1)!.parts[0].text ?? "");

/** The function declarations' and system texts' tokens (the server's count). */
function geminiHeadTokens(body: Record<string, unknown>): number {
  const tools = body.tools as { functionDeclarations: unknown[] }[];
  const system = body.systemInstruction as { parts: { text: string }[] };
  return [
    ...tools.flatMap((tool) =>
      tool.functionDeclarations.map((declaration) =>
        JSON.stringify(declaration)
      )
    ),
    ...system.parts.map((part) => part.text),
  ].reduce((sum, unit) => sum + tokensOf(unit), 0);
}

async function withGemini(
  run: (
    send: (body: unknown) => Promise<GenerateContentResponse>,
    server: CacheServer,
    usages: NonNullable<GenerateContentResponse["usageMetadata"]>[],
  ) => Promise<void>,
): Promise<void> {
  await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
    const ai = new GoogleGenAI({
      apiKey: "loopback",
      httpOptions: { baseUrl: url },
    });
    const usages: NonNullable<GenerateContentResponse["usageMetadata"]>[] = [];
    await run(
      async (body) => {
        const answer = await ai.models.generateContent(body as never);
        usages.push(answer.usageMetadata!);
        return answer;
      },
      server,
      usages,
    );
  });
}

function checkGeminiSession(
  server: CacheServer,
  usages: NonNullable<GenerateContentResponse["usageMetadata"]>[],
): void {
  assert.deepEqual(server.rejections, []);
  const compactions = summarizing(server, geminiText);
  assert.equal(compactions.length, 2, "the trigger fires twice");
  for (const index of compactions) {
    const body = server.bodies[index] as GeminiBody;
    const before = server.bodies[index - 1] as GeminiBody;
    for (const key of ["systemInstruction", "tools", "generationConfig"]) {
      assert.deepEqual(body[key], before[key], key);
    }
    assert.deepEqual(body.contents.slice(0, -2), before.contents);
    const usage = usages[index];
    assert.ok(
      usage.cachedContentTokenCount! >= 0.9 * usage.promptTokenCount!,
      `compaction ${index} read ${usage.cachedContentTokenCount} of ${usage.promptTokenCount}`,
    );
    const after = server.bodies[index + 1] as GeminiBody;
    assert.match(geminiText({ contents: [after.contents[0]] }), INSTRUCTION);
    assert.deepEqual(after.contents[1], {
      role: "model",
      parts: [{ text: "ok" }],
    });
    // It reads the tools and system instruction; the summary is new.
    const next = usages[index + 1];
    assert.ok(next.cachedContentTokenCount! >= geminiHeadTokens(after));
    assert.ok(
      next.cachedContentTokenCount! + tokensOf(`model:{"text":"ok"}`) <=
        next.promptTokenCount!,
    );
    assert.match(JSON.stringify(after.contents.slice(2)), /It is Monday\./);
  }
}

describe("compaction on geminiConversation (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  const options = {
    model: "gemini-3-flash",
    compactAt: { inputTokens: COMPACT_AT },
  };

  it("a 300-step session crosses compactAt twice, each summary read from the cache", async () => {
    const prompt = reviewRegistry();
    await withGemini(async (send, server, usages) => {
      const conv = geminiConversation(prompt, options);
      await session([conv as unknown as Conv], send);
      checkGeminiSession(server, usages);
      await checkReport(conv as unknown as Conv);
    });
    await prompt.dispose();
  });

  it("resumed between the two compactions, it sends the same bytes", async () => {
    const prompt = reviewRegistry();
    await withGemini(async (send, server, usages) => {
      const conv = geminiConversation(prompt, options);
      let resumed = false;
      await session([conv as unknown as Conv], send, (convs) => {
        if (resumed || summarizing(server, geminiText).length !== 1) return;
        resumed = true;
        convs.push(
          resumeGeminiConversation(prompt, conv.save()) as unknown as Conv,
        );
      });
      assert.ok(resumed);
      checkGeminiSession(server, usages);
    });
    await prompt.dispose();
  });

  it("in the background: a turn of thought alone is carried as it came, and Gemini takes the next request", async () => {
    const prompt = reviewRegistry();
    await withGemini(async (send, server) => {
      const conv = geminiConversation(prompt, { model: "gemini-3-flash" });
      conv.user("Review #42.");
      conv.record(await send(await conv.request()));
      const compaction = await conv.compact();
      const summary = await send(compaction.body);
      conv.user("And #43?");
      await send(await conv.request());
      const thought = { text: "Hm.", thought: true, thoughtSignature: "c2ln" };
      conv.record({
        candidates: [{
          content: { role: "model", parts: [thought] },
          finishReason: "MAX_TOKENS",
        }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
      });
      compaction.record(summary);
      conv.user("Go on.");
      const swapped = await conv.request() as unknown as GeminiBody;
      // Gemini checks thought signatures in the current turn only: the
      // model's turn keeps its thought, and the roles alternate.
      assert.deepEqual(
        swapped.contents.map((content) => content.role),
        ["user", "model", "user", "model", "user"],
      );
      assert.deepEqual(swapped.contents[3], {
        role: "model",
        parts: [thought],
      });
      await send(swapped);
      assert.deepEqual(server.rejections, []);
    });
    await prompt.dispose();
  });
});
