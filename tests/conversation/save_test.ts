/**
 * SPEC 9.1, 10.4: `save()` is the recording the conversation appends to,
 * line by line, as `onRecord` hands the lines over, and a resumed
 * conversation's recording is the one it read, byte for byte: its complete
 * lines (a last line cut mid-way left out, a missing last newline added),
 * then the lines it records.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { agent, message, toolUse } from "./helpers.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

/** One step recorded by `conv` (its open calls answered first). */
async function step(
  conv: ReturnType<typeof anthropicConversation>,
  text: string,
): Promise<void> {
  for (const call of conv.openCalls) conv.toolResult(call.id, "ok");
  if (conv.openCalls.length === 0) conv.user(text);
  await conv.request();
  conv.record(message([toolUse(`t-${text}`, "read_file")]));
}

describe("save()", () => {
  it("is every line onRecord handed over, after each step", async () => {
    const a = agent();
    const lines: string[] = [];
    const conv = anthropicConversation(a.prompt, {
      ...OPTIONS,
      onRecord: (line) => lines.push(line),
    });
    try {
      const header = conv.save();
      assert.equal(JSON.parse(header).format, "rxprompt-conversation");
      for (const text of ["one", "two", "three"]) {
        await step(conv, text);
        assert.equal(conv.save(), lines.join(""));
      }
      assert.equal(lines[0], header);
      assert.equal(lines.length, 4);
    } finally {
      await a.prompt.dispose();
    }
  });

  it("written only when asked, as onRecord wrote it, the answers as they were recorded", async () => {
    const a = agent();
    const lines: string[] = [];
    const logged = anthropicConversation(a.prompt, {
      ...OPTIONS,
      session: "s",
      clock: () => 0,
      onRecord: (line) => lines.push(line),
    });
    const unsaved = anthropicConversation(a.prompt, {
      ...OPTIONS,
      session: "s",
      clock: () => 0,
    });
    try {
      for (const text of ["one", "two", "three"]) {
        for (const conv of [logged, unsaved]) {
          for (const call of conv.openCalls) conv.toolResult(call.id, "ok");
          if (conv.openCalls.length === 0) conv.user(text);
          await conv.request();
          const answer = message([toolUse(`t-${text}`, "read_file")]);
          conv.record(answer);
          // The caller's answer changed after record(): the recording
          // keeps what was recorded.
          answer.usage.input_tokens = 99;
          answer.content.length = 0;
        }
      }
      // Never saved until now: its lines are written from the steps kept.
      assert.equal(unsaved.save(), lines.join(""));
      assert.ok(!unsaved.save().includes("99"));
      assert.equal(lines.length, 4);
    } finally {
      await a.prompt.dispose();
    }
  });

  it("after a resume: the recording as read, its cut line left out, then the new lines", async () => {
    const a = agent();
    try {
      const conv = anthropicConversation(a.prompt, OPTIONS);
      await step(conv, "one");
      await step(conv, "two");
      const text = conv.save();
      const cut = text.slice(0, text.length - 40);
      const complete = text.slice(
        0,
        text.lastIndexOf("\n", text.length - 2) + 1,
      );
      const cases = [
        { given: text, read: text },
        { given: text.slice(0, -1), read: text },
        { given: cut, read: complete },
      ];
      for (const { given, read } of cases) {
        const lines: string[] = [];
        const resumed = resumeAnthropicConversation(a.prompt, given, {
          onRecord: (line) => lines.push(line),
        });
        assert.equal(resumed.save(), read);
        await step(resumed, "three");
        assert.equal(resumed.save(), read + lines.join(""));
        // What it saved resumes and goes on.
        const again = resumeAnthropicConversation(a.prompt, resumed.save());
        assert.equal(again.resumed?.truncated, false);
        await step(again, "four");
        assert.equal(again.resumed?.steps, resumed.resumed!.steps + 1);
      }
    } finally {
      await a.prompt.dispose();
    }
  });
});
