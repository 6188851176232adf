/** Disposal: one promise per disposer, waiting for started teardowns, depth. */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembleContext,
  type Disposer,
  type PromptChange,
  type Registrar,
  SystemPrompt,
} from "../../mod.ts";
import { macrotask, settlesWithin } from "../assertions.ts";

function section(name: string, order = 1) {
  return { name, order, text: name };
}

/** Logs `+name` / `-name` per section change and `complete`. */
function logChanges(prompt: SystemPrompt, log: string[]): void {
  prompt.change$.subscribe({
    next(change: PromptChange) {
      if (change.kind !== "section") return;
      log.push(`${change.type === "register" ? "+" : "-"}${change.name}`);
    },
    complete() {
      log.push("complete");
    },
  });
}

describe("a disposer called again", () => {
  it("from inside its running teardown returns the same, still pending promise", async () => {
    const prompt = new SystemPrompt();
    let inner: Promise<void> | undefined;
    let innerSettledEarly = false;
    const composite: Disposer = prompt.effect(function* () {
      yield async () => {
        inner = composite();
        inner.then(() => innerSettledEarly = true);
        await macrotask();
        await macrotask();
      };
    });
    const outer = composite();
    assert.equal(inner, outer);
    await macrotask();
    assert.equal(innerSettledEarly, false, "settled before the teardown ended");
    await outer;
    assert.equal(composite(), outer);
    await prompt.dispose();
  });

  it("from inside a registrar's running teardown returns the same promise", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    let inner: Promise<void> | undefined;
    registrar.effect(function* () {
      yield async () => {
        inner = registrar.dispose();
        await macrotask();
      };
    });
    const outer = registrar.dispose();
    assert.equal(inner, outer);
    await outer;
  });
});

describe("a parent's dispose waits for teardowns that already started", () => {
  it("a child's dispose(): change$ completes after the child's unregister", async () => {
    const prompt = new SystemPrompt();
    const child = prompt.fork();
    child.section(section("child"));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    child.effect(function* () {
      yield () => gate;
    });
    const log: string[] = [];
    logChanges(prompt, log);
    const childDisposal = child.dispose();
    const parentDisposal = prompt.dispose();
    assert.equal(await settlesWithin(parentDisposal, 3), false);
    release();
    await parentDisposal;
    await childDisposal;
    assert.deepEqual(log, [
      "-child",
      "-deployment:persona",
      "-harness:identity",
      "complete",
    ]);
  });

  it("an effect's disposer called before the owner's dispose", async () => {
    const prompt = new SystemPrompt();
    const registrar = prompt.fork();
    const log: string[] = [];
    const composite = registrar.effect(function* () {
      yield async () => {
        await macrotask();
        await macrotask();
        log.push("effect torn down");
      };
    });
    const effectDisposal = composite();
    await registrar.dispose();
    log.push("registrar disposed");
    await effectDisposal;
    assert.deepEqual(log, ["effect torn down", "registrar disposed"]);
  });

  it("a sibling's async teardown started during the same disposal", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    const older = parent.fork();
    const newer = parent.fork();
    const log: string[] = [];
    older.effect(function* () {
      yield async () => {
        await macrotask();
        await macrotask();
        log.push("older torn down");
      };
    });
    newer.effect(function* () {
      // Started by the newer sibling, before the parent reaches the older.
      yield () => void older.dispose();
    });
    await parent.dispose();
    log.push("parent disposed");
    assert.deepEqual(log, ["older torn down", "parent disposed"]);
  });

  it("does not report a started teardown's failure again", async () => {
    const prompt = new SystemPrompt();
    const child = prompt.fork();
    const failure = new Error("child teardown");
    child.effect(function* () {
      yield async () => {
        await macrotask();
        throw failure;
      };
    });
    const childDisposal = child.dispose();
    await prompt.dispose(); // resolves: the failure belongs to child.dispose()
    await assert.rejects(childDisposal, (error) => error === failure);
  });
});

describe("deep ownership chains", () => {
  it("fork() 100,000 deep does not overflow, and dispose tears it all down", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let registrar: Registrar<AssembleContext> = prompt;
    for (let depth = 0; depth < 100_000; depth++) registrar = registrar.fork();
    registrar.section(section("deepest"));
    const log: string[] = [];
    logChanges(prompt, log);
    await prompt.dispose();
    assert.equal(registrar.disposed, true);
    assert.deepEqual(log, ["-deepest", "-deployment:persona", "complete"]);
  });

  it("an 8,000-deep chain with a teardown at every level runs them all, deepest first", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const depths: number[] = [];
    let registrar: Registrar<AssembleContext> = prompt;
    for (let depth = 0; depth < 8_000; depth++) {
      registrar = registrar.fork();
      const level = depth;
      registrar.effect(function* () {
        yield level % 1000 === 0
          ? async () => {
            await macrotask();
            depths.push(level);
          }
          : () => void depths.push(level);
      });
    }
    await prompt.dispose();
    assert.equal(depths.length, 8_000);
    assert.deepEqual(depths.slice(0, 3), [7_999, 7_998, 7_997]);
    assert.equal(depths.at(-1), 0);
    assert.ok(depths.every((depth, i) => i === 0 || depth < depths[i - 1]));
  });

  it("disposing the middle of a deep chain leaves the part above alive", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const chain: Registrar<AssembleContext>[] = [];
    let registrar: Registrar<AssembleContext> = prompt;
    for (let depth = 0; depth < 20_000; depth++) {
      registrar = registrar.fork();
      chain.push(registrar);
    }
    registrar.section(section("deepest"));
    await chain[10_000].dispose();
    assert.equal(chain[9_999].disposed, false);
    assert.equal(chain[19_999].disposed, true);
    chain[9_999].section(section("above"));
    const assembly = await prompt.assemble();
    assert.deepEqual(
      assembly.sections.map((s) => s.name),
      ["deployment:persona", "above"],
    );
    await prompt.dispose();
  });
});

describe("teardown order of children that own nothing yet", () => {
  it("a child that starts owning later keeps its creation position", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    const child = parent.fork(); // created first, owns nothing yet
    parent.section(section("newer"));
    child.section(section("child"));
    const log: string[] = [];
    logChanges(prompt, log);
    await parent.dispose();
    assert.deepEqual(log, ["-newer", "-child"]);
  });

  it("a child that owned nothing for a while rejoins at its creation position", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    parent.section(section("oldest"));
    const child = parent.scope("agent");
    const first = child.section(section("first"));
    await first();
    parent.section(section("newer"));
    child.section(section("again"));
    const log: string[] = [];
    logChanges(prompt, log);
    await parent.dispose();
    assert.deepEqual(log, ["-newer", "-again", "-oldest"]);
  });

  it("an empty child of a disposed parent counts as disposed", async () => {
    const prompt = new SystemPrompt();
    const parent = prompt.fork();
    const child = parent.fork();
    await parent.dispose();
    assert.equal(child.disposed, true);
    assert.throws(() => child.section(section("late")), { code: "DISPOSED" });
    await child.dispose();
  });
});

describe("an effect whose teardown returns the disposal of its own registrar or an ancestor (issue 21, defect 3)", () => {
  /** The teardowns a cycle may be written as, each returning `target()`. */
  const SHAPES: [string, (target: () => Promise<void>) => () => unknown][] = [
    ["() => plugin.dispose()", (target) => () => target()],
    ["function () { const disposal = plugin.dispose(); return disposal; }", (
      target,
    ) =>
      function () {
        const disposal = target();
        return disposal;
      }],
  ];

  for (const [shape, teardownOf] of SHAPES) {
    it(`${shape} for its own registrar: the disposal finishes`, async () => {
      const prompt = new SystemPrompt();
      const plugin = prompt.fork();
      plugin.section(section("plugin"));
      plugin.effect(function* () {
        yield teardownOf(() => plugin.dispose());
      });
      const disposal = plugin.dispose();
      assert.equal(await settlesWithin(disposal, 20), true, "plugin hangs");
      assert.equal(plugin.disposed, true);
      assert.equal(await settlesWithin(prompt.dispose(), 20), true);
    });

    it(`${shape} for an ancestor, disposed from the root: the registry finishes`, async () => {
      const prompt = new SystemPrompt();
      const plugin = prompt.fork();
      const child = plugin.fork();
      child.effect(function* () {
        yield teardownOf(() => prompt.dispose());
      });
      const disposal = prompt.dispose();
      assert.equal(await settlesWithin(disposal, 20), true, "registry hangs");
      assert.equal(child.disposed, true);
    });

    it(`${shape} for an ancestor, disposed from the effect's registrar: both finish`, async () => {
      const prompt = new SystemPrompt();
      const plugin = prompt.fork();
      plugin.section(section("plugin"));
      plugin.effect(function* () {
        yield teardownOf(() => prompt.dispose());
      });
      const own = plugin.dispose();
      assert.equal(await settlesWithin(own, 20), true, "plugin hangs");
      assert.equal(await settlesWithin(prompt.dispose(), 20), true);
      assert.equal(prompt.disposed, true);
    });
  }

  it("keeps the disposer's promise identity and tears down the rest in order", async () => {
    const prompt = new SystemPrompt();
    const plugin = prompt.fork();
    const log: string[] = [];
    let returned: Promise<void> | undefined;
    plugin.effect(function* () {
      yield () => void log.push("older");
    });
    plugin.effect(function* () {
      yield () => {
        returned = plugin.dispose();
        log.push("cycle");
        return returned;
      };
    });
    plugin.effect(function* () {
      yield async () => {
        await macrotask();
        log.push("newer");
      };
    });
    const disposal = plugin.dispose();
    assert.equal(await settlesWithin(disposal, 20), true);
    assert.equal(returned, disposal);
    assert.deepEqual(log, ["newer", "cycle", "older"]);
  });

  it("a teardown failing beside the cycle still rejects the disposal, with no unhandled rejection", async () => {
    const prompt = new SystemPrompt();
    const plugin = prompt.fork();
    const failure = new Error("older failed");
    plugin.effect(function* () {
      yield () => {
        throw failure;
      };
    });
    plugin.effect(function* () {
      yield () => plugin.dispose();
    });
    await assert.rejects(plugin.dispose(), (error) => error === failure);
    await macrotask();
    await prompt.dispose();
  });

  it("a teardown that returns another registrar's pending disposal itself is awaited", async () => {
    const prompt = new SystemPrompt();
    const other = prompt.fork();
    const log: string[] = [];
    other.effect(function* () {
      yield async () => {
        await macrotask();
        log.push("other done");
      };
    });
    const plugin = prompt.fork();
    plugin.effect(function* () {
      yield () => other.dispose();
    });
    await plugin.dispose();
    log.push("plugin done");
    assert.deepEqual(log, ["other done", "plugin done"]);
    await prompt.dispose();
  });

  it("a teardown that returns another registrar's disposal is awaited as before", async () => {
    const prompt = new SystemPrompt();
    const other = prompt.fork();
    other.effect(function* () {
      yield async () => {
        await macrotask();
      };
    });
    const plugin = prompt.fork();
    const log: string[] = [];
    plugin.effect(function* () {
      yield () => other.dispose().then(() => void log.push("other done"));
    });
    await plugin.dispose();
    assert.deepEqual(log, ["other done"]);
    await prompt.dispose();
  });
});
