/**
 * `watch()` at scale (issue targets): a burst of registrations is one view;
 * 100 watchers on distinct scopes re-assemble all after one global change
 * and only the affected one after one scoped change.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Subscription } from "rxjs";
import { SystemPrompt } from "../mod.ts";
import { macrotask } from "./assertions.ts";

/** Waits until the microtask-debounced views have arrived. */
async function settle(): Promise<void> {
  for (let index = 0; index < 3; index++) await macrotask();
}

describe("watch() at scale", () => {
  it("a burst of 10,000 registrations gives one view", async () => {
    const prompt = new SystemPrompt();
    let views = 0;
    let last = "";
    const subscription = prompt.watch().subscribe((view) => {
      views++;
      last = "prompt" in view ? view.prompt : "";
    });
    await settle();
    assert.equal(views, 1);
    for (let index = 0; index < 10_000; index++) {
      prompt.section({ name: `rule:${index}`, order: 1, text: `r${index}` });
    }
    await settle();
    assert.equal(views, 2);
    assert.ok(last.endsWith("r9999"));
    subscription.unsubscribe();
    await prompt.dispose();
  });

  it("100 watchers on distinct scopes: a global change re-assembles 100, a scoped change 1", async () => {
    const prompt = new SystemPrompt<{ scope?: string }>();
    const assembled: string[] = [];
    prompt.onAssemble((assembly, context) => {
      assembled.push(context.scope ?? "(global)");
      return assembly;
    });
    const subscriptions: Subscription[] = [];
    for (let index = 0; index < 100; index++) {
      const scope = `agent-${index}`;
      prompt.scope(scope).section({ name: "persona", order: 0, text: scope });
      subscriptions.push(prompt.watch({ scope }).subscribe());
    }
    await settle();
    assert.equal(assembled.length, 100);

    assembled.length = 0;
    prompt.section({ name: "global", order: 1, text: "for all" });
    await settle();
    assert.equal(assembled.length, 100);
    assert.equal(new Set(assembled).size, 100);

    assembled.length = 0;
    prompt.scope("agent-42").section({ name: "own", order: 1, text: "mine" });
    await settle();
    assert.deepEqual(assembled, ["agent-42"]);

    for (const subscription of subscriptions) subscription.unsubscribe();
    await prompt.dispose();
  });
});
