import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { config } from "rxjs";
import {
  type AssembleContext,
  HARNESS_IDENTITY,
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  type PromptChange,
  type PromptSection,
  type Registrar,
  renderPrompt,
  type ScopeKey,
  SystemPrompt,
  type SystemPromptConfig,
  TOOL_ORDER_REST,
} from "../mod.ts";
import { scopeLayerCount } from "../src/system_prompt.ts";
import { rejects, sectionNames } from "./assertions.ts";

function record(prompt: SystemPrompt): PromptChange[] {
  const changes: PromptChange[] = [];
  prompt.change$.subscribe((change) => changes.push(change));
  return changes;
}

function textOf(assembly: PromptAssembly, name: string): string | undefined {
  return assembly.sections.find((section) => section.name === name)?.text;
}

function tool(name: string, description = name) {
  return { name, description, parameters: { type: "object" } };
}

describe("built-in sections", () => {
  it("registers the harness identity at -100 and an empty persona at 0", async () => {
    const prompt = new SystemPrompt();
    const assembly = await prompt.assemble();
    assert.equal(typeof HARNESS_IDENTITY, "string");
    assert.ok(HARNESS_IDENTITY.length > 0);
    assert.deepEqual(assembly.sections, [
      { name: HARNESS_IDENTITY_SECTION, order: -100, text: HARNESS_IDENTITY },
      { name: PERSONA_SECTION, order: 0, text: "" },
    ]);
    assert.equal(HARNESS_IDENTITY_SECTION, "harness:identity");
    assert.equal(PERSONA_SECTION, "deployment:persona");
    assert.deepEqual(assembly.tools, []);
    assert.deepEqual(assembly.variables, {});
    // The empty persona disappears at render.
    assert.equal(renderPrompt(assembly), HARNESS_IDENTITY);
  });

  it("omits the identity with includeHarnessIdentity: false", async () => {
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      persona: "Be brief.",
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.sections, [
      { name: PERSONA_SECTION, order: 0, text: "Be brief." },
    ]);
    assert.equal(renderPrompt(assembly), "Be brief.");
  });

  it("keeps the identity with includeHarnessIdentity: true", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: true });
    assert.deepEqual(sectionNames(await prompt.assemble()), [
      HARNESS_IDENTITY_SECTION,
      PERSONA_SECTION,
    ]);
  });

  it("renders the persona between negative and positive orders", async () => {
    const prompt = new SystemPrompt({ persona: "PERSONA" });
    prompt.section({ name: "after", order: 100, text: "AFTER" });
    prompt.section({ name: "before", order: -1, text: "BEFORE" });
    prompt.section({ name: "first", order: -101, text: "FIRST" });
    assert.equal(
      renderPrompt(await prompt.assemble()),
      ["FIRST", HARNESS_IDENTITY, "BEFORE", "PERSONA", "AFTER"].join("\n\n"),
    );
  });

  it("treats the persona as a strict template", async () => {
    const prompt = new SystemPrompt({ persona: "You run on {{model}}." });
    const without = await prompt.assemble();
    assert.throws(
      () => renderPrompt(without),
      rejects("UNKNOWN_VARIABLE", /deployment:persona/),
    );
    prompt.variable("model", () => "example-model");
    const withVariable = await prompt.assemble();
    assert.equal(
      textOf(withVariable, PERSONA_SECTION),
      "You run on {{model}}.",
    );
    assert.equal(
      renderPrompt(withVariable),
      `${HARNESS_IDENTITY}\n\nYou run on example-model.`,
    );
  });

  it("an empty persona still reserves the name", () => {
    const prompt = new SystemPrompt({ persona: "" });
    assert.throws(
      () => prompt.section({ name: PERSONA_SECTION, order: 0, text: "x" }),
      rejects("DUPLICATE_SECTION"),
    );
  });

  for (const name of [HARNESS_IDENTITY_SECTION, PERSONA_SECTION]) {
    it(`re-registering ${name} globally throws DUPLICATE_SECTION, also through a fork`, async () => {
      const prompt = new SystemPrompt({ persona: "P" });
      const changes = record(prompt);
      assert.throws(
        () => prompt.section({ name, order: 5, text: "mine" }),
        rejects("DUPLICATE_SECTION", /scope/),
      );
      assert.throws(
        () => prompt.fork().section({ name, order: 5, text: "mine" }),
        rejects("DUPLICATE_SECTION", /scope/),
      );
      assert.deepEqual(changes, []);
      const assembly = await prompt.assemble();
      assert.notEqual(textOf(assembly, name), "mine");
    });
  }

  it("a scope may shadow the built-ins for that scope only", async () => {
    const prompt = new SystemPrompt({ persona: "global persona" });
    const agent = { id: "agent" };
    const other = { id: "other" };
    const scoped = prompt.scope(agent);
    scoped.section({ name: PERSONA_SECTION, order: 0, text: "agent persona" });
    scoped.section({ name: HARNESS_IDENTITY_SECTION, order: 50, text: "ID" });
    prompt.scope(other).section({ name: "other", order: 1, text: "o" });

    const forAgent = await prompt.assemble({ scope: agent });
    assert.deepEqual(forAgent.sections, [
      { name: PERSONA_SECTION, order: 0, text: "agent persona" },
      { name: HARNESS_IDENTITY_SECTION, order: 50, text: "ID" },
    ]);
    const global = await prompt.assemble();
    assert.deepEqual(global.sections, [
      { name: HARNESS_IDENTITY_SECTION, order: -100, text: HARNESS_IDENTITY },
      { name: PERSONA_SECTION, order: 0, text: "global persona" },
    ]);
    const forOther = await prompt.assemble({ scope: other });
    assert.equal(textOf(forOther, PERSONA_SECTION), "global persona");
    assert.equal(textOf(forOther, HARNESS_IDENTITY_SECTION), HARNESS_IDENTITY);
  });
});

describe("constructor validation", () => {
  const badToolOrders: [string, unknown][] = [
    ["not an array", "shell"],
    ["an object", { 0: TOOL_ORDER_REST }],
    ["without the rest entry", ["shell"]],
    ["empty", []],
    ["the rest entry twice", [TOOL_ORDER_REST, "a", TOOL_ORDER_REST]],
    ["a duplicate name", ["a", TOOL_ORDER_REST, "a"]],
    ["an empty name", ["", TOOL_ORDER_REST]],
    ["a non-string entry", [1, TOOL_ORDER_REST]],
    ["a null entry", [null, TOOL_ORDER_REST]],
  ];
  for (const [label, toolOrder] of badToolOrders) {
    it(`throws INVALID_TOOL_ORDER synchronously for toolOrder ${label}`, () => {
      assert.throws(
        () => new SystemPrompt({ toolOrder } as unknown as SystemPromptConfig),
        rejects("INVALID_TOOL_ORDER"),
      );
    });
  }

  it("accepts a valid toolOrder and an absent one", () => {
    assert.ok(new SystemPrompt({ toolOrder: ["shell", TOOL_ORDER_REST] }));
    assert.ok(new SystemPrompt({ toolOrder: [TOOL_ORDER_REST] }));
    assert.ok(new SystemPrompt({}));
    assert.ok(new SystemPrompt());
  });

  for (const persona of [42, null, {}, ["a"], () => "x"]) {
    it(`throws INVALID_CONFIG for persona ${typeof persona} ${String(persona)}`, () => {
      assert.throws(
        () => new SystemPrompt({ persona } as unknown as SystemPromptConfig),
        rejects("INVALID_CONFIG"),
      );
    });
  }

  it("throws INVALID_CONFIG when config is not an object", () => {
    assert.throws(
      () => new SystemPrompt("persona" as unknown as SystemPromptConfig),
      rejects("INVALID_CONFIG"),
    );
  });
});

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
      const changes = record(prompt);
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
      const changes = record(prompt);
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
    const changes = record(prompt);
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
    const changes = record(prompt);
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
    const changes = record(prompt);
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

  it("registering the same tool provider twice makes two registrations", async () => {
    const prompt = new SystemPrompt();
    let calls = 0;
    const provider = () => {
      calls++;
      return { schemas: [tool("shell")] };
    };
    const first = prompt.tools(provider);
    const second = prompt.tools(provider);
    assert.notEqual(first, second);
    let assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools.map((t) => t.name), ["shell", "shell"]);
    assert.equal(calls, 2);
    await first();
    assembly = await prompt.assemble();
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
      const changes = record(prompt);
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

describe("change$", () => {
  it("emits one event per registration and unregistration, with kind, name and scope", async () => {
    const prompt = new SystemPrompt();
    const changes = record(prompt);
    const agent = { id: "agent" };
    const scoped = prompt.scope(agent);

    const disposers = [
      prompt.section({ name: "s", order: 0, text: "" }),
      prompt.variable("v", () => "x"),
      prompt.tools(() => ({ schemas: [] })),
      prompt.onAssemble((a) => a),
      scoped.section({ name: "ss", order: 0, text: "" }),
      scoped.variable("sv", () => "x"),
      scoped.tools(() => ({ schemas: [] })),
      scoped.onAssemble((a) => a),
    ];
    assert.equal(changes.length, 8);
    const expected: [string, string | undefined, ScopeKey | undefined][] = [
      ["section", "s", undefined],
      ["variable", "v", undefined],
      ["tools", undefined, undefined],
      ["listener", undefined, undefined],
      ["section", "ss", agent],
      ["variable", "sv", agent],
      ["tools", undefined, agent],
      ["listener", undefined, agent],
    ];
    changes.forEach((change, index) => {
      const [kind, name, scope] = expected[index];
      assert.equal(change.type, "register");
      assert.equal(change.kind, kind);
      assert.equal(change.name, name);
      assert.equal(change.scope, scope);
    });
    assert.equal(
      "scope" in changes[0] && changes[0].scope !== undefined,
      false,
    );

    for (const dispose of disposers) await dispose();
    assert.equal(changes.length, 16);
    changes.slice(8).forEach((change, index) => {
      const [kind, name, scope] = expected[index];
      assert.equal(change.type, "unregister");
      assert.equal(change.kind, kind);
      assert.equal(change.name, name);
      assert.equal(change.scope, scope);
    });
  });

  it("carries the scope key itself (identity), for object, string, number and symbol keys", () => {
    const prompt = new SystemPrompt();
    const changes = record(prompt);
    const keys: ScopeKey[] = [{ id: 1 }, "agent-1", 7, Symbol("agent")];
    for (const key of keys) {
      prompt.scope(key).section({ name: "x", order: 0, text: "" });
    }
    assert.equal(changes.length, keys.length);
    changes.forEach((change, index) => assert.equal(change.scope, keys[index]));
  });

  it("emits nothing for failed registrations", () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "taken", order: 0, text: "" });
    prompt.variable("taken", () => "");
    const changes = record(prompt);
    const attempts = [
      () => prompt.section({ name: "taken", order: 0, text: "" }),
      () => prompt.variable("taken", () => ""),
      () => prompt.variable("Bad", () => ""),
      () => prompt.section({ name: "", order: 0, text: "" }),
      () => prompt.tools(null as never),
      () => prompt.scope(null as never),
    ];
    for (const attempt of attempts) assert.throws(attempt);
    assert.deepEqual(changes, []);
  });

  it("emits after the state is committed", async () => {
    const prompt = new SystemPrompt();
    const seen: Promise<[string, boolean]>[] = [];
    prompt.change$.subscribe((change) => {
      if (change.kind !== "section") return;
      seen.push(
        prompt.assemble().then((assembly) => [
          change.type,
          sectionNames(assembly).includes("probe"),
        ]),
      );
    });
    const dispose = prompt.section({ name: "probe", order: 1, text: "" });
    assert.equal(seen.length, 1);
    const registered = await seen[0];
    await dispose();
    assert.equal(seen.length, 2);
    assert.deepEqual(registered, ["register", true]);
    assert.deepEqual(await seen[1], ["unregister", false]);
  });

  it("is hot: a late subscriber sees only later changes", () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "early", order: 0, text: "" });
    const changes = record(prompt);
    assert.equal(changes.length, 0);
    prompt.section({ name: "late", order: 0, text: "" });
    assert.equal(changes.length, 1);
    assert.equal(changes[0].name, "late");
  });

  it("a throwing subscriber affects neither the state nor other subscribers", async () => {
    // RxJS reports an error thrown by a subscriber asynchronously
    // (reportUnhandledError → setTimeout → throw). Capture it instead of
    // letting it surface as an uncaught error of the test run.
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      const prompt = new SystemPrompt();
      const boom = new Error("subscriber failed");
      const before: string[] = [];
      const after: string[] = [];
      prompt.change$.subscribe((change) => before.push(change.type));
      prompt.change$.subscribe(() => {
        throw boom;
      });
      prompt.change$.subscribe((change) => after.push(change.type));

      const dispose = prompt.section({ name: "a", order: 1, text: "A" });
      prompt.section({ name: "b", order: 2, text: "B" });
      assert.deepEqual(before, ["register", "register"]);
      assert.deepEqual(after, ["register", "register"]);
      assert.deepEqual(sectionNames(await prompt.assemble()).slice(2), [
        "a",
        "b",
      ]);
      await dispose();
      assert.deepEqual(after, ["register", "register", "unregister"]);
      assert.deepEqual(sectionNames(await prompt.assemble()).slice(2), ["b"]);
      // Let RxJS's deferred error reports run while they are captured.
      await new Promise((resolve) => setTimeout(resolve, 0));
      // Whether the registry isolates subscribers itself or RxJS reports
      // the error, it never reaches the registration call.
      for (const error of reported) assert.equal(error, boom);
    } finally {
      config.onUnhandledError = previous;
    }
  });
});

describe("registry disposal", () => {
  it("disposes every registrar and built-in, completes change$, and refuses later use", async () => {
    const prompt = new SystemPrompt({ persona: "P" });
    const fork = prompt.fork();
    const scoped = prompt.scope("agent");
    const nested = scoped.fork();
    const teardowns: string[] = [];
    fork.section({ name: "f", order: 1, text: "" });
    nested.variable("v", () => "x");
    scoped.effect(function* () {
      yield () => void teardowns.push("scoped effect");
    });
    fork.effect(function* () {
      yield () => void teardowns.push("fork effect");
    });
    let completed = false;
    const unregistered: (string | undefined)[] = [];
    prompt.change$.subscribe({
      next: (change) => {
        if (change.type === "unregister") unregistered.push(change.name);
      },
      complete: () => {
        completed = true;
      },
    });

    const disposing = prompt.dispose();
    assert.equal(prompt.disposed, true);
    await disposing;
    assert.equal(completed, true);
    assert.deepEqual(teardowns, ["scoped effect", "fork effect"]);
    for (const registrar of [fork, scoped, nested]) {
      assert.equal(registrar.disposed, true);
    }
    assert.ok(unregistered.includes("f"));
    assert.ok(unregistered.includes("v"));
    assert.equal(scopeLayerCount(prompt), 0);

    assert.throws(
      () => prompt.section({ name: "x", order: 0, text: "" }),
      rejects("DISPOSED"),
    );
    assert.throws(
      () => fork.tools(() => ({ schemas: [] })),
      rejects("DISPOSED"),
    );
    assert.throws(() => prompt.scope("agent"), rejects("DISPOSED"));
    await assert.rejects(prompt.assemble(), rejects("DISPOSED"));
    await assert.rejects(
      prompt.assemble({ scope: "agent" }),
      rejects("DISPOSED"),
    );

    // A subscriber arriving after disposal is completed at once.
    let lateCompleted = false;
    prompt.change$.subscribe({ complete: () => void (lateCompleted = true) });
    assert.equal(lateCompleted, true);
    // Idempotent.
    assert.equal(prompt.dispose(), disposing);
  });

  it("works with await using", async () => {
    let outer: SystemPrompt | undefined;
    {
      await using prompt = new SystemPrompt();
      outer = prompt;
      prompt.section({ name: "a", order: 0, text: "" });
      assert.equal(prompt.disposed, false);
    }
    assert.equal(outer.disposed, true);
    await assert.rejects(outer.assemble(), rejects("DISPOSED"));
  });
});

describe("scope keys", () => {
  it("compares keys by identity: two equal-looking objects are two layers", async () => {
    const prompt = new SystemPrompt();
    const a = { id: "same" };
    const b = { id: "same" };
    prompt.scope(a).section({ name: "x", order: 1, text: "for a" });
    prompt.scope(b).section({ name: "x", order: 1, text: "for b" });
    assert.equal(scopeLayerCount(prompt), 2);
    assert.equal(textOf(await prompt.assemble({ scope: a }), "x"), "for a");
    assert.equal(textOf(await prompt.assemble({ scope: b }), "x"), "for b");
    assert.equal(
      textOf(await prompt.assemble({ scope: { id: "same" } }), "x"),
      undefined,
    );
    assert.equal(textOf(await prompt.assemble(), "x"), undefined);
  });

  it("string, number and symbol keys select layers with Map semantics", async () => {
    const prompt = new SystemPrompt();
    const symbol = Symbol("agent");
    prompt.scope("1").section({ name: "x", order: 1, text: "string" });
    prompt.scope(1).section({ name: "x", order: 1, text: "number" });
    prompt.scope(symbol).section({ name: "x", order: 1, text: "symbol" });
    assert.equal(scopeLayerCount(prompt), 3);
    assert.equal(textOf(await prompt.assemble({ scope: "1" }), "x"), "string");
    assert.equal(textOf(await prompt.assemble({ scope: 1 }), "x"), "number");
    assert.equal(
      textOf(await prompt.assemble({ scope: symbol }), "x"),
      "symbol",
    );
    assert.equal(
      textOf(await prompt.assemble({ scope: Symbol("agent") }), "x"),
      undefined,
    );
    // Two registrars for an equal primitive key share one layer.
    prompt.scope("1").section({ name: "y", order: 2, text: "also string" });
    assert.equal(scopeLayerCount(prompt), 3);
    assert.deepEqual(
      sectionNames(await prompt.assemble({ scope: "1" })).slice(2),
      ["x", "y"],
    );
  });

  it("exposes the registrar's scopeKey", () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    assert.equal(prompt.scopeKey, undefined);
    assert.equal(prompt.fork().scopeKey, undefined);
    const scoped = prompt.scope(key);
    assert.equal(scoped.scopeKey, key);
    assert.equal(scoped.fork().scopeKey, key);
    assert.equal(scoped.scope("other").scopeKey, "other");
  });

  it("a scope registrar made from a scope registrar writes to the new key's layer", async () => {
    const prompt = new SystemPrompt();
    const outer = prompt.scope("outer");
    const inner = outer.scope("inner");
    inner.section({ name: "x", order: 1, text: "inner" });
    assert.equal(
      textOf(await prompt.assemble({ scope: "inner" }), "x"),
      "inner",
    );
    assert.equal(
      textOf(await prompt.assemble({ scope: "outer" }), "x"),
      undefined,
    );
    // ...and is owned by its parent.
    await outer.dispose();
    assert.equal(inner.disposed, true);
    assert.equal(
      textOf(await prompt.assemble({ scope: "inner" }), "x"),
      undefined,
    );
  });
});
