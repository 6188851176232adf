/**
 * Adding a provider form (issue 45, ARCHITECTURE.md): a form the package
 * does not have (`toy_form.ts`: its own body, rules, usage and answers)
 * is a folder and one row, and everything the package does with a form
 * works with it: the conversation, its marks under the toy's rules (two
 * per request, a read looking back 2 blocks), resume, the report equal to
 * the simulator's estimate, `rxprompt report` of its recording, and an
 * answer of another form refused.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SystemPromptError } from "../../mod.ts";
import { FORMS } from "../../adapters/forms.ts";
import { simulateRequests } from "../../src/cache/simulator/simulate.ts";
import { reportOfFile } from "../../cli/report.ts";
import { agent } from "../conversation/helpers.ts";
import { completion, message } from "../conversation/helpers.ts";
import { formContract, type FormDriver } from "./form_contract.ts";
import {
  resumeToyConversation,
  TOY_FORM,
  TOY_TABLE,
  type ToyBody,
  toyConversation,
  toyReply,
} from "./toy_form.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);

const DRIVER: FormDriver = {
  start: (prompt, options) =>
    toyConversation(prompt, { model: "toy-1", ...options }) as never,
  resume: (prompt, recording) =>
    resumeToyConversation(prompt, recording) as never,
  answer: (calls) =>
    toyReply(
      calls.length === 0 ? "Done." : "",
      calls.map(({ id, name }) => ({ id, tool: name })),
    ),
};

/** Where a body's marks are: `tools:I`, `system:I`, `items:I.J`. */
function marksOf(body: ToyBody): string[] {
  return [
    ...(body.tools ?? []).flatMap((tool, index) =>
      tool.mark === undefined ? [] : [`tools:${index}`]
    ),
    ...body.system.flatMap((part, index) =>
      part.mark === undefined ? [] : [`system:${index}`]
    ),
    ...body.items.flatMap((item, index) =>
      item.parts.flatMap((part, at) =>
        part.mark === undefined ? [] : [`items:${index}.${at}`]
      )
    ),
  ];
}

describe("a provider form the package does not have", () => {
  it("keeps the form contract in the package's table with its row", async () => {
    assert.deepEqual(
      TOY_TABLE.forms.map((form) => form.id),
      [...FORMS.map((form) => form.id), "toy-chat"],
    );
    // A new form is recognized last; its rules join the table.
    assert.equal(TOY_TABLE.recognition.at(-1), TOY_FORM);
    assert.deepEqual(TOY_TABLE.ruleTable.ids.at(-1), "toy");
    await formContract(TOY_FORM, TOY_TABLE, DRIVER, [
      message([{ type: "text", text: "Hi." }]),
      completion([]),
    ]);
  });

  it("marks as the toy's rules say: the request's end, and the previous one past the lookback", async () => {
    const { prompt } = agent();
    const conv = toyConversation(prompt, { model: "toy-1", clock: () => 0 });
    conv.user("Fix the bug.");
    const first = await conv.request();
    // Two marks a request: the item's end and the system part.
    assert.deepEqual(marksOf(first), ["system:0", "items:1.0"]);
    conv.record(toyReply("Looking.") as never);
    conv.user("Go on.");
    const second = await conv.request();
    // Two parts added (the answer, the person's): within the lookback.
    assert.deepEqual(marksOf(second), ["system:0", "items:3.0"]);
    conv.record(toyReply("", [{ id: "a", tool: "read_file" }]) as never);
    conv.toolResult("a", "one");
    const third = await conv.request({}, { awaiting: "person" });
    // Three parts added (the answer's text and call, the result): the
    // previous end is marked too, and the prefix has no mark left; the
    // person is awaited: long marks.
    assert.deepEqual(marksOf(third), ["items:3.0", "items:5.0"]);
    assert.deepEqual(third.items[5].parts[0].mark, { ttl: "long" });
    await prompt.dispose();
  });

  it("reports its recording as the simulator estimates it, and through rxprompt report", async () => {
    const { prompt } = agent();
    const bodies: ToyBody[] = [];
    const conv = toyConversation(prompt, { model: "toy-1", clock: () => 0 });
    for (const text of ["One.", "Two.", "Three."]) {
      conv.user(text);
      bodies.push(await conv.request());
      conv.record(
        toyReply("Ok.", [], { input: 40, cached: 20, written: 10 }) as never,
      );
    }
    const report = conv.report({ countTokens });
    const simulated = simulateRequests(
      bodies.map((body) => ({ body, time: 0 })),
      { provider: "toy", countTokens },
      TOY_TABLE.ruleTable,
    );
    assert.deepEqual(
      report.requests.map((request) => request.estimate),
      simulated.requests,
    );
    assert.equal(report.totals.cacheReadTokens, 60);
    const dir = await mkdtemp(join(tmpdir(), "toy-"));
    try {
      const file = join(dir, "toy.jsonl");
      await writeFile(file, conv.save());
      const read = await reportOfFile(file, { forms: TOY_TABLE.forms });
      assert.equal(read.form, "toy-chat");
      assert.equal(read.provider, "toy");
      assert.equal(read.report.totals.cacheReadTokens, 60);
      // The package's own table has no such form.
      await assert.rejects(
        reportOfFile(file, {}),
        /names the form "toy-chat"/,
      );
    } finally {
      await rm(dir, { recursive: true });
      await prompt.dispose();
    }
  });

  it("refuses another form's answer as another provider's", async () => {
    const { prompt } = agent();
    const conv = toyConversation(prompt, { model: "toy-1" });
    conv.user("Hello.");
    await conv.request();
    assert.throws(
      () => conv.record(completion([]) as never),
      (error: unknown) =>
        error instanceof SystemPromptError &&
        error.code === "RESPONSE_OF_OTHER_PROVIDER" &&
        /an OpenAI Chat Completions response; this is a Toy Chat/.test(
          error.message,
        ),
    );
    await prompt.dispose();
  });
});
