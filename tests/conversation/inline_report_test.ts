/**
 * SPEC 10.1 (issue 46): the report, `rxprompt report` and the inspector's
 * chart read a change told inline as such (`inline: section git changed`),
 * not as a miss; a change told again after a compaction is marked so.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { inlineText, reportLines } from "../../cli/report.ts";
import { chartOfRecording } from "../../cli/inspect/chart.ts";
import { countTokens, playSession } from "./report_session.ts";
import { message } from "./helpers.ts";

describe("inline changes in the report (issue 46)", () => {
  it("the report session told inline: no miss, each change named; rebuilt: the layout misses, nothing inline", async () => {
    const inline = await playSession(1_000_000, "inline");
    const report = inline.conv.report({ countTokens });
    await inline.prompt.dispose();
    assert.deepEqual(
      report.requests.map((request) => request.inline),
      [
        undefined,
        undefined,
        [{ kind: "section", name: "git", change: "changed" }],
        [{ kind: "tool", name: "browse", change: "added" }],
        undefined,
        undefined,
      ],
    );
    // Neither change is a miss: the prefix was kept.
    assert.equal(report.requests[2].judgement?.missed, false);
    assert.equal(report.requests[3].judgement?.missed, false);
    const lines = reportLines(
      {
        report,
        file: "inline.jsonl",
        form: "anthropic-messages",
        session: inline.conv.session,
        provider: "anthropic",
        truncated: false,
      } as Parameters<typeof reportLines>[0],
    );
    const rows = lines.filter((line) => /^\s+[34]\s/.test(line));
    assert.match(rows[0], /inline: section git changed$/);
    assert.match(rows[1], /inline: tool browse added$/);
    assert.doesNotMatch(rows.join("\n"), /layout/);
    const chart = chartOfRecording({
      file: "inline.jsonl",
      form: "anthropic-messages",
      session: inline.conv.session,
      report,
    });
    assert.equal(chart.requests[2].inline, "inline: section git changed");
    assert.equal(chart.requests[2].verdict, undefined);

    const rebuilt = await playSession(1_000_000);
    const before = rebuilt.conv.report({ countTokens });
    await rebuilt.prompt.dispose();
    assert.ok(before.requests.every((request) => request.inline === undefined));
    assert.equal(before.requests[2].judgement?.verdict, "layout");
  });

  it("the effort and, after a compaction, what was told again (restated)", async () => {
    const state = { branch: "main", tools: [tool("read_file")] };
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    prompt.section({
      name: "git",
      order: 10,
      text: () => `On ${state.branch}.`,
    });
    prompt.section({ name: "rules", order: 20, text: "Be brief. ".repeat(30) });
    let review = "";
    prompt.section({ name: "review", order: 30, text: () => review });
    prompt.tools(() => ({ schemas: state.tools }));
    const conv = responsesConversation(prompt, {
      model: "m",
      changes: "inline",
    });
    const reply = (output: Record<string, unknown>[] = [answerItem]) =>
      ({ object: "response", output }) as never;
    conv.user("Go.");
    await conv.request({}, { output: { effort: "low" } });
    conv.record(reply());
    state.branch = "fix";
    state.tools = [...state.tools, tool("browse"), tool("grep")];
    conv.user("Again.");
    await conv.request({}, { output: { effort: "high" } });
    conv.record(reply());
    const compaction = await conv.compact();
    compaction.record(
      reply([{ type: "compaction", id: "cmp_1", encrypted_content: "enc" }]),
    );
    // New since the compaction: told for the first time, not again.
    review = "Comment on every line.";
    state.tools = [
      ...state.tools.filter(({ name }) => name !== "grep"),
      { ...tool("grep"), description: "Search the files." }, // redefined
      tool("lint"),
    ];
    conv.user("Next.");
    await conv.request();
    conv.record(reply());
    conv.user("Then.");
    await conv.request();
    conv.record(reply());
    const report = conv.report({ countTokens });
    assert.deepEqual(report.requests.map((request) => request.inline), [
      undefined,
      [
        { kind: "section", name: "git", change: "changed" },
        { kind: "tool", name: "browse", change: "added" },
        { kind: "tool", name: "grep", change: "added" },
        { kind: "effort", name: "high", change: "changed" },
      ],
      undefined, // the summarizing request
      [
        { kind: "section", name: "git", change: "changed", restated: true },
        { kind: "section", name: "review", change: "added" },
        { kind: "tool", name: "browse", change: "added", restated: true },
        { kind: "tool", name: "grep", change: "added" },
        { kind: "tool", name: "lint", change: "added" },
        { kind: "effort", name: "high", change: "changed", restated: true },
      ],
      undefined,
    ]);
    assert.equal(
      inlineText(report.requests[3].inline),
      "inline: section git changed (again); section review added; tool " +
        "browse added (again); tool grep added; tool lint added; effort " +
        "high (again)",
    );
    await prompt.dispose();
  });

  it("an Anthropic compaction block keeps the tools: only the sections and the effort are told again", async () => {
    const state = { branch: "main", tools: [tool("read_file")] };
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    prompt.section({
      name: "git",
      order: 10,
      text: () => `On ${state.branch}.`,
    });
    prompt.section({ name: "rules", order: 20, text: "Be brief. ".repeat(30) });
    prompt.tools(() => ({ schemas: state.tools }));
    const conv = anthropicConversation(prompt, {
      model: "claude-fable-5-1",
      max_tokens: 64,
      changes: "inline",
    });
    const done = message([{ type: "text", text: "ok" }]);
    conv.user("Go.");
    await conv.request({}, { output: { effort: "low" } });
    conv.record(done);
    state.branch = "fix";
    state.tools = [...state.tools, tool("browse")];
    conv.user("Again.");
    await conv.request({}, { output: { effort: "high" } });
    conv.record(done);
    const compaction = await conv.compact();
    compaction.record({
      ...message([{
        type: "compaction",
        content: "The work so far.",
        encrypted_content: "enc",
      }]),
      stop_reason: "compaction",
    } as never);
    conv.user("Next.");
    await conv.request();
    conv.record(done);
    const report = conv.report({ countTokens });
    assert.deepEqual(report.requests[3].inline, [
      { kind: "section", name: "git", change: "changed", restated: true },
      { kind: "effort", name: "high", change: "changed", restated: true },
    ]);
    await prompt.dispose();
  });
});

const answerItem = {
  type: "message",
  id: "m1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "ok", annotations: [] }],
};

function tool(name: string): ToolSchema {
  return { name, description: `The ${name} tool.`, parameters: {} };
}
