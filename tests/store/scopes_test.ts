/**
 * Scope chains (SPEC 7.3): `bindScope`, its errors and ownership, shadowing
 * along the chain for every kind, interleaved listeners, change events, and
 * one consistent snapshot of layers and bindings per assembly.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
  type ScopeKey,
  SystemPrompt,
} from "../../mod.ts";
import { chainSnapshot$, ScopeBindings } from "../../src/store/scopes.ts";
import {
  Layers,
  type Registration,
  type Snapshot,
} from "../../src/store/layers.ts";
import { KINDS } from "../../src/kinds/table.ts";
import { rejects, sectionNames } from "../assertions.ts";
import {
  deferred,
  recordChanges,
  section,
  tool,
  toolNames,
} from "../fixtures.ts";

function registry(): SystemPrompt {
  return new SystemPrompt({ includeHarnessIdentity: false });
}

describe("bindScope", () => {
  it("makes an assembly for the child read the parent's layer, nearest winning", async () => {
    const prompt = registry();
    prompt.section({ name: "rules", order: 1, text: "global rules" });
    const preset = prompt.scope("preset");
    preset.section({ name: "rules", order: 1, text: "preset rules" });
    preset.section({ name: "style", order: 2, text: "preset style" });
    prompt.scope("sub").section({ name: "style", order: 2, text: "sub style" });
    prompt.bindScope("sub", "preset");
    const assembly = await prompt.assemble({ scope: "sub" });
    assert.equal(renderPrompt(assembly), "preset rules\n\nsub style");
    // The parent's own assembly is unchanged by the child.
    const parent = await prompt.assemble({ scope: "preset" });
    assert.equal(renderPrompt(parent), "preset rules\n\npreset style");
    await prompt.dispose();
  });

  it("shadows variables, tools and runtime contexts by name along a 3-deep chain", async () => {
    const prompt = registry();
    prompt.variable("v", () => "global");
    prompt.variable("g", () => "only global");
    prompt.tools(() => ({ schemas: [tool("t", "global"), tool("g")] }));
    prompt.runtimeContext({ name: "rc", order: 0, text: "global" });
    const layers = ["a", "b", "c"];
    for (const key of layers) {
      const scope = prompt.scope(key);
      scope.variable("v", () => key);
      scope.tools(() => ({ schemas: [tool("t", key)] }));
      scope.runtimeContext({ name: "rc", order: 0, text: key });
    }
    prompt.bindScope("c", "b");
    prompt.bindScope("b", "a");
    const assembly = await prompt.assemble({ scope: "c" });
    assert.deepEqual(assembly.variables, { g: "only global", v: "c" });
    assert.deepEqual(
      assembly.tools.map((t) => [t.name, t.description]),
      [["g", "g"], ["t", "c"]],
    );
    assert.equal(renderRuntimeContext(assembly), "c");
    const middle = await prompt.assemble({ scope: "b" });
    assert.equal(middle.variables.v, "b");
    assert.equal(renderRuntimeContext(middle), "b");
    await prompt.dispose();
  });

  it("a tool name twice in one chain layer still rejects DUPLICATE_TOOL", async () => {
    const prompt = registry();
    const parent = prompt.scope("parent");
    parent.tools(() => ({ schemas: [tool("x")] }));
    parent.tools(() => ({ schemas: [tool("x")] }));
    prompt.bindScope("child", "parent");
    await assert.rejects(
      prompt.assemble({ scope: "child" }),
      rejects("DUPLICATE_TOOL", '"x"'),
    );
    await prompt.dispose();
  });

  it("runs the listeners of every chain layer interleaved by registration order", async () => {
    const prompt = registry();
    const ran: string[] = [];
    function listener(label: string) {
      return (
        _assembly: PromptAssembly,
        _context: unknown,
        next: () => Promise<PromptAssembly>,
      ) => {
        ran.push(label);
        return next();
      };
    }
    prompt.scope("child").onAssemble(listener("child 1"));
    prompt.scope("parent").onAssemble(listener("parent 1"));
    prompt.onAssemble(listener("global 1"));
    prompt.scope("child").onAssemble(listener("child 2"));
    prompt.scope("parent").onAssemble(listener("parent 2"));
    prompt.scope("other").onAssemble(listener("other"));
    prompt.bindScope("child", "parent");
    await prompt.assemble({ scope: "child" });
    assert.deepEqual(ran, [
      "child 1",
      "parent 1",
      "global 1",
      "child 2",
      "parent 2",
    ]);
    await prompt.dispose();
  });

  it("returns an exact, idempotent disposer that unbinds and emits one unbind", async () => {
    const prompt = registry();
    prompt.scope("parent").section({
      name: "p",
      order: 0,
      text: "from parent",
    });
    const recording = recordChanges(prompt);
    const unbind = prompt.bindScope("child", "parent");
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "child" })),
      "from parent",
    );
    await unbind();
    await unbind();
    assert.equal(renderPrompt(await prompt.assemble({ scope: "child" })), "");
    assert.deepEqual(recording.changes, [
      { type: "bind", scope: "child", parent: "parent" },
      { type: "unbind", scope: "child", parent: "parent" },
    ]);
    // Unbound, the child may take another parent.
    prompt.bindScope("child", "other");
    await prompt.dispose();
  });

  it("a stale disposer does not remove a later binding of the same child", async () => {
    const prompt = registry();
    prompt.scope("second").section({ name: "s", order: 0, text: "second" });
    const first = prompt.bindScope("child", "first");
    await first();
    prompt.bindScope("child", "second");
    await first();
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "child" })),
      "second",
    );
    await prompt.dispose();
  });

  it("is owned by the registrar that made it: disposing it unbinds", async () => {
    const prompt = registry();
    prompt.scope("parent").section({ name: "p", order: 0, text: "inherited" });
    const plugin = prompt.fork({ label: "plugin" });
    plugin.bindScope("child", "parent");
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "child" })),
      "inherited",
    );
    await plugin.dispose();
    assert.equal(renderPrompt(await prompt.assemble({ scope: "child" })), "");
  });

  it("relates keys registry-wide, whichever registrar (scoped or not) made it", async () => {
    const prompt = registry();
    prompt.scope("parent").section({ name: "p", order: 0, text: "inherited" });
    prompt.scope("unrelated").bindScope("child", "parent");
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "child" })),
      "inherited",
    );
    await prompt.dispose();
  });

  it("can be adopted by an effect, which unbinds at its position", async () => {
    const prompt = registry();
    prompt.scope("parent").section({ name: "p", order: 0, text: "inherited" });
    const stop = prompt.effect(function* () {
      yield prompt.bindScope("child", "parent");
    });
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "child" })),
      "inherited",
    );
    await stop();
    assert.equal(renderPrompt(await prompt.assemble({ scope: "child" })), "");
    await prompt.dispose();
  });

  it("works with object, symbol and number keys compared by identity", async () => {
    const prompt = registry();
    const preset = { name: "preset" };
    const agent = Symbol("agent");
    prompt.scope(preset).section({ name: "p", order: 0, text: "object" });
    prompt.scope(7).section({ name: "n", order: 1, text: "number" });
    prompt.bindScope(agent, 7);
    prompt.bindScope(7, preset);
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: agent })),
      "object\n\nnumber",
    );
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: { name: "preset" } })),
      "",
    );
    await prompt.dispose();
  });
});

describe("bindScope errors", () => {
  it("SCOPE_ALREADY_BOUND names the child and its parent, and changes nothing", async () => {
    const prompt = registry();
    prompt.bindScope("child", "a");
    const recording = recordChanges(prompt);
    assert.throws(
      () => prompt.bindScope("child", "b"),
      rejects("SCOPE_ALREADY_BOUND", 'Scope "child"', 'scope "a"'),
    );
    assert.throws(
      () => prompt.bindScope("child", "a"),
      rejects("SCOPE_ALREADY_BOUND"),
    );
    assert.deepEqual(recording.changes, []);
    await prompt.dispose();
  });

  it("SCOPE_CYCLE for a scope bound to itself", async () => {
    const prompt = registry();
    assert.throws(
      () => prompt.bindScope("a", "a"),
      rejects("SCOPE_CYCLE", 'scope "a"', "its own parent"),
    );
    assert.throws(() => prompt.bindScope(NaN, NaN), rejects("SCOPE_CYCLE"));
    await prompt.dispose();
  });

  it("SCOPE_CYCLE for a bind that would close a cycle through a long chain, leaving the chain intact", async () => {
    const prompt = registry();
    const depth = 1000;
    for (let index = 1; index < depth; index++) {
      prompt.bindScope(index, index - 1);
    }
    prompt.scope(0).section({ name: "root", order: 0, text: "root" });
    assert.throws(
      () => prompt.bindScope(0, depth - 1),
      rejects("SCOPE_CYCLE", "scope 0", `scope ${depth - 1}`, "999 bindings"),
    );
    // The 1,000-deep chain assembles without overflowing the stack.
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: depth - 1 })),
      "root",
    );
    await prompt.dispose();
  });

  it("SCOPE_CYCLE after siblings come and go: a parent keeps counting its remaining children", async () => {
    const prompt = registry();
    prompt.bindScope("b", "a");
    const sibling = prompt.bindScope("c", "a");
    await sibling();
    assert.throws(
      () => prompt.bindScope("a", "b"),
      rejects("SCOPE_CYCLE", 'scope "a"', 'scope "b"', "1 binding"),
    );
    const last = prompt.bindScope("d", "e");
    await last();
    // "e" has no children left: binding it is free, and no cycle.
    prompt.bindScope("e", "d");
    assert.throws(() => prompt.bindScope("d", "e"), rejects("SCOPE_CYCLE"));
    await prompt.dispose();
  });

  it("INVALID_SCOPE_KEY for nullish keys", async () => {
    const prompt = registry();
    for (
      const [child, parent] of [[null, "a"], ["a", undefined], [
        undefined,
        null,
      ]]
    ) {
      assert.throws(
        () => prompt.bindScope(child as ScopeKey, parent as ScopeKey),
        rejects("INVALID_SCOPE_KEY"),
      );
    }
    await prompt.dispose();
  });

  it("DISPOSED through a disposed registrar", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    await plugin.dispose();
    assert.throws(
      () => plugin.bindScope("child", "parent"),
      rejects("DISPOSED", "bind"),
    );
    await prompt.dispose();
    assert.throws(
      () => prompt.bindScope("child", "parent"),
      rejects("DISPOSED"),
    );
  });

  it("hostile keys: a proxy that throws on every read is still described", async () => {
    const prompt = registry();
    const hostile = new Proxy({}, {
      get() {
        throw new Error("no reads");
      },
      getPrototypeOf() {
        throw new Error("no reads");
      },
    });
    prompt.bindScope(hostile, "parent");
    assert.throws(
      () => prompt.bindScope(hostile, "other"),
      rejects("SCOPE_ALREADY_BOUND", "an object key"),
    );
    assert.throws(
      () => prompt.bindScope("parent", hostile),
      rejects("SCOPE_CYCLE"),
    );
    await prompt.dispose();
  });
});

describe("bindScope: hostile keys", () => {
  it("prototype-looking strings are ordinary keys", async () => {
    const prompt = registry();
    prompt.scope("__proto__").section({ name: "p", order: 0, text: "proto" });
    prompt.scope("constructor").section({ name: "c", order: 1, text: "ctor" });
    prompt.bindScope("constructor", "__proto__");
    prompt.bindScope("toString", "constructor");
    assert.equal(
      renderPrompt(await prompt.assemble({ scope: "toString" })),
      "proto\n\nctor",
    );
    assert.throws(
      () => prompt.bindScope("__proto__", "toString"),
      rejects("SCOPE_CYCLE", '"__proto__"', "2 bindings"),
    );
    await prompt.dispose();
  });

  it("0 and -0 are one key, NaN is a key like any other", async () => {
    const prompt = registry();
    prompt.scope(NaN).section({ name: "n", order: 0, text: "nan" });
    prompt.bindScope(0, NaN);
    assert.equal(renderPrompt(await prompt.assemble({ scope: -0 })), "nan");
    assert.throws(() => prompt.bindScope(NaN, -0), rejects("SCOPE_CYCLE"));
    assert.throws(
      () => prompt.bindScope(-0, 1),
      rejects("SCOPE_ALREADY_BOUND"),
    );
    await prompt.dispose();
  });
});

describe("one snapshot of layers and bindings per assembly", () => {
  it("an unbind during an assembly does not affect it; the next one sees it", async () => {
    const prompt = registry();
    prompt.scope("parent").section({ name: "p", order: 0, text: "inherited" });
    prompt.scope("parent").variable("who", () => "parent");
    const unbind = prompt.bindScope("child", "parent");
    const gate = deferred();
    prompt.scope("child").onAssemble(async (_assembly, _context, next) => {
      await gate.promise;
      return next();
    });
    // Variables build first: the unbind happens before sections, runtime
    // contexts, tools and listeners are read.
    prompt.scope("child").variable("unbinds", () => {
      void unbind();
      return "done";
    });
    prompt.scope("child").section({ name: "c", order: 1, text: "child" });
    prompt.scope("parent").runtimeContext({ name: "r", order: 0, text: "rc" });
    prompt.scope("parent").tools(() => ({ schemas: [tool("inherited")] }));
    let parentListenerRan = false;
    prompt.scope("parent").onAssemble((assembly) => {
      parentListenerRan = true;
      return assembly;
    });
    const running = prompt.assemble({ scope: "child" });
    gate.resolve();
    const assembly = await running;
    assert.deepEqual(sectionNames(assembly), ["deployment:persona", "p", "c"]);
    assert.equal(assembly.variables.who, "parent");
    assert.equal(renderRuntimeContext(assembly), "rc");
    assert.deepEqual(toolNames(assembly), ["inherited"]);
    assert.ok(parentListenerRan);
    const after = await prompt.assemble({ scope: "child" });
    assert.deepEqual(sectionNames(after), ["deployment:persona", "c"]);
    await prompt.dispose();
  });

  it("a listener that binds affects later assemblies only", async () => {
    const prompt = registry();
    prompt.scope("parent").tools(() => ({ schemas: [tool("inherited")] }));
    let bound = false;
    prompt.onAssemble((assembly) => {
      if (!bound) {
        bound = true;
        prompt.bindScope("child", "parent");
      }
      return assembly;
    });
    const first = await prompt.assemble({ scope: "child" });
    assert.deepEqual(toolNames(first), []);
    const second = await prompt.assemble({ scope: "child" });
    assert.deepEqual(toolNames(second), ["inherited"]);
    await prompt.dispose();
  });

  it("a binding emits its change after it is committed", async () => {
    const prompt = registry();
    prompt.scope("parent").section({ name: "p", order: 0, text: "inherited" });
    const seen: string[] = [];
    const subscription = prompt.change$.subscribe((change) => {
      if (change.type !== "bind") return;
      void prompt.assemble({ scope: "child" }).then((assembly) =>
        seen.push(renderPrompt(assembly))
      );
    });
    prompt.bindScope("child", "parent");
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(seen, ["inherited"]);
    subscription.unsubscribe();
    await prompt.dispose();
  });

  it("a disposed registry completes change$ after the unbinds", async () => {
    const prompt = registry();
    prompt.bindScope("child", "parent");
    const recording = recordChanges(prompt);
    await prompt.dispose();
    assert.ok(recording.completed());
    assert.ok(
      recording.changes.some((change) =>
        change.type === "unbind" && change.scope === "child"
      ),
    );
  });
});

describe("ScopeBindings", () => {
  function watch(
    scopes: ScopeBindings,
    scope: ScopeKey,
  ): { chains: (readonly ScopeKey[])[]; stop: () => void } {
    const chains: (readonly ScopeKey[])[] = [];
    const subscription = scopes.chain$(scope).subscribe((chain) =>
      chains.push(chain)
    );
    return { chains, stop: () => subscription.unsubscribe() };
  }

  it("chain$ emits the chain, then once per bind or unbind that changes it", () => {
    const scopes = new ScopeBindings();
    const { chains, stop } = watch(scopes, "child");
    const unbind = scopes.bind("child", "parent");
    scopes.bind("parent", "root");
    scopes.bind("other", "root");
    scopes.bind("unrelated", "child");
    unbind();
    assert.deepEqual(chains, [
      ["child"],
      ["parent", "child"],
      ["root", "parent", "child"],
      ["child"],
    ]);
    stop();
  });

  it("chain$ of a NaN key does not re-emit on an unrelated bind", () => {
    const scopes = new ScopeBindings();
    scopes.bind(NaN, "parent");
    const { chains, stop } = watch(scopes, NaN);
    scopes.bind("other", "parent");
    assert.deepEqual(chains, [["parent", NaN]]);
    stop();
  });

  for (const first of ["first", NaN]) {
    it(`chain$ emits a chain of the same length with another parent (first parent ${first})`, () => {
      // A watcher that rebinds on an unbind: the next watcher sees both
      // changes at once, two chains of one length.
      const scopes = new ScopeBindings();
      const unbind = scopes.bind("child", first);
      const rebinder = scopes.chain$("child").subscribe((chain) => {
        if (chain.length === 1) scopes.bind("child", "second");
      });
      const { chains, stop } = watch(scopes, "child");
      unbind();
      assert.deepEqual(chains, [[first, "child"], ["second", "child"]]);
      rebinder.unsubscribe();
      stop();
    });
  }

  it("a disposer returns whether it removed its binding", () => {
    const scopes = new ScopeBindings();
    const first = scopes.bind("child", "parent");
    assert.equal(first(), true);
    assert.equal(first(), false);
    scopes.bind("child", "other");
    assert.equal(first(), false, "a stale disposer removes nothing");
    assert.deepEqual(scopes.chainOf("child"), ["other", "child"]);
  });

  it("0 and -0 are one key: binding one to the other is a cycle", () => {
    const scopes = new ScopeBindings();
    assert.throws(() => scopes.bind(0, -0), rejects("SCOPE_CYCLE"));
    assert.throws(() => scopes.bind(-0, 0), rejects("SCOPE_CYCLE"));
    assert.deepEqual(scopes.chainOf(0), [0]);
  });

  it("SCOPE_CYCLE counts the bindings the parent inherits through", () => {
    const scopes = new ScopeBindings();
    scopes.bind("b", "a");
    scopes.bind("c", "b");
    assert.throws(
      () => scopes.bind("a", "b"),
      (error: Error) => / through 1 binding\. /.test(error.message),
    );
    assert.throws(
      () => scopes.bind("a", "c"),
      (error: Error) => / through 2 bindings\. /.test(error.message),
    );
  });

  it("complete() completes every chain$", () => {
    const scopes = new ScopeBindings();
    let completed = 0;
    scopes.chain$("a").subscribe({ complete: () => completed++ });
    scopes.chain$("b").subscribe({ complete: () => completed++ });
    scopes.complete();
    assert.equal(completed, 2);
  });
});

describe("chainSnapshot$", () => {
  function sectionIn(name: string): Registration {
    return {
      kind: "section",
      record: KINDS.section.record(section(name, 0), {
        label: "test",
        sequence: 0,
      }),
    };
  }

  function layerNames(snapshot: Snapshot): string[][] {
    return snapshot.map(({ state }) => state.section.map((r) => r.name));
  }

  it("reads the global layer alone without a scope", () => {
    const layers = new Layers();
    const scopes = new ScopeBindings();
    layers.add(undefined, sectionIn("global"), () => undefined);
    layers.add("s", sectionIn("scoped"), () => undefined);
    for (const scope of [undefined, null]) {
      const seen: Snapshot[] = [];
      chainSnapshot$(layers, scopes, scope).subscribe((s) => seen.push(s));
      assert.deepEqual(seen.map(layerNames), [[["global"]]]);
    }
  });

  it("reads the chain's layers and follows a bind that changes it", () => {
    const layers = new Layers();
    const scopes = new ScopeBindings();
    layers.add(undefined, sectionIn("global"), () => undefined);
    layers.add("parent", sectionIn("inherited"), () => undefined);
    layers.add("child", sectionIn("own"), () => undefined);
    const seen: Snapshot[] = [];
    const subscription = chainSnapshot$(layers, scopes, "child").subscribe(
      (snapshot) => seen.push(snapshot),
    );
    scopes.bind("child", "parent");
    assert.deepEqual(seen.map(layerNames), [
      [["global"], ["own"]],
      [["global"], ["inherited"], ["own"]],
    ]);
    assert.deepEqual(seen[1].map((layer) => layer.scope), [
      undefined,
      "parent",
      "child",
    ]);
    subscription.unsubscribe();
  });
});
