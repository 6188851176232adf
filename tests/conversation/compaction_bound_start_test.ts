/**
 * After the provider compacted inside a step whose answer then thought
 * (Anthropic's `compact_20260112` edit, not paused), the history starts
 * with that answer: its thinking blocks are bound to the head it was made
 * under. So the head is kept, even where a client-side compaction would
 * rebuild the system prompt (a section change cheaper to rewrite than to
 * restate), and the request after it is accepted by the server that
 * enforces the preserved-thinking check.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { anthropicServer } from "../adapters/thinking_server.ts";
import { StatusReply } from "../adapters/loopback.ts";

describe("a compaction the provider made inside a thinking step", () => {
  it("keeps the head its thinking is bound to; the next request is accepted", async () => {
    let note = "Be brief.";
    const prompt = new SystemPrompt({
      persona: "You are a coding agent. ".repeat(80),
    });
    prompt.section({ name: "note", order: 900, text: () => note });
    const server = anthropicServer({ minimumCacheTokens: 64 });
    function send(body: unknown): unknown {
      const { betas, ...rest } = body as { betas?: string[] };
      const reply = server.answer({
        method: "POST",
        path: "/v1/messages?beta=true",
        headers: betas === undefined
          ? {}
          : { "anthropic-beta": betas.join(",") },
        body: JSON.stringify(rest),
      });
      assert.ok(!(reply instanceof StatusReply), JSON.stringify(reply));
      return reply;
    }
    try {
      const conv = anthropicConversation(prompt, {
        model: "claude-fable-5-1",
        max_tokens: 8192,
        thinking: { type: "enabled", budget_tokens: 2048 },
        serverCompaction: { trigger: 700 },
      });
      const systems: string[] = [];
      for (let step = 1; step <= 6; step++) {
        // The last section changes: a rewrite is cheaper than a restatement.
        if (step === 2) note = "Be very brief.";
        conv.user(`Step ${step}: ${"details ".repeat(40)}`);
        const body = await conv.request() as { system: unknown };
        systems.push(
          JSON.stringify(
            body.system,
            (key, value) => key === "cache_control" ? undefined : value,
          ),
        );
        conv.record(send(body) as never);
      }
      const compacted = server.accepted.findIndex((request) =>
        request.stopReason !== "compaction" &&
        (request.usage.iterations ?? []).length > 0
      );
      assert.ok(compacted >= 0 && compacted < 5, "the provider compacted");
      assert.deepEqual(server.rejections, []);
      // One system prompt from the first request to the last.
      assert.equal(new Set(systems).size, 1);
    } finally {
      await prompt.dispose();
    }
  });
});
