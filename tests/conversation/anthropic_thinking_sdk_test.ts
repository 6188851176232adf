// Deno-only: extended thinking as the Anthropic conversation's option,
// through the real `@anthropic-ai/sdk` client (`client.beta.messages.create`)
// against the loopback server that checks thinking's configuration and
// each thinking block's prefix (tests/adapters/thinking_server.ts): every
// request of a session, the summarizing one and those of a resumed
// conversation carry it, and the server accepts them all.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import { SystemPrompt } from "../../mod.ts";
import {
  anthropicConversation,
  type AnthropicConversationBody,
  type AnthropicThinking,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { withAnthropicServer } from "../adapters/anthropic_loopback_sdk.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import type { ScriptBlock, ServerTurn } from "../adapters/thinking_server.ts";

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({
    name: "rules",
    order: 100,
    text: "Run the tests after each change. ".repeat(40),
  });
  prompt.tools(() => ({
    schemas: [{
      name: "read_file",
      description: "Reads a file.",
      parameters: { type: "object", properties: {} },
    }],
  }));
  return prompt;
}

/** Thinking, then a tool call on even turns and a text on odd ones. */
function script(turn: ServerTurn): ScriptBlock[] {
  return [
    { type: "thinking", thinking: `Step ${turn.index}.` },
    turn.index % 2 === 0
      ? {
        type: "tool_use",
        id: `toolu_${turn.index}`,
        name: "read_file",
        input: {},
      }
      : { type: "text", text: `Done ${turn.index}.` },
  ];
}

type Conv = ReturnType<typeof anthropicConversation>;

/** One turn: the person's text, then the tool calls answered until a text. */
async function turn(
  conv: Conv,
  client: Anthropic,
  text: string,
): Promise<void> {
  conv.user(text);
  for (;;) {
    const body = await conv.request() as AnthropicConversationBody;
    const calls = conv.record(await client.beta.messages.create(body));
    if (calls.length === 0 && !conv.continues) return;
    for (const call of calls) conv.toolResult(call.id, "export {};");
  }
}

describe("thinking through @anthropic-ai/sdk", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("every request carries it, compact()'s and a resumed conversation's too; all accepted", async () => {
    const thinking: AnthropicThinking = {
      type: "enabled",
      budget_tokens: 2048,
    };
    await withAnthropicServer({ script }, async (client, server) => {
      const prompt = registry();
      const conv = anthropicConversation(prompt, {
        model: "claude-fable-5-1",
        max_tokens: 4096,
        thinking,
      });
      for (const text of ["Fix the test.", "Now the next one."]) {
        await turn(conv, client, text);
      }
      const compaction = await conv.compact();
      compaction.record(
        await client.beta.messages.create(
          compaction.body as AnthropicConversationBody,
        ),
      );
      const resumed = resumeAnthropicConversation(prompt, conv.save());
      for (const c of [conv, resumed]) c.user("And the last one.");
      const body = await conv.request();
      assert.equal(
        JSON.stringify(await resumed.request()),
        JSON.stringify(body),
      );
      await turn(resumed, client, "Then stop.");

      assert.deepEqual(server.rejections, []);
      const accepted = server.accepted.map((request) => request.body);
      // Two turns of a tool round trip, the summary, the resumed turn.
      assert.equal(accepted.length, 6);
      for (const [index, sent] of accepted.entries()) {
        assert.deepEqual(sent.thinking, thinking, `request ${index}`);
      }
      const summarizing = accepted.filter((sent) =>
        sent.compaction !== undefined
      );
      assert.equal(summarizing.length, 1);
      // The answers' thinking blocks were sent back, each on the prefix
      // it was made on (the server checks their signatures).
      const blocks = JSON.stringify(summarizing[0].messages).match(
        /"type":"thinking"/g,
      );
      assert.equal(blocks?.length, 4);
      await prompt.dispose();
    });
  });

  it("block_binding's drop_block is sent with its beta and accepted", async () => {
    const thinking: AnthropicThinking = {
      type: "adaptive",
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    };
    await withAnthropicServer({ script }, async (client, server) => {
      const prompt = registry();
      const conv = anthropicConversation(prompt, {
        model: "claude-fable-5-1",
        max_tokens: 1024,
        thinking,
      });
      await turn(conv, client, "Fix the test.");
      assert.deepEqual(server.rejections, []);
      assert.ok(server.accepted.length >= 2);
      for (const request of server.accepted) {
        assert.deepEqual(request.body.thinking, thinking);
        assert.ok(
          request.betas.includes("thinking-binding-controls-2026-08-01"),
        );
      }
      await prompt.dispose();
    });
  });
});
