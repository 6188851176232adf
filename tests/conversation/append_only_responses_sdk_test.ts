// Deno-only: issue 46 on OpenAI Responses, through the real `openai`
// client against the loopback server that binds reasoning items to their
// prefix (tests/adapters/compaction_server.ts): with changes "auto" a
// section change goes in a developer message and an effort change in a
// configuration_update item, and no reasoning item is withheld; with
// "rebuild" the server withholds them and the report lists each with the
// section's contributor.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { type ChangesOption, SystemPrompt } from "../../mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import type { PromptCacheReport } from "../../adapters/cache/mod.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import {
  type OpenAIServer,
  openaiServer,
} from "../adapters/compaction_server.ts";

type Params = OpenAI.Responses.ResponseCreateParamsNonStreaming;

const RULES = "You are a coding agent. Keep every change small. ".repeat(12);

async function session(
  changes: ChangesOption | undefined,
): Promise<{ server: OpenAIServer; report: PromptCacheReport }> {
  const prompt = new SystemPrompt({ persona: RULES });
  let branch = "main";
  prompt.section({ name: "git", order: 10, text: () => `On ${branch}.` });
  const server = openaiServer({
    minimumCacheTokens: 64,
    script: () => [{ type: "reasoning", summary: "Think." }, {
      type: "message",
      text: "ok",
    }],
  });
  try {
    return await serveLoopback(server.answer, async (baseURL) => {
      const client = new OpenAI({
        apiKey: "sk-loopback",
        baseURL,
        maxRetries: 0,
        timeout: 10_000,
      });
      const conv = responsesConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        diagnostics: true,
        ...(changes === undefined ? {} : { changes }),
      });
      for (let step = 1; step <= 8; step++) {
        if (step === 4) branch = "fix/test";
        conv.user(`Step ${step}.`);
        const effort = step === 1 ? "low" : step === 6 ? "high" : undefined;
        const body = await conv.request(
          {},
          effort === undefined ? {} : { output: { effort } },
        );
        conv.record(
          await client.responses.create(body as unknown as Params) as never,
        );
      }
      return {
        server,
        report: conv.report({ countTokens: (text) => text.length >> 2 }),
      };
    });
  } finally {
    await prompt.dispose();
  }
}

describe("append-only changes through openai Responses (issue 46)", {
  skip: SDK_PERMISSIONS,
}, () => {
  it("changes auto: a developer message and a configuration_update, no reasoning withheld", async () => {
    const { server, report } = await session(undefined);
    assert.deepEqual(server.rejections, []);
    for (const request of server.accepted) {
      assert.deepEqual(request.transformations, []);
    }
    assert.deepEqual(
      server.accepted.map((request) => request.effort),
      ["low", "low", "low", "low", "low", "high", "high", "high"],
    );
    assert.match(
      JSON.stringify(server.accepted[3].body.input),
      /"role":"developer","content":\[\{"type":"input_text","text":"The system prompt's section \\"git\\" now reads:\\n\\nOn fix\/test\."/,
    );
    assert.ok(
      report.requests.every((request) => request.transformations === undefined),
    );
    // Every request after the first reads the one before.
    for (let index = 1; index < server.accepted.length; index++) {
      assert.ok(
        server.accepted[index].usage.cached >=
          server.accepted[index - 1].usage.input - 128,
        `request ${index + 1}`,
      );
    }
  });

  it("changes rebuild: the reasoning before the change is withheld, and the report names the section", async () => {
    const { server, report } = await session("rebuild");
    assert.deepEqual(server.rejections, []);
    const withheld = server.accepted[3].transformations;
    assert.equal(withheld.length, 3);
    const findings = report.requests[3].transformations!;
    assert.equal(findings.length, 3);
    for (const [index, finding] of findings.entries()) {
      assert.equal(finding.kind, "dropped");
      assert.equal(finding.reason, "prefix_mismatch");
      assert.equal(finding.id, withheld[index].id);
      assert.equal(finding.producedBy, index);
      assert.equal(finding.contributor?.name, "git");
    }
  });
});
