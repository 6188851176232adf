import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { map } from "rxjs";
import { renderPrompt, SystemPrompt } from "../../mod.ts";
import { macrotask } from "../assertions.ts";
import { section } from "../fixtures.ts";

function describeChange(change: { type: string; name?: string }): string {
  return change.name === undefined
    ? change.type
    : `${change.type}:${change.name}`;
}

describe("change$ delivery", () => {
  it("a subscriber that disposes the registrar on register does not reorder events for later subscribers", async () => {
    const prompt = new SystemPrompt();
    const plugin = prompt.fork();
    const first: string[] = [];
    const second: string[] = [];
    prompt.change$.subscribe((change) => {
      first.push(describeChange(change));
      if (change.type === "register") void plugin.dispose();
    });
    prompt.change$.subscribe((change) => second.push(describeChange(change)));
    plugin.section(section("x", 1));
    await macrotask();
    assert.deepEqual(first, ["register:x", "unregister:x"]);
    assert.deepEqual(second, ["register:x", "unregister:x"]);
    await prompt.dispose();
  });

  it("a subscriber that registers on an event delivers the nested event after the current one, to everyone", async () => {
    const prompt = new SystemPrompt();
    const seen: string[][] = [[], []];
    prompt.change$.subscribe((change) => {
      seen[0].push(describeChange(change));
      if (change.type === "register" && change.name === "a") {
        prompt.section(section("b", 2));
      }
    });
    prompt.change$.subscribe((change) => seen[1].push(describeChange(change)));
    prompt.section(section("a", 1));
    assert.deepEqual(seen[0], ["register:a", "register:b"]);
    assert.deepEqual(seen[1], ["register:a", "register:b"]);
    await prompt.dispose();
  });
});

describe("change$ subscribers that throw", () => {
  it("a throwing subscriber is reported through onSubscriberError, and neither state nor other subscribers are affected", async () => {
    const reported: [unknown, unknown][] = [];
    const prompt = new SystemPrompt({
      onSubscriberError: (error, change) => reported.push([error, change]),
    });
    const boom = new Error("subscriber failed");
    prompt.change$.subscribe(() => {
      throw boom;
    });
    const others: string[] = [];
    prompt.change$.subscribe((change) => others.push(describeChange(change)));
    prompt.section(section("a", 1, "A"));
    prompt.section(section("b", 2, "B"));
    // RxJS would rethrow from a timer: give it the chance.
    await macrotask();
    assert.deepEqual(others, ["register:a", "register:b"]);
    assert.equal(reported.length, 2);
    assert.equal(reported[0][0], boom);
    assert.deepEqual(reported[0][1], {
      type: "register",
      kind: "section",
      name: "a",
    });
    const rendered = renderPrompt(await prompt.assemble());
    assert.ok(rendered.endsWith("A\n\nB"), rendered);
    await prompt.dispose();
  });

  it("a throwing subscriber of a pipe() of change$ is reported too", async () => {
    const reported: unknown[] = [];
    const prompt = new SystemPrompt({
      onSubscriberError: (_error, value) => reported.push(value),
    });
    prompt.change$.pipe(map((change) => change.type)).subscribe(() => {
      throw new Error("subscriber failed");
    });
    prompt.section(section("a", 1));
    await macrotask();
    assert.deepEqual(reported, ["register"]);
    await prompt.dispose();
  });

  it("an error in a pipe() of change$ goes to the subscriber's error callback, else to onSubscriberError", async () => {
    const reported: unknown[] = [];
    const prompt = new SystemPrompt({
      onSubscriberError: (error) => reported.push((error as Error).message),
    });
    const failing = prompt.change$.pipe(map(() => {
      throw new Error("operator failed");
    }));
    const handled: unknown[] = [];
    failing.subscribe({
      error: (error) => handled.push((error as Error).message),
    });
    failing.subscribe(() => {});
    prompt.section(section("a", 1));
    await macrotask();
    assert.deepEqual(handled, ["operator failed"]);
    assert.deepEqual(reported, ["operator failed"]);
    await prompt.dispose();
  });

  it("a throwing subscriber is reported with console.error by default", async () => {
    const prompt = new SystemPrompt();
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      prompt.change$.subscribe(() => {
        throw new Error("subscriber failed");
      });
      prompt.section(section("a", 1));
      await macrotask();
      await prompt.dispose();
    } finally {
      console.error = original;
    }
    // The registration, then the two built-ins' and its own unregistrations.
    assert.equal(logged.length, 4);
    assert.ok(
      logged[0].some((part) =>
        part instanceof Error && part.message === "subscriber failed"
      ),
    );
  });

  it("an onSubscriberError that throws is itself contained", async () => {
    const prompt = new SystemPrompt({
      onSubscriberError: () => {
        throw new Error("reporter failed");
      },
    });
    prompt.change$.subscribe(() => {
      throw new Error("subscriber failed");
    });
    const others: string[] = [];
    prompt.change$.subscribe((change) => others.push(describeChange(change)));
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      prompt.section(section("a", 1));
      await macrotask();
      await prompt.dispose();
    } finally {
      console.error = original;
    }
    assert.deepEqual(others.slice(0, 2), ["register:a", "unregister:a"]);
    // Both errors reach the console: the reporter's and the subscriber's.
    assert.ok(logged.length >= 1);
    const [message, reportError, error] = logged[0];
    assert.equal(message, "onSubscriberError threw");
    assert.equal((reportError as Error).message, "reporter failed");
    assert.equal((error as Error).message, "subscriber failed");
  });
});
