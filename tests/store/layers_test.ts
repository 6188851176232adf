import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  emptyLayer,
  Layers,
  type LayerState,
  type Registration,
  type Snapshot,
  withoutRegistration,
  withRegistration,
} from "../../src/store/layers.ts";
import { holds, isEmpty, touched } from "../../src/store/layer_state.ts";
import { KIND_NAMES, KINDS } from "../../src/kinds/table.ts";
import { rejects } from "../assertions.ts";
import { recordChanges, section } from "../fixtures.ts";

const provenance = { label: "test", sequence: 0 };

function sectionAt(name: string, order: number): Registration {
  return {
    kind: "section",
    record: KINDS.section.record(section(name, order), provenance),
  };
}

function variable(name: string): Registration {
  const input = { name, provider: () => name };
  return { kind: "variable", record: KINDS.variable.record(input, provenance) };
}

function toolsOf(provider: () => { schemas: [] }): Registration {
  return {
    kind: "tools",
    record: KINDS.tools.record({ provider }, provenance),
  };
}

function names(state: LayerState, kind: "section" | "variable"): string[] {
  return state[kind].map((record) => record.name);
}

/** Adds without an owner, as a registrar would with one. */
function add(layers: Layers, scope: unknown, registration: Registration): void {
  layers.add(scope as string | undefined, registration, () => undefined);
}

describe("layer states", () => {
  it("say which kinds they hold a record of, stored or built by hand", () => {
    const empty = emptyLayer();
    assert.equal(holds(empty, "section"), false);
    const one = withRegistration(empty, sectionAt("a", 1));
    assert.equal(holds(one, "section"), true);
    assert.equal(holds(one, "variable"), false);
    const both = withRegistration(one, variable("v"));
    assert.equal(holds(both, "variable"), true);
    const byHand = { ...empty, section: one.section } as LayerState;
    assert.equal(holds(byHand, "section"), true);
    assert.equal(holds(byHand, "variable"), false);
  });

  it("insert sections at their render position: order, then code-unit name", () => {
    let state = emptyLayer();
    for (
      const registration of [
        sectionAt("b", 1),
        sectionAt("a", 2),
        sectionAt("Z", 1),
        sectionAt("a", 1),
        sectionAt("early", -5),
      ]
    ) {
      state = withRegistration(state, registration);
    }
    assert.deepEqual(
      state.section.map((record) => `${record.order}:${record.name}`),
      ["-5:early", "1:Z", "1:a", "1:b", "2:a"],
    );
  });

  it("keep variables in code-unit name order", () => {
    let state = emptyLayer();
    for (const name of ["model", "cwd", "a_b", "ab", "Z"]) {
      state = withRegistration(state, variable(name.toLowerCase()));
    }
    assert.deepEqual(names(state, "variable"), [
      "a_b",
      "ab",
      "cwd",
      "model",
      "z",
    ]);
  });

  it("never mutate the state they start from", () => {
    const empty = emptyLayer();
    const one = withRegistration(empty, sectionAt("a", 1));
    const two = withRegistration(one, sectionAt("b", 0));
    assert.equal(empty.section.length, 0);
    assert.deepEqual(names(one, "section"), ["a"]);
    assert.deepEqual(names(two, "section"), ["b", "a"]);
    assert.ok(Object.isFrozen(empty));
  });

  it("remove exactly the given record, by identity", () => {
    const provider = () => ({ schemas: [] as [] });
    const first = toolsOf(provider);
    const second = toolsOf(provider);
    let state = withRegistration(emptyLayer(), first);
    state = withRegistration(state, second);
    const after = withoutRegistration(state, first);
    assert.equal(after.tools.length, 1);
    assert.equal(after.tools[0], second.record);
  });
});

describe("layer states: identity and order", () => {
  it("removing the last record gives the one shared empty state", () => {
    const only = sectionAt("a", 1);
    const state = withRegistration(emptyLayer(), only);
    assert.equal(withoutRegistration(state, only), emptyLayer());
    // A record in every kind (one section record stands in for each).
    const record = sectionAt("b", 2).record;
    const byHand = Object.fromEntries(
      KIND_NAMES.map((name) => [name, [record]]),
    ) as unknown as LayerState;
    const full = withRegistration(byHand, only);
    assert.ok(!isEmpty(full));
    assert.deepEqual(names(full, "section"), ["a", "b"]);
  });

  it("keep the kinds without a name order in registration (sequence) order, whatever the insertion order", () => {
    const provider = () => ({ schemas: [] as [] });
    const late = {
      kind: "tools",
      record: KINDS.tools.record({ provider }, { label: "t", sequence: 5 }),
    } as Registration;
    const early = {
      kind: "tools",
      record: KINDS.tools.record({ provider }, { label: "t", sequence: 2 }),
    } as Registration;
    let state = withRegistration(emptyLayer(), late);
    state = withRegistration(state, early);
    assert.deepEqual(state.tools.map((record) => record.sequence), [2, 5]);
  });

  it("touched: a new state object holding the same records", () => {
    const state = withRegistration(emptyLayer(), sectionAt("a", 1));
    const again = touched(state);
    assert.notEqual(again, state);
    assert.equal(again.section[0], state.section[0]);
    assert.equal(again.section.length, 1);
  });

  it("list every kind when enumerated, as a state built by hand does", () => {
    const state = withRegistration(emptyLayer(), sectionAt("a", 1));
    const keys: string[] = [];
    for (const key in state) keys.push(key);
    assert.deepEqual(keys, Object.keys(emptyLayer()));
  });
});

describe("Layers: changes", () => {
  it("commits, then emits one change per add and remove, with the scope", () => {
    const layers = new Layers();
    const { changes } = recordChanges(layers);
    const agent = { id: "agent" };
    const cwd = variable("cwd");
    const seen: number[] = [];
    layers.change$.subscribe(() =>
      seen.push(layers.state(agent).variable.length)
    );
    add(layers, agent, cwd);
    layers.remove(agent, cwd);
    assert.deepEqual(changes, [
      { type: "register", kind: "variable", name: "cwd", scope: agent },
      { type: "unregister", kind: "variable", name: "cwd", scope: agent },
    ]);
    assert.equal(changes[0].scope, agent);
    // Each event arrives after its state is committed.
    assert.deepEqual(seen, [1, 0]);
  });

  it("omits name and scope where they do not apply", () => {
    const layers = new Layers();
    const { changes } = recordChanges(layers);
    add(layers, undefined, {
      kind: "listener",
      record: KINDS.listener.record(
        (assembly: unknown) => assembly,
        provenance,
      ),
    });
    assert.deepEqual(changes, [{ type: "register", kind: "listener" }]);
    assert.equal(Object.hasOwn(changes[0], "scope"), false);
    assert.equal(Object.hasOwn(changes[0], "name"), false);
  });

  it("emits invalidations on invalidation$ and change$, and completes both", () => {
    const layers = new Layers();
    const { changes, completed } = recordChanges(layers);
    let invalidations = 0;
    let invalidationsDone = false;
    layers.invalidation$.subscribe({
      next: () => invalidations++,
      complete: () => invalidationsDone = true,
    });
    layers.invalidate();
    add(layers, "agent", sectionAt("a", 0));
    layers.complete();
    assert.deepEqual(changes[0], { type: "invalidate" });
    assert.equal(invalidations, 1);
    assert.equal(completed(), true);
    assert.equal(invalidationsDone, true);
    assert.equal(layers.scopeCount, 0);
  });
});

describe("Layers: invariants", () => {
  for (
    const [code, make] of [
      ["DUPLICATE_SECTION", () => sectionAt("rules", 1)],
      ["DUPLICATE_VARIABLE", () => variable("cwd")],
    ] as const
  ) {
    it(`raise ${code} for a second name in one layer, leaving no trace`, () => {
      const layers = new Layers();
      const { changes } = recordChanges(layers);
      add(layers, undefined, make());
      add(layers, "agent", make());
      const before = [layers.state(), layers.state("agent")];
      let owned = 0;
      assert.throws(
        () => layers.add(undefined, make(), () => owned++),
        rejects(code, "the global layer", "scope registrar"),
      );
      assert.throws(
        () => layers.add("agent", make(), () => owned++),
        rejects(code, 'scope "agent"', "Dispose the existing registration"),
      );
      assert.equal(owned, 0);
      assert.equal(changes.length, 2);
      assert.deepEqual([layers.state(), layers.state("agent")], before);
    });
  }

  it("let tools and listeners repeat (they are anonymous)", () => {
    const layers = new Layers();
    const provider = () => ({ schemas: [] as [] });
    add(layers, undefined, toolsOf(provider));
    add(layers, undefined, toolsOf(provider));
    assert.equal(layers.state().tools.length, 2);
  });
});

describe("Layers: names and live values", () => {
  it("add returns what beforeCommit returned", () => {
    const layers = new Layers();
    assert.equal(layers.add(undefined, variable("v"), () => "owned"), "owned");
  });

  it("assertCanAdd throws the duplicate add would throw, for unique kinds in the same layer only", () => {
    const layers = new Layers();
    add(layers, "agent", variable("v"));
    add(layers, "agent", toolsOf(() => ({ schemas: [] })));
    assert.throws(
      () => layers.assertCanAdd("agent", variable("v")),
      rejects("DUPLICATE_VARIABLE", '"v"'),
    );
    layers.assertCanAdd("agent", variable("w"));
    layers.assertCanAdd(undefined, variable("v"));
    layers.assertCanAdd("other", variable("v"));
    layers.assertCanAdd("agent", toolsOf(() => ({ schemas: [] })));
    assert.equal(layers.state("agent").variable.length, 1);
  });

  it("remove frees the name, and only that name, for a later add", () => {
    const layers = new Layers();
    const v = variable("v");
    add(layers, "agent", v);
    add(layers, "agent", variable("w"));
    layers.remove("agent", v);
    add(layers, "agent", variable("v"));
    assert.throws(
      () => add(layers, "agent", variable("w")),
      rejects("DUPLICATE_VARIABLE", '"w"'),
    );
    assert.throws(
      () => layers.assertCanAdd("agent", variable("w")),
      rejects("DUPLICATE_VARIABLE"),
    );
  });

  it("update: a new state of the layer, with the same records, then an update change", () => {
    const layers = new Layers();
    const live = variable("live");
    add(layers, undefined, live);
    add(layers, "agent", live);
    const seen: Snapshot[] = [];
    const subscription = layers.snapshot$(["agent"]).subscribe((snapshot) =>
      seen.push(snapshot)
    );
    const { changes } = recordChanges(layers);
    layers.update(undefined, live);
    layers.update("agent", live);
    layers.update("nobody", live);
    assert.equal(seen.length, 3);
    assert.notEqual(seen[1][0].state, seen[0][0].state);
    assert.equal(seen[1][1].state, seen[0][1].state);
    assert.notEqual(seen[2][1].state, seen[1][1].state);
    assert.deepEqual(names(seen[2][1].state, "variable"), ["live"]);
    assert.deepEqual(changes.map((change) => change.scope), [
      undefined,
      "agent",
      "nobody",
    ]);
    subscription.unsubscribe();
    layers.complete();
    layers.update(undefined, live); // a completed layer takes no new state
  });

  it("invalidateScope: a new state of that scope's layer only, then its invalidate change", () => {
    const layers = new Layers();
    add(layers, "agent", variable("v"));
    const before = layers.state("agent");
    const global = layers.state();
    const { changes } = recordChanges(layers);
    layers.invalidateScope("agent");
    assert.notEqual(layers.state("agent"), before);
    assert.equal(layers.state(), global);
    assert.deepEqual(changes, [{ type: "invalidate", scope: "agent" }]);
  });
});

describe("Layers: scope layers and snapshots", () => {
  it("creates a scope layer on its first registration and deletes it when empty", () => {
    const layers = new Layers();
    const registration = sectionAt("persona", 0);
    assert.equal(layers.scopeCount, 0);
    assert.equal(layers.state("agent"), emptyLayer());
    add(layers, "agent", registration);
    assert.equal(layers.scopeCount, 1);
    assert.equal(layers.state("agent").section.length, 1);
    layers.remove("agent", registration);
    assert.equal(layers.scopeCount, 0);
    assert.equal(layers.state("agent"), emptyLayer());
  });

  it("reads snapshots farthest-first, global then scope, apart from other scopes", () => {
    const layers = new Layers();
    add(layers, undefined, sectionAt("global", 0));
    add(layers, "agent", sectionAt("scoped", 0));
    add(layers, "other", sectionAt("other", 0));
    const snapshot = layers.snapshot(["agent"]);
    assert.deepEqual(
      snapshot.map(({ state, scope }) => [scope, names(state, "section")]),
      [[undefined, ["global"]], ["agent", ["scoped"]]],
    );
    assert.deepEqual(layers.snapshot([]).length, 1);
    assert.equal(layers.snapshot(["nobody"])[1].state, emptyLayer());
  });

  it("snapshot$ combines the layers' states: global and own-scope transitions only", () => {
    const layers = new Layers();
    const seen: Snapshot[] = [];
    const subscription = layers.snapshot$(["agent"]).subscribe((snapshot) =>
      seen.push(snapshot)
    );
    assert.equal(seen.length, 1);
    // A watched scope layer exists while watched, even empty.
    assert.equal(layers.scopeCount, 1);
    add(layers, "other", sectionAt("other", 0));
    assert.equal(seen.length, 1);
    const scoped = sectionAt("scoped", 0);
    add(layers, "agent", scoped);
    add(layers, undefined, sectionAt("global", 0));
    layers.remove("agent", scoped);
    assert.equal(seen.length, 4);
    assert.deepEqual(names(seen[1][1].state, "section"), ["scoped"]);
    assert.deepEqual(names(seen[2][0].state, "section"), ["global"]);
    assert.equal(layers.scopeCount, 2, "the empty watched layer stays");
    subscription.unsubscribe();
    assert.equal(layers.scopeCount, 1, "and goes once unwatched");
  });

  it("snapshot$ gives each layer its scope key, as snapshot does", () => {
    const layers = new Layers();
    const agent = { id: "agent" };
    let latest: Snapshot | undefined;
    const subscription = layers.snapshot$([agent, "team"]).subscribe((
      snapshot,
    ) => latest = snapshot);
    assert.deepEqual(latest!.map((layer) => layer.scope), [
      undefined,
      agent,
      "team",
    ]);
    assert.deepEqual(
      latest!.map((layer) => layer.scope),
      layers.snapshot([agent, "team"]).map((layer) => layer.scope),
    );
    subscription.unsubscribe();
  });

  it("snapshot$ completes with the layers, and at once after them", () => {
    const layers = new Layers();
    let completions = 0;
    layers.snapshot$(["agent"]).subscribe({ complete: () => completions++ });
    layers.complete();
    assert.equal(completions, 1);
    const late: Snapshot[] = [];
    layers.snapshot$(["agent"]).subscribe({
      next: (snapshot) => late.push(snapshot),
      complete: () => completions++,
    });
    assert.deepEqual(late, []);
    assert.equal(completions, 2);
    assert.equal(layers.scopeCount, 0);
  });
});

describe("Layers: scale", () => {
  /** Milliseconds to add `count` sections named `prefix<n>` to the global layer. */
  function timeAdding(layers: Layers, prefix: string, count: number): number {
    const registrations = Array.from(
      { length: count },
      (_, index) => sectionAt(`${prefix}${index}`, (index * 7) % 50),
    );
    const start = performance.now();
    for (const registration of registrations) {
      add(layers, undefined, registration);
    }
    return performance.now() - start;
  }

  it("a registration into a layer of 30,000 sections costs about as much as into one of 1,000 (no copy of the whole layer)", () => {
    const small = new Layers();
    const large = new Layers();
    timeAdding(small, "base", 1_000);
    timeAdding(large, "base", 30_000);
    // The same work at both sizes, interleaved; the fastest round of each.
    let smallBest = Infinity;
    let largeBest = Infinity;
    for (let round = 0; round < 7; round++) {
      smallBest = Math.min(smallBest, timeAdding(small, `r${round}-`, 1_000));
      largeBest = Math.min(largeBest, timeAdding(large, `r${round}-`, 1_000));
    }
    // Copying the whole layer made this ratio about 36; without that copy it
    // is 1 to 2 on a quiet machine (up to about 4 with the suite running
    // beside it, hence the margin).
    assert.ok(
      largeBest < smallBest * 10,
      `1,000 registrations: ${smallBest.toFixed(2)} ms into 1,000 sections, ` +
        `${largeBest.toFixed(2)} ms into 30,000`,
    );
    assert.equal(large.state().section.length, 37_000);
  });
});
