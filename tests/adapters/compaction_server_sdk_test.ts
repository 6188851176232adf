// Deno-only: the real `@anthropic-ai/sdk` and `openai` clients against the
// compaction rules of the loopback servers (thinking_server.ts,
// compaction_server.ts): Anthropic on-demand and threshold compaction and
// every refusal of a compaction block; OpenAI `responses.compact`,
// `context_management` compaction, `compaction_trigger`, reasoning items
// bound to their prefix, and Chat Completions, which has no compaction.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { serveLoopback } from "./loopback.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";
import { withAnthropicServer } from "./anthropic_loopback_sdk.ts";
import { BETAS } from "./thinking_server.ts";
import {
  type OpenAIServer,
  openaiServer,
  type OpenAIServerOptions,
} from "./compaction_server.ts";

type Params = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;
type MessageParam = Anthropic.Beta.Messages.BetaMessageParam;
type Block = Anthropic.Beta.Messages.BetaContentBlock;
type BlockParam = Anthropic.Beta.Messages.BetaContentBlockParam;
type InputItem = OpenAI.Responses.ResponseInputItem;

const MARK = { type: "ephemeral" } as const;
const RULES = "You are a coding agent. Keep every change small. ".repeat(100);

/** An answer's blocks as the next request sends them back (same keys, same order). */
function sentBack(content: readonly Block[]): BlockParam[] {
  return content.map((block): BlockParam => {
    switch (block.type) {
      case "thinking":
        return {
          type: "thinking",
          thinking: block.thinking,
          signature: block.signature,
        };
      case "text":
        return { type: "text", text: block.text };
      case "tool_use":
        return {
          type: "tool_use",
          id: block.id,
          name: block.name,
          input: block.input,
        };
      case "compaction":
        return {
          type: "compaction",
          content: block.content,
          encrypted_content: block.encrypted_content,
          signature: block.signature,
          tool_changes: block.tool_changes?.map((change) =>
            change.type === "tool_removal" ||
              change.tool.type !== "tool_definition"
              ? change
              : {
                type: "tool_addition",
                tool: {
                  type: "tool_definition",
                  definition: toolParam(change.tool.definition),
                },
              }
          ),
        };
      default:
        throw new Error(`no test sends back a ${block.type} block`);
    }
  });
}

/** A custom tool definition as a compaction block returns it, as a request sends it. */
function toolParam(
  tool: Anthropic.Beta.Messages.BetaResponseToolUnion,
): Anthropic.Beta.Messages.BetaToolUnion {
  if (!("input_schema" in tool)) {
    throw new Error("only custom tools in these tests");
  }
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema,
  };
}

function user(text: string, marked = false): MessageParam {
  return {
    role: "user",
    content: [
      marked
        ? { type: "text", text, cache_control: MARK }
        : { type: "text", text },
    ],
  };
}

function base(messages: MessageParam[], extra: Partial<Params> = {}): Params {
  return {
    model: "claude-fable-5-1",
    max_tokens: 1024,
    system: [{ type: "text", text: RULES, cache_control: MARK }],
    messages,
    ...extra,
  };
}

async function withOpenAI<T>(
  options: OpenAIServerOptions,
  run: (client: OpenAI, server: OpenAIServer) => Promise<T>,
): Promise<T> {
  const server = openaiServer({ minimumCacheTokens: 64, ...options });
  return await serveLoopback(
    server.answer,
    (baseURL) =>
      run(
        new OpenAI({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
          timeout: 10_000,
        }),
        server,
      ),
  );
}

const inputTotal = (usage: Anthropic.Beta.Messages.BetaUsage): number =>
  usage.input_tokens + (usage.cache_read_input_tokens ?? 0) +
  (usage.cache_creation_input_tokens ?? 0);

/** A session of two steps, for the compactions below to summarize. */
async function twoSteps(client: Anthropic): Promise<MessageParam[]> {
  const first = await client.beta.messages.create(
    base([user("Read the failing test.", true)]),
  );
  const history: MessageParam[] = [
    user("Read the failing test."),
    { role: "assistant", content: sentBack(first.content) },
  ];
  const second = await client.beta.messages.create(
    base([...history, user("Fix it. ".repeat(30), true)]),
  );
  return [...history, user("Fix it. ".repeat(30)), {
    role: "assistant",
    content: sentBack(second.content),
  }];
}

describe("Anthropic compaction through @anthropic-ai/sdk", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("on demand: the block alone, read from the cache; the next request starts with it", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const history = await twoSteps(client);
      // The live prefix, marked where the last request was (a read, no new write).
      const live = history.map((message, index) =>
        index === 2 ? user("Fix it. ".repeat(30), true) : message
      );
      const compacted = await client.beta.messages.create(
        base(live, {
          compaction: { type: "summarize" },
          betas: [BETAS.compaction],
        }),
      );
      assert.equal(compacted.stop_reason, "compaction");
      assert.deepEqual(compacted.content.map((block) => block.type), [
        "compaction",
      ]);
      assert.deepEqual(
        compacted.usage.iterations?.map((iteration) => iteration.type),
        ["compaction"],
      );
      assert.equal(compacted.usage.cache_creation_input_tokens, 0);
      const read = compacted.usage.cache_read_input_tokens ?? 0;
      assert.ok(
        read >= 0.9 * inputTotal(compacted.usage),
        `${read} of ${inputTotal(compacted.usage)}`,
      );
      const next = await client.beta.messages.create(base([
        { role: "assistant", content: sentBack(compacted.content) },
        user("Run the tests.", true),
      ], { betas: [BETAS.compaction] }));
      assert.equal(next.stop_reason, "end_turn");
      assert.equal(server.accepted.at(-1)?.start, 0);
      // Read: the system prompt; written: the summary and what follows; nothing else.
      const [block] = compacted.content;
      const summary = block.type === "compaction" ? block.content ?? "" : "";
      assert.ok((next.usage.cache_read_input_tokens ?? 0) > 0);
      assert.ok(
        (next.usage.cache_creation_input_tokens ?? 0) >=
          Math.ceil(summary.length / 4),
      );
      assert.equal(next.usage.input_tokens, 0);
      assert.ok(inputTotal(next.usage) < inputTotal(compacted.usage));
    });
  });

  it("refuses a misplaced, doubled or edited compaction block with the SDK's typed errors", async () => {
    await withAnthropicServer({}, async (client) => {
      const history = await twoSteps(client);
      const compacted = await client.beta.messages.create(
        base(history, {
          compaction: { type: "summarize" },
          betas: [BETAS.compaction],
        }),
      );
      const [block] = sentBack(compacted.content);
      assert.equal(block.type, "compaction");
      if (block.type !== "compaction") return;
      const send = (messages: MessageParam[]) =>
        client.beta.messages.create(
          base(messages, { betas: [BETAS.compaction] }),
        );
      await assert.rejects(
        send([user("Before."), {
          role: "assistant",
          content: [{ type: "text", text: "Hm." }, block],
        }, user("Next.")]),
        (error) => error instanceof Anthropic.CompactionBlockMisplacedError,
      );
      await assert.rejects(
        send([{ role: "assistant", content: [block] }, user("Next."), {
          role: "assistant",
          content: [block],
        }, user("Again.")]),
        (error) => error instanceof Anthropic.CompactionBlockAmbiguousError,
      );
      await assert.rejects(
        send([{
          role: "assistant",
          content: [{ ...block, content: `${block.content} And more.` }],
        }, user("Next.")]),
        (error) => error instanceof Anthropic.CompactionContentMismatchError,
      );
      await assert.rejects(
        send([{
          role: "assistant",
          content: [{ ...block, signature: "c2lnbmF0dXJl" }],
        }, user("Next.")]),
        (error) =>
          error instanceof Anthropic.CompactionSignatureInvalidError &&
          error.errorCode === "compaction_signature_invalid",
      );
      await assert.rejects(
        send([{
          role: "assistant",
          content: [{
            ...block,
            tool_changes: [{
              type: "tool_removal",
              tool: { type: "tool_reference", name: "x" },
            }],
          }],
        }, user("Next.")]),
        (error) =>
          error instanceof Anthropic.CompactionToolChangesMismatchError,
      );
      await assert.rejects(
        client.beta.messages.create(
          base([{ role: "assistant", content: [block] }, user("Next.")]),
        ),
        (error) =>
          error instanceof Anthropic.BadRequestError &&
          /compact-2026-09-04/.test(error.message),
      );
      // A block with no content is a no-op wherever it is.
      await send([user("Before."), {
        role: "assistant",
        content: [{ type: "compaction", content: null }],
      }, user("Next.")]);
    });
  });

  it("refuses a compaction with nothing to summarize or an unfinished turn", async () => {
    await withAnthropicServer({}, async (client) => {
      const compact = (messages: MessageParam[]) =>
        client.beta.messages.create(
          base(messages, {
            compaction: { type: "summarize" },
            betas: [BETAS.compaction],
          }),
        );
      await assert.rejects(
        compact([{ role: "system", content: "Only a system message." }]),
        (error) => error instanceof Anthropic.CompactionNothingToSummarizeError,
      );
      await assert.rejects(
        compact([user("Read it."), {
          role: "assistant",
          content: [{
            type: "tool_use",
            id: "t1",
            name: "read_file",
            input: {},
          }],
        }]),
        (error) => error instanceof Anthropic.CompactionIncompleteTurnError,
      );
      await assert.rejects(
        client.beta.messages.create(
          base([user("Hi.")], { compaction: { type: "summarize" } }),
        ),
        (error) =>
          error instanceof Anthropic.BadRequestError &&
          /requires the beta header/.test(error.message),
      );
    });
  });

  it("carries the range's tool changes in the block: a tool added inline stays offered after it", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const shell: Anthropic.Beta.Messages.BetaTool = {
        name: "shell",
        description: "Run a command.",
        input_schema: { type: "object", properties: {} },
      };
      const messages: MessageParam[] = [
        user("Start."),
        {
          role: "system",
          content: [{
            type: "tool_addition",
            tool: { type: "tool_definition", definition: shell },
          }],
        },
        user("Use the shell."),
      ];
      const compacted = await client.beta.messages.create(
        base(messages, {
          compaction: { type: "summarize" },
          betas: [BETAS.compaction, BETAS.inlineTools],
        }),
      );
      assert.deepEqual(server.accepted[0].tools, ["shell"]);
      const [block] = compacted.content;
      assert.equal(
        block.type === "compaction" && block.tool_changes?.length,
        1,
      );
      await client.beta.messages.create(base([
        { role: "assistant", content: sentBack(compacted.content) },
        user("Next."),
      ], { betas: [BETAS.compaction] }));
      assert.deepEqual(server.accepted[1].tools, ["shell"]);
    });
  });

  it("at the threshold, compacts inside the step; the messages before the block are dropped next time", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const history = await twoSteps(client);
      const threshold = {
        context_management: {
          edits: [{
            type: "compact_20260112" as const,
            trigger: { type: "input_tokens" as const, value: 300 },
          }],
        },
        betas: [BETAS.thresholdCompaction],
      };
      const step = await client.beta.messages.create(
        base([...history, user("Next.", true)], threshold),
      );
      assert.deepEqual(step.content.map((block) => block.type), [
        "compaction",
        "thinking",
        "text",
      ]);
      assert.deepEqual(
        step.usage.iterations?.map((iteration) => iteration.type),
        ["compaction", "message"],
      );
      const answer: MessageParam = {
        role: "assistant",
        content: sentBack(step.content),
      };
      // Appending as usual: the API starts at the block, the thinking after it is valid.
      await client.beta.messages.create(
        base([...history, user("Next."), answer, user("Then?")], threshold),
      );
      assert.equal(server.accepted.at(-1)?.start, history.length + 1);
      // Starting with the block is the same conversation.
      await client.beta.messages.create(
        base([answer, user("Then?")], threshold),
      );
      assert.equal(server.accepted.at(-1)?.start, 0);
      const paused = await client.beta.messages.create(
        base([...history, user("Next.")], {
          ...threshold,
          context_management: {
            edits: [{
              type: "compact_20260112",
              trigger: { type: "input_tokens", value: 300 },
              pause_after_compaction: true,
            }],
          },
        }),
      );
      assert.equal(paused.stop_reason, "compaction");
      assert.deepEqual(paused.content.map((block) => block.type), [
        "compaction",
      ]);
    });
  });
});

/** Output items as the next request's input items. */
function asInput(
  output: readonly OpenAI.Responses.ResponseOutputItem[],
): InputItem[] {
  return output.map((item): InputItem => {
    switch (item.type) {
      case "message":
      case "reasoning":
      case "function_call":
        return item;
      case "compaction":
        return {
          type: "compaction",
          id: item.id,
          encrypted_content: item.encrypted_content,
        };
      default:
        throw new Error(`no test sends back a ${item.type} item`);
    }
  });
}

const TOOLS: OpenAI.Responses.FunctionTool[] = [{
  type: "function",
  name: "read_file",
  description: "Read a file. ".repeat(20),
  parameters: { type: "object", properties: {} },
  strict: false,
}];

describe("OpenAI compaction through openai", { skip: SDK_PERMISSIONS }, () => {
  it("responses.compact: the user messages and one compaction item; it takes no tools, so it reads no tool-led prefix", async () => {
    await withOpenAI({}, async (client, server) => {
      const input: InputItem[] = [
        { role: "developer", content: RULES },
        { role: "user", content: "Read the failing test. ".repeat(20) },
      ];
      const first = await client.responses.create({
        model: "gpt-5.6",
        tools: TOOLS,
        input,
        prompt_cache_key: "s1",
      });
      const history: InputItem[] = [...input, ...asInput(first.output), {
        role: "user",
        content: "Fix it.",
      }];
      const viaCompact = await client.responses.compact({
        model: "gpt-5.6",
        input: history,
        prompt_cache_key: "s1",
      });
      assert.equal(viaCompact.object, "response.compaction");
      assert.deepEqual(viaCompact.output.map((item) => item.type), [
        "message",
        "message",
        "compaction",
      ]);
      assert.equal(viaCompact.usage.input_tokens_details.cached_tokens, 0);
      // A compaction_trigger on a normal request keeps the tools: it reads them and the history.
      const second = await client.responses.create({
        model: "gpt-5.6",
        tools: TOOLS,
        input: [...history.slice(0, 3), { type: "compaction_trigger" }],
        prompt_cache_key: "s1",
      });
      assert.deepEqual(second.output.map((item) => item.type), ["compaction"]);
      const usage = second.usage!;
      assert.ok(
        usage.input_tokens_details.cached_tokens >= 0.8 * usage.input_tokens,
      );
      // The next request starts from the compaction item; earlier items are not read.
      await client.responses.create({
        model: "gpt-5.6",
        tools: TOOLS,
        input: [...asInput(viaCompact.output), {
          role: "user",
          content: "Run the tests.",
        }],
        prompt_cache_key: "s1",
      });
      assert.equal(server.accepted.at(-1)?.start, 2);
      await assert.rejects(
        client.responses.create({
          model: "gpt-5.6",
          input: [{ type: "compaction", encrypted_content: "forged" }, {
            role: "user",
            content: "Hi.",
          }],
        }),
        (error) =>
          error instanceof OpenAI.BadRequestError &&
          error.code === "invalid_encrypted_content",
      );
      await assert.rejects(
        client.responses.create({
          model: "gpt-5.6",
          input: [{ type: "compaction_trigger" }, {
            role: "user",
            content: "Hi.",
          }],
        }),
        (error) =>
          error instanceof OpenAI.BadRequestError &&
          /final input item/.test(error.message),
      );
    });
  });

  it("context_management: past compact_threshold the answer opens with a compaction item", async () => {
    await withOpenAI({}, async (client, server) => {
      const input: InputItem[] = [{
        role: "user",
        content: "Read the failing test. ".repeat(20),
      }];
      const management = [{ type: "compaction", compact_threshold: 100 }];
      const first = await client.responses.create({
        model: "gpt-5.6",
        input,
        context_management: management,
      });
      assert.deepEqual(first.output.map((item) => item.type), [
        "compaction",
        "message",
      ]);
      const history = [...input, ...asInput(first.output), {
        role: "user" as const,
        content: "Go on.",
      }];
      await client.responses.create({
        model: "gpt-5.6",
        input: history,
        context_management: management,
      });
      assert.equal(server.accepted.at(-1)?.start, 1);
    });
  });

  it("withholds a reasoning item whose prefix changed, and lists it; developer and configuration items are read", async () => {
    await withOpenAI({
      script: () => [{ type: "reasoning", summary: "Think." }, {
        type: "message",
        text: "ok",
      }],
    }, async (client, server) => {
      const input: InputItem[] = [{ role: "user", content: "Start." }];
      const first = await client.responses.create({
        model: "gpt-5.6",
        instructions: RULES,
        reasoning: { effort: "medium" },
        input,
      });
      const history: InputItem[] = [...input, ...asInput(first.output)];
      const kept = await client.responses.create({
        model: "gpt-5.6",
        instructions: RULES,
        reasoning: { effort: "medium" },
        input: [
          ...history,
          {
            role: "developer",
            content: "The section git now reads: On fix/test.",
          },
          { type: "configuration_update", reasoning: { effort: "high" } },
          { role: "user", content: "Go on." },
        ],
      });
      assert.equal(kept.input_transformations, undefined);
      assert.equal(server.accepted[1].effort, "high");
      const rebuilt = await client.responses.create({
        model: "gpt-5.6",
        instructions: RULES.replace("small", "tiny"),
        reasoning: { effort: "medium" },
        input: [...history, { role: "user", content: "Go on." }],
      });
      const [reasoning] = first.output;
      assert.deepEqual(rebuilt.input_transformations, [
        {
          id: reasoning.id,
          action: "removed",
          reason: "prefix_mismatch",
          type: "reasoning",
        },
      ]);
    });
  });

  it("Chat Completions: developer messages, an automatic prefix cache, and no compaction", async () => {
    await withOpenAI({}, async (client) => {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: "system", content: RULES },
        { role: "user", content: "Start." },
      ];
      const first = await client.chat.completions.create({
        model: "gpt-5.6",
        messages,
        prompt_cache_key: "c1",
      });
      const second = await client.chat.completions.create({
        model: "gpt-5.6",
        prompt_cache_key: "c1",
        messages: [
          ...messages,
          { role: "assistant", content: first.choices[0].message.content },
          {
            role: "developer",
            content: "The section git now reads: On fix/test.",
          },
          { role: "user", content: "Go on." },
        ],
      });
      assert.ok((second.usage?.prompt_tokens_details?.cached_tokens ?? 0) > 0);
      await assert.rejects(
        client.post("/chat/completions", {
          body: {
            model: "gpt-5.6",
            messages,
            context_management: [{
              type: "compaction",
              compact_threshold: 100,
            }],
          },
        }),
        (error) =>
          error instanceof OpenAI.BadRequestError &&
          error.code === "unknown_parameter",
      );
    });
  });
});
