/**
 * What every row of a form table keeps (issue 45): `formContract(form,
 * table, driver?)` checks a form's row against the table it is in and,
 * for a conversation form, drives a conversation of it: a round trip with
 * a tool call, a resume that builds the same bytes, a report whose
 * estimates are the simulator's over the bodies sent (under the form's
 * rules), and another form's answer refused as another provider's.
 * `forms_test.ts` runs it over the package's forms, `toy_form_test.ts`
 * over a form the package does not have.
 */
import assert from "node:assert/strict";
import { SystemPromptError, type ToolCall } from "../../mod.ts";
import type {
  ConversationForm,
  ProviderForm,
} from "../../src/conversation/form.ts";
import { simulateRequests } from "../../src/cache/simulator/simulate.ts";
import type { FormTable } from "../../adapters/forms.ts";
import { agent } from "../conversation/helpers.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);

/** How a test starts, resumes and answers a conversation of one form. */
export interface FormDriver {
  /** A new conversation (its options as the form needs them). */
  start(prompt: Prompt, options: Record<string, unknown>): Driven;
  resume(prompt: Prompt, recording: string): Driven;
  /** The model's answer calling `calls` (none: a text answer). */
  answer(calls: { id: string; name: string }[]): unknown;
}

type Prompt = ReturnType<typeof agent>["prompt"];

/** What the contract drives of a conversation. */
export interface Driven {
  user(input: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: never): ToolCall[];
  save(): string;
  report(options: { countTokens: (text: string) => number }): {
    requests: { estimate?: { cachedTokens: number; writtenTokens: number } }[];
  };
}

/** A value whose every read throws. */
const HOSTILE = new Proxy({}, {
  get() {
    throw new Error("read");
  },
  ownKeys() {
    throw new Error("keys");
  },
});

/** The row's own facts, against `table`. */
export function rowContract(form: ProviderForm, table: FormTable): void {
  const others = table.forms.filter((other) => other !== form);
  assert.equal(
    table.forms.filter((other) => other.id === form.id).length,
    1,
    `${form.id}: one row per id`,
  );
  for (const name of form.formerNames) {
    assert.ok(
      others.every((other) =>
        other.id !== name && !other.formerNames.includes(name)
      ),
      `${form.id}: former name ${name} is no other form's`,
    );
  }
  assert.match(form.title, /^an? [A-Z]/, `${form.id}: a title for messages`);
  assert.ok(form.otelProvider !== "", `${form.id}: a span provider name`);
  assert.ok(form.cache.rules.length > 0, `${form.id}: cache rules`);
  for (const rules of form.cache.rules) {
    assert.equal(table.ruleTable.named(rules.id), rules, `${rules.id} named`);
  }
  assert.ok(form.cache.rules.includes(form.cache.rulesOf({})));
  for (const response of [null, 42, {}, { usage: "x" }, HOSTILE]) {
    const usage = form.readUsage(response);
    assert.equal(usage.source, form.id, `${form.id}: readUsage's source`);
  }
  const conversation = "builder" in form;
  assert.equal(
    table.recognition.filter((known) => known.id === form.id).length,
    conversation ? 1 : 0,
    `${form.id}: recognized once if a conversation form`,
  );
  if (conversation) {
    assert.equal((form as ConversationForm).recognizes({}), false);
  }
}

/**
 * `rowContract`, and with `driver` a conversation of the form driven
 * through its start and resume functions; `foreign`, other forms'
 * answers it must refuse as another provider's.
 */
export async function formContract(
  form: ProviderForm,
  table: FormTable,
  driver?: FormDriver,
  foreign: readonly unknown[] = [],
): Promise<void> {
  rowContract(form, table);
  if (driver === undefined) return;
  const conversation = form as ConversationForm;
  const { prompt } = agent();
  try {
    const conv = driver.start(prompt, { session: "contract", clock: () => 0 });
    conv.user("Fix the bug.");
    const bodies = [await conv.request()];
    const [call] = conv.record(
      driver.answer([{ id: "c1", name: "read_file" }]) as never,
    );
    assert.equal(call?.name, "read_file", `${form.id}: the call read`);
    conv.toolResult("c1", "The file's text.");
    bodies.push(await conv.request());
    conv.record(driver.answer([]) as never);
    conv.user("Thanks.");
    const saved = conv.save();
    bodies.push(await conv.request());
    const again = driver.resume(prompt, saved);
    again.user("Thanks.");
    assert.equal(
      JSON.stringify(await again.request()),
      JSON.stringify(bodies[2]),
      `${form.id}: a resumed conversation builds the same bytes`,
    );
    conv.record(driver.answer([]) as never);
    if (conversation.cache.liveBodyIsWire) {
      const header = JSON.parse(conv.save().split("\n")[0]);
      const rules = conversation.cache.rulesOf(header.options);
      const simulated = simulateRequests(
        bodies.map((body) => ({ body, time: 0 })),
        { provider: rules.id, countTokens },
        table.ruleTable,
      );
      const report = conv.report({ countTokens });
      assert.deepEqual(
        report.requests.map((request) => [
          request.estimate?.cachedTokens,
          request.estimate?.writtenTokens,
        ]),
        simulated.requests.map((request) => [
          request.cachedTokens,
          request.writtenTokens,
        ]),
        `${form.id}: the report's estimates are the simulator's`,
      );
    }
    for (const answer of foreign) {
      const other = driver.start(prompt, { session: "foreign" });
      other.user("Hello.");
      await other.request();
      assert.throws(
        () => other.record(answer as never),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "RESPONSE_OF_OTHER_PROVIDER",
        `${form.id}: another form's answer is another provider's`,
      );
    }
  } finally {
    await prompt.dispose();
  }
}
