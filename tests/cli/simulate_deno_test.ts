/**
 * `rxprompt simulate` run as a subprocess on the example sessions: the
 * figures equal an in-process simulation of the same requests, the text
 * says the tokenizer differs, and mistakes are one stderr line (exit 2).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { simulateCache } from "../../adapters/cache/mod.ts";
import { requestsOf, runSession } from "../../cli/session.ts";
import { readmeWay } from "../../cli/readme_way.ts";
import pauses from "../../examples/sessions/pauses.ts";
import { rxprompt } from "./cli_process.ts";

const PAUSES = "examples/sessions/pauses.ts";

interface Report {
  note: string;
  providers: Record<string, {
    steps: {
      step: number;
      cachedTokens: number;
      boundTokens: number;
      firstMiss?: { block: string; reason: string };
      changed?: string;
    }[];
    totals: { inputTokens: number; cachedTokens: number; boundTokens: number };
  }>;
}

describe("rxprompt simulate", () => {
  it("--json reports the same figures as simulateCache on the README's requests", async () => {
    const run = await rxprompt([
      "simulate",
      PAUSES,
      "--provider",
      "anthropic",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.deepEqual(Object.keys(report.providers), ["anthropic"]);
    assert.match(report.note, /Anthropic's tokenizer differs/);
    const { steps, totals } = report.providers.anthropic;
    assert.equal(steps.length, 48);

    const expected = simulateCache(
      requestsOf(
        await runSession(await pauses(), { readme: readmeWay }),
        "readme",
        "anthropic-messages",
      ),
      { provider: "anthropic", countTokens },
    );
    assert.equal(totals.cachedTokens, expected.totals.cachedTokens);
    assert.equal(totals.inputTokens, expected.totals.inputTokens);
    // The README's way marks with 1-hour entries: the 7-minute pause
    // before step 8 keeps them, the 70-minute one before step 24 does not.
    assert.equal(steps[8].cachedTokens, steps[8].boundTokens);
    const lapsed = steps[24];
    assert.ok(lapsed.cachedTokens < lapsed.boundTokens);
    assert.match(lapsed.firstMiss!.reason, /lapsed: lifetime 1 h/);
    assert.equal(lapsed.changed, "nothing in the prompt");
    // Steps at the bound carry neither.
    assert.equal(steps[3].firstMiss, undefined);
    assert.equal(steps[3].changed, undefined);
  });

  it("prints every provider's table with totals and the tokenizer note", async () => {
    const run = await rxprompt([
      "simulate",
      "examples/sessions/support_bot.ts",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /o200k_base; Anthropic's tokenizer differs/);
    const providers = [
      "anthropic",
      "openai",
      "openai-explicit",
      "bedrock",
      "gemini",
    ];
    for (const provider of providers) {
      assert.match(run.stdout, new RegExp(`^${provider}$`, "m"));
    }
    assert.equal(run.stdout.match(/^total /gm)?.length, 5);
    // The memory is runtime context and the gates keep the tools listed:
    // what changes is the runtime context, and no step misses a tool.
    assert.match(run.stdout, /changed: runtime context/);
    // Gemini's first steps are under its 4,096-token minimum: the miss is
    // at the first block, a tool, but no tool changed.
    for (const miss of run.stdout.match(/first miss tool:.*/g) ?? []) {
      assert.match(miss, /under the minimum of 4096/);
    }
  });

  it("answers a bad provider, a missing file and a module that is not a session with one line", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["simulate", PAUSES, "--provider", "mistral"],
        /unknown --provider "mistral"; expected one of anthropic, openai, openai-explicit, bedrock, gemini/,
      ],
      [["simulate", "nope.ts"], /session nope.ts not found/],
      [
        ["simulate", "examples/coding_agent.ts"],
        /steps must be a non-empty array of functions/,
      ],
      [["simulate"], /simulate takes SESSION, got none/],
      [
        ["simulate", "tests/cli/fixtures/failing_session.ts"],
        /^rxprompt: step 1 failed: the step's tool crashed$/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const run = await rxprompt(args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      const lines = run.stderr.split("\n").filter((line) => line !== "");
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], pattern);
    }
  });
});
