// Deno-only: no body the conversation builds can cause a provider's typed
// compaction error (issue 47), through the real `@anthropic-ai/sdk` and
// `openai` clients against the rule-enforcing loopback servers: each
// session that could provoke one (a second compaction, a resumed block,
// inline tool changes after a block, a compaction while a turn is open,
// on an empty conversation, a background compaction with thinking in the
// steps it carries, the providers' own threshold compaction) leaves
// `server.rejections` empty or is refused locally before any request; a
// tampered block shows the server does refuse each.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  responsesConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { withAnthropicServer } from "../adapters/anthropic_loopback_sdk.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import type {
  AnthropicServer,
  ScriptBlock,
  ServerTurn,
} from "../adapters/thinking_server.ts";
import {
  type OpenAIServer,
  openaiServer,
} from "../adapters/compaction_server.ts";

const RULES = "Keep every change small and run the tests after it. ".repeat(
  40,
);
const MODEL = { model: "claude-fable-5-1", max_tokens: 1024 };

/** The registry: a long section, tools the test may change. */
function registry(): { prompt: SystemPrompt; tools: string[] } {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({ name: "rules", order: 100, text: RULES });
  const state = { prompt, tools: ["read_file", "shell"] };
  const parameters = { type: "object", properties: {} };
  prompt.tools(() => ({
    schemas: state.tools.map((name) => ({
      name,
      description: `The ${name} tool.`,
      parameters,
    })),
  }));
  return state;
}

/** Thinking, then a tool call for a person's message, text for its result. */
function script(turn: ServerTurn): ScriptBlock[] {
  const messages = turn.body.messages as { content: unknown }[];
  const answered = JSON.stringify(messages.at(-1)?.content).includes(
    '"tool_result"',
  );
  return [
    { type: "thinking", thinking: `Turn ${turn.index}.` },
    answered ? { type: "text", text: "Done." } : {
      type: "tool_use",
      id: `toolu_${turn.index}`,
      name: "read_file",
      input: {},
    },
  ];
}

function withAnthropic<T>(
  run: (client: Anthropic, server: AnthropicServer) => Promise<T>,
  options: { summaryLength?: number } = {},
): Promise<T> {
  return withAnthropicServer({ script, ...options }, run);
}

interface Conv {
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): { id: string }[];
  readonly continues: boolean;
  readonly openCalls: readonly { id: string }[];
  readonly messages: readonly unknown[];
  save(): string;
  compact(): Promise<{ body: unknown; record(answer: unknown): void }>;
}

/** One person turn: tool calls answered until the model answers text. */
async function turn(
  conv: Conv,
  send: (body: unknown) => Promise<unknown>,
  text: string,
): Promise<void> {
  conv.user(text);
  let again = true;
  while (again) {
    const calls = conv.record(await send(await conv.request()));
    for (const call of calls) conv.toolResult(call.id, "42 lines.");
    again = calls.length > 0 || conv.continues;
  }
}

/** The rest of a turn whose last answer gave `calls`. */
async function finish(
  conv: Conv,
  send: (body: unknown) => Promise<unknown>,
  calls: { id: string }[],
): Promise<void> {
  while (calls.length > 0 || conv.continues) {
    for (const call of calls) conv.toolResult(call.id, "42 lines.");
    calls = conv.record(await send(await conv.request()));
  }
}

function codes(server: { rejections: { code?: string; message: string }[] }) {
  return server.rejections.map((rejection) =>
    rejection.code ?? rejection.message
  );
}

describe(
  "no Anthropic compaction error from a conversation's bodies (issue 47)",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    it("a second compaction sends one block with content (compaction_block_ambiguous)", async () => {
      await withAnthropic(async (client, server) => {
        const { prompt } = registry();
        const conv = anthropicConversation(prompt, MODEL) as unknown as Conv;
        const send = (body: unknown) =>
          client.beta.messages.create(body as never);
        for (let round = 0; round < 3; round++) {
          await turn(conv, send, `Round ${round}.`);
          const compaction = await conv.compact();
          compaction.record(await send(compaction.body));
        }
        await turn(conv, send, "And now?");
        assert.deepEqual(codes(server), []);
        const last = server.accepted.at(-1)!.body.messages as {
          content: { type: string }[];
        }[];
        const blocks = last.flatMap((message) =>
          message.content.filter((block) => block.type === "compaction")
        );
        assert.equal(blocks.length, 1);
        assert.equal(last[0].content[0].type, "compaction");
        await prompt.dispose();
      });
    });

    it("a resumed block verifies (compaction_signature_invalid, content and tool_changes mismatch)", async () => {
      await withAnthropic(async (client, server) => {
        const state = registry();
        const options = { ...MODEL, toolChanges: "inline" as const };
        const conv = anthropicConversation(state.prompt, options);
        const send = (body: unknown) =>
          client.beta.messages.create(body as never);
        await turn(conv as unknown as Conv, send, "Start.");
        // A tool added inline before the compaction: the block records it.
        state.tools = ["read_file", "shell", "grep"];
        await turn(conv as unknown as Conv, send, "Use grep.");
        const compaction = await conv.compact();
        compaction.record(await send(compaction.body));
        const resumed = resumeAnthropicConversation(
          state.prompt,
          conv.save(),
          { toolChanges: "inline" },
        );
        const body = await (async () => {
          resumed.user("Go on.");
          return await resumed.request();
        })();
        conv.user("Go on.");
        assert.deepEqual(body, await conv.request());
        await finish(
          resumed as unknown as Conv,
          send,
          resumed.record(await send(body)),
        );
        // A tool change after the block: a system message after it, never before.
        state.tools = ["read_file"];
        await turn(resumed as unknown as Conv, send, "Drop the rest.");
        assert.deepEqual(codes(server), []);
        // The server does refuse an edited block.
        const sent = structuredClone(server.accepted.at(-1)!.body) as {
          messages: { content: Record<string, unknown>[] }[];
        };
        sent.messages[0].content[0].content = "Edited summary.";
        await assert.rejects(
          send({ ...sent, betas: server.accepted.at(-1)!.betas }),
          (error: unknown) =>
            error instanceof Anthropic.BadRequestError &&
            (error.error as { error?: { details?: { error_code?: string } } })
                .error?.details?.error_code === "compaction_content_mismatch",
        );
        await state.prompt.dispose();
      });
    });

    it("a compaction with a tool call open is refused before any request (compaction_incomplete_turn)", async () => {
      await withAnthropic(async (client, server) => {
        const { prompt } = registry();
        const conv = anthropicConversation(prompt, MODEL);
        await assert.rejects(
          conv.compact(),
          (error: unknown) =>
            error instanceof SystemPromptError &&
            error.code === "NOTHING_TO_SEND",
        );
        conv.user("Read it.");
        const calls = conv.record(
          await client.beta.messages.create(await conv.request() as never),
        );
        assert.equal(calls.length, 1);
        const sent = server.accepted.length;
        await assert.rejects(
          conv.compact(),
          (error: unknown) =>
            error instanceof SystemPromptError &&
            error.code === "COMPACTION_OPEN_CALLS" &&
            error.message.includes(calls[0].id),
        );
        assert.equal(server.accepted.length, sent);
        assert.deepEqual(codes(server), []);
        await prompt.dispose();
      });
    });

    it("a background compaction swaps at the turn's end, thinking stripped from what it carries", async () => {
      await withAnthropic(async (client, server) => {
        const { prompt } = registry();
        const conv = anthropicConversation(prompt, MODEL);
        const send = (body: unknown) =>
          client.beta.messages.create(body as never);
        await turn(conv as unknown as Conv, send, "Start.");
        const compaction = await conv.compact();
        const answer = await send(compaction.body);
        const at = conv.messages.length;
        // The harness goes on while the compaction runs.
        conv.user("Next.");
        const calls = conv.record(await send(await conv.request()));
        assert.equal(calls.length, 1);
        await assert.rejects(
          conv.compact(),
          (error: unknown) =>
            error instanceof SystemPromptError &&
            error.code === "COMPACTION_PENDING",
        );
        compaction.record(answer);
        conv.toolResult(calls[0].id, "42 lines.");
        // Mid-turn: no swap yet (the call's turn goes on, on the full history).
        const midTurn = await conv.request() as { messages: unknown[] };
        assert.equal(midTurn.messages.length, at + 3);
        conv.record(await send(midTurn));
        const carried = conv.messages.slice(at) as {
          role: string;
          content: { type: string }[];
        }[];
        // The turn ended: the next request starts with the summary.
        conv.user("Then?");
        const swapped = await conv.request() as {
          messages: { role: string; content: { type: string }[] }[];
        };
        assert.equal(swapped.messages[0].content[0].type, "compaction");
        const expected = carried.map((message) => ({
          ...message,
          content: message.content.filter((block) => block.type !== "thinking"),
        }));
        assert.deepEqual(
          JSON.parse(
            JSON.stringify(swapped.messages.slice(1, 1 + expected.length)),
            (key, value) => key === "cache_control" ? undefined : value,
          ),
          expected,
        );
        await finish(
          conv as unknown as Conv,
          send,
          conv.record(await send(swapped)),
        );
        await turn(conv as unknown as Conv, send, "More.");
        assert.deepEqual(codes(server), []);
        // Resumed after the swap: the same bytes.
        const resumed = resumeAnthropicConversation(prompt, conv.save());
        resumed.user("Last.");
        conv.user("Last.");
        assert.deepEqual(await resumed.request(), await conv.request());
        await prompt.dispose();
      });
    });

    it("threshold compaction inside a step is recorded, its block first after it", async () => {
      await withAnthropic(async (client, server) => {
        const { prompt } = registry();
        const options = { ...MODEL, serverCompaction: { trigger: 1_500 } };
        const conv = anthropicConversation(prompt, options);
        const send = (body: unknown) =>
          client.beta.messages.create(body as never);
        for (let round = 0; round < 8; round++) {
          await turn(
            conv as unknown as Conv,
            send,
            `Round ${round}. `.repeat(20),
          );
        }
        assert.deepEqual(codes(server), []);
        const compacted = server.accepted.filter((request) =>
          request.usage.iterations?.some((entry) => entry.type === "compaction")
        );
        assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
        // The report counts the compaction's iteration beside the message's.
        const all = (usage: Record<string, unknown>) =>
          (usage.input_tokens as number) +
          (usage.cache_read_input_tokens as number) +
          (usage.cache_creation_input_tokens as number);
        const report = conv.report({
          countTokens: (text) => Math.ceil(text.length / 4),
        });
        assert.equal(
          report.totals.inputTokens,
          server.accepted.reduce(
            (sum, request) =>
              sum + (request.usage.iterations?.reduce(
                (inner, entry) => inner + all(entry),
                0,
              ) ?? all(request.usage as unknown as Record<string, unknown>)),
            0,
          ),
        );
        assert.equal(
          report.requests.filter((request) => request.compaction).length,
          compacted.length,
        );
        const lines = conv.save().trim().split("\n").map((line) =>
          JSON.parse(line)
        );
        assert.equal(lines[0].version, 2);
        assert.equal(lines[0].form, "anthropic-messages");
        assert.equal(
          lines.filter((line) => line.compacted === true).length,
          compacted.length,
        );
        const first = (conv.messages[0] as { content: { type: string }[] })
          .content[0];
        assert.equal(first.type, "compaction");
        const resumed = resumeAnthropicConversation(prompt, conv.save());
        resumed.user("Last.");
        conv.user("Last.");
        assert.deepEqual(await resumed.request(), await conv.request());
        await prompt.dispose();
      });
      it("pauseAfter: the turn stops at the block (continues) and goes on after it", async () => {
        await withAnthropic(async (client, server) => {
          const { prompt } = registry();
          const options = {
            ...MODEL,
            serverCompaction: { trigger: 1_500, pauseAfter: true },
          };
          const conv = anthropicConversation(prompt, options);
          const send = (body: unknown) =>
            client.beta.messages.create(body as never);
          for (let round = 0; round < 8; round++) {
            await turn(
              conv as unknown as Conv,
              send,
              `Round ${round}. `.repeat(20),
            );
          }
          assert.deepEqual(codes(server), []);
          const paused = server.accepted.flatMap((request, index) =>
            request.stopReason === "compaction" ? [index] : []
          );
          assert.ok(paused.length >= 2, `${paused.length} pauses`);
          // Each pause was followed by a request that goes on from the block.
          for (const index of paused) {
            const next = server.accepted[index + 1].body.messages as {
              content: { type: string }[];
            }[];
            assert.equal(next[0].content[0].type, "compaction");
            // continues: the same turn, nothing added after the block.
            assert.equal(next.length, 1);
          }
          await prompt.dispose();
        });
      });
    });
  },
);

// ---------------------------------------------------------------- OpenAI

async function withOpenAI<T>(
  run: (client: OpenAI, server: OpenAIServer) => Promise<T>,
): Promise<T> {
  const server = openaiServer({
    minimumCacheTokens: 64,
    script: (index) =>
      index % 2 === 0
        ? [{
          type: "function_call",
          call_id: `call_${index}`,
          name: "read_file",
          arguments: "{}",
        }]
        : [{ type: "message", text: "Done." }],
  });
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

describe(
  "no OpenAI compaction refusal from a conversation's bodies (issue 47)",
  {
    skip: SDK_PERMISSIONS,
  },
  () => {
    it("compaction_trigger last, the item resumed verbatim, tools told again", async () => {
      await withOpenAI(async (client, server) => {
        const state = registry();
        const conv = responsesConversation(state.prompt, {
          model: "gpt-5.6",
          toolChanges: "inline",
        });
        const send = (body: unknown) => client.responses.create(body as never);
        await turn(conv as unknown as Conv, send, "Start.");
        state.tools = ["read_file", "shell", "grep"];
        await turn(conv as unknown as Conv, send, "Use grep.");
        for (let round = 0; round < 2; round++) {
          const compaction = await conv.compact();
          compaction.record(await send(compaction.body));
          const resumed = resumeResponsesConversation(
            state.prompt,
            conv.save(),
            {
              toolChanges: "inline",
            },
          );
          resumed.user("Go on.");
          conv.user("Go on.");
          const body = await conv.request() as {
            input: Record<string, unknown>[];
          };
          assert.deepEqual(await resumed.request(), body);
          // The compaction dropped the additional_tools item: told again.
          assert.equal(body.input[1].type, "compaction");
          assert.ok(
            body.input.slice(2).some((item) =>
              item.type === "additional_tools" &&
              JSON.stringify(item.tools).includes('"grep"')
            ),
          );
          conv.record(await send(body));
          await turn(conv as unknown as Conv, send, "More.");
        }
        assert.deepEqual(server.rejections, []);
        await state.prompt.dispose();
      });
    });

    it('responses.compact (via: "compact"): no tools sent, its output starts the history', async () => {
      await withOpenAI(async (client, server) => {
        const { prompt } = registry();
        const conv = responsesConversation(prompt, { model: "gpt-5.6" });
        const send = (body: unknown) => client.responses.create(body as never);
        await turn(conv as unknown as Conv, send, "Start.");
        await assert.rejects(
          conv.compact({ via: "summarize" as never }),
          (error: unknown) =>
            error instanceof SystemPromptError &&
            error.code === "INVALID_CONFIG",
        );
        const compaction = await conv.compact({ via: "compact" });
        const body = compaction.body as unknown as Record<string, unknown>;
        assert.equal(body.tools, undefined);
        compaction.record(await client.responses.compact(body as never));
        conv.user("Go on.");
        const next = await conv.request() as {
          input: Record<string, unknown>[];
        };
        // The system item, the user messages compact returned, its item.
        assert.equal(next.input[0].role, "system");
        assert.ok(next.input.some((item) => item.type === "compaction"));
        const resumed = resumeResponsesConversation(prompt, conv.save());
        resumed.user("Go on.");
        assert.deepEqual(await resumed.request(), next);
        conv.record(await send(next));
        assert.deepEqual(server.rejections, []);
        assert.equal(server.accepted.at(-2)!.path, "/responses/compact");
        await prompt.dispose();
      });
    });

    it("context_management compaction inside a step is recorded, items before it dropped", async () => {
      await withOpenAI(async (client, server) => {
        const { prompt } = registry();
        const conv = responsesConversation(prompt, {
          model: "gpt-5.6",
          serverCompaction: { threshold: 1_200 },
        });
        const send = (body: unknown) => client.responses.create(body as never);
        for (let round = 0; round < 12; round++) {
          await turn(
            conv as unknown as Conv,
            send,
            `Round ${round}. `.repeat(20),
          );
        }
        assert.deepEqual(server.rejections, []);
        const compacted = server.accepted.filter((request) =>
          request.compacted
        );
        assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
        assert.equal(
          (conv.messages[0] as { type?: string }).type,
          "compaction",
        );
        const resumed = resumeResponsesConversation(prompt, conv.save());
        resumed.user("Last.");
        conv.user("Last.");
        assert.deepEqual(await resumed.request(), await conv.request());
        await prompt.dispose();
      });
    });
  },
);
