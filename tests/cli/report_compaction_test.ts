/**
 * SPEC 10.2: `rxprompt report` and the inspector's chart show a recorded
 * compaction as such: the summarizing request and the share of its input
 * the cache served, the rewrite after the swap (verdict `compaction`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportLines, reportOfFile } from "../../cli/report.ts";
import { chartOfRecording } from "../../cli/inspect/chart.ts";
import { compactionRecording } from "./compaction_recording.ts";

async function reported() {
  const dir = await mkdtemp(join(tmpdir(), "report-"));
  try {
    const file = join(dir, "conversation.jsonl");
    await writeFile(file, await compactionRecording());
    return await reportOfFile(file, {});
  } finally {
    await rm(dir, { recursive: true });
  }
}

describe("a recorded compaction in rxprompt report and the chart", () => {
  it("names the summarizing request, its cached share and the rewrite after the swap", async () => {
    const result = await reported();
    const lines = reportLines(result);
    const rows = lines.filter((line) => /^\s+\d\s/.test(line));
    assert.equal(rows.length, 6);
    assert.match(rows[3], / summary$/);
    assert.match(rows[4], /\bcompaction$/);
    assert.ok(
      lines.includes(
        "Compactions: 1 summarizing request(s), 3000 of their 3060 input " +
          "tokens read from the cache (98.0%); 0 inside a step; 1 rewrite(s) " +
          "after one (verdict compaction).",
      ),
      lines.join("\n"),
    );
    const chart = chartOfRecording(result);
    assert.deepEqual(
      chart.requests.map((request) => request.compaction),
      [undefined, undefined, undefined, "summary", "swap", undefined],
    );
    assert.deepEqual(chart.compactions, {
      summaries: 1,
      inputTokens: 3060,
      cachedTokens: 3000,
      inside: 0,
      swaps: 1,
    });
  });
});
