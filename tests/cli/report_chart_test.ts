/**
 * `rxprompt report`'s text and `inspect --serve --recording`'s chart, from
 * a conversation's report (the session of tests/conversation/report_session.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chartOfRecording } from "../../cli/inspect/chart.ts";
import { type RecordingReport, reportLines } from "../../cli/report.ts";
import { countTokens, playSession } from "../conversation/report_session.ts";

async function sessionReport(): Promise<RecordingReport> {
  const { prompt, conv } = await playSession(0);
  await prompt.dispose();
  return {
    file: "session.jsonl",
    form: "anthropic-messages",
    session: conv.session,
    provider: "anthropic",
    truncated: true,
    report: conv.report({ countTokens }),
  };
}

describe("report's text and chart", () => {
  it("prints a row per request, each miss with its contributor, and both totals", async () => {
    const lines = reportLines(await sessionReport());
    assert.match(lines[0], /^rxprompt report session\.jsonl: 6 requests/);
    assert.match(lines[1], /cut mid-way/);
    const rows = lines.filter((line) => /^\s+\d\s/.test(line));
    assert.equal(rows.length, 6);
    assert.match(rows[4], /provider \(expired\)$/);
    assert.match(rows[5], /provider$/);
    const text = lines.join("\n");
    assert.match(
      text,
      /step 4: layout: .*\n {4}contributor: tool browse \(added\) registered by registry\/mcp/,
    );
    assert.match(text, /^Observed: hit ratio \d/m);
    assert.match(text, /^Simulated: hit ratio \d/m);
    assert.match(text, /Misses by verdict: layout 2, provider 2\./);
  });

  it("charts the reported tokens with each miss's verdict and reason", async () => {
    const result = await sessionReport();
    const chart = chartOfRecording(result);
    assert.deepEqual(chart.source, {
      kind: "recording",
      file: "session.jsonl",
      form: "anthropic-messages",
    });
    assert.deepEqual(
      chart.requests.map((request) => request.verdict?.kind),
      [undefined, undefined, "layout", "layout", "provider", "provider"],
    );
    assert.equal(chart.requests[2].verdict?.providerReason, "system_changed");
    assert.deepEqual(chart.requests[2].diff.sections.changed, ["git"]);
    assert.deepEqual(chart.requests[3].diff.tools.added, ["browse"]);
    assert.equal(
      chart.requests[1].cachedTokens,
      result.report.requests[1].cacheReadTokens,
    );
    assert.equal(chart.totals.inputTokens, result.report.totals.inputTokens);
  });
});
