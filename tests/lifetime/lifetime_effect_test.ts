/** Effects: self-disposal, failures, the abort signal, invalid bodies. */

import { describe, it, mock } from "node:test";
import assert from "node:assert/strict";
import { type PromptChange, SystemPrompt } from "../../mod.ts";
import { Lifetime } from "../../src/lifetime/lifetime.ts";
import {
  macrotask,
  registered,
  rejects,
  settlesWithin,
} from "../assertions.ts";

function section(name: string, order = 1) {
  return { name, order, text: name };
}

/** Replaces console.error for one test; returns what it was called with. */
function captureConsoleError(): { calls: unknown[][]; restore(): void } {
  const calls: unknown[][] = [];
  const spy = mock.method(console, "error", (...args: unknown[]) => {
    calls.push(args);
  });
  return { calls, restore: () => spy.mock.restore() };
}

describe("a sync effect body that disposes its own owner", () => {
  it("still runs the teardown it yields afterwards", async () => {
    const prompt = new SystemPrompt();
    const owner = prompt.fork();
    const log: string[] = [];
    let disposal: Promise<void> | undefined;
    owner.effect(function* () {
      yield () => void log.push("before");
      disposal = owner.dispose();
      yield () => void log.push("after");
      log.push("body went on");
    });
    await disposal;
    assert.deepEqual(log, ["after", "before"]);
  });

  it("leaves no ghost of a disposer it adopts afterwards", async () => {
    const prompt = new SystemPrompt();
    const owner = prompt.fork();
    const other = prompt.fork();
    const adopted = other.section(section("ghost"));
    let disposal: Promise<void> | undefined;
    owner.effect(function* () {
      disposal = owner.dispose();
      yield adopted;
    });
    await disposal;
    assert.equal(await registered(prompt, "ghost"), false);
    await other.dispose();
    await prompt.dispose();
  });

  it("stops pulling a hand-made iterator once the owner disposes, after calling its return()", async () => {
    const prompt = new SystemPrompt();
    const owner = prompt.fork();
    const log: string[] = [];
    let pulls = 0;
    let disposal: Promise<void> | undefined;
    const iterator = {
      next() {
        pulls++;
        if (pulls === 2) disposal = owner.dispose();
        // An iterator that ignores return(): only the effect can stop.
        if (pulls > 4) return { done: true, value: undefined };
        const pull = pulls;
        return { done: false, value: () => void log.push(`teardown ${pull}`) };
      },
      return() {
        log.push("return()");
        return { done: true, value: undefined };
      },
    };
    owner.effect(() => iterator as unknown as Generator<() => void>);
    await disposal;
    assert.equal(pulls, 2);
    assert.deepEqual(log, ["return()", "teardown 2", "teardown 1"]);
    await prompt.dispose();
  });
});

describe("adoption into a disposing effect", () => {
  it("a registrar adopted by a disposing effect is disposed at once", async () => {
    const prompt = new SystemPrompt();
    const owner = prompt.fork();
    const child = prompt.fork();
    child.section(section("c"));
    let disposal: Promise<void> | undefined;
    owner.effect(function* () {
      disposal = owner.dispose();
      assert.equal(child.disposed, false);
      yield child.dispose;
    });
    assert.equal(child.disposed, true);
    assert.throws(() => child.section(section("late")), rejects("DISPOSED"));
    await disposal;
    assert.equal(await registered(prompt, "c"), false);
    await prompt.dispose();
  });
});

describe("adoption order", () => {
  it("an adopted disposer takes its yield position, not its creation position", async () => {
    const prompt = new SystemPrompt();
    const other = prompt.fork();
    const early = other.section(section("early")); // created before the effect
    const log: string[] = [];
    prompt.change$.subscribe((change) => {
      if (change.type === "unregister") log.push(`-${change.name}`);
    });
    const composite = prompt.effect(function* () {
      yield () => void log.push("yielded first");
      yield early;
    });
    await composite();
    assert.deepEqual(log, ["-early", "yielded first"]);
    await prompt.dispose();
  });
});

describe("effect failures are never lost", () => {
  it("a sync body that throws: effect() throws its error, after the teardowns ran", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    const boom = new Error("body");
    assert.throws(
      () =>
        prompt.effect(function* () {
          yield () => void log.push("a");
          throw boom;
        }),
      (error) => error === boom,
    );
    assert.deepEqual(log, ["a"]);
    await prompt.dispose();
  });

  it("a sync body that throws while a teardown throws: both, as an AggregateError", async () => {
    const prompt = new SystemPrompt();
    const bodyError = new Error("body");
    const teardownError = new Error("teardown");
    assert.throws(
      () =>
        prompt.effect(function* () {
          yield () => {
            throw teardownError;
          };
          throw bodyError;
        }),
      (error) => {
        assert.ok(error instanceof AggregateError);
        assert.deepEqual(error.errors, [bodyError, teardownError]);
        return true;
      },
    );
    await prompt.dispose();
  });

  it("a sync body that throws after yielding an async teardown that rejects: the rejection is reported", async () => {
    const console = captureConsoleError();
    try {
      const prompt = new SystemPrompt();
      const bodyError = new Error("body");
      const teardownError = new Error("async teardown");
      assert.throws(
        () =>
          prompt.effect(function* () {
            yield async () => {
              await macrotask();
              throw teardownError;
            };
            throw bodyError;
          }),
        (error) => error === bodyError,
      );
      for (let i = 0; i < 3; i++) await macrotask();
      assert.equal(console.calls.length, 1);
      assert.equal(console.calls[0].at(-1), teardownError);
      await prompt.dispose();
    } finally {
      console.restore();
    }
  });

  it("an async body that throws on its own: reported once, and its disposer rejects with it", async () => {
    const console = captureConsoleError();
    try {
      const prompt = new SystemPrompt();
      const boom = new Error("async body");
      const log: string[] = [];
      const composite = prompt.effect(async function* () {
        yield () => void log.push("teardown");
        await macrotask();
        throw boom;
      });
      for (let i = 0; i < 3; i++) await macrotask();
      assert.deepEqual(log, ["teardown"]);
      assert.equal(console.calls.length, 1);
      assert.equal(console.calls[0].at(-1), boom);
      await assert.rejects(composite(), (error) => error === boom);
      await prompt.dispose(); // already torn down: not reported again
      assert.equal(console.calls.length, 1);
    } finally {
      console.restore();
    }
  });

  it("an async body that throws while being disposed rejects that dispose()", async () => {
    const console = captureConsoleError();
    try {
      const prompt = new SystemPrompt();
      const boom = new Error("stopping failed");
      // deno-lint-ignore require-yield
      const composite = prompt.effect(async function* (signal) {
        await new Promise((resolve) =>
          signal.addEventListener("abort", resolve)
        );
        throw boom;
      });
      await assert.rejects(composite(), (error) => error === boom);
      assert.equal(console.calls.length, 0);
      await prompt.dispose();
    } finally {
      console.restore();
    }
  });
});

describe("where failures nobody awaits go", () => {
  it("to the root lifetime's report option, when it has one", async () => {
    const console = captureConsoleError();
    try {
      const reported: unknown[] = [];
      const root = new Lifetime(undefined, {
        report: (error) => reported.push(error),
      });
      const boom = new Error("async body");
      new Lifetime(root).effect(async function* () {
        yield () => {};
        await macrotask();
        throw boom;
      });
      for (let i = 0; i < 3; i++) await macrotask();
      assert.deepEqual(reported, [boom]);
      assert.equal(console.calls.length, 0);
      await root.dispose();
    } finally {
      console.restore();
    }
  });

  it("an AbortError thrown before any abort is a failure", async () => {
    const console = captureConsoleError();
    try {
      const prompt = new SystemPrompt();
      const early = new DOMException("not ours", "AbortError");
      const composite = prompt.effect(async function* () {
        yield () => {};
        await macrotask();
        throw early;
      });
      for (let i = 0; i < 3; i++) await macrotask();
      assert.deepEqual(console.calls.map((call) => call.at(-1)), [early]);
      await assert.rejects(composite(), (error) => error === early);
      await prompt.dispose();
    } finally {
      console.restore();
    }
  });
});

describe("the abort signal of an effect body", () => {
  it("lets a body that awaits forever stop, so dispose settles", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    prompt.effect(async function* (signal) {
      yield () => void log.push("teardown");
      await new Promise((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      );
      log.push("never");
    });
    await macrotask();
    assert.equal(await settlesWithin(prompt.dispose(), 20), true);
    assert.deepEqual(log, ["teardown"]);
  });

  it("is aborted when the owner is disposed, and stopping on it is not a failure", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    let seen: AbortSignal | undefined;
    // deno-lint-ignore require-yield
    registrar.effect(async function* (signal) {
      seen = signal;
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      throw new DOMException("stopped", "AbortError");
    });
    await macrotask();
    assert.equal(seen?.aborted, false);
    await registrar.dispose(); // resolves: an AbortError after abort is a stop
    assert.equal(seen?.aborted, true);
    await prompt.dispose();
  });

  it("is given to a sync body too", async () => {
    const prompt = new SystemPrompt();
    let seen: AbortSignal | undefined;
    const composite = prompt.effect(function* (signal) {
      seen = signal;
      yield () => {};
    });
    assert.ok(seen instanceof AbortSignal);
    assert.equal(seen.aborted, false);
    await composite();
    assert.equal(seen.aborted, true);
  });

  it("disposing a paused async body waits for its awaiting finally, then the teardowns", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => resume = resolve);
    const composite = prompt.effect(async function* () {
      try {
        yield () => void log.push("teardown 1");
        await paused;
        yield () => void log.push("teardown 2");
      } finally {
        await macrotask();
        await macrotask();
        log.push("finally done");
      }
    });
    await macrotask();
    const disposing = composite();
    resume();
    await disposing;
    assert.deepEqual(log, ["finally done", "teardown 2", "teardown 1"]);
    await prompt.dispose();
  });
});

describe("invalid effect bodies", () => {
  for (
    const [label, result, part] of [
      ["null", null, "returned null"],
      ["{}", {}, "without next()"],
      ["a string", "x", "returned string"],
    ] as const
  ) {
    it(`a body returning ${label} is INVALID_EFFECT and leaves nothing behind`, async () => {
      const prompt = new SystemPrompt();
      const registrar = prompt.fork();
      const changes: PromptChange[] = [];
      prompt.change$.subscribe((change) => changes.push(change));
      assert.throws(
        () => registrar.effect((() => result) as never),
        rejects("INVALID_EFFECT", part),
      );
      await registrar.dispose();
      assert.deepEqual(changes, []);
      await prompt.dispose();
    });
  }

  it("an async function (not a generator) is INVALID_EFFECT, and its rejection is not unhandled", async () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () =>
        prompt.effect(
          (async () => {
            await macrotask();
            throw new Error("ignored");
          }) as never,
        ),
      rejects("INVALID_EFFECT", "returned a Promise"),
    );
    for (let i = 0; i < 3; i++) await macrotask();
    await prompt.dispose();
  });
});
