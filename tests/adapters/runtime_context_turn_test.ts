// The runtime context put in a Converse or Gemini list: always a list that
// alternates (joined to the user's last turn, else a turn of its own), the
// caller's list never changed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPromptError } from "../../mod.ts";
import {
  toConverse,
  withConverseRuntimeContext,
} from "../../adapters/bedrock/mod.ts";
import { toAISDK, withAISDKRuntimeContext } from "../../adapters/ai_sdk/mod.ts";
import {
  toGemini,
  withGeminiRuntimeContext,
} from "../../adapters/gemini/mod.ts";

const ASSEMBLY = {
  sections: [{ name: "identity", order: 0, text: "You review code." }],
  tools: [],
  variables: {},
  runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
};
const CONTEXT = { text: "Today is Monday." };

function invalidInput(fn: string, detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SystemPromptError);
    assert.equal(error.code, "INVALID_CONVERSATION_INPUT");
    assert.match(error.message, new RegExp(fn));
    assert.match(error.message, detail);
    return true;
  };
}

describe("withConverseRuntimeContext", () => {
  const { runtimeContext } = toConverse(ASSEMBLY);

  it("joins the context to the user's last message, in a copy", () => {
    const history = [
      { role: "user", content: [{ text: "Review #42." }] },
      {
        role: "assistant",
        content: [{ toolUse: { toolUseId: "t1", name: "read", input: {} } }],
      },
      {
        role: "user",
        content: [{
          toolResult: { toolUseId: "t1", content: [{ text: "x" }] },
        }],
      },
    ];
    const before = structuredClone(history);
    const messages = withConverseRuntimeContext(history, runtimeContext);
    assert.deepEqual(messages, [
      before[0],
      before[1],
      { role: "user", content: [...before[2].content, CONTEXT] },
    ]);
    assert.deepEqual(history, before, "the caller's list is unchanged");
    assert.notEqual(messages, history);
    assert.equal(messages[0], history[0], "the earlier messages are shared");
  });

  it("adds a user message after the assistant's, or to an empty list", () => {
    const history = [
      { role: "user", content: [{ text: "Hi." }] },
      { role: "assistant", content: [{ text: "Hello." }] },
    ];
    assert.deepEqual(withConverseRuntimeContext(history, runtimeContext), [
      ...history,
      { role: "user", content: [CONTEXT] },
    ]);
    assert.equal(history.length, 2);
    assert.deepEqual(withConverseRuntimeContext([], runtimeContext), [
      { role: "user", content: [CONTEXT] },
    ]);
  });

  it("copies the list when there is no context", () => {
    const history = [{ role: "user", content: [{ text: "Hi." }] }];
    const messages = withConverseRuntimeContext(history, undefined);
    assert.deepEqual(messages, history);
    assert.notEqual(messages, history);
  });

  it("refuses a list that is not an array, or a user message without blocks", () => {
    assert.throws(
      () =>
        withConverseRuntimeContext(
          "Hi." as unknown as [],
          runtimeContext,
        ),
      invalidInput("withConverseRuntimeContext", /messages as an array/),
    );
    assert.throws(
      () =>
        withConverseRuntimeContext(
          [{ role: "user", content: "Hi." as unknown as [] }],
          runtimeContext,
        ),
      invalidInput("withConverseRuntimeContext", /content must be an array/),
    );
  });
});

describe("withGeminiRuntimeContext", () => {
  const { runtimeContext } = toGemini(ASSEMBLY);

  it("joins the context to the user's last turn, in a copy", () => {
    const history = [
      { role: "user", parts: [{ text: "Review #42." }] },
      { role: "model", parts: [{ functionCall: { name: "read", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "read", response: { x: 1 } } }],
      },
    ];
    const before = structuredClone(history);
    const contents = withGeminiRuntimeContext(history, runtimeContext);
    assert.deepEqual(contents, [
      before[0],
      before[1],
      { role: "user", parts: [...before[2].parts, CONTEXT] },
    ]);
    assert.deepEqual(history, before, "the caller's list is unchanged");
  });

  it("adds a user turn after the model's, or to an empty list", () => {
    const history = [
      { role: "user", parts: [{ text: "Hi." }] },
      { role: "model", parts: [{ text: "Hello." }] },
    ];
    assert.deepEqual(withGeminiRuntimeContext(history, runtimeContext), [
      ...history,
      { role: "user", parts: [CONTEXT] },
    ]);
    assert.deepEqual(withGeminiRuntimeContext([], runtimeContext), [
      { role: "user", parts: [CONTEXT] },
    ]);
  });

  it("copies the list when there is no context, and refuses a bad one", () => {
    const history = [{ role: "user", parts: [{ text: "Hi." }] }];
    const contents = withGeminiRuntimeContext(history, undefined);
    assert.deepEqual(contents, history);
    assert.notEqual(contents, history);
    assert.throws(
      () => withGeminiRuntimeContext([{ role: "user" }], runtimeContext),
      invalidInput("withGeminiRuntimeContext", /parts must be an array/),
    );
  });
});

describe("withAISDKRuntimeContext", () => {
  const { runtimeContext } = toAISDK(ASSEMBLY);
  const part = { type: "text", text: "Today is Monday." };

  it("joins the context to the user's last message, a string as a part", () => {
    const history = [{ role: "user", content: "Review #42." }];
    assert.deepEqual(withAISDKRuntimeContext(history, runtimeContext), [
      { role: "user", content: [{ type: "text", text: "Review #42." }, part] },
    ]);
    assert.deepEqual(history, [{ role: "user", content: "Review #42." }]);
    const parts = [{ role: "user", content: [{ type: "text", text: "Hi." }] }];
    assert.deepEqual(withAISDKRuntimeContext(parts, runtimeContext), [
      { role: "user", content: [{ type: "text", text: "Hi." }, part] },
    ]);
    assert.equal(parts[0].content.length, 1);
  });

  it("adds a user message after the assistant's or a tool message", () => {
    for (const role of ["assistant", "tool"]) {
      const history = [
        { role: "user", content: "Hi." },
        { role, content: [] },
      ];
      assert.deepEqual(withAISDKRuntimeContext(history, runtimeContext), [
        ...history,
        runtimeContext,
      ]);
    }
    assert.throws(
      () =>
        withAISDKRuntimeContext([{ role: "user", content: 7 }], runtimeContext),
      invalidInput("withAISDKRuntimeContext", /a string or an array of parts/),
    );
  });
});
