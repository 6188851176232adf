import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../mod.ts";
import { macrotask } from "./assertions.ts";
import { section } from "./fixtures.ts";

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
