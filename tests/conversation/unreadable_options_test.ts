/**
 * Issue 44, items 4 and 5: options that throw when read (a getter, a
 * revoked Proxy) are `INVALID_CONFIG` naming the option, with what was
 * thrown as `cause`, in every entry point of the conversation; a prompt
 * that is not one is `INVALID_CONFIG` at construction, and an `assemble()`
 * that resolves to something else is `INVALID_ASSEMBLY` at `request()`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import type { ConversationPrompt, SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { FORMS } from "./forms.ts";
import { agent } from "./helpers.ts";

const boom = new Error("boom");

/** `options` with `key` made a getter that throws `boom`. */
function throwingAt(
  options: Record<string, unknown>,
  key: string,
): Record<string, unknown> {
  const copy = { ...options };
  delete copy[key];
  return Object.defineProperty(copy, key, {
    enumerable: true,
    get: () => {
      throw boom;
    },
  });
}

function revoked(): Record<string, unknown> {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** Rejects with INVALID_CONFIG naming `owner` (and `key`), cause kept. */
function invalidConfig(owner: string, key?: string) {
  return (error: unknown) => {
    rejects("INVALID_CONFIG", owner, ...(key === undefined ? [] : [key]))(
      error,
    );
    const cause = (error as Error).cause;
    assert.ok(cause === boom || cause instanceof TypeError, String(cause));
    return true;
  };
}

type Start = (prompt: SystemPrompt, options: unknown) => unknown;
type Resume = (
  prompt: SystemPrompt,
  recording: string,
  options: unknown,
) => unknown;

/** Each form's start and resume, with options that are valid. */
const ENTRIES: {
  name: string;
  start: Start;
  resume: Resume;
  options: Record<string, unknown>;
  key: string;
}[] = [
  {
    name: "anthropicConversation",
    start: anthropicConversation as Start,
    resume: resumeAnthropicConversation as Resume,
    options: { model: "claude-sonnet-4-5", max_tokens: 64, awaiting: "agent" },
    key: "model",
  },
  {
    name: "chatConversation",
    start: chatConversation as Start,
    resume: resumeChatConversation as Resume,
    options: { model: "gpt-5.6", cache: true, awaiting: "agent" },
    key: "cache",
  },
  {
    name: "responsesConversation",
    start: responsesConversation as Start,
    resume: resumeResponsesConversation as Resume,
    options: { model: "gpt-5.6", awaiting: "agent" },
    key: "model",
  },
  {
    name: "aiSdkConversation",
    start: aiSdkConversation as Start,
    resume: resumeAiSdkConversation as Resume,
    options: { cache: true, awaiting: "agent" },
    key: "cache",
  },
];

describe("conversation options that cannot be read", () => {
  for (const entry of ENTRIES) {
    it(`${entry.name} and its resume: INVALID_CONFIG naming the option`, async () => {
      const a = agent();
      for (const key of [entry.key, "awaiting", "onRecord"]) {
        assert.throws(
          () => entry.start(a.prompt, throwingAt(entry.options, key)),
          invalidConfig(entry.name, JSON.stringify(key)),
        );
      }
      assert.throws(
        () => entry.start(a.prompt, revoked()),
        invalidConfig(entry.name),
      );
      const recording =
        (entry.start(a.prompt, entry.options) as { save(): string }).save();
      const resume = `resume${entry.name[0].toUpperCase()}${
        entry.name.slice(1)
      }`;
      assert.throws(
        () =>
          entry.resume(
            a.prompt,
            recording,
            throwingAt({ session: "s" }, "session"),
          ),
        invalidConfig(resume, '"session"'),
      );
      assert.throws(
        () => entry.resume(a.prompt, recording, revoked()),
        invalidConfig(resume),
      );
      await a.prompt.dispose();
    });
  }

  for (const form of FORMS) {
    it(`${form.name}: fork(), report() and toolResult()'s options`, async () => {
      const a = agent();
      const conv = form.start(a.prompt) as ReturnType<typeof form.start> & {
        fork(options?: unknown): unknown;
        report(options: unknown): unknown;
        toolResult(id: string, content: string, options?: unknown): void;
      };
      conv.user("Hi.");
      await conv.request();
      conv.record(form.answer([{ id: "c1", name: "read_file" }]));
      assert.throws(
        () => conv.fork(throwingAt({}, "session")),
        invalidConfig("fork()", '"session"'),
      );
      assert.throws(() => conv.fork(revoked()), invalidConfig("fork()"));
      assert.throws(
        () => conv.report(throwingAt({}, "countTokens")),
        invalidConfig("report()", '"countTokens"'),
      );
      assert.throws(() => conv.report(revoked()), invalidConfig("report()"));
      assert.throws(
        () => conv.toolResult("c1", "done", throwingAt({}, "isError")),
        invalidConfig("toolResult()", '"isError"'),
      );
      assert.throws(
        () => conv.toolResult("c1", "done", revoked()),
        invalidConfig("toolResult()"),
      );
      conv.toolResult("c1", "done", { isError: false });
      assert.equal(conv.openCalls.length, 0);
      await a.prompt.dispose();
    });
  }
});

describe("a conversation's prompt", () => {
  const notPrompts: [string, unknown][] = [
    ["null", null],
    ["undefined", undefined],
    ["a string", "You are terse."],
    ["{}", {}],
    ["a non-function assemble", { assemble: "yes" }],
    ["a non-function explain", { assemble: () => ({}), explain: 1 }],
    ["a revoked Proxy", revoked()],
  ];
  for (const entry of ENTRIES) {
    it(`${entry.name}: anything but a prompt is INVALID_CONFIG at construction`, () => {
      for (const [what, prompt] of notPrompts) {
        assert.throws(
          () => entry.start(prompt as SystemPrompt, entry.options),
          rejects("INVALID_CONFIG", "prompt"),
          what,
        );
      }
    });
  }

  for (const form of FORMS) {
    it(`${form.name}: an assemble() that resolves to no assembly is INVALID_ASSEMBLY at request()`, async () => {
      // A promise fulfilled with a Proxy revoked after: what it resolves to.
      const { proxy, revoke } = Proxy.revocable({}, {});
      const resolved = Promise.resolve(proxy);
      revoke();
      const answers = [
        Promise.resolve({}),
        Promise.resolve(null),
        Promise.resolve({ sections: [] }),
        resolved,
        revoked(),
      ];
      for (const answer of answers) {
        const prompt: ConversationPrompt = {
          assemble: () => answer as Promise<never>,
        };
        const conv = form.start(prompt as SystemPrompt);
        conv.user("Hi.");
        await assert.rejects(conv.request(), rejects("INVALID_ASSEMBLY"));
      }
    });
  }
});
