/**
 * Issue 49 (SPEC 10.4), `deno task test:slow`: a conversation's report,
 * its resume, `save()` and `rxprompt report`'s work cost what the
 * recording's bytes cost. For each form, `report()` of a 2,000-step
 * recording (tool round trips, registry changes) costs at most 7x that of
 * a 500-step one (4x the steps; a cost per step that grows with the
 * history makes it 16x), and so does `reportOfFile` (the command without
 * its process and output); resuming 16,000 steps costs at most 32x
 * resuming 1,000 (16x the steps), and `save()` costs the same at both (a
 * millisecond, the timer's grain, at least). Before issue 49 these ratios
 * were about 21x and 26x at 1,000 : 250 steps, 57x to 122x for resume,
 * and `save()` joined every line per call. Each cost is the best of three
 * runs, the sizes interleaved; a busy machine gets three attempts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportOfFile } from "../../cli/report.ts";
import {
  LONG_FORMS,
  longRecording,
  repeatedRecording,
  type ResumedLong,
  resumedLong,
} from "./long_recording.ts";

/** The steps of the recordings reported: real ones. */
const REPORTED = { short: 500, long: 2_000, bound: 7 };
/**
 * The steps of the recordings resumed: a short recording's steps
 * repeated, so that a cost per step that grows with the history shows.
 */
const RESUMED = { short: 1_000, long: 16_000, bound: 32 };

const quarter = (text: string): number => Math.ceil(text.length / 4);

async function timed(run: () => unknown): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Asserts `run(sizes.long)` costs at most `bound` times
 * `run(sizes.short)`: the best of three of each, interleaved, after a
 * warm-up; three attempts.
 */
async function assertGrowth(
  what: string,
  sizes: { short: number; long: number; bound: number; grain?: number },
  run: (steps: number) => unknown,
): Promise<void> {
  const { short: SHORT, long: LONG, bound } = sizes;
  await run(SHORT);
  await run(LONG);
  const ratios: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    let short = Infinity;
    let long = Infinity;
    for (let round = 0; round < 3; round++) {
      short = Math.min(short, await timed(() => run(SHORT)));
      long = Math.min(long, await timed(() => run(LONG)));
    }
    // A cost below the timer's grain is counted as the grain.
    const ratio = long / Math.max(short, sizes.grain ?? 0);
    if (ratio <= bound) return;
    ratios.push(
      `${ratio.toFixed(2)} (${long.toFixed(1)} / ${short.toFixed(1)} ms)`,
    );
  }
  assert.fail(
    `${what}: ${LONG} steps cost over ${bound}x ${SHORT} steps: ` +
      ratios.join(", "),
  );
}

describe("a recording costs what its bytes cost", () => {
  for (const form of LONG_FORMS) {
    it(`${form}: report() grows linearly with the steps`, async () => {
      const reported = new Map<number, ResumedLong>();
      for (const steps of [REPORTED.short, REPORTED.long]) {
        const { text } = await longRecording(form, steps);
        reported.set(steps, resumedLong(form, text));
      }
      await assertGrowth("report()", REPORTED, (steps) => {
        const report = reported.get(steps)!.report({ countTokens: quarter });
        assert.equal(report.requests.length, steps);
      });
    });

    it(`${form}: resume grows linearly with the steps, save() not at all`, async () => {
      const { text } = await longRecording(form, 60, { short: true });
      const texts = new Map(
        [RESUMED.short, RESUMED.long].map((
          steps,
        ) => [steps, repeatedRecording(text, steps)]),
      );
      await assertGrowth("resume", RESUMED, (steps) => {
        assert.equal(
          resumedLong(form, texts.get(steps)!).resumed?.steps,
          steps,
        );
      });
      // A harness that saves after every step: the recording is kept
      // whole, never joined again.
      const resumed = new Map(
        [...texts].map(([steps, text]) => [steps, resumedLong(form, text)]),
      );
      await assertGrowth("save()", { ...RESUMED, bound: 3, grain: 1 }, (
        steps,
      ) => {
        const conv = resumed.get(steps)!;
        let length = 0;
        for (let call = 0; call < 1_000; call++) length += conv.save().length;
        assert.ok(length > 0);
      });
    });
  }

  it("rxprompt report's work (reportOfFile) grows linearly with the steps", async () => {
    const folder = await mkdtemp(join(tmpdir(), "rxprompt-report-scale-"));
    try {
      const files = new Map<number, string>();
      for (const steps of [REPORTED.short, REPORTED.long]) {
        const file = join(folder, `anthropic-${steps}.jsonl`);
        await writeFile(file, (await longRecording("anthropic", steps)).text);
        files.set(steps, file);
      }
      await assertGrowth("reportOfFile", REPORTED, async (steps) => {
        const result = await reportOfFile(files.get(steps)!, {});
        assert.equal(result.report.requests.length, steps);
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
