// Deno-only: issue 46's session through the real `@anthropic-ai/sdk`
// client against the loopback server that enforces preserved thinking
// (tests/adapters/thinking_server.ts): 30 steps with thinking in which
// plugins change a section, add and remove a tool. With changes "auto"
// (the default) and "inline", no request is refused and no thinking block
// is dropped; with "rebuild" (0.4's bytes) the first request after a
// section change is refused with the API's 400, and nothing is committed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import {
  type ChangesOption,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";
import type { PromptCacheReport } from "../../adapters/cache/mod.ts";
import { requestSpanAttributes } from "../../adapters/otel/mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import {
  type AnthropicServer,
  anthropicServer,
  BETAS,
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

/** Thinking, then a call of the first tool offered every third step, else text. */
function script(turn: ServerTurn): ScriptBlock[] {
  const thinking: ScriptBlock = {
    type: "thinking",
    thinking: `Step ${turn.index}.`,
  };
  return turn.index % 3 === 1 && turn.tools.length > 0
    ? [thinking, {
      type: "tool_use",
      id: `toolu_${turn.index}`,
      name: turn.tools.at(-1)!,
      input: { path: "a.ts" },
    }]
    : [thinking, { type: "text", text: "ok" }];
}

/** The plugins' changes, by step (1-based). */
interface Stage {
  branch: string;
  review: boolean;
  tools: ToolSchema[];
  reminder: string;
}

const PLUGINS: Record<number, (stage: Stage) => void> = {
  5: (stage) => stage.branch = "fix/test",
  8: (stage) => stage.tools = [...stage.tools, tool("browse")],
  12: (stage) => stage.review = true,
  15: (stage) => stage.tools = stage.tools.filter((t) => t.name !== "grep"),
  20: (stage) => stage.branch = "main",
  18: (stage) => stage.reminder = "Plan mode: do not edit files.",
  19: (stage) => stage.reminder = "",
  24: (stage) => stage.review = false,
  25: (stage) => stage.reminder = "Tests are red: fix them first.",
  26: (stage) => stage.reminder = "",
};

function registry(): { prompt: SystemPrompt; stage: Stage } {
  const prompt = new SystemPrompt({ persona: RULES });
  const stage: Stage = {
    branch: "main",
    review: false,
    tools: [tool("read_file"), tool("grep")],
    reminder: "",
  };
  prompt.runtimeContext({
    name: "reminder",
    order: 0,
    text: () => stage.reminder,
    holds: "turn",
  });
  prompt.section({
    name: "git",
    order: 10,
    text: () => `On branch ${stage.branch}.`,
  });
  prompt.section({
    name: "review",
    order: 20,
    text: () => stage.review ? "Comment on every changed line." : "",
  });
  prompt.tools(() => ({ schemas: stage.tools }));
  return { prompt, stage };
}

async function session(
  changes: ChangesOption | undefined,
  steps: number,
  { dropBlock = false }: { dropBlock?: boolean } = {},
): Promise<{
  server: AnthropicServer;
  error?: unknown;
  committed: number;
  report?: PromptCacheReport;
}> {
  const { prompt, stage } = registry();
  const server = anthropicServer({ minimumCacheTokens: 64, script });
  try {
    return await serveLoopback(server.answer, async (baseURL) => {
      const client = new Anthropic({
        apiKey: "sk-loopback",
        baseURL,
        maxRetries: 0,
        timeout: 10_000,
      });
      const conv = anthropicConversation(prompt, {
        model: "claude-fable-5-1",
        max_tokens: 1024,
        ...(changes === undefined ? {} : { changes }),
        diagnostics: dropBlock,
      });
      for (let step = 1; step <= steps; step++) {
        PLUGINS[step]?.(stage);
        if (conv.openCalls.length > 0) {
          for (const call of conv.openCalls) {
            conv.toolResult(call.id, `read ${call.name}`);
          }
        } else conv.user(`Step ${step}.`);
        // The effort: low from the first request, high from step 10.
        const effort = step === 1 ? "low" : step === 10 ? "high" : undefined;
        const built = await conv.request(
          {},
          effort === undefined ? {} : { output: { effort } },
        ) as unknown as Params;
        // The harness asks for the blocks to be dropped, not the 400.
        const body: Params = dropBlock
          ? {
            ...built,
            thinking: {
              type: "adaptive",
              block_binding: { prefix_mismatch_behavior: "drop_block" },
            },
            betas: [...built.betas ?? [], BETAS.blockBinding],
          }
          : built;
        const before = conv.messages.length;
        try {
          conv.record(await client.beta.messages.create(body));
        } catch (error) {
          assert.equal(conv.messages.length, before);
          return { server, error, committed: step - 1 };
        }
      }
      return {
        server,
        committed: steps,
        report: conv.report({ countTokens: (text) => text.length >> 2 }),
      };
    });
  } finally {
    await prompt.dispose();
  }
}

describe("append-only changes through @anthropic-ai/sdk (issue 46)", {
  skip: SDK_PERMISSIONS,
}, () => {
  for (const changes of [undefined, "inline"] as const) {
    it(
      `changes ${
        changes ?? "auto (default)"
      }: 30 steps with thinking, no 400, no dropped block, every step reads the last`,
      async () => {
        const { server, error, committed } = await session(changes, 30);
        assert.equal(error, undefined);
        assert.equal(committed, 30);
        assert.deepEqual(server.rejections, []);
        assert.equal(server.accepted.length, 30);
        for (const [index, request] of server.accepted.entries()) {
          assert.deepEqual(request.transformations, [], `request ${index + 1}`);
          if (index > 0) {
            // Everything the previous request sent up to its end mark is read.
            assert.ok(
              request.usage.cache_read_input_tokens >=
                server.accepted[index - 1].usage.cache_read_input_tokens +
                  server.accepted[index - 1].usage.cache_creation_input_tokens,
              `request ${index + 1} reads the one before`,
            );
          }
        }
        // The system prompt and tools block never change after the first.
        const first = server.accepted[0].body;
        for (const request of server.accepted) {
          assert.equal(
            JSON.stringify(request.body.system, unmarked),
            JSON.stringify(first.system, unmarked),
          );
        }
        // The model was told each change and offered the tools of each step.
        const shown = server.accepted[29].shown.join("\n");
        assert.match(
          shown,
          /section "git" now reads:\n\nOn branch fix\/test\./,
        );
        assert.match(shown, /new section "review":\n\nComment on every/);
        assert.match(shown, /section "review" no longer applies\./);
        assert.match(shown, /section "git" now reads:\n\nOn branch main\./);
        assert.deepEqual(server.accepted[6].tools.toSorted(), [
          "grep",
          "read_file",
        ]);
        assert.deepEqual(server.accepted[7].tools.toSorted(), [
          "browse",
          "grep",
          "read_file",
        ]);
        assert.deepEqual(server.accepted[14].tools.toSorted(), [
          "browse",
          "read_file",
        ]);
        // The effort: the first request's top-level one, never changed,
        // then the system message's from step 10 on.
        for (const [index, request] of server.accepted.entries()) {
          assert.equal(request.effort, index < 9 ? "low" : "high");
          assert.deepEqual(request.body.output_config, { effort: "low" });
        }
        // The turn's reminders: shown while they hold, then cleared (and
        // kept in the history as sent).
        const reminded = (index: number, text: string) =>
          server.accepted[index].shown.some((shown) => shown.includes(text));
        assert.ok(reminded(17, "Plan mode: do not edit files."));
        assert.ok(!reminded(18, "Plan mode"));
        assert.ok(!reminded(29, "Plan mode"));
        assert.ok(reminded(24, "Tests are red: fix them first."));
        assert.ok(!reminded(26, "Tests are red"));
        assert.match(
          JSON.stringify(server.accepted[29].body.messages),
          /"clear_at":"next_user_message","content":\[\{"type":"text","text":"Plan mode/,
        );
      },
    );
  }

  it("changes rebuild (0.4's bytes): the request after the section change is refused with the API's 400", async () => {
    const { server, error, committed } = await session("rebuild", 30);
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(
      (error as Error).message,
      /messages\.\d+\.content\.0: .*bound to a different conversation/,
    );
    assert.equal(committed, 4);
    assert.equal(server.rejections.length, 1);
  });
});

describe("dropped thinking in the report (issue 46)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("rebuild with drop_block: each dropped block listed with its reason, its producer and the section's contributor; the span carries them", async () => {
    const { server, error, report } = await session("rebuild", 6, {
      dropBlock: true,
    });
    assert.equal(error, undefined);
    assert.deepEqual(server.rejections, []);
    // Step 5 changed the git section: every thinking block before it is
    // on another prefix, and dropped.
    const fifth = report!.requests[4];
    assert.ok(fifth.transformations !== undefined);
    assert.ok(fifth.transformations.length >= 4);
    for (const finding of fifth.transformations) {
      assert.equal(finding.kind, "dropped");
      assert.equal(finding.reason, "prefix_binding_mismatch");
      assert.ok(finding.producedBy! < 4);
      assert.equal(finding.contributor?.name, "git");
    }
    assert.equal(report!.requests[3].transformations, undefined);
    const usage = server.accepted[4];
    assert.equal(usage.transformations.length, fifth.transformations.length);
    const attributes = requestSpanAttributes({
      provider: "anthropic",
      body: {},
      usage: {
        source: "anthropic-messages",
        diagnosis: { status: "none" },
        inputTransformations: fifth.transformations,
      },
    });
    assert.equal(
      attributes["rxprompt.input_transformations"],
      fifth.transformations.length,
    );
    assert.match(
      String(
        (attributes["rxprompt.input_transformations.entries"] as string[])[0],
      ),
      /^dropped item 1 part 0: prefix_binding_mismatch$/,
    );
  });
});

function unmarked(key: string, value: unknown): unknown {
  return key === "cache_control" ? undefined : value;
}
