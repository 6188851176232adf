/**
 * What a session step of `rxprompt simulate` may return (SPEC 8.8, 9.7,
 * 9.8): the messages array itself, or `{ messages, thread?, scope?,
 * context?, time?, awaiting?, toolChanges? }` with tool rounds in its
 * messages; anything else is one `INVALID_CONFIG` line naming
 * the step.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import type { SessionStep } from "../../adapters/cache/mod.ts";
import { runSession } from "../../cli/session.ts";
import { CliError } from "../../cli/cli_error.ts";
import { readmeWay } from "../../cli/readme_way.ts";

const HELLO = [{ role: "user" as const, content: "Hello." }];

function session(second: () => unknown) {
  const prompt = new SystemPrompt({ persona: "You help." });
  const steps: SessionStep[] = [
    () => ({ messages: HELLO }),
    second as SessionStep,
  ];
  return { prompt, steps };
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe("rxprompt simulate: a step's result", () => {
  it("may be the messages array itself", async () => {
    const steps = await runSession(session(() => HELLO), {});
    assert.deepEqual(steps[1].messages, HELLO);
    assert.equal(steps[1].thread, "main");
    assert.equal(steps[1].time, 10_000);
  });

  it("may be { messages, thread?, scope?, context?, time? }, a promise of it too", async () => {
    const steps = await runSession(
      session(() =>
        Promise.resolve({
          messages: HELLO,
          thread: "review",
          scope: "reviewer",
          context: { mode: "x" },
          time: 60_000,
        })
      ),
      {},
    );
    assert.deepEqual(steps[1].messages, HELLO);
    assert.equal(steps[1].thread, "review");
    assert.equal(steps[1].time, 60_000);
  });

  it("may say who answers next, how tools change, and carry tool rounds", async () => {
    const round = [
      ...HELLO,
      {
        role: "assistant" as const,
        content: "Reading.",
        toolCalls: [{ id: "c1", name: "read", input: { path: "a" } }],
      },
      {
        role: "user" as const,
        content: "",
        toolResults: [{ id: "c1", content: "text of a", isError: false }],
      },
    ];
    const seen: unknown[] = [];
    const steps = await runSession(
      session(() => ({
        messages: round,
        awaiting: "person",
        toolChanges: "inline",
      })),
      {
        probe: ({ request, messages }) => {
          seen.push({ request, messages });
          return {};
        },
      },
    );
    const { request, messages } = seen.at(-1) as {
      request: { awaiting: string; toolChanges: string; messages: unknown };
      messages: { content: string }[];
    };
    assert.equal(request.awaiting, "person");
    assert.equal(request.toolChanges, "inline");
    assert.deepEqual(request.messages, round);
    // The ways that send text read the round written into the turns.
    assert.equal(
      messages[1].content,
      'Reading.\n[call c1 read {"path":"a"}]',
    );
    assert.equal(messages[2].content, "[result c1]\ntext of a");
    assert.deepEqual(steps[1].messages, messages);
  });

  it("keeps a thread's tool changes as its first step set them", async () => {
    await assert.rejects(
      runSession(
        session(() => ({ messages: HELLO, toolChanges: "inline" })),
        { readme: readmeWay },
      ),
      (error) => {
        assert.ok(error instanceof CliError, String(error));
        assert.match(
          error.message,
          /^step 1: the readme way failed: INVALID_CONFIG: .*toolChanges "inline".*"main" started with "rebuild"/,
        );
        return true;
      },
    );
  });

  const bad: [string, () => unknown, RegExp][] = [
    ["undefined", () => undefined, /undefined/],
    ["a number", () => 5, /5/],
    ["a string", () => "Hello.", /"Hello\."/],
    ["null", () => null, /null/],
    ["an object without messages", () => ({ thread: "a" }), /messages/],
    ["messages that are not an array", () => ({ messages: "hi" }), /messages/],
    ["a message that is not one", () => [HELLO[0], 3], /messages\[1\]/],
    ["an unknown key", () => ({ messages: HELLO, tools: [] }), /"tools"/],
    [
      "a thread that is not a string",
      () => ({ messages: HELLO, thread: 1 }),
      /thread/,
    ],
    [
      "a time that is not a number",
      () => ({ messages: HELLO, time: "1m" }),
      /time/,
    ],
    [
      "a time that is not finite",
      () => ({ messages: HELLO, time: NaN }),
      /time/,
    ],
    [
      "a context that is not an object",
      () => ({ messages: HELLO, context: 3 }),
      /context/,
    ],
    [
      "an awaiting that is neither person nor agent",
      () => ({ messages: HELLO, awaiting: "user" }),
      /awaiting/,
    ],
    [
      "a toolChanges that is neither rebuild nor inline",
      () => ({ messages: HELLO, toolChanges: true }),
      /toolChanges/,
    ],
    [
      "tool calls on a user turn",
      () => [{ ...HELLO[0], toolCalls: [] }],
      /messages\[0\]\.toolCalls/,
    ],
    [
      "a tool call without an id",
      () => [...HELLO, {
        role: "assistant",
        content: "",
        toolCalls: [{ name: "read", input: {} }],
      }],
      /messages\[1\]\.toolCalls\[0\]/,
    ],
    [
      "tool results on an assistant turn",
      () => [{ role: "assistant", content: "", toolResults: [] }],
      /messages\[0\]\.toolResults/,
    ],
    [
      "a tool result whose content is not a string",
      () => [{
        role: "user",
        content: "",
        toolResults: [{ id: "c", content: 1 }],
      }],
      /messages\[0\]\.toolResults\[0\]/,
    ],
    ["a revoked Proxy", revoked, /cannot be read/],
    [
      "a throwing getter",
      () =>
        Object.defineProperty({}, "messages", {
          get: () => {
            throw new Error("hostile");
          },
          enumerable: true,
        }),
      /hostile/,
    ],
  ];
  for (const [label, result, detail] of bad) {
    it(`${label}: one INVALID_CONFIG line naming the step`, async () => {
      await assert.rejects(runSession(session(result), {}), (error) => {
        assert.ok(error instanceof CliError, String(error));
        assert.match(error.message, /^step 1 failed: INVALID_CONFIG: Step 1 /);
        assert.match(error.message, detail);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
    });
  }
});
