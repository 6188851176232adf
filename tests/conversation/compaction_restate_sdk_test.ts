// Deno-only: issue 47's "what the summary dropped is restated once" on
// issue 46's changes, through the real `@anthropic-ai/sdk` client against
// the loopback server that enforces preserved thinking and Anthropic's
// compaction (tests/adapters/thinking_server.ts): with thinking, plugins
// change a section, add a tool, raise the effort and send a turn's
// reminder; after an on-demand compaction (whose block drops every message
// before it) the model is still told each of them, once, and no request is
// refused or loses a thinking block.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import {
  anthropicServer,
  type ScriptBlock,
  type ServerTurn,
} from "../adapters/thinking_server.ts";

type Params = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;

const RULES = "You are a coding agent. Keep every change small. ".repeat(12);

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: { path: { type: "string" } } },
  };
}

function script(turn: ServerTurn): ScriptBlock[] {
  return [{ type: "thinking", thinking: `Step ${turn.index}.` }, {
    type: "text",
    text: "ok",
  }];
}

describe("after a compaction, issue 46's changes told again (issue 47)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a section change, a tool added, the effort and a turn's reminder: still seen after the compaction, told once; no 400, no dropped block", async () => {
    const stage = {
      branch: "main",
      reminder: "",
      tools: [tool("read_file")],
    };
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    prompt.section({
      name: "git",
      order: 10,
      text: () => `On branch ${stage.branch}.`,
    });
    prompt.section({ name: "rules", order: 20, text: RULES });
    prompt.tools(() => ({ schemas: stage.tools }));
    prompt.runtimeContext({
      name: "reminder",
      order: 0,
      text: () => stage.reminder,
      holds: "turn",
    });
    const server = anthropicServer({ minimumCacheTokens: 64, script });
    try {
      await serveLoopback(server.answer, async (baseURL) => {
        const client = new Anthropic({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
          timeout: 10_000,
        });
        const conv = anthropicConversation(prompt, {
          model: "claude-fable-5-1",
          max_tokens: 1024,
        });
        const step = async (text: string, effort?: "low" | "high") => {
          conv.user(text);
          const body = await conv.request(
            {},
            effort === undefined ? {} : { output: { effort } },
          ) as unknown as Params;
          conv.record(await client.beta.messages.create(body));
        };
        await step("Step 1.", "low");
        await step("Step 2.");
        // The plugins' changes, told inline (thinking is in the history).
        stage.branch = "fix/test";
        stage.tools = [...stage.tools, tool("browse")];
        stage.reminder = "Plan mode: do not edit files.";
        await step("Step 3.", "high");
        await step("Step 4.");
        const compaction = await conv.compact();
        compaction.record(
          await client.beta.messages.create(compaction.body as Params),
        );
        await step("Step 5.");
        await step("Step 6.");
      });
      assert.deepEqual(server.rejections, []);
      const accepted = server.accepted;
      // Four steps, the compaction, two steps.
      assert.equal(accepted.length, 7);
      for (const request of accepted) {
        assert.deepEqual(request.transformations, []);
      }
      const [, , third, , , fifth, sixth] = accepted;
      // Before: told inline; after: the server starts at the block, so
      // each is seen only because it was told again.
      assert.equal(fifth.start, 0);
      assert.equal(
        (fifth.body.messages as { content: { type: string }[] }[])[0]
          .content[0].type,
        "compaction",
      );
      for (const request of [third, fifth, sixth]) {
        assert.equal(request.effort, "high");
        assert.deepEqual(request.tools.toSorted(), ["browse", "read_file"]);
        assert.ok(
          request.shown.some((text) =>
            text.includes('section "git" now reads:\n\nOn branch fix/test.')
          ),
        );
      }
      assert.deepEqual(fifth.body.output_config, { effort: "low" });
      // The reminder holds the turn it is sent in.
      assert.ok(fifth.shown.includes("Plan mode: do not edit files."));
      // Told once after the compaction: the sixth request adds none.
      const told = (request: typeof fifth) =>
        JSON.stringify(request.body.messages).split("now reads:").length - 1;
      assert.equal(told(fifth), 1);
      assert.equal(told(sixth), 1);
      const efforts = (request: typeof fifth) =>
        JSON.stringify(request.body.messages).split('"effort":"high"').length -
        1;
      assert.equal(efforts(fifth), 1);
      assert.equal(efforts(sixth), 1);
      // The head is kept: the compaction and the steps after it read the
      // system prompt and tools from the cache.
      assert.equal(
        JSON.stringify(fifth.body.system),
        JSON.stringify(third.body.system),
      );
    } finally {
      await prompt.dispose();
    }
  });
});
