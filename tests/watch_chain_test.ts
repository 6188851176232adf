/**
 * `watch(S)` along a scope chain (SPEC 7.3, 4.7, 4.8): it re-assembles after
 * changes in any layer of its chain and after a bind or unbind that changes
 * its chain, never for other scopes.
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Subscription } from "rxjs";
import { type PromptView, SystemPrompt } from "../mod.ts";
import { scopeLayerCount } from "../src/system_prompt.ts";
import { settle } from "./assertions.ts";

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  cleanups.push(() => prompt.dispose());
  return prompt;
}

function prompts(views: PromptView[]): string[] {
  return views.map((view) => "error" in view ? `error` : view.prompt);
}

function watchAll(prompt: SystemPrompt, scope: string) {
  const views: PromptView[] = [];
  let completed = false;
  const subscription: Subscription = prompt.watch({ scope }).subscribe({
    next: (view) => views.push(view),
    complete: () => completed = true,
  });
  cleanups.push(() => subscription.unsubscribe());
  return {
    views,
    get completed() {
      return completed;
    },
    subscription,
  };
}

describe("watch along a scope chain", () => {
  it("re-assembles after a change in any layer of the chain", async () => {
    const prompt = registry();
    prompt.bindScope("c", "b");
    prompt.bindScope("b", "a");
    const watcher = watchAll(prompt, "c");
    await settle();
    prompt.scope("a").section({ name: "a", order: 1, text: "A" });
    await settle();
    prompt.scope("b").section({ name: "b", order: 2, text: "B" });
    await settle();
    prompt.section({ name: "g", order: 0, text: "G" });
    await settle();
    assert.deepEqual(prompts(watcher.views), [
      "",
      "A",
      "A\n\nB",
      "G\n\nA\n\nB",
    ]);
  });

  it("never re-assembles for a scope outside its chain", async () => {
    const prompt = registry();
    prompt.bindScope("c", "b");
    prompt.bindScope("other", "b");
    const watcher = watchAll(prompt, "c");
    await settle();
    prompt.scope("other").section({ name: "o", order: 0, text: "O" });
    prompt.bindScope("x", "y");
    prompt.scope("y").section({ name: "y", order: 0, text: "Y" });
    await settle();
    assert.equal(watcher.views.length, 1);
  });

  it("re-assembles after a bind or unbind that changes its chain, and follows the new chain", async () => {
    const prompt = registry();
    prompt.scope("p1").section({ name: "p", order: 0, text: "one" });
    prompt.scope("p2").section({ name: "p", order: 0, text: "two" });
    const watcher = watchAll(prompt, "c");
    await settle();
    const unbind = prompt.bindScope("c", "p1");
    await settle();
    await unbind();
    await settle();
    prompt.bindScope("c", "p2");
    await settle();
    // The old parent's layer is no longer watched.
    prompt.scope("p1").section({ name: "q", order: 1, text: "late" });
    await settle();
    assert.deepEqual(prompts(watcher.views), ["", "one", "", "two"]);
  });

  it("a bind further up the chain changes the chain too", async () => {
    const prompt = registry();
    prompt.scope("root").section({ name: "r", order: 0, text: "root" });
    prompt.bindScope("c", "b");
    const watcher = watchAll(prompt, "c");
    await settle();
    prompt.bindScope("b", "root");
    await settle();
    assert.deepEqual(prompts(watcher.views), ["", "root"]);
  });

  it("a bind elsewhere (not on its chain) does not re-assemble", async () => {
    const prompt = registry();
    prompt.bindScope("c", "b");
    const watcher = watchAll(prompt, "c");
    await settle();
    prompt.bindScope("d", "c");
    prompt.bindScope("e", "f");
    await settle();
    assert.equal(watcher.views.length, 1);
  });

  it("a bind elsewhere does not re-assemble a NaN scope either", async () => {
    const prompt = registry();
    prompt.bindScope(NaN, "b");
    const views: PromptView[] = [];
    const subscription = prompt.watch({ scope: NaN }).subscribe((view) =>
      views.push(view)
    );
    cleanups.push(() => subscription.unsubscribe());
    await settle();
    prompt.bindScope("e", "f");
    await settle();
    assert.equal(views.length, 1);
  });

  it("a burst of binds and registrations is one view", async () => {
    const prompt = registry();
    const watcher = watchAll(prompt, "c");
    await settle();
    prompt.bindScope("c", "b");
    prompt.bindScope("b", "a");
    prompt.scope("a").section({ name: "a", order: 0, text: "A" });
    prompt.scope("b").section({ name: "b", order: 1, text: "B" });
    await settle();
    assert.deepEqual(prompts(watcher.views), ["", "A\n\nB"]);
  });

  it("follows a runtime context suppressor added to a parent layer", async () => {
    const prompt = registry();
    prompt.runtimeContext({ name: "date", order: 0, text: "today" });
    prompt.bindScope("c", "preset");
    const views: PromptView[] = [];
    const subscription = prompt.watch({ scope: "c" }).subscribe((view) =>
      views.push(view)
    );
    cleanups.push(() => subscription.unsubscribe());
    await settle();
    const restore = prompt.scope("preset").suppressRuntimeContext();
    await settle();
    await restore();
    await settle();
    assert.deepEqual(
      views.map((view) =>
        "error" in view ? "error" : view.assembly.runtimeContext?.length
      ),
      [1, 0, 1],
    );
  });

  it("follows a 1,000-deep chain and re-assembles after a change at its far end", async () => {
    const prompt = registry();
    for (let index = 1; index < 1000; index++) {
      prompt.bindScope(`k${index}`, `k${index - 1}`);
    }
    const watcher = watchAll(prompt, "k999");
    await settle();
    prompt.scope("k0").section({ name: "root", order: 0, text: "root" });
    await settle();
    assert.deepEqual(prompts(watcher.views), ["", "root"]);
  });

  it("completes when the registry is disposed, and leaves no scope layer behind", async () => {
    const prompt = new SystemPrompt();
    prompt.bindScope("c", "b");
    prompt.bindScope("b", "a");
    const watcher = watchAll(prompt, "c");
    await settle();
    assert.equal(scopeLayerCount(prompt), 3);
    watcher.subscription.unsubscribe();
    assert.equal(scopeLayerCount(prompt), 0);
    const again = watchAll(prompt, "c");
    await settle();
    await prompt.dispose();
    assert.ok(again.completed);
  });
});
