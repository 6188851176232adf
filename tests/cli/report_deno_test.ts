/**
 * `rxprompt report FILE` (SPEC 9.3): the cache report of a conversation's
 * recording, the same as `conv.report()`; a recording cut mid-line read up
 * to its last complete record, and bad input in one line with exit 2.
 * Deno-only: runs the command as a subprocess.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  countTokens,
  playSession,
  VERDICTS,
} from "../conversation/report_session.ts";
import { rxprompt } from "./cli_process.ts";
import { SystemPrompt } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { responsesConversation } from "../../adapters/openai/mod.ts";
import { message, responsesAnswer } from "../conversation/helpers.ts";

/** The session's recording, and its own report's verdicts. */
async function recording(): Promise<{ text: string; verdicts: unknown[] }> {
  const { prompt, conv } = await playSession(1_000_000);
  const verdicts = conv.report({ countTokens }).requests.map((request) =>
    request.judgement?.missed ? request.judgement.verdict : undefined
  );
  await prompt.dispose();
  return { text: conv.save(), verdicts };
}

describe("rxprompt report", () => {
  it("reports a recording: verdicts, contributors, observed and simulated totals", async () => {
    const { text, verdicts } = await recording();
    assert.deepEqual(verdicts, VERDICTS);
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      await Deno.writeTextFile(file, text);
      const json = await rxprompt(["report", file, "--json"]);
      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout);
      assert.equal(result.form, "anthropic-messages");
      assert.equal(result.provider, "anthropic");
      assert.equal(result.truncated, false);
      const judgements = result.report.requests.map((
        request: { judgement?: Record<string, unknown> },
      ) => request.judgement);
      assert.deepEqual(
        judgements.map((j: Record<string, unknown> | undefined) =>
          j?.missed ? j.verdict : undefined
        ),
        VERDICTS,
      );
      assert.equal(judgements[2].contributor.name, "git");
      assert.equal(judgements[2].contributor.variable.name, "branch");
      assert.equal(judgements[3].contributor.name, "browse");
      assert.equal(judgements[3].contributor.registrar, "registry/mcp");
      assert.equal(judgements[4].expired, true);
      assert.equal(judgements[5].expired, false);
      assert.ok(result.report.totals.estimate !== undefined);

      const plain = await rxprompt(["report", file]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, /step 3: layout: /);
      assert.match(
        plain.stdout,
        /contributor: section git \(changed\) registered by registry\/git, through variable branch/,
      );
      assert.match(plain.stdout, /contributor: tool browse \(added\)/);
      assert.match(
        plain.stdout,
        /provider: miss system_changed, 2800 tokens missed/,
      );
      assert.match(plain.stdout, /step 5: provider: identical bytes;/);
      assert.match(plain.stdout, /^Observed: hit ratio /m);
      assert.match(plain.stdout, /^Simulated: hit ratio /m);
      assert.match(plain.stdout, /Observed and simulated differ/);
      assert.match(plain.stdout, /Misses by verdict: layout 2, provider 2\./);
    } finally {
      await Deno.remove(file);
    }
  });

  it("reads a recording cut mid-line up to its last complete record, and says so", async () => {
    const { text } = await recording();
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      await Deno.writeTextFile(file, text.slice(0, text.length - 40));
      const run = await rxprompt(["report", file]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /5 requests/);
      assert.match(run.stdout, /last line was cut mid-way/);
      const json = JSON.parse(
        (await rxprompt(["report", file, "--json"])).stdout,
      );
      assert.equal(json.truncated, true);
    } finally {
      await Deno.remove(file);
    }
  });

  it("reports recordings made with inline tool changes (Anthropic and Responses)", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const recordings = [
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 64,
        toolChanges: "inline",
      }),
      responsesConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        toolChanges: "inline",
      }),
    ];
    const answers = [
      message([{ type: "text", text: "Hello." }]),
      responsesAnswer([]),
    ];
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      for (const [index, conv] of recordings.entries()) {
        conv.user("Hi.");
        await conv.request();
        conv.record(answers[index] as never);
        await Deno.writeTextFile(file, conv.save());
        const run = await rxprompt(["report", file, "--json"]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(JSON.parse(run.stdout).report.requests.length, 1);
      }
    } finally {
      await Deno.remove(file);
      await prompt.dispose();
    }
  });

  it("says what is wrong with bad input in one line, exit 2", async () => {
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      const cases: [string, RegExp][] = [
        ["not json\n", /its first line is not JSON/],
        ['{"format":"x","options":{}}\n', /not a conversation header/],
        [
          '{"format":"rxprompt-conversation","version":9,"provider":"openai-chat","session":"s","options":{}}\n',
          /RECORDING_VERSION/,
        ],
        [
          '{"format":"rxprompt-conversation","version":1,"provider":"mistral-chat","session":"s","options":{}}\n',
          /form "mistral-chat"/,
        ],
      ];
      for (const [content, message] of cases) {
        await Deno.writeTextFile(file, content);
        const run = await rxprompt(["report", file]);
        assert.equal(run.code, 2);
        assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
        assert.match(run.stderr, message);
      }
      const missing = await rxprompt(["report", `${file}.absent`]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /not found/);
    } finally {
      await Deno.remove(file);
    }
  });
});
