/**
 * SPEC §10.3: `report()` counts what deferring saved (the deferred tools,
 * those found, the tokens of the definitions not sent), and `rxprompt
 * report` prints it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { tokenCounter } from "../../cli/tokens.ts";
import { SystemPrompt } from "../../mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { schema } from "../conversation/helpers.ts";
import { savingOfBodies } from "../adapters/deferred/deferred_saving.ts";

const usage = {
  input_tokens: 100,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 105,
};

/** A server search loading crm_log_call and its call, then text. */
function answers(body: Record<string, unknown>): unknown[] {
  const crm = (body.tools as Record<string, unknown>[]).find((tool) =>
    tool.type === "namespace"
  )!;
  const fn = (crm.tools as { name: string }[]).find((one) =>
    one.name === "crm_log_call"
  );
  return [{
    id: "resp_0",
    object: "response",
    usage,
    output: [
      {
        type: "tool_search_call",
        id: "tsc_0",
        call_id: null,
        execution: "server",
        status: "completed",
        arguments: { query: "log call" },
      },
      {
        type: "tool_search_output",
        id: "tso_0",
        call_id: null,
        execution: "server",
        status: "completed",
        tools: [{ ...crm, tools: [fn] }],
      },
      {
        type: "function_call",
        id: "fc_0",
        call_id: "call_0",
        name: "crm_log_call",
        namespace: crm.name,
        arguments: "{}",
        status: "completed",
      },
    ],
  }, {
    id: "resp_1",
    object: "response",
    usage,
    output: [{
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Logged.", annotations: [] }],
    }],
  }];
}

describe("report() and rxprompt report: what deferring saved", () => {
  it("counts the deferred tools, those found and the tokens not sent per request", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 10, text: "Be brief." });
    prompt.tools(() => ({ schemas: [schema("read_file")] }));
    prompt.fork({ label: "crm" }).tools(() => ({
      schemas: [
        schema("crm_get_contact", "Get a contact by id."),
        schema("crm_log_call", "Log a phone call."),
        schema("crm_create_deal", "Create a deal."),
      ],
    }), { defer: true });
    const conv = responsesConversation(prompt, { model: "gpt-5.4" });
    conv.user("Log my call with Ada.");
    const bodies: Record<string, unknown>[] = [];
    const first = await conv.request() as unknown as Record<string, unknown>;
    bodies.push(first);
    const [one, two] = answers(first);
    conv.record(one as never);
    conv.toolResult("call_0", "logged");
    bodies.push(await conv.request() as unknown as Record<string, unknown>);
    conv.record(two as never);
    await prompt.dispose();

    const count = await tokenCounter();
    const expected = savingOfBodies(bodies, count);
    assert.deepEqual(
      [expected.tools, expected.found],
      [3, 1],
    );
    // The first request sent none of the three, the second two of them.
    assert.ok(expected.tokensNotSent > 0);
    assert.deepEqual(conv.report({ countTokens: count }).deferred, expected);

    const dir = await mkdtemp(join(tmpdir(), "report-"));
    try {
      const file = join(dir, "conversation.jsonl");
      await writeFile(file, conv.save());
      const result = await reportOfFile(file, {});
      assert.deepEqual(result.report.deferred, expected);
      assert.ok(
        reportLines(result).includes(
          `Deferred tools: 1 of 3 found; ${expected.tokensNotSent} tokens ` +
            `of definitions not sent (summed over the requests).`,
        ),
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it("is absent without deferred tools", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.tools(() => ({ schemas: [schema("read_file")] }));
    const conv = responsesConversation(prompt, { model: "gpt-5.4" });
    conv.user("Hi.");
    await conv.request();
    conv.record(
      answers({ tools: [{ type: "namespace", tools: [] }] })[1] as never,
    );
    await prompt.dispose();
    const report = conv.report({ countTokens: (text) => text.length });
    assert.equal("deferred" in report, false);
  });
});
