import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembleContext, SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";

const badSignals: [string, unknown][] = [
  ["an empty object", {}],
  ["a number", 5],
  ["null", null],
  ["a string", "x"],
  ["an event target that is no signal", { addEventListener() {} }],
];

function badContexts(): [string, unknown, string][] {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return [
    ["a number", 42, "INVALID_CONTEXT"],
    ["a string", "agent", "INVALID_CONTEXT"],
    ["null", null, "INVALID_CONTEXT"],
    ["a null scope", { scope: null }, "INVALID_SCOPE_KEY"],
    ["a throwing signal getter", {
      get signal() {
        throw new Error("getter");
      },
    }, "INVALID_CONTEXT"],
    ["a throwing scope getter", {
      get scope() {
        throw new Error("getter");
      },
    }, "INVALID_CONTEXT"],
    ["a revoked Proxy", proxy, "INVALID_CONTEXT"],
  ];
}

describe("assemble(): the context", () => {
  for (const [label, signal] of badSignals) {
    it(`a signal that is ${label} rejects INVALID_CONTEXT`, async () => {
      const prompt = new SystemPrompt();
      await assert.rejects(
        prompt.assemble({ signal } as unknown as AssembleContext),
        rejects("INVALID_CONTEXT", "AbortSignal"),
      );
      await prompt.dispose();
    });
  }

  for (const [label, context, code] of badContexts()) {
    it(`a context that is ${label} rejects ${code}`, async () => {
      const prompt = new SystemPrompt();
      await assert.rejects(
        prompt.assemble(context as AssembleContext),
        rejects(code),
      );
      await prompt.dispose();
    });
  }

  it("passes the caller's context object itself to providers", async () => {
    const prompt = new SystemPrompt();
    const seen: unknown[] = [];
    prompt.variable("v", (context) => {
      seen.push(context);
      return "x";
    });
    const context = { signal: new AbortController().signal };
    await prompt.assemble(context);
    assert.equal(seen[0], context);
    await prompt.dispose();
  });
});
