// Deno-only: the real `@anthropic-ai/sdk` client against the loopback
// Messages server of thinking_server.ts, showing each rule it enforces:
// preserved thinking (400 on an edited prefix, or the block dropped and
// listed), mid-conversation system messages, clear_at, output_config, tool
// changes, and the cache usage of its own prefix cache.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { SystemPrompt } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";
import { withAnthropicServer } from "./anthropic_loopback_sdk.ts";
import { BETAS } from "./thinking_server.ts";

type Params = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;
type MessageParam = Anthropic.Beta.Messages.BetaMessageParam;
type Block = Anthropic.Beta.Messages.BetaContentBlock;
type BlockParam = Anthropic.Beta.Messages.BetaContentBlockParam;
type TextParam = Anthropic.Beta.Messages.BetaTextBlockParam;

const MARK = { type: "ephemeral" } as const;
const RULES = "You are a coding agent. Keep every change small. ".repeat(12);
const TOOLS: Anthropic.Beta.Messages.BetaTool[] = [{
  name: "read_file",
  description: "Read a file.",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
}];

function systemOn(branch: string): TextParam[] {
  return [
    { type: "text", text: RULES, cache_control: MARK },
    { type: "text", text: `## git\nOn ${branch}.` },
  ];
}

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
      case "redacted_thinking":
        return { type: "redacted_thinking", data: block.data };
      case "text":
        return { type: "text", text: block.text };
      case "tool_use":
        return {
          type: "tool_use",
          id: block.id,
          name: block.name,
          input: block.input,
        };
      default:
        throw new Error(`no test sends back a ${block.type} block`);
    }
  });
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
    tools: TOOLS,
    system: systemOn("main"),
    messages,
    ...extra,
  };
}

const isBadRequest = (pattern: RegExp) => (error: unknown): boolean =>
  error instanceof Anthropic.BadRequestError && error.status === 400 &&
  pattern.test(error.message);

describe("the preserved-thinking server through @anthropic-ai/sdk", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("accepts an appended system message and reads the cache; refuses a rebuilt system prompt", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const first = await client.beta.messages.create(
        base([user("Fix the failing test.", true)]),
      );
      assert.deepEqual(first.content.map((block) => block.type), [
        "thinking",
        "text",
      ]);
      const history: MessageParam[] = [
        user("Fix the failing test."),
        { role: "assistant", content: sentBack(first.content) },
      ];
      const written = first.usage.cache_creation_input_tokens ?? 0;
      assert.ok(written > 0);
      // Append-only: the section change after the last item.
      const second = await client.beta.messages.create(base([
        ...history,
        {
          role: "system",
          content: [{
            type: "text",
            text: "The section git now reads: On fix/test.",
          }],
        },
        user("Continue.", true),
      ]));
      assert.equal(second.usage.cache_read_input_tokens, written);
      assert.equal(server.accepted[1].shown.length, 1);
      // The same change as a rebuilt system prompt: the thinking block's prefix moved.
      await assert.rejects(
        client.beta.messages.create(
          base([...history, user("Continue.", true)], {
            system: systemOn("fix/test"),
          }),
        ),
        isBadRequest(
          /messages\.1\.content\.0: .*bound to a different conversation/,
        ),
      );
      assert.equal(server.rejections.length, 1);
      assert.equal(server.rejections[0].type, "invalid_request_error");
    });
  });

  it("with drop_block, drops the mismatched block and the rest of its turn's thinking, and lists them", async () => {
    await withAnthropicServer({
      script: () => [
        { type: "thinking", thinking: "First." },
        { type: "redacted_thinking" },
        { type: "text", text: "ok" },
      ],
    }, async (client, server) => {
      const first = await client.beta.messages.create(
        base([user("Start.", true)]),
      );
      const history: MessageParam[] = [user("Start."), {
        role: "assistant",
        content: sentBack(first.content),
      }];
      const kept = await client.beta.messages.create(
        base([...history, user("Go on.", true)]),
      );
      const rebuilt = await client.beta.messages.create({
        ...base([...history, user("Go on.", true)], {
          system: systemOn("fix/test"),
        }),
        thinking: {
          type: "adaptive",
          block_binding: { prefix_mismatch_behavior: "drop_block" },
        },
        betas: [BETAS.blockBinding],
      });
      assert.deepEqual(rebuilt.input_transformations, [
        {
          type: "thinking_dropped",
          path: "messages.1.content.0",
          reason: "prefix_binding_mismatch",
        },
        {
          type: "thinking_dropped",
          path: "messages.1.content.1",
          reason: "prefix_binding_mismatch",
        },
      ]);
      // Removed blocks count for nothing: the rebuilt request is smaller.
      const total = (usage: Anthropic.Beta.Messages.BetaUsage) =>
        usage.input_tokens + (usage.cache_read_input_tokens ?? 0) +
        (usage.cache_creation_input_tokens ?? 0);
      assert.ok(total(rebuilt.usage) < total(kept.usage));
      assert.equal(server.accepted[2].transformations.length, 2);
    });
  });

  it("refuses an edited thinking block even with drop_block, and an omitted one invalidates the later", async () => {
    await withAnthropicServer({}, async (client) => {
      const first = await client.beta.messages.create(base([user("One.")]));
      const afterFirst: MessageParam[] = [user("One."), {
        role: "assistant",
        content: sentBack(first.content),
      }];
      const second = await client.beta.messages.create(
        base([...afterFirst, user("Two.")]),
      );
      const [thinking, text] = sentBack(first.content);
      assert.equal(thinking.type, "thinking");
      const edited: BlockParam = thinking.type === "thinking"
        ? { ...thinking, thinking: thinking.thinking + " (edited)" }
        : thinking;
      await assert.rejects(
        client.beta.messages.create({
          ...base([
            user("One."),
            { role: "assistant", content: [edited, text] },
            user("Two."),
          ]),
          thinking: {
            type: "adaptive",
            block_binding: { prefix_mismatch_behavior: "drop_block" },
          },
          betas: [BETAS.blockBinding],
        }),
        isBadRequest(
          /messages\.1\.content\.0: Invalid `signature` in `thinking` block\.(?! The block)/,
        ),
      );
      // Leaving out turn 1's thinking moves turn 2's prefix.
      await assert.rejects(
        client.beta.messages.create(base([
          user("One."),
          { role: "assistant", content: [text] },
          user("Two."),
          { role: "assistant", content: sentBack(second.content) },
          user("Three."),
        ])),
        isBadRequest(
          /messages\.3\.content\.0: .*bound to a different conversation/,
        ),
      );
    });
  });

  it("on a lenient account shows a mismatched block and lists it; another model's block is dropped", async () => {
    await withAnthropicServer({ prefixCheck: "lenient" }, async (client) => {
      const first = await client.beta.messages.create(base([user("One.")]));
      const history: MessageParam[] = [user("One."), {
        role: "assistant",
        content: sentBack(first.content),
      }];
      const allowed = await client.beta.messages.create({
        ...base([...history, user("Two.")], { system: systemOn("dev") }),
        betas: [BETAS.blockBinding],
      });
      assert.deepEqual(allowed.input_transformations, [
        {
          type: "thinking_mismatch_allowed",
          path: "messages.1.content.0",
          reason: "prefix_binding_mismatch",
        },
      ]);
      const switched = await client.beta.messages.create({
        ...base([...history, user("Two.")]),
        model: "claude-opus-5-5",
        betas: [BETAS.blockBinding],
      });
      assert.deepEqual(switched.input_transformations, [
        {
          type: "thinking_dropped",
          path: "messages.1.content.0",
          reason: "model_binding_mismatch",
        },
      ]);
    });
  });

  it("clear_at: a reminder is shown for its turn only; a mark on it is never read, one before it is", async () => {
    const reminder: MessageParam = {
      role: "system",
      clear_at: "next_user_message",
      content: [{ type: "text", text: "Reminder: the tests are failing." }],
    };
    const reads: number[] = [];
    for (const markOnReminder of [true, false]) {
      await withAnthropicServer({}, async (client, server) => {
        const first = await client.beta.messages.create(
          base([user("Start.", true)]),
        );
        const history: MessageParam[] = [user("Start."), {
          role: "assistant",
          content: sentBack(first.content),
        }];
        const trailing: MessageParam = markOnReminder
          ? {
            ...reminder,
            content: [{
              type: "text",
              text: "Reminder: the tests are failing.",
              cache_control: MARK,
            }],
          }
          : reminder;
        const second = await client.beta.messages.create({
          ...base([...history, user("Go on.", !markOnReminder), trailing]),
          betas: [BETAS.clearAt],
        });
        assert.deepEqual(server.accepted[1].shown, [
          "Reminder: the tests are failing.",
        ]);
        const third = await client.beta.messages.create({
          ...base([
            ...history,
            user("Go on."),
            reminder, // sent again, unchanged: the thinking after it stays valid
            { role: "assistant", content: sentBack(second.content) },
            user("And now?", true),
          ]),
          betas: [BETAS.clearAt],
        });
        assert.deepEqual(server.accepted[2].shown, []);
        reads.push(third.usage.cache_read_input_tokens ?? 0);
      });
    }
    const [onReminder, beforeReminder] = reads;
    assert.ok(beforeReminder > onReminder, `${beforeReminder} > ${onReminder}`);
  });

  it("output_config on a system message sets the turn's effort; it needs its beta and content or a field", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const history = [user("Start.")];
      await client.beta.messages.create({
        ...base([...history, {
          role: "system",
          content: "",
          output_config: { effort: "low" },
        }]),
        output_config: { effort: "high" },
        betas: [BETAS.outputConfig],
      });
      assert.equal(server.accepted[0].effort, "low");
      await assert.rejects(
        client.beta.messages.create(
          base([...history, {
            role: "system",
            content: "",
            output_config: { effort: "low" },
          }]),
        ),
        isBadRequest(
          /output_config: requires the beta header anthropic-beta: mid-conversation-output-config-2026-07-01/,
        ),
      );
      await assert.rejects(
        client.beta.messages.create(
          base([...history, { role: "system", content: [] }]),
        ),
        isBadRequest(/neither content nor output_config fields/),
      );
    });
  });

  it("tool_addition and tool_removal change the tools offered; references must resolve, names must be free", async () => {
    await withAnthropicServer({}, async (client, server) => {
      const shell: Anthropic.Beta.Messages.BetaTool = {
        name: "shell",
        description: "Run a command.",
        input_schema: { type: "object", properties: {} },
      };
      await client.beta.messages.create({
        ...base([user("Start."), {
          role: "system",
          content: [
            {
              type: "tool_removal",
              tool: { type: "tool_reference", name: "read_file" },
            },
            {
              type: "tool_addition",
              tool: { type: "tool_definition", definition: shell },
            },
          ],
        }]),
        betas: [BETAS.inlineTools],
      });
      assert.deepEqual(server.accepted[0].tools, ["shell"]);
      await assert.rejects(
        client.beta.messages.create({
          ...base([user("Start."), {
            role: "system",
            content: [{
              type: "tool_addition",
              tool: { type: "tool_reference", name: "grep" },
            }],
          }]),
          betas: [BETAS.toolChanges],
        }),
        (error) =>
          error instanceof Anthropic.ToolReferenceUnresolvedError &&
          error.errorCode === "tool_reference_unresolved",
      );
      await assert.rejects(
        client.beta.messages.create({
          ...base([user("Start."), {
            role: "system",
            content: [{
              type: "tool_addition",
              tool: {
                type: "tool_definition",
                definition: { ...shell, name: "read_file" },
              },
            }],
          }]),
          betas: [BETAS.inlineTools],
        }),
        (error) => error instanceof Anthropic.ToolNameConflictError,
      );
      await assert.rejects(
        client.beta.messages.create(base([user("Start."), {
          role: "system",
          content: [{
            type: "tool_removal",
            tool: { type: "tool_reference", name: "read_file" },
          }],
        }])),
        isBadRequest(/requires the beta header/),
      );
    });
  });

  it("refuses a fifth cache mark, as the API does", async () => {
    await withAnthropicServer({}, async (client) => {
      await assert.rejects(
        client.beta.messages.create(
          base([
            user("a", true),
            user("b", true),
            user("c", true),
            user("d", true),
          ]),
        ),
        isBadRequest(
          /A maximum of 4 blocks with cache_control may be provided\. Found 5\./,
        ),
      );
    });
  });

  it("refuses the conversation's rebuilt system prompt after thinking (SPEC 10.1: what inline changes avoid)", async () => {
    const prompt = new SystemPrompt({ persona: RULES });
    let branch = "main";
    prompt.section({ name: "git", order: 10, text: () => `On ${branch}.` });
    try {
      await withAnthropicServer({}, async (client, server) => {
        // 0.4's bytes; the default ("auto") is tests/conversation/
        // append_only_sdk_test.ts, which this server accepts.
        const conv = anthropicConversation(prompt, {
          model: "claude-fable-5-1",
          max_tokens: 1024,
          changes: "rebuild",
        });
        conv.user("Fix the failing test.");
        conv.record(await client.messages.create(await conv.request()));
        conv.user("Go on.");
        conv.record(await client.messages.create(await conv.request()));
        assert.ok(server.accepted[1].usage.cache_read_input_tokens > 0);
        branch = "fix/test"; // a plugin's section changes: 0.4 rebuilds the system prompt
        conv.user("Commit.");
        await assert.rejects(
          client.messages.create(await conv.request()),
          isBadRequest(
            /messages\.1\.content\.0: .*bound to a different conversation/,
          ),
        );
      });
    } finally {
      await prompt.dispose();
    }
  });
});
