import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { PromptChange } from "../mod.ts";
import {
  emptyLayer,
  Layers,
  type Registration,
  withoutRegistration,
  withRegistration,
} from "../src/layers.ts";

function section(name: string, order: number): Registration<unknown> {
  return { kind: "section", record: { name, order, text: name } };
}

function recordChanges(layers: Layers<unknown>): {
  changes: PromptChange[];
  completed: () => boolean;
} {
  const changes: PromptChange[] = [];
  let done = false;
  layers.change$.subscribe({
    next: (change) => changes.push(change),
    complete: () => done = true,
  });
  return { changes, completed: () => done };
}

describe("layer states", () => {
  it("insert sections at their render position: order, then code-unit name", () => {
    let state = emptyLayer<unknown>();
    for (
      const registration of [
        section("b", 1),
        section("a", 2),
        section("Z", 1),
        section("a", 1),
        section("early", -5),
      ]
    ) {
      state = withRegistration(state, registration);
    }
    assert.deepEqual(
      state.sections.map((record) => `${record.order}:${record.name}`),
      ["-5:early", "1:Z", "1:a", "1:b", "2:a"],
    );
  });

  it("never mutate the state they start from", () => {
    const empty = emptyLayer<unknown>();
    const one = withRegistration(empty, section("a", 1));
    const two = withRegistration(one, section("b", 0));
    assert.equal(empty.sections.length, 0);
    assert.deepEqual(one.sections.map((record) => record.name), ["a"]);
    assert.deepEqual(two.sections.map((record) => record.name), ["b", "a"]);
    assert.ok(Object.isFrozen(empty));
  });

  it("remove exactly the given record, by identity", () => {
    const provider = () => ({ schemas: [] });
    const first: Registration<unknown> = {
      kind: "tools",
      record: { provider },
    };
    const second: Registration<unknown> = {
      kind: "tools",
      record: { provider },
    };
    let state = withRegistration(emptyLayer<unknown>(), first);
    state = withRegistration(state, second);
    const after = withoutRegistration(state, first);
    assert.equal(after.tools.length, 1);
    assert.equal(after.tools[0], second.record);
  });
});

describe("Layers", () => {
  it("commits, then emits one change per add and remove, with the scope", () => {
    const layers = new Layers<unknown>();
    const { changes } = recordChanges(layers);
    const agent = { id: "agent" };
    const variable: Registration<unknown> = {
      kind: "variable",
      record: { name: "cwd", provider: () => "/" },
    };
    const seen: number[] = [];
    layers.change$.subscribe(() =>
      seen.push(layers.state(agent).variables.length)
    );
    layers.add(agent, variable);
    layers.remove(agent, variable);
    assert.deepEqual(changes, [
      { type: "register", kind: "variable", name: "cwd", scope: agent },
      { type: "unregister", kind: "variable", name: "cwd", scope: agent },
    ]);
    assert.equal(changes[0].scope, agent);
    // Each event arrives after its state is committed.
    assert.deepEqual(seen, [1, 0]);
  });

  it("omits name and scope where they do not apply", () => {
    const layers = new Layers<unknown>();
    const { changes } = recordChanges(layers);
    layers.add(undefined, {
      kind: "listener",
      record: { listener: (assembly) => assembly, sequence: 1 },
    });
    assert.deepEqual(changes, [{ type: "register", kind: "listener" }]);
    assert.equal(Object.hasOwn(changes[0], "scope"), false);
    assert.equal(Object.hasOwn(changes[0], "name"), false);
  });

  it("creates a scope layer on its first registration and deletes it when empty", () => {
    const layers = new Layers<unknown>();
    const registration = section("persona", 0);
    assert.equal(layers.scopeCount, 0);
    assert.equal(layers.state("agent"), emptyLayer());
    layers.add("agent", registration);
    assert.equal(layers.scopeCount, 1);
    assert.equal(layers.state("agent").sections.length, 1);
    layers.remove("agent", registration);
    assert.equal(layers.scopeCount, 0);
    assert.equal(layers.state("agent"), emptyLayer());
  });

  it("keeps global and scope layers apart", () => {
    const layers = new Layers<unknown>();
    layers.add(undefined, section("global", 0));
    layers.add("agent", section("scoped", 0));
    assert.deepEqual(layers.state().sections.map((r) => r.name), ["global"]);
    assert.deepEqual(layers.state("agent").sections.map((r) => r.name), [
      "scoped",
    ]);
    assert.equal(layers.state("other"), emptyLayer());
  });

  it("emits invalidations as given and completes change$ on complete()", () => {
    const layers = new Layers<unknown>();
    const { changes, completed } = recordChanges(layers);
    layers.emit({ type: "invalidate" });
    layers.add("agent", section("a", 0));
    layers.complete();
    assert.deepEqual(changes[0], { type: "invalidate" });
    assert.equal(completed(), true);
    assert.equal(layers.scopeCount, 0);
  });
});
