// Deno-only: compaction that rides the cache (issue 47, SPEC 10.2), per
// form, through the real `@anthropic-ai/sdk`, `openai` and `ai` clients
// against the loopback servers that enforce the providers' compaction
// rules (tests/adapters/thinking_server.ts, compaction_server.ts): a
// 300-step session whose `compactAt` trigger fires twice, every
// summarizing request reading at least 90% of its input from the cache,
// the first request after each compaction writing only the summary and
// what follows, and a resume between the two compactions giving the same
// bytes for the rest of the session.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import * as ai from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { SystemPrompt } from "../../mod.ts";
import {
  anthropicConversation,
  type AnthropicConversationBody,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  type ResponsesConversationBody,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { withAnthropicServer } from "../adapters/anthropic_loopback_sdk.ts";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import type {
  AcceptedMessage,
  AnthropicServer,
  ScriptBlock,
  ServerTurn,
} from "../adapters/thinking_server.ts";
import {
  type AcceptedOpenAI,
  type OpenAIServer,
  openaiServer,
} from "../adapters/compaction_server.ts";
import { tokensOf, withoutKey } from "../adapters/server_kit.ts";

const RULES = "Keep every change small and run the tests after it. ".repeat(
  60,
);
const RESULT = "line of the file under test; ".repeat(12);
const STEPS = 300;
/**
 * Crossed twice in 300 steps at each form's growth per step (the bodies
 * differ: about 230 tokens a step on Anthropic, 150 on OpenAI, 125 through
 * the AI SDK).
 */
const COMPACT_AT = {
  anthropic: 26_000,
  openai: 17_000,
  aiSdk: 15_000,
};

/** The session's registry: a long system section, two tools, a runtime context. */
function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({ name: "rules", order: 100, text: RULES });
  const parameters = { type: "object", properties: {} };
  prompt.tools(() => ({
    schemas: [
      {
        name: "read_file",
        description: "Reads a file. ".repeat(20),
        parameters,
      },
      { name: "shell", description: "Runs a command. ".repeat(20), parameters },
    ],
  }));
  prompt.runtimeContext({ name: "git", order: 0, text: () => "On main." });
  return prompt;
}

/** What a session needs of a conversation, whatever its form. */
interface Conv {
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): { id: string }[];
  readonly continues: boolean;
  save(): string;
  compact(): Promise<{ body: unknown; record(answer: unknown): void }>;
  report(options: { countTokens: (text: string) => number }): {
    requests: { judgement?: { verdict?: string } }[];
  };
}

/**
 * Runs `STEPS` requests: a turn per person message, tool calls answered
 * until the model answers text, the compactAt trigger answered in the
 * loop (`continues`). `convs[0]` is sent; every other conversation builds
 * the same body (asserted) and records the same answer. `at(n)`, at the
 * end of each turn, may add a conversation (a resume).
 */
async function session(
  convs: Conv[],
  send: (body: unknown) => Promise<unknown>,
  at?: (sent: number, convs: Conv[]) => void,
): Promise<void> {
  let sent = 0;
  let turn = 0;
  while (sent < STEPS) {
    for (const conv of convs) conv.user(`Task ${turn}: fix the next test.`);
    turn++;
    let again = true;
    while (again && sent < STEPS) {
      const bodies = [];
      for (const conv of convs) bodies.push(await conv.request());
      for (const body of bodies.slice(1)) {
        assert.deepEqual(body, bodies[0], `request ${sent + 1}`);
      }
      const answer = await send(bodies[0]);
      sent++;
      const callsOf = convs.map((conv) => conv.record(answer));
      for (const [index, conv] of convs.entries()) {
        for (const call of callsOf[index]) conv.toolResult(call.id, RESULT);
      }
      again = callsOf[0].length > 0 || convs[0].continues;
    }
    // A turn ends: nothing open (a resume reads only what is recorded).
    at?.(sent, convs);
  }
}

const countTokens = (text: string) => tokensOf(text);

/**
 * Type proof only (not called): a conversation's body, a summarizing one
 * (`compaction`, `context_management`, betas) too, is the beta API's.
 */
export function anthropicBody(
  client: Anthropic,
  body: AnthropicConversationBody,
): Promise<Anthropic.Beta.BetaMessage> {
  return client.beta.messages.create(body);
}

/**
 * Type proof only (not called): a Responses body with compaction and
 * compaction_trigger items and `context_management` is the SDK's.
 */
export function responsesBody(
  client: OpenAI,
  body: ResponsesConversationBody,
): Promise<OpenAI.Responses.Response> {
  return client.responses.create(body);
}

// ------------------------------------------------------------- Anthropic

/** Whether `body` is a client-side summarizing request (its last message asks). */
function asksSummary(body: Record<string, unknown>): boolean {
  const messages = body.messages as unknown[] | undefined;
  return JSON.stringify(messages?.at(-1) ?? null).includes(
    "Summarize the conversation",
  );
}

/**
 * The model's side: a tool call, every fifth answer text (a turn ends); a
 * summarizing request is answered with its summary.
 */
function anthropicScript(turn: ServerTurn): ScriptBlock[] {
  if (asksSummary(turn.body)) {
    return [{ type: "thinking" as const, thinking: "Summing up." }, {
      type: "text" as const,
      text: `Read files up to f${turn.index}.ts; fixed them.`,
    }];
  }
  return turn.index % 5 === 4
    ? [{ type: "thinking" as const, thinking: `Done ${turn.index}.` }, {
      type: "text" as const,
      text: "Fixed.",
    }]
    : [{ type: "thinking" as const, thinking: `Step ${turn.index}.` }, {
      type: "tool_use" as const,
      id: `toolu_${turn.index}`,
      name: "read_file",
      input: { path: `f${turn.index}.ts` },
    }];
}

function withAnthropic<T>(
  run: (client: Anthropic, server: AnthropicServer) => Promise<T>,
  script: (turn: ServerTurn) => ScriptBlock[] = anthropicScript,
): Promise<T> {
  return withAnthropicServer({ script }, run);
}

/** The head's tokens as the Anthropic server counts them (tools, system). */
function anthropicHeadTokens(body: Record<string, unknown>): number {
  return [
    ...(body.tools as unknown[] ?? []),
    ...(body.system as unknown[]),
  ].reduce<number>(
    (sum, unit) =>
      sum + tokensOf(JSON.stringify(withoutKey(unit, "cache_control"))),
    0,
  );
}

const inputOf = (usage: AcceptedMessage["usage"]) =>
  usage.input_tokens + usage.cache_read_input_tokens +
  usage.cache_creation_input_tokens;

function checkAnthropicSession(server: AnthropicServer): void {
  assert.deepEqual(server.rejections, []);
  const compactions = server.accepted.flatMap((request, index) =>
    request.body.compaction === undefined ? [] : [index]
  );
  assert.equal(compactions.length, 2, "the trigger fires twice");
  for (const index of compactions) {
    const { usage, stopReason, betas } = server.accepted[index];
    assert.equal(stopReason, "compaction");
    assert.ok(betas.includes("compact-2026-09-04"));
    assert.equal(usage.cache_creation_input_tokens, 0, `request ${index}`);
    assert.ok(
      usage.cache_read_input_tokens >= 0.9 * inputOf(usage),
      `compaction ${index} read ${usage.cache_read_input_tokens} of ${
        inputOf(usage)
      }`,
    );
    const after = server.accepted[index + 1];
    const messages = after.body.messages as Record<string, unknown>[];
    const first = (messages[0].content as Record<string, unknown>[])[0];
    assert.equal(first.type, "compaction");
    // It reads tools and system, and writes the summary and what follows.
    const head = anthropicHeadTokens(after.body);
    assert.ok(
      after.usage.cache_read_input_tokens >= head,
      `after ${index}: read ${after.usage.cache_read_input_tokens} < ${head}`,
    );
    assert.equal(
      after.usage.cache_read_input_tokens +
        after.usage.cache_creation_input_tokens +
        after.usage.input_tokens,
      inputOf(after.usage),
    );
    assert.ok(after.usage.cache_creation_input_tokens > 0);
    assert.ok(
      after.usage.cache_creation_input_tokens + after.usage.input_tokens <=
        inputOf(after.usage) - head,
    );
    // What the summary dropped is told again: the runtime context.
    assert.match(JSON.stringify(messages.slice(1)), /On main\./);
  }
}

describe("compaction through @anthropic-ai/sdk (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a 300-step session crosses compactAt twice, each compaction read from the cache", async () => {
    await withAnthropic(async (client, server) => {
      const prompt = registry();
      const conv = anthropicConversation(prompt, {
        model: "claude-fable-5-1",
        max_tokens: 1024,
        compactAt: { inputTokens: COMPACT_AT.anthropic },
      });
      await session(
        [conv as unknown as Conv],
        (body) => client.beta.messages.create(body as never),
      );
      checkAnthropicSession(server);
      const verdicts = conv.report({ countTokens }).requests.map((request) =>
        request.judgement?.verdict
      );
      assert.equal(
        verdicts.filter((verdict) => verdict === "compaction").length,
        2,
      );
      assert.ok(!verdicts.includes("layout"), verdicts.join());
      // rxprompt report shows each summarizing request and the rewrite after it.
      const file = await Deno.makeTempFile({ suffix: ".jsonl" });
      try {
        await Deno.writeTextFile(file, conv.save());
        const lines = reportLines(await reportOfFile(file, {}));
        assert.equal(
          lines.filter((line) => / summary$/.test(line)).length,
          2,
        );
        assert.equal(
          lines.filter((line) => /\bcompaction$/.test(line)).length,
          2,
        );
      } finally {
        await Deno.remove(file);
      }
      await prompt.dispose();
    });
  });

  it("resumed between the two compactions, it sends the same bytes", async () => {
    await withAnthropic(async (client, server) => {
      const prompt = registry();
      const options = {
        model: "claude-fable-5-1",
        max_tokens: 1024,
        compactAt: { inputTokens: COMPACT_AT.anthropic },
      };
      const conv = anthropicConversation(prompt, options);
      let resumed = false;
      await session(
        [conv as unknown as Conv],
        (body) => client.beta.messages.create(body as never),
        (_sent, convs) => {
          const compacted = server.accepted.filter((request) =>
            request.body.compaction !== undefined
          ).length;
          if (resumed || compacted !== 1 || convs[0].continues) {
            return;
          }
          resumed = true;
          convs.push(
            resumeAnthropicConversation(
              prompt,
              convs[0].save(),
            ) as unknown as Conv,
          );
        },
      );
      assert.ok(resumed);
      checkAnthropicSession(server);
      await prompt.dispose();
    });
  });
});

// ---------------------------------------------------------------- OpenAI

/**
 * The model's side: a function call, every fifth answer text; a
 * summarizing request is answered with its summary.
 */
function openaiScript(index: number, body: Record<string, unknown>) {
  if (asksSummary(body)) {
    return [{
      type: "message" as const,
      text: `Read files up to f${index}.ts; fixed them.`,
    }];
  }
  return index % 5 === 4 ? [{ type: "message" as const, text: "Fixed." }] : [{
    type: "function_call" as const,
    call_id: `call_${index}`,
    name: "read_file",
    arguments: `{"path":"f${index}.ts"}`,
  }];
}

async function withOpenAI<T>(
  run: (client: OpenAI, server: OpenAIServer) => Promise<T>,
): Promise<T> {
  const server = openaiServer({ minimumCacheTokens: 64, script: openaiScript });
  return await serveLoopback(server.answer, (baseURL) =>
    run(
      new OpenAI({
        apiKey: "sk-loopback",
        baseURL,
        maxRetries: 0,
        timeout: 10_000,
      }),
      server,
    ));
}

function isCompaction(request: AcceptedOpenAI): boolean {
  if (request.path === "/responses") {
    const input = request.body.input as Record<string, unknown>[];
    return input.at(-1)?.type === "compaction_trigger";
  }
  const messages = request.body.messages as Record<string, unknown>[];
  return JSON.stringify(messages.at(-1)).includes("Summarize the conversation");
}

function checkOpenAISession(server: OpenAIServer): number[] {
  assert.deepEqual(server.rejections, []);
  const compactions = server.accepted.flatMap((request, index) =>
    isCompaction(request) ? [index] : []
  );
  assert.equal(compactions.length, 2, "the trigger fires twice");
  for (const index of compactions) {
    const { usage } = server.accepted[index];
    assert.ok(
      usage.cached >= 0.9 * usage.input,
      `compaction ${index} read ${usage.cached} of ${usage.input}`,
    );
    const after = server.accepted[index + 1];
    assert.ok(after.usage.cached > 0, `after ${index}: nothing read`);
    assert.match(JSON.stringify(after.body), /On main\./);
  }
  return compactions;
}

describe("compaction through openai (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("Responses: a 300-step session crosses compactAt twice with compaction_trigger", async () => {
    await withOpenAI(async (client, server) => {
      const prompt = registry();
      const conv = responsesConversation(prompt, {
        model: "gpt-5.6",
        compactAt: { inputTokens: COMPACT_AT.openai },
      });
      await session(
        [conv as unknown as Conv],
        (body) => client.responses.create(body as never),
      );
      const compactions = checkOpenAISession(server);
      for (const index of compactions) {
        assert.equal(server.accepted[index].compacted, true);
        const input = server.accepted[index + 1].body.input as Record<
          string,
          unknown
        >[];
        assert.equal(input[1].type, "compaction");
        // The items before the compaction are gone: only the system before it.
        assert.equal(server.accepted[index + 1].start, 1);
      }
      await prompt.dispose();
    });
  });

  it("Responses: resumed between the two compactions, the same bytes", async () => {
    await withOpenAI(async (client, server) => {
      const prompt = registry();
      const conv = responsesConversation(prompt, {
        model: "gpt-5.6",
        compactAt: { inputTokens: COMPACT_AT.openai },
      });
      let resumed = false;
      await session(
        [conv as unknown as Conv],
        (body) => client.responses.create(body as never),
        (_sent, convs) => {
          if (resumed || server.accepted.filter(isCompaction).length !== 1) {
            return;
          }
          resumed = true;
          convs.push(
            resumeResponsesConversation(
              prompt,
              convs[0].save(),
            ) as unknown as Conv,
          );
        },
      );
      assert.ok(resumed);
      checkOpenAISession(server);
      await prompt.dispose();
    });
  });

  it("Chat Completions: the client-side summary, twice, and resumed between", async () => {
    await withOpenAI(async (client, server) => {
      const prompt = registry();
      const conv = chatConversation(prompt, {
        model: "gpt-5.6",
        compactAt: { inputTokens: COMPACT_AT.openai },
      });
      let resumed = false;
      await session(
        [conv as unknown as Conv],
        (body) => client.chat.completions.create(body as never),
        (_sent, convs) => {
          if (resumed || server.accepted.filter(isCompaction).length !== 1) {
            return;
          }
          resumed = true;
          convs.push(
            resumeChatConversation(prompt, convs[0].save()) as unknown as Conv,
          );
        },
      );
      assert.ok(resumed);
      const compactions = checkOpenAISession(server);
      for (const index of compactions) {
        // The summary is the answer's text, in the next request's first message.
        const messages = server.accepted[index + 1].body.messages as Record<
          string,
          unknown
        >[];
        assert.match(
          JSON.stringify(messages[1]),
          /Summary of the conversation so far/,
        );
      }
      await prompt.dispose();
    });
  });
});

// ---------------------------------------------------------------- AI SDK

describe("compaction through ai with @ai-sdk/anthropic (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("the client-side summary, twice, read from the cache, resumed between", async () => {
    await withAnthropic(
      async (_client, server) => {
        const baseURL = `http://127.0.0.1:${new URL(_client.baseURL).port}/v1`;
        const model = createAnthropic({ apiKey: "sk-loopback", baseURL })(
          "claude-fable-5-1",
        );
        const prompt = registry();
        const conv = aiSdkConversation(prompt, {
          compactAt: { inputTokens: COMPACT_AT.aiSdk },
        });
        let resumed = false;
        await session(
          [conv as unknown as Conv],
          (body) =>
            ai.generateText({
              model,
              maxRetries: 0,
              maxOutputTokens: 256,
              ...(body as object),
            } as never),
          (_sent, convs) => {
            // The summarizing requests (the instruction last: it starts
            // the history after, too).
            const compacted = server.accepted.filter((request) =>
              asksSummary(request.body)
            ).length;
            if (resumed || compacted !== 1) {
              return;
            }
            resumed = true;
            convs.push(
              resumeAiSdkConversation(
                prompt,
                convs[0].save(),
              ) as unknown as Conv,
            );
          },
        );
        assert.ok(resumed);
        assert.deepEqual(server.rejections, []);
        const compactions = server.accepted.flatMap((request, index) =>
          JSON.stringify((request.body.messages as unknown[]).at(-1)).includes(
              "Summarize the conversation",
            )
            ? [index]
            : []
        );
        assert.equal(compactions.length, 2);
        for (const index of compactions) {
          const { usage } = server.accepted[index];
          assert.equal(usage.cache_creation_input_tokens, 0);
          assert.ok(usage.cache_read_input_tokens >= 0.9 * inputOf(usage));
          const after = server.accepted[index + 1].usage;
          assert.ok(
            after.cache_read_input_tokens >=
              anthropicHeadTokens(server.accepted[index + 1].body),
          );
        }
        await prompt.dispose();
      },
      (turn) =>
        anthropicScript(turn).filter((block) => block.type !== "thinking"),
    );
  });
});
