/**
 * SPEC 9.1 "Save and resume", 9.8: a conversation saved (or recorded as it
 * goes) and resumed builds the very bytes the original would have built;
 * bad recordings fail with a stable code and are never modified.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { SystemPromptError } from "../../mod.ts";
import { parseRecording } from "../../src/conversation/recording.ts";
import { MESSAGES_FORM } from "../../adapters/anthropic/form.ts";
import { fuzzRuns } from "../fuzz_runs.ts";
import { agent, message, toolUse } from "./helpers.ts";
import { sessionArbitrary } from "./session.ts";
import { FORMS } from "./forms.ts";
import { runSession } from "./run_session.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

function code(code: string) {
  return (error: unknown) =>
    error instanceof SystemPromptError && error.code === code;
}

/** A two-step recording with an open tool round at its end. */
async function recorded(): Promise<{ text: string; lines: string[] }> {
  const a = agent();
  const lines: string[] = [];
  const conv = anthropicConversation(a.prompt, {
    ...OPTIONS,
    onRecord: (line) => lines.push(line),
  });
  conv.user("Fix it.");
  await conv.request();
  conv.record(message([toolUse("t1", "read_file")]));
  conv.toolResult("t1", "text");
  await conv.request(undefined, { awaiting: "person" });
  conv.record(message([toolUse("t2", "shell")]));
  await a.prompt.dispose();
  assert.equal(lines.join(""), conv.save());
  return { text: conv.save(), lines };
}

describe("save and resume", () => {
  for (const form of FORMS) {
    it(`${form.name}: save-then-resume at every step gives the bodies of never saving (property)`, async () => {
      await fc.assert(
        fc.asyncProperty(sessionArbitrary, async (steps) => {
          const straight = await runSession(form, steps, { resume: false });
          const resumed = await runSession(form, steps, { resume: true });
          assert.equal(JSON.stringify(resumed), JSON.stringify(straight));
        }),
        { seed: 41, numRuns: fuzzRuns(25) },
      );
    });
  }

  it("resumes in the state it was saved in: session, history, open calls", async () => {
    const { text } = await recorded();
    const a = agent();
    const conv = resumeAnthropicConversation(a.prompt, text);
    assert.deepEqual(conv.resumed, { steps: 2, truncated: false });
    assert.equal(conv.messages.length, 4);
    assert.deepEqual(conv.openCalls.map((call) => call.id), ["t2"]);
    await a.prompt.dispose();
  });

  it("sends a runtime context that differs now as an update after the last item", async () => {
    const a = agent();
    const conv = anthropicConversation(a.prompt, OPTIONS);
    conv.user("Hi.");
    const first = await conv.request();
    conv.record(message([{ type: "text", text: "Hello." }]));
    a.branch = "next-day";
    const again = resumeAnthropicConversation(a.prompt, conv.save());
    again.user("Still there?");
    const body = await again.request();
    assert.equal(
      JSON.stringify(body.messages[0].content.map((b) => b.type)),
      JSON.stringify(first.messages[0].content.map((b) => b.type)),
    );
    const last = body.messages.at(-1)!.content;
    assert.match(String((last.at(-1) as { text: string }).text), /next-day/);
    await a.prompt.dispose();
  });

  it("appends to the same recording after a resume", async () => {
    const { text } = await recorded();
    const a = agent();
    const lines: string[] = [];
    const conv = resumeAnthropicConversation(a.prompt, text, {
      onRecord: (line) => lines.push(line),
    });
    conv.toolResult("t2", "ok");
    await conv.request();
    conv.record(message([{ type: "text", text: "Done." }]));
    assert.equal(text + lines.join(""), conv.save());
    assert.equal(lines.length, 1);
    await a.prompt.dispose();
  });

  it("reads a 0.4 recording's usage source (\"anthropic\") as the form's id, keeping its lines", async () => {
    const { text } = await recorded();
    // 0.4 wrote the Messages form's usage source as "anthropic".
    const old = text.replaceAll(
      '"source":"anthropic-messages"',
      '"source":"anthropic"',
    );
    assert.notEqual(old, text);
    const parsed = parseRecording(old, MESSAGES_FORM);
    assert.deepEqual(
      parsed.steps.map((step) => step.reported?.source),
      ["anthropic-messages", "anthropic-messages"],
    );
    const a = agent();
    const conv = resumeAnthropicConversation(a.prompt, old);
    // The recording is never rewritten: its lines are kept as read.
    assert.equal(conv.save(), old);
    assert.deepEqual(
      conv.report({ countTokens: (t) => t.length }),
      resumeAnthropicConversation(a.prompt, text).report({
        countTokens: (t) => t.length,
      }),
    );
    await a.prompt.dispose();
  });

  it("resumes a recording cut mid-line from its last complete record, and says so", async () => {
    const { text, lines } = await recorded();
    const cut = text.slice(0, text.length - Math.floor(lines[2].length / 2));
    const a = agent();
    const conv = resumeAnthropicConversation(a.prompt, cut);
    assert.deepEqual(conv.resumed, { steps: 1, truncated: true });
    assert.deepEqual(conv.openCalls.map((call) => call.id), ["t1"]);
    await a.prompt.dispose();
  });

  it("names each bad recording by its code and leaves it unchanged", async () => {
    const { text, lines } = await recorded();
    const header = JSON.parse(lines[0]);
    const cases: [string, string][] = [
      [
        JSON.stringify({ ...header, form: "openai-chat" }) + "\n" +
        lines.slice(1).join(""),
        "RECORDING_OTHER_PROVIDER",
      ],
      [
        JSON.stringify({ ...header, version: 3 }) + "\n" +
        lines.slice(1).join(""),
        "RECORDING_VERSION",
      ],
      [lines[0] + "{not json\n" + lines[2], "RECORDING_UNPARSABLE"],
      [
        JSON.stringify({
          ...header,
          fork: { session: "s", listed: [], state: {}, head: null },
        }) + "\n",
        "RECORDING_UNPARSABLE",
      ],
      ["", "RECORDING_UNPARSABLE"],
      ['{"hello":1}\n', "RECORDING_UNPARSABLE"],
      [lines[0] + lines[2], "RECORDING_DISCONTINUOUS"],
      [
        lines[0] + lines[1] +
        JSON.stringify({ ...JSON.parse(lines[2]), at: 1 }) + "\n",
        "RECORDING_DISCONTINUOUS",
      ],
    ];
    const a = agent();
    for (const [input, expected] of cases) {
      const before = `${input}`;
      assert.throws(
        () => resumeAnthropicConversation(a.prompt, input),
        code(expected),
        expected,
      );
      assert.equal(input, before);
    }
    assert.throws(
      () => resumeAnthropicConversation(a.prompt, 42 as unknown as string),
      code("RECORDING_UNPARSABLE"),
    );
    assert.ok(text.length > 0);
    await a.prompt.dispose();
  });
});
