import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembleContext,
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  type PromptSection,
  type Registrar,
  type ScopeKey,
  SystemPrompt,
} from "../../mod.ts";
import { scopeLayerCount } from "../../src/system_prompt.ts";
import { rejects, sectionNames } from "../assertions.ts";
import { recordChanges, textOf, tool } from "../fixtures.ts";

describe("registration validation", () => {
  const badSections: [string, unknown][] = [
    ["null", null],
    ["a string", "section"],
    ["no name", { order: 0, text: "t" }],
    ["an empty name", { name: "", order: 0, text: "t" }],
    ["a numeric name", { name: 1, order: 0, text: "t" }],
    ["no order", { name: "a", text: "t" }],
    ["a string order", { name: "a", order: "1", text: "t" }],
    ["a NaN order", { name: "a", order: NaN, text: "t" }],
    ["an infinite order", { name: "a", order: Infinity, text: "t" }],
    ["a -Infinity order", { name: "a", order: -Infinity, text: "t" }],
    ["no text", { name: "a", order: 0 }],
    ["a numeric text", { name: "a", order: 0, text: 1 }],
    ["a null text", { name: "a", order: 0, text: null }],
  ];
  for (const [label, section] of badSections) {
    it(`rejects a section with ${label} and leaves no trace`, async () => {
      const prompt = new SystemPrompt();
      const scoped = prompt.scope("agent");
      const changes = recordChanges(prompt).changes;
      assert.throws(
        () => prompt.section(section as PromptSection<object>),
        rejects("INVALID_SECTION"),
      );
      assert.throws(
        () => scoped.section(section as PromptSection<object>),
        rejects("INVALID_SECTION"),
      );
      assert.deepEqual(changes, []);
      assert.equal(scopeLayerCount(prompt), 0);
      // The same name still registers afterwards, in both layers.
      prompt.section({ name: "a", order: 1, text: "global" });
      scoped.section({ name: "a", order: 1, text: "scoped" });
      assert.equal(changes.length, 2);
      assert.equal(textOf(await prompt.assemble(), "a"), "global");
      assert.equal(
        textOf(await prompt.assemble({ scope: "agent" }), "a"),
        "scoped",
      );
    });
  }

  for (
    const name of ["Model", "1a", "a-b", "", " a", "a ", "_a", "aB", "a.b"]
  ) {
    it(`rejects the variable name ${JSON.stringify(name)} and leaves no trace`, async () => {
      const prompt = new SystemPrompt();
      const changes = recordChanges(prompt).changes;
      assert.throws(
        () => prompt.variable(name, () => "v"),
        rejects("INVALID_VARIABLE_NAME"),
      );
      assert.deepEqual(changes, []);
      assert.deepEqual((await prompt.assemble()).variables, {});
    });
  }

  it("accepts variable names matching ^[a-z][a-z0-9_]*$", async () => {
    const prompt = new SystemPrompt();
    for (const name of ["a", "model", "cwd_2", "a_b_c", "x9"]) {
      prompt.variable(name, () => name.toUpperCase());
    }
    assert.deepEqual((await prompt.assemble()).variables, {
      a: "A",
      model: "MODEL",
      cwd_2: "CWD_2",
      a_b_c: "A_B_C",
      x9: "X9",
    });
  });

  it("rejects a non-function variable provider and leaves no trace", async () => {
    const prompt = new SystemPrompt();
    const changes = recordChanges(prompt).changes;
    for (const provider of ["value", undefined, null, 1, {}]) {
      assert.throws(
        () => prompt.variable("model", provider as unknown as () => string),
        rejects("INVALID_PROVIDER"),
      );
    }
    assert.deepEqual(changes, []);
    assert.deepEqual((await prompt.assemble()).variables, {});
    prompt.variable("model", () => "m");
    assert.deepEqual((await prompt.assemble()).variables, { model: "m" });
    assert.equal(changes.length, 1);
  });

  it("rejects non-function tool providers, listeners and effect bodies", async () => {
    const prompt = new SystemPrompt();
    const changes = recordChanges(prompt).changes;
    for (const bad of ["x", undefined, null, 1, {}, { schemas: [] }]) {
      assert.throws(
        () => prompt.tools(bad as never),
        rejects("INVALID_PROVIDER"),
      );
      assert.throws(
        () => prompt.onAssemble(bad as never),
        rejects("INVALID_PROVIDER"),
      );
      // The API notes said INVALID_PROVIDER; the implementation has a
      // dedicated code for effect bodies.
      assert.throws(
        () => prompt.effect(bad as never),
        rejects("INVALID_EFFECT"),
      );
    }
    assert.deepEqual(changes, []);
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools, []);
    assert.deepEqual(sectionNames(assembly), [
      HARNESS_IDENTITY_SECTION,
      PERSONA_SECTION,
    ]);
  });

  it("throws on a duplicate section within one layer, without a trace", async () => {
    const prompt = new SystemPrompt();
    const fork = prompt.fork();
    prompt.section({ name: "rules", order: 10, text: "first" });
    const changes = recordChanges(prompt).changes;
    assert.throws(
      () => fork.section({ name: "rules", order: 11, text: "second" }),
      rejects("DUPLICATE_SECTION", /scope/),
    );
    assert.throws(
      () => prompt.section({ name: "rules", order: 11, text: "second" }),
      rejects("DUPLICATE_SECTION", /rules/),
    );
    const agent = prompt.scope("agent");
    agent.section({ name: "rules", order: 12, text: "scoped" });
    // A second registrar for the same key writes the same layer.
    assert.throws(
      () =>
        prompt.scope("agent").section({ name: "rules", order: 1, text: "x" }),
      rejects("DUPLICATE_SECTION"),
    );
    assert.throws(
      () => agent.section({ name: "rules", order: 1, text: "x" }),
      rejects("DUPLICATE_SECTION"),
    );
    assert.equal(changes.length, 1);
    assert.equal(textOf(await prompt.assemble(), "rules"), "first");
    assert.equal(
      textOf(await prompt.assemble({ scope: "agent" }), "rules"),
      "scoped",
    );
  });

  it("throws on a duplicate variable within one layer, but not across layers", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("model", () => "global");
    assert.throws(
      () => prompt.fork().variable("model", () => "again"),
      rejects("DUPLICATE_VARIABLE", /scope/),
    );
    const agent = prompt.scope("agent");
    agent.variable("model", () => "scoped");
    assert.throws(
      () => agent.fork().variable("model", () => "again"),
      rejects("DUPLICATE_VARIABLE"),
    );
    assert.deepEqual((await prompt.assemble()).variables, { model: "global" });
    assert.deepEqual((await prompt.assemble({ scope: "agent" })).variables, {
      model: "scoped",
    });
  });

  it("frees a section name once its registration is disposed", async () => {
    const prompt = new SystemPrompt();
    const dispose = prompt.section({ name: "a", order: 0, text: "one" });
    await dispose();
    prompt.section({ name: "a", order: 0, text: "two" });
    assert.equal(textOf(await prompt.assemble(), "a"), "two");
  });

  it("scope(null) and scope(undefined) throw INVALID_SCOPE_KEY", () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () => prompt.scope(null as unknown as ScopeKey),
      rejects("INVALID_SCOPE_KEY"),
    );
    assert.throws(
      () => prompt.scope(undefined as unknown as ScopeKey),
      rejects("INVALID_SCOPE_KEY"),
    );
    assert.throws(
      () => prompt.fork().scope(null as unknown as ScopeKey),
      rejects("INVALID_SCOPE_KEY"),
    );
    assert.equal(scopeLayerCount(prompt), 0);
  });

  it("registering the same tool provider twice makes two registrations (whose tools then collide)", async () => {
    const prompt = new SystemPrompt();
    let calls = 0;
    const provider = () => {
      calls++;
      return { schemas: [tool("shell")] };
    };
    const first = prompt.tools(provider);
    const second = prompt.tools(provider);
    assert.notEqual(first, second);
    await assert.rejects(
      prompt.assemble(),
      rejects("DUPLICATE_TOOL", '"shell"', "#1", "#2"),
    );
    assert.equal(calls, 2);
    await first();
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools.map((t) => t.name), ["shell"]);
    await second();
    assert.deepEqual((await prompt.assemble()).tools, []);
  });

  it("registering the same listener twice runs it twice", async () => {
    const prompt = new SystemPrompt();
    let calls = 0;
    const listener = (
      _assembly: PromptAssembly,
      _context: unknown,
      next: () => Promise<PromptAssembly>,
    ) => {
      calls++;
      return next();
    };
    const first = prompt.onAssemble(listener);
    prompt.onAssemble(listener);
    await prompt.assemble();
    assert.equal(calls, 2);
    await first();
    await prompt.assemble();
    assert.equal(calls, 3);
  });
});

describe("registration through a disposed registrar", () => {
  const operations: [string, (r: Registrar<AssembleContext>) => unknown][] = [
    ["section", (r) => r.section({ name: "late", order: 0, text: "x" })],
    ["tools", (r) => r.tools(() => ({ schemas: [] }))],
    ["variable", (r) => r.variable("late", () => "x")],
    ["onAssemble", (r) => r.onAssemble((a) => a)],
    ["effect", (r) => r.effect(function* () {})],
    ["fork", (r) => r.fork()],
    ["scope", (r) => r.scope("late")],
  ];
  for (const [label, operation] of operations) {
    it(`${label}() on a disposed fork or scope throws DISPOSED, without a trace`, async () => {
      const prompt = new SystemPrompt();
      const fork = prompt.fork();
      const scoped = prompt.scope("agent");
      await fork.dispose();
      await scoped.dispose();
      const changes = recordChanges(prompt).changes;
      assert.throws(() => operation(fork), rejects("DISPOSED"));
      assert.throws(() => operation(scoped), rejects("DISPOSED"));
      assert.deepEqual(changes, []);
      assert.equal(scopeLayerCount(prompt), 0);
      // The registry itself is unaffected.
      operation(prompt);
    });

    it(`${label}() on a disposing registrar throws DISPOSED`, async () => {
      const prompt = new SystemPrompt();
      const fork = prompt.fork();
      let thrown: unknown;
      fork.effect(function* () {
        yield () => {
          try {
            operation(fork);
          } catch (error) {
            thrown = error;
          }
        };
      });
      await fork.dispose();
      rejects("DISPOSED")(thrown);
    });

    it(`${label}() on a disposed registry throws DISPOSED`, async () => {
      const prompt = new SystemPrompt();
      await prompt.dispose();
      assert.throws(() => operation(prompt), rejects("DISPOSED"));
    });
  }
});

describe("registrar labels", () => {
  it("the registry's is \"registry\"; a child's is its parent's, a slash, and its own", () => {
    const prompt = new SystemPrompt();
    assert.equal(prompt.label, "registry");
    const shell = prompt.fork({ label: "shell" });
    assert.equal(shell.label, "registry/shell");
    assert.equal(shell.fork({ label: "tools" }).label, "registry/shell/tools");
    const agent = shell.scope("agent", { label: "reviewer" });
    assert.equal(agent.label, "registry/shell/reviewer");
    assert.equal(agent.fork({ label: "" }).label, "registry/shell/reviewer/");
  });

  it('default to "fork" and "scope", and need not be unique', () => {
    const prompt = new SystemPrompt();
    assert.equal(prompt.fork().label, "registry/fork");
    assert.equal(prompt.fork({}).label, "registry/fork");
    assert.equal(prompt.scope("a").label, "registry/scope");
    assert.equal(prompt.scope("a").fork().label, "registry/scope/fork");
    assert.equal(
      prompt.fork({ label: "x" }).label,
      prompt.fork({ label: "x" }).label,
    );
  });

  it("reject a label that is not a string, and options that are not an object", () => {
    const prompt = new SystemPrompt();
    for (const label of [1, null, {}, Symbol("x")]) {
      assert.throws(
        () => prompt.fork({ label } as unknown as { label: string }),
        rejects("INVALID_CONFIG", "label must be a string"),
      );
      assert.throws(
        () => prompt.scope("a", { label } as unknown as { label: string }),
        rejects("INVALID_CONFIG", "label must be a string"),
      );
    }
    assert.throws(
      () => prompt.fork("shell" as unknown as { label: string }),
      rejects("INVALID_CONFIG", "{ label? }", '"shell"'),
    );
  });

  it("reject options whose label cannot be read with INVALID_CONFIG, keeping the cause", () => {
    const prompt = new SystemPrompt();
    const failure = new Error("label getter failed");
    const options = {
      get label(): string {
        throw failure;
      },
    };
    for (
      const make of [
        () => prompt.fork(options),
        () => prompt.scope("a", options),
      ]
    ) {
      assert.throws(make, (error: unknown) => {
        rejects("INVALID_CONFIG", "Reading the registrar options threw")(error);
        assert.equal((error as Error).cause, failure);
        return true;
      });
    }
  });

  it("never reach the prompt", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.fork({ label: "LABEL-A" }).section({
      name: "s",
      order: 1,
      text: "t",
    });
    prompt.scope("k", { label: "LABEL-B" }).variable("v", () => "x");
    const assembly = await prompt.assemble({ scope: "k" });
    assert.equal(JSON.stringify(assembly).includes("LABEL"), false);
  });
});
