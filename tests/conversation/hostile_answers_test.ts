/**
 * Issue 44, items 3, 6, 7, 9 and 11, on every form: the history a
 * conversation exposes is frozen; an observer that throws leaves the step
 * committed, the other observers called and the calls returned, its error
 * reported through `onObserverError`; an empty tool result, two calls
 * with one id and a value nested 10,000 deep are refused with a code and
 * nothing committed, in `record()` and in a resume.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConversationOptions, ToolCall } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { type AnyConversation, FORMS } from "./forms.ts";
import { agent } from "./helpers.ts";

/** A JSON value nested `depth` objects deep. */
function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = { inner: value };
  return value;
}

/**
 * `nested(depth)`'s JSON, written without `JSON.stringify`, which runs out
 * of stack on Node at this depth.
 */
function nestedJson(depth: number): string {
  return '{"inner":'.repeat(depth) + '"bottom"' + "}".repeat(depth);
}

/**
 * `answer` (plain JSON) with `value` put where the form keeps a value of
 * the model's: a tool call's input, else a field of the first output.
 */
function carrying(answer: unknown, value: unknown): never {
  const copy = JSON.parse(JSON.stringify(answer));
  const visit = (node: unknown): boolean => {
    if (typeof node !== "object" || node === null) return false;
    const record = node as Record<string, unknown>;
    if ("input" in record) {
      record.input = value;
      return true;
    }
    if ("args" in record) {
      record.args = value; // a Gemini function call's input
      return true;
    }
    if (record.role === "assistant" || record.type === "function_call") {
      record.extra = value;
      return true;
    }
    return Object.values(record).some(visit);
  };
  assert.ok(visit(copy));
  return copy as never;
}

/** A conversation of `form` that sent one request for "Hi.". */
async function started(
  form: (typeof FORMS)[number],
  options?: ConversationOptions,
): Promise<{ conv: AnyConversation; dispose: () => Promise<void> }> {
  const a = agent();
  const conv = form.start(a.prompt, options);
  conv.user("Hi.");
  await conv.request();
  return { conv, dispose: () => a.prompt.dispose() };
}

describe("conversation answers and observers", () => {
  for (const form of FORMS) {
    it(`${form.name}: messages is frozen, before and after a step and resumed`, async () => {
      const a = agent();
      const conv = form.start(a.prompt);
      const push = (messages: readonly unknown[]) =>
        (messages as unknown[]).push({ role: "user", content: "Injected." });
      assert.throws(() => push(conv.messages), TypeError);
      assert.equal(form.start(a.prompt).messages.length, 0);
      conv.user("Hi.");
      await conv.request();
      conv.record(form.answer([]));
      const length = conv.messages.length;
      assert.throws(() => push(conv.messages), TypeError);
      assert.equal(conv.messages.length, length);
      assert.throws(() => push(form.resume(a.prompt, conv.save()).messages));
      await a.prompt.dispose();
    });

    it(`${form.name}: a throwing onRecord leaves the step committed and the calls returned, and is reported`, async () => {
      const boom = new Error("disk full");
      const reported: [unknown, string][] = [];
      const requests: number[] = [];
      const lines: string[] = [];
      const { conv, dispose } = await started(form, {
        onRecord: (line: string) => {
          lines.push(line);
          throw boom;
        },
        onRequest: (request: { step: number }) => requests.push(request.step),
        onObserverError: (error: unknown, observer: string) =>
          reported.push([error, observer]),
      });
      const calls: ToolCall[] = conv.record(
        form.answer([{ id: "c1", name: "read_file" }]),
      );
      assert.deepEqual(calls.map((call) => call.id), ["c1"]);
      assert.deepEqual(requests, [1]);
      assert.deepEqual(reported, [[boom, "onRecord"], [boom, "onRecord"]]);
      assert.equal(lines.join(""), conv.save());
      assert.equal(conv.openCalls.length, 1);
      await dispose();
    });

    it(`${form.name}: a throwing onRequest is reported, by default to console.error`, async () => {
      const boom = new Error("exporter down");
      const logged: unknown[][] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => logged.push(args);
      try {
        const { conv, dispose } = await started(form, {
          onRequest: () => {
            throw boom;
          },
        });
        assert.equal(conv.record(form.answer([])).length, 0);
        await dispose();
      } finally {
        console.error = original;
      }
      assert.equal(logged.length, 1);
      assert.ok(logged[0].includes(boom));
      assert.match(String(logged[0][0]), /onRequest/);
    });

    it(`${form.name}: an empty tool result is INVALID_CONVERSATION_INPUT`, async () => {
      const { conv, dispose } = await started(form);
      conv.record(form.answer([{ id: "c1", name: "read_file" }]));
      assert.throws(
        () => conv.toolResult("c1", ""),
        rejects("INVALID_CONVERSATION_INPUT", "non-empty"),
      );
      conv.toolResult("c1", "(no output)");
      assert.equal(conv.openCalls.length, 0);
      await dispose();
    });

    it(`${form.name}: two calls with one id are INVALID_RESPONSE, nothing committed`, async () => {
      const { conv, dispose } = await started(form);
      const saved = conv.save();
      assert.throws(
        () =>
          conv.record(form.answer([
            { id: "c1", name: "read_file" },
            { id: "c1", name: "shell" },
          ])),
        rejects("INVALID_RESPONSE", '"c1"'),
      );
      assert.equal(conv.save(), saved);
      assert.equal(conv.messages.length, 0);
      const calls = conv.record(form.answer([
        { id: "c1", name: "read_file" },
        { id: "c2", name: "shell" },
      ]));
      assert.equal(calls.length, 2);
      await dispose();
    });

    it(`${form.name}: a value nested 10,000 deep is refused with a code in record() and resume, nothing committed`, async () => {
      const a = agent();
      const conv = form.start(a.prompt);
      conv.user("Hi.");
      await conv.request();
      const saved = conv.save();
      const answer = form.answer([{ id: "c1", name: "read_file" }]);
      assert.throws(
        () => conv.record(carrying(answer, nested(10_000))),
        rejects("INVALID_RESPONSE"),
      );
      assert.equal(conv.save(), saved);
      assert.equal(conv.messages.length, 0);
      conv.record(carrying(answer, nested(50)));
      const recording = conv.save();
      const deep = recording.replace(
        JSON.stringify(nested(50)),
        nestedJson(10_000),
      );
      assert.notEqual(deep, recording);
      assert.throws(
        () => form.resume(a.prompt, deep),
        rejects("RECORDING_UNPARSABLE", "deeper"),
      );
      assert.equal(form.resume(a.prompt, recording).openCalls.length, 1);
      await a.prompt.dispose();
    });

    it(`${form.name}: inputs nested 10,000 deep are INVALID_CONVERSATION_INPUT`, async () => {
      const { conv, dispose } = await started(form);
      conv.record(form.answer([{ id: "c1", name: "read_file" }]));
      const blocks = [{ type: "text", text: "x", deep: nested(10_000) }];
      if (form.name !== "ai-sdk") {
        assert.throws(
          () => conv.toolResult("c1", blocks as never),
          rejects("INVALID_CONVERSATION_INPUT"),
        );
      }
      assert.throws(
        () => conv.user(blocks as never),
        rejects("INVALID_CONVERSATION_INPUT"),
      );
      await dispose();
    });
  }
});
