/**
 * `SystemPrompt.ready()` (issue 26): resolves once every Observable source
 * registered so far has delivered a value, errored, completed or been
 * disposed.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BehaviorSubject, EMPTY, NEVER, Subject } from "rxjs";
import { SystemPrompt } from "../mod.ts";

/** "resolved", or "pending" when `promise` has not settled after a macrotask. */
async function state(promise: Promise<unknown>): Promise<string> {
  let settled = "pending";
  promise.then(() => settled = "resolved", () => settled = "rejected");
  await new Promise((resolve) => setTimeout(resolve, 0));
  return settled;
}

function registry(): SystemPrompt {
  return new SystemPrompt({ includeHarnessIdentity: false });
}

describe("SystemPrompt.ready()", () => {
  it("resolves at once without live sources, or when they delivered synchronously", async () => {
    const prompt = registry();
    assert.equal(await state(prompt.ready()), "resolved");
    prompt.variable("model", new BehaviorSubject("m1"));
    assert.equal(await state(prompt.ready()), "resolved");
    await prompt.dispose();
  });

  it("waits for every source registered so far, on any registrar, value or error", async () => {
    const prompt = registry();
    const tools = new Subject<{ schemas: [] }>();
    const text = new Subject<string>();
    prompt.tools(tools);
    prompt.scope("agent").section({ name: "live", order: 1, text });
    const ready = prompt.ready();
    assert.equal(await state(ready), "pending");
    tools.next({ schemas: [] });
    assert.equal(
      await state(ready),
      "pending",
      "the section has not delivered",
    );
    text.error(new Error("gone"));
    assert.equal(await state(ready), "resolved");
    await prompt.dispose();
  });

  it("does not wait for a source that completed empty or was disposed", async () => {
    const prompt = registry();
    prompt.variable("empty", EMPTY);
    const dispose = prompt.variable("never", NEVER);
    const ready = prompt.ready();
    assert.equal(await state(ready), "pending");
    await dispose();
    assert.equal(await state(ready), "resolved");
    await prompt.dispose();
  });

  it("waits for sources registered before the call, not after", async () => {
    const prompt = registry();
    const early = new Subject<string>();
    prompt.variable("early", early);
    const ready = prompt.ready();
    prompt.variable("late", NEVER);
    early.next("x");
    assert.equal(await state(ready), "resolved");
    assert.equal(await state(prompt.ready()), "pending", "the late one now");
    await prompt.dispose();
    assert.equal(await state(prompt.ready()), "resolved");
  });
});
