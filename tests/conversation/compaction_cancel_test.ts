/**
 * SPEC 10.2: the `compactAt` trigger's summarizing request given up. Once
 * an answer reaches `compactAt`, `request()` returns the summarizing
 * request, again on a retry; a provider that refuses it would leave the
 * harness no way out. `cancelCompaction()` gives it up (or a `compact()`
 * not yet recorded): nothing is recorded, the next request is the step on
 * the whole history with the person's message given meanwhile, and the
 * trigger fires again only after a later answer reaches `compactAt`.
 * Checked against a twin conversation without the trigger (the step's
 * bytes, `compact()`'s body) on Anthropic, Chat Completions and Bedrock
 * Converse (the last two a client-side summary).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type ConversationOptions,
  SystemPrompt,
  SystemPromptError,
  type ToolCall,
} from "../../mod.ts";
import { FORMS as ALL_FORMS } from "./forms.ts";

/** What these tests need of a conversation. */
interface Conv {
  readonly continues: boolean;
  readonly summarizing: boolean;
  readonly messages: readonly unknown[];
  user(input: string): void;
  request(): Promise<{ messages: unknown[] }>;
  record(answer: never): ToolCall[];
  compact(): Promise<{ body: unknown; cancel(): void; record(a: never): void }>;
  cancelCompaction(): void;
  save(): string;
}

/** One form: its start and resume, its answers. */
interface Form {
  readonly name: string;
  start(prompt: SystemPrompt, options?: ConversationOptions): Conv;
  resume(prompt: SystemPrompt, saved: string): Conv;
  /** A text answer that reports `inputTokens` of input. */
  answer(text: string, inputTokens: number): never;
  /** The summarizing request's answer. */
  summary(): never;
}

/** One clock for every conversation: their recordings compare equal. */
const CLOCK = () => 0;
const SUMMARY = "The work so far: the test is fixed.";

/** A form of `forms.ts`, on one clock, with this test's answers. */
function onClock(
  name: string,
  answers: Pick<Form, "answer" | "summary">,
): Form {
  const form = ALL_FORMS.find((each) => each.name === name)!;
  return {
    name,
    start: (prompt, options) =>
      form.start(prompt, { clock: CLOCK, ...options }) as unknown as Conv,
    resume: (prompt, saved) =>
      form.resume(prompt, saved, { clock: CLOCK }) as unknown as Conv,
    ...answers,
  };
}

const FORMS: readonly Form[] = [
  onClock("anthropic", {
    answer: (text, inputTokens) =>
      ({
        type: "message",
        role: "assistant",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        usage: { input_tokens: inputTokens, output_tokens: 5 },
      }) as never,
    summary: () =>
      ({
        type: "message",
        role: "assistant",
        content: [{
          type: "compaction",
          content: SUMMARY,
          encrypted_content: "enc",
        }],
        stop_reason: "compaction",
        usage: { input_tokens: 20, output_tokens: 5 },
      }) as never,
  }),
  onClock("openai-chat", {
    answer: (text, inputTokens) =>
      ({
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: text } }],
        usage: {
          prompt_tokens: inputTokens,
          completion_tokens: 5,
          total_tokens: inputTokens + 5,
        },
      }) as never,
    summary: () =>
      ({
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: SUMMARY } }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      }) as never,
  }),
  onClock("bedrock-converse", {
    answer: (text, inputTokens) =>
      ({
        output: { message: { role: "assistant", content: [{ text }] } },
        stopReason: "end_turn",
        usage: {
          inputTokens,
          outputTokens: 5,
          totalTokens: inputTokens + 5,
        },
      }) as never,
    summary: () =>
      ({
        output: {
          message: { role: "assistant", content: [{ text: SUMMARY }] },
        },
        stopReason: "end_turn",
        usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 },
      }) as never,
  }),
];

const COMPACT_AT = { inputTokens: 1_000 };
/** An answer past `COMPACT_AT`, and one below it. */
const PAST = 1_500;
const BELOW = 500;

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Keep every change small and every test green. ".repeat(8),
  });
  return prompt;
}

/**
 * A conversation with the trigger and its twin without it, one step each
 * whose answer reaches `compactAt`, then the person's next message: the
 * trigger's conversation is due.
 */
async function due(form: Form) {
  const prompt = registry();
  const conv = form.start(prompt, { compactAt: COMPACT_AT });
  const twin = form.start(prompt);
  for (const each of [conv, twin]) {
    each.user("Fix the failing test.");
    await each.request();
    each.record(form.answer("Fixed.", PAST));
    each.user("Now run the tests.");
  }
  return { prompt, conv, twin };
}

/** `compact()`'s body on the twin, given up again. */
async function summarizingBody(twin: Conv): Promise<unknown> {
  const compaction = await twin.compact();
  compaction.cancel();
  return compaction.body;
}

function nothingPending(pattern: RegExp) {
  return (error: unknown) =>
    error instanceof SystemPromptError &&
    error.code === "NOTHING_PENDING" && pattern.test(error.message);
}

for (const form of FORMS) {
  describe(`compactAt's request given up: ${form.name} (SPEC 10.2)`, () => {
    it("a retry returns the same summarizing request; cancelCompaction() sends the step on the whole history instead", async () => {
      const { prompt, conv, twin } = await due(form);
      assert.equal(conv.summarizing, false);
      const refused = await conv.request();
      // The harness tells the summarizing request from a step.
      assert.equal(conv.summarizing, true);
      assert.deepEqual(refused, await summarizingBody(twin));
      assert.ok(!JSON.stringify(refused).includes("Now run the tests."));
      // The provider refused it; sent again (a retry), it is the same body.
      assert.deepEqual(await conv.request(), refused);
      assert.deepEqual(await conv.request(), refused);
      assert.equal(conv.summarizing, true);
      conv.cancelCompaction();
      assert.equal(conv.summarizing, false);
      // Not compacted again at once: the step, byte for byte the twin's.
      const step = await conv.request();
      assert.equal(conv.summarizing, false);
      assert.deepEqual(step, await twin.request());
      assert.ok(JSON.stringify(step.messages.at(-1)).includes("run the tests"));
      for (const each of [conv, twin]) {
        assert.deepEqual(each.record(form.answer("Green.", BELOW)), []);
        each.user("Commit it.");
      }
      // Below compactAt: no trigger.
      assert.deepEqual(await conv.request(), await twin.request());
      for (const each of [conv, twin]) {
        each.record(form.answer("Committed.", PAST));
        each.user("Push it.");
      }
      // A later answer past compactAt fires it again.
      const again = await conv.request();
      assert.equal(conv.summarizing, true);
      assert.deepEqual(again, await summarizingBody(twin));
      assert.deepEqual(conv.record(form.summary()), []);
      assert.equal(conv.summarizing, false);
      assert.equal(conv.continues, true);
      const after = await conv.request();
      // The history starts at the summary: the steps before it are gone.
      const sent = JSON.stringify(after.messages);
      assert.ok(sent.includes(SUMMARY) && !sent.includes("Fixed."), sent);
      assert.ok(JSON.stringify(after.messages.at(-1)).includes("Push it."));
      await prompt.dispose();
    });

    it("nothing is recorded; a resume after the next step sends the same bytes, one before it finds the trigger due", async () => {
      const { prompt, conv } = await due(form);
      const saved = conv.save();
      await conv.request();
      conv.cancelCompaction();
      assert.equal(conv.save(), saved);
      // A resume before the next step reads the same recording: due again.
      const early = form.resume(prompt, conv.save());
      assert.deepEqual(await early.request(), await summarizingBody(conv));
      early.cancelCompaction();
      early.user("Now run the tests.");
      assert.deepEqual(await early.request(), await conv.request());
      conv.record(form.answer("Green.", PAST));
      early.record(form.answer("Green.", PAST));
      assert.equal(early.save(), conv.save());
      // Resumed after the step: the trigger fires on both, the same bytes.
      const resumed = form.resume(prompt, conv.save());
      for (const each of [conv, resumed]) each.user("Commit it.");
      const bodies = [await conv.request(), await resumed.request()];
      assert.deepEqual(bodies[1], bodies[0]);
      assert.ok(!JSON.stringify(bodies[0]).includes("Commit it."));
      for (const each of [conv, resumed]) each.record(form.summary());
      assert.deepEqual(await resumed.request(), await conv.request());
      await prompt.dispose();
    });

    it("NOTHING_PENDING: nothing requested, given up already, or an answer recorded and waiting for its swap", async () => {
      const prompt = registry();
      const fresh = form.start(prompt, { compactAt: COMPACT_AT });
      assert.throws(
        () => fresh.cancelCompaction(),
        nothingPending(/no compaction is requested/),
      );
      const { conv } = await due(form);
      // Due, not yet requested: nothing to give up.
      assert.throws(
        () => conv.cancelCompaction(),
        nothingPending(/no compaction is requested/),
      );
      await conv.request();
      conv.cancelCompaction();
      assert.throws(
        () => conv.cancelCompaction(),
        nothingPending(/no compaction is requested/),
      );
      // record() with nothing built after the cancel.
      assert.throws(
        () => conv.record(form.answer("Late.", PAST)),
        nothingPending(/record\(\) has no request/),
      );
      await conv.request();
      conv.record(form.answer("Green.", PAST));
      await conv.request();
      conv.record(form.summary());
      assert.throws(
        () => conv.cancelCompaction(),
        nothingPending(/recorded already.*swapped in/s),
      );
      await prompt.dispose();
    });

    it("gives up compact()'s request too: its cancel() and record() are then NOTHING_PENDING, compact() goes again", async () => {
      const prompt = registry();
      const conv = form.start(prompt);
      conv.user("Fix the failing test.");
      await conv.request();
      conv.record(form.answer("Fixed.", BELOW));
      const saved = conv.save();
      const compaction = await conv.compact();
      conv.cancelCompaction();
      assert.throws(() => compaction.cancel(), nothingPending(/given up/));
      assert.throws(
        () => compaction.record(form.summary()),
        nothingPending(/given up/),
      );
      assert.equal(conv.save(), saved);
      const again = await conv.compact();
      assert.deepEqual(again.body, compaction.body);
      // In the background: a step goes on, the summary recorded waits.
      conv.user("Now run the tests.");
      const step = await conv.request();
      again.record(form.summary());
      assert.throws(
        () => conv.cancelCompaction(),
        nothingPending(/recorded already.*swapped in/s),
      );
      conv.record(form.answer("Green.", BELOW));
      assert.ok(JSON.stringify(step).includes("run the tests"));
      await prompt.dispose();
    });

    it("compact()'s cancel() while compactAt is due: the next request is the step, not a summary", async () => {
      const { prompt, conv, twin } = await due(form);
      const compaction = await conv.compact();
      compaction.cancel();
      assert.deepEqual(await conv.request(), await twin.request());
      await prompt.dispose();
    });

    it("CONVERSATION_BUSY while request() builds", async () => {
      const { prompt, conv } = await due(form);
      const building = conv.request();
      assert.throws(
        () => conv.cancelCompaction(),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "CONVERSATION_BUSY" &&
          /cancelCompaction\(\)/.test(error.message),
      );
      await building;
      conv.cancelCompaction();
      await prompt.dispose();
    });
  });
}
