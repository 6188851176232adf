// Deno-only: issue 46 through the AI SDK (`generateText` with
// `@ai-sdk/anthropic`) against the loopback server that enforces preserved
// thinking (tests/adapters/thinking_server.ts): a section changed after the
// first request goes in a system message the provider keeps in the
// conversation, the system prompt never changes, and the server refuses
// nothing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { SystemPrompt } from "../../mod.ts";
import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { anthropicServer } from "../adapters/thinking_server.ts";

const RULES = "You are a coding agent. Keep every change small. ".repeat(12);

describe("append-only changes through the AI SDK (issue 46)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("a changed section goes in a kept system message; nothing is refused", async () => {
    const prompt = new SystemPrompt({ persona: RULES });
    let branch = "main";
    prompt.section({ name: "git", order: 10, text: () => `On ${branch}.` });
    const server = anthropicServer({
      minimumCacheTokens: 64,
      script: () => [{ type: "text", text: "ok" }],
    });
    try {
      await serveLoopback(server.answer, async (baseURL) => {
        const model = createAnthropic({
          apiKey: "sk-loopback",
          baseURL: `${baseURL}/v1`,
        })(
          "claude-sonnet-4-5",
        );
        const conv = aiSdkConversation(prompt);
        for (let step = 1; step <= 5; step++) {
          if (step === 3) branch = "fix/test";
          conv.user(`Step ${step}.`);
          conv.record(
            await generateText({
              model,
              maxRetries: 0,
              maxOutputTokens: 256,
              ...await conv.request(),
            }),
          );
        }
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(server.accepted.length, 5);
      const first = JSON.stringify(server.accepted[0].body.system);
      for (const request of server.accepted) {
        assert.equal(
          JSON.stringify(request.body.system).replace(
            /,"cache_control":\{[^}]*\}/g,
            "",
          ),
          first.replace(/,"cache_control":\{[^}]*\}/g, ""),
        );
      }
      assert.ok(
        server.accepted[2].shown.some((text) =>
          text.includes(`section "git" now reads:\n\nOn fix/test.`)
        ),
      );
      // The later requests read what the change step wrote.
      assert.ok(server.accepted[3].usage.cache_read_input_tokens > 0);
    } finally {
      await prompt.dispose();
    }
  });
});
