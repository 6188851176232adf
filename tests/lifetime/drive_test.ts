/**
 * The teardown driver (src/lifetime/drive.ts): what a disposal runs, in
 * which order, and what each member's disposer answers afterwards.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PromptChange, SystemPrompt } from "../../mod.ts";
import { Lifetime } from "../../src/lifetime/lifetime.ts";
import { macrotask, registered } from "../assertions.ts";

function section(name: string, order = 1) {
  return { name, order, text: name };
}

function logSections(prompt: SystemPrompt, log: string[]): void {
  prompt.change$.subscribe((change: PromptChange) => {
    if (change.kind !== "section") return;
    log.push(`${change.type === "register" ? "+" : "-"}${change.name}`);
  });
}

describe("the teardown driver", () => {
  it("a teardown that threw keeps its failure: its disposer, called after the owner's dispose, rejects with it", async () => {
    const root = new Lifetime();
    const failure = new Error("teardown failed");
    const disposer = root.own(() => {
      throw failure;
    });
    await assert.rejects(root.dispose(), (error) => error === failure);
    await assert.rejects(disposer(), (error) => error === failure);
  });

  it("an owner's dispose waits for a paused async effect body before tearing down older members", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    prompt.effect(function* () {
      yield () => void log.push("older teardown");
    });
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => resume = resolve);
    prompt.effect(async function* () {
      try {
        yield () => void log.push("effect teardown");
        await paused;
      } finally {
        await macrotask();
        log.push("body stopped");
      }
    });
    await macrotask();
    const disposing = prompt.dispose().then(() => log.push("disposed"));
    resume();
    await disposing;
    assert.deepEqual(log, [
      "body stopped",
      "effect teardown",
      "older teardown",
      "disposed",
    ]);
  });

  it("a member adopted elsewhere while its owner is disposing is left to its new owner", async () => {
    const prompt = new SystemPrompt();
    const log: string[] = [];
    logSections(prompt, log);
    const leaving = prompt.fork();
    const staying = prompt.fork();
    const moved = leaving.section(section("moved"));
    leaving.effect(function* () {
      // Runs first (newest first), while `moved` is still listed here.
      yield () => {
        staying.effect(function* () {
          yield moved;
        });
      };
    });
    await leaving.dispose();
    assert.equal(await registered(prompt, "moved"), true);
    await staying.dispose();
    assert.deepEqual(log, ["+moved", "-moved"]);
    await prompt.dispose();
  });

  it("a function forwarding to an exact disposer, with its prototype, is not that disposer: nothing is adopted", async () => {
    const prompt = new SystemPrompt();
    const other = prompt.fork();
    const owner = prompt.fork();
    const exact = other.section(section("elsewhere"));
    const forwarding = Object.setPrototypeOf(
      (argument?: unknown) =>
        (exact as (argument?: unknown) => Promise<void>)(argument),
      Object.getPrototypeOf(exact),
    );
    owner.effect(function* () {
      yield forwarding;
    });
    await other.dispose();
    assert.equal(
      await registered(prompt, "elsewhere"),
      false,
      "the section stayed with its registrar",
    );
    await owner.dispose();
    await prompt.dispose();
  });

  it("a teardown returning its own registrar's disposal leaves no unhandled rejection when another teardown fails", async () => {
    const prompt = new SystemPrompt();
    const plugin = prompt.fork();
    const failure = new Error("older teardown failed");
    plugin.effect(function* () {
      yield () => {
        throw failure;
      };
    });
    plugin.effect(function* () {
      yield () => plugin.dispose();
    });
    await assert.rejects(prompt.dispose(), (error) => error === failure);
    // An unhandled rejection of the disposal the teardown started would
    // fail the test after this macrotask.
    await macrotask();
    await assert.rejects(plugin.dispose(), (error) => error === failure);
  });
});
