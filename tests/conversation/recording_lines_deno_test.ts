/**
 * SPEC 9.1, 10.4: the lines `onRecord` is handed and `save()` returns are
 * the recording's format, byte for byte, however a conversation keeps its
 * steps in memory. Each form's recording (usage, cache marks, tool calls,
 * a tool and a runtime change, `diagnostics`' provenance and contributors,
 * a person-awaited step) is compared with one made before the kept step's
 * shape changed (`lines/*.jsonl`), and `report()` of the live conversation
 * with the report of its recording resumed (the steps as a line reads).
 *
 * `deno test -A tests/conversation/recording_lines_deno_test.ts -- --update`
 * writes the fixtures again: only for a change of the format itself.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FORMS } from "./forms.ts";
import { agent, message, schema } from "./helpers.ts";
import { longRecording, type LongStartForm } from "./long_recording.ts";

const UPDATE = Deno.args.includes("--update");
const START = Date.UTC(2026, 11, 7, 9, 0, 0);

function fixture(name: string): URL {
  return new URL(`./lines/${name}.jsonl`, import.meta.url);
}

/** `text` is the fixture's (or, with `--update`, becomes it). */
async function assertFixture(name: string, text: string): Promise<void> {
  if (UPDATE) {
    await Deno.mkdir(new URL("./lines/", import.meta.url), { recursive: true });
    await Deno.writeTextFile(fixture(name), text);
    return;
  }
  const expected = await Deno.readTextFile(fixture(name));
  assert.equal(text, expected, `${name}'s lines differ from its fixture`);
}

const countTokens = (text: string) => Math.ceil(text.length / 4);

describe("the recording's lines, byte for byte", () => {
  for (const form of FORMS) {
    it(`${form.name}: onRecord and save() write the lines of before`, async () => {
      const a = agent();
      let now = START;
      const lines: string[] = [];
      const conv = form.start(a.prompt, {
        clock: () => now,
        onRecord: (line) => lines.push(line),
        diagnostics: true,
      });
      const saves: string[] = [];
      try {
        let calls: { id: string; name: string }[] = [];
        for (let step = 1; step <= 8; step++) {
          now += 7_000 + 1_000 * step;
          if (step === 3) a.tools = [...a.tools, schema("web_search")];
          if (step === 5) a.branch = "fix/marks";
          for (const call of conv.openCalls) {
            conv.toolResult(call.id, `result of ${call.id}`);
          }
          if (conv.openCalls.length === 0) conv.user(`question ${step}`);
          await conv.request(undefined, {
            awaiting: step === 6 ? "person" : "agent",
          });
          now += 2_500;
          calls = step % 3 === 2 ? [] : Array.from(
            { length: 1 + (step % 2) },
            (_, index) => ({ id: `call_${step}_${index}`, name: "read_file" }),
          );
          conv.record(form.answer(calls));
          if (step % 4 === 0) saves.push(conv.save());
        }
        const saved = conv.save();
        assert.equal(saved, lines.join(""));
        for (const early of saves) assert.ok(saved.startsWith(early));
        await assertFixture(form.name, saved);
        const resumed = form.resume(a.prompt, saved) as unknown as {
          report(options: unknown): unknown;
        };
        const live = conv as unknown as { report(options: unknown): unknown };
        assert.deepEqual(
          live.report({ countTokens }),
          resumed.report({ countTokens }),
        );
      } finally {
        await a.prompt.dispose();
      }
    });
  }

  const long: LongStartForm[] = [
    "anthropic",
    "anthropic-inline",
    "chat",
    "responses",
    "ai-sdk",
  ];
  for (const form of long) {
    it(`the coding agent's ${form} recording (cache figures, inline changes)`, async () => {
      const { text } = await longRecording(form, 24, { short: true });
      await assertFixture(`long-${form}`, text);
    });
  }
});

describe("a step's usage read, kept or read again", () => {
  it("is the line's as observed: a clean plain answer, a malformed figure, a class's getter", async () => {
    const a = agent();
    const lines: string[] = [];
    const observed: unknown[] = [];
    const conv = FORMS[0].start(a.prompt, {
      clock: () => START,
      onRecord: (line) => lines.push(line),
      onRequest: (request) => observed.push(request.usage),
    });
    class Answer {
      type = "message";
      role = "assistant";
      content = [{ type: "text", text: "Done." }];
      // Not in the answer's JSON copy: only the answer as given has it.
      get usage(): unknown {
        return { input_tokens: 7, output_tokens: 3 };
      }
    }
    const answers = [
      { ...message([{ type: "text", text: "Done." }]) },
      {
        ...message([{ type: "text", text: "Done." }]),
        usage: { input_tokens: Number.NaN, output_tokens: 5 },
      },
      new Answer(),
    ];
    try {
      for (const [index, answer] of answers.entries()) {
        conv.user(`question ${index}`);
        await conv.request();
        conv.record(answer as never);
        const line = JSON.parse(lines.at(-1)!);
        assert.deepEqual(
          line.reported,
          JSON.parse(JSON.stringify(observed.at(-1))),
          `answer ${index}`,
        );
      }
      assert.equal(conv.save(), lines.join(""));
      assert.equal(JSON.parse(lines.at(-1)!).reported.inputTokens, 7);
    } finally {
      await a.prompt.dispose();
    }
  });
});
