/**
 * SPEC 7.2: `explain()`: origins of sections, tools and variables, offsets,
 * token counts, shadowing, listener-made entries, and the failures of
 * `assemble`.
 */
import { describe, it, mock } from "node:test";
import assert from "node:assert/strict";
import {
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
  SystemPrompt,
  SystemPromptError,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

/** A registry without the built-in identity, for short prompts. */
function bare(persona = ""): SystemPrompt {
  return new SystemPrompt({ includeHarnessIdentity: false, persona });
}

/** The text each section renders to on its own (the offsets' oracle). */
function renderedAlone(assembly: PromptAssembly, index: number): string {
  return renderPrompt({ ...assembly, sections: [assembly.sections[index]] });
}

function words(text: string): number {
  return text === "" ? 0 : text.split(/\s+/).length;
}

/** A scope registration's stability in explain() (SPEC 8.1). */
const AGENT = { stability: "agent", stabilityReason: "layer default" } as const;
/** A global registration's stability in explain(). */
const STABLE = {
  stability: "stable",
  stabilityReason: "layer default",
} as const;

describe("explain(): sections", () => {
  it("names each section's registrar label and layer, in the assembly's order", async () => {
    const prompt = new SystemPrompt({ persona: "You help." });
    const shell = prompt.fork({ label: "shell" });
    shell.section({ name: "tools:shell", order: 110, text: "Run it." });
    prompt.fork().section({ name: "a", order: 5, text: "A." });

    const explanation = await prompt.explain();
    assert.deepEqual(
      explanation.sections.map(({ name, registrar, layer }) => ({
        name,
        registrar,
        layer,
      })),
      [
        {
          name: HARNESS_IDENTITY_SECTION,
          registrar: "registry",
          layer: "global",
        },
        { name: PERSONA_SECTION, registrar: "registry", layer: "global" },
        { name: "a", registrar: "registry/fork", layer: "global" },
        { name: "tools:shell", registrar: "registry/shell", layer: "global" },
      ],
    );
    for (const origin of explanation.sections) {
      assert.equal("scope" in origin, false);
      assert.equal("tokens" in origin, false);
    }
    await prompt.dispose();
  });

  it("gives UTF-16 offsets that slice the prompt to each section's rendered text; empty sections have start === end", async () => {
    const prompt = bare("😀 persona on {{model}}");
    prompt.variable("model", () => "m-é");
    prompt.section({ name: "a", order: 1, text: "" });
    prompt.section({ name: "b", order: 2, text: "x\n\ny {{model}}" });
    prompt.section({ name: "c", order: 3, text: () => "" });
    prompt.section({ name: "d", order: 4, text: "end" });

    const { prompt: text, sections, assembly } = await prompt.explain();
    assert.equal(text, renderPrompt(assembly));
    assert.deepEqual(
      sections.map(({ name, start, end }) => [name, start, end]),
      [
        [PERSONA_SECTION, 0, 17],
        ["a", 17, 17],
        ["b", 19, 27],
        ["c", 27, 27],
        ["d", 29, 32],
      ],
    );
    sections.forEach((origin, index) => {
      assert.equal(
        text.slice(origin.start, origin.end),
        renderedAlone(assembly, index),
      );
    });
    await prompt.dispose();
  });

  it("renders each section once: offsets slice the prompt even when a text getter answers differently each time", async () => {
    // Issue 21, defect 7: the prompt and the offsets came from two renders.
    for (const entry of ["explain", "countTokens"] as const) {
      const prompt = bare("Persona.");
      let reads = 0;
      prompt.onAssemble((assembly) => {
        const section = { name: "shifty", order: 5, text: "" };
        Object.defineProperty(section, "text", {
          enumerable: true,
          get: () => ++reads % 2 === 1 ? "Short." : "A much longer answer.",
        });
        assembly.sections.push(section);
        return assembly;
      });
      const counted: string[] = [];
      const explanation = await prompt.explain(
        undefined,
        entry === "countTokens"
          ? { countTokens: (text) => (counted.push(text), 1) }
          : undefined,
      );
      const slices = explanation.sections.map(({ start, end }) =>
        explanation.prompt.slice(start, end)
      );
      assert.equal(explanation.prompt, slices.join("\n\n"), entry);
      assert.equal(slices[1], explanation.prompt.split("\n\n")[1], entry);
      if (entry === "countTokens") assert.deepEqual(counted, slices);
      await prompt.dispose();
    }
  });

  it("offsets of a prompt whose first sections render empty start at 0", async () => {
    const prompt = bare();
    prompt.section({ name: "a", order: 1, text: "A" });
    const { sections } = await prompt.explain();
    assert.deepEqual(sections.map(({ start, end }) => [start, end]), [
      [0, 0],
      [0, 1],
    ]);
    await prompt.dispose();
  });
});

describe("explain(): shadowing by scope", () => {
  it("reports the scope's winners with their scope key, and what they shadowed with the winner's label", async () => {
    const prompt = bare("Global persona.");
    const agent = { id: "reviewer" };
    const plugin = prompt.fork({ label: "plugin" });
    plugin.section({ name: "s", order: 1, text: "global s" });
    plugin.variable("model", () => "global model");
    plugin.tools(() => ({ schemas: [tool("read"), tool("shell")] }));
    const scope = prompt.scope(agent, { label: "reviewer" });
    scope.section({ name: PERSONA_SECTION, order: 0, text: "Reviewer." });
    scope.section({ name: "s", order: 1, text: "scope s" });
    scope.variable("model", () => "scope model");
    scope.tools(() => ({ schemas: [tool("shell", "scoped")] }));

    const explanation = await prompt.explain({ scope: agent });
    const scoped = {
      registrar: "registry/reviewer",
      layer: "scope",
      scope: agent,
      ...AGENT,
    };
    assert.deepEqual(
      explanation.sections.map(({ start: _s, end: _e, ...o }) => o),
      [
        { name: PERSONA_SECTION, ...scoped },
        { name: "s", ...scoped },
      ],
    );
    assert.equal(explanation.sections[0].scope, agent); // identity
    assert.deepEqual(explanation.tools, [
      {
        name: "read",
        registrar: "registry/plugin",
        layer: "global",
        ...STABLE,
      },
      { name: "shell", ...scoped },
    ]);
    assert.deepEqual(explanation.variables, [
      { name: "model", ...scoped, defined: true },
    ]);
    assert.deepEqual(explanation.shadowed, [
      {
        kind: "section",
        name: PERSONA_SECTION,
        registrar: "registry",
        layer: "global",
        by: "registry/reviewer",
      },
      {
        kind: "section",
        name: "s",
        registrar: "registry/plugin",
        layer: "global",
        by: "registry/reviewer",
      },
      {
        kind: "variable",
        name: "model",
        registrar: "registry/plugin",
        layer: "global",
        by: "registry/reviewer",
      },
      {
        kind: "tool",
        name: "shell",
        registrar: "registry/plugin",
        layer: "global",
        by: "registry/reviewer",
      },
    ]);

    // The global view shadows nothing.
    const global = await prompt.explain();
    assert.deepEqual(global.shadowed, []);
    assert.deepEqual(global.sections.map((o) => o.registrar), [
      "registry",
      "registry/plugin",
    ]);
    await prompt.dispose();
  });

  it("follows a scope chain of any depth: the nearest layer wins, each origin carries its own layer's key", async () => {
    const prompt = bare();
    const preset = { id: "preset" };
    const child = { id: "child" };
    const grandchild = { id: "grandchild" };
    prompt.bindScope(child, preset);
    prompt.bindScope(grandchild, child);
    prompt.section({ name: "a", order: 1, text: "global a" });
    prompt.section({ name: "b", order: 2, text: "global b" });
    prompt.variable("v", () => "global");
    prompt.tools(() => ({ schemas: [tool("t"), tool("u")] }));
    const presetScope = prompt.scope(preset, { label: "preset" });
    presetScope.section({ name: "a", order: 1, text: "preset a" });
    presetScope.section({ name: "c", order: 3, text: "preset c" });
    presetScope.variable("v", () => "preset");
    presetScope.tools(() => ({ schemas: [tool("t", "preset")] }));
    const childScope = prompt.scope(child, { label: "child" });
    childScope.section({ name: "a", order: 1, text: "child a" });
    prompt.scope(grandchild, { label: "grandchild" }).section({
      name: "d",
      order: 4,
      text: "grandchild d",
    });

    const explanation = await prompt.explain({ scope: grandchild });
    assert.equal(
      explanation.prompt,
      "child a\n\nglobal b\n\npreset c\n\ngrandchild d",
    );
    assert.deepEqual(
      explanation.sections.map((o) => [o.name, o.registrar, o.layer, o.scope]),
      [
        [PERSONA_SECTION, "registry", "global", undefined],
        ["a", "registry/child", "scope", child],
        ["b", "registry", "global", undefined],
        ["c", "registry/preset", "scope", preset],
        ["d", "registry/grandchild", "scope", grandchild],
      ],
    );
    assert.deepEqual(
      explanation.tools.map((o) => [o.name, o.registrar, o.scope]),
      // The global (stable) tool before the scope's (agent) one (SPEC 8.2).
      [["u", "registry", undefined], ["t", "registry/preset", preset]],
    );
    assert.deepEqual(explanation.variables, [
      {
        name: "v",
        registrar: "registry/preset",
        layer: "scope",
        scope: preset,
        defined: true,
        ...AGENT,
      },
    ]);
    assert.deepEqual(
      explanation.shadowed.map((o) => [o.kind, o.name, o.registrar, o.scope]),
      [
        ["section", "a", "registry", undefined],
        ["section", "a", "registry/preset", preset],
        ["variable", "v", "registry", undefined],
        ["tool", "t", "registry", undefined],
      ],
    );
    assert.deepEqual(explanation.shadowed.map((o) => o.by), [
      "registry/child",
      "registry/child",
      "registry/preset",
      "registry/preset",
    ]);
    assert.deepEqual(
      explanation.assembly,
      await prompt.assemble({ scope: grandchild }),
    );
    await prompt.dispose();
  });
});

describe("explain(): runtime context and complete sections", () => {
  it("attributes registered runtime context entries, shadowed by scope, with offsets into renderRuntimeContext", async () => {
    const prompt = bare();
    const agent = "agent";
    prompt.variable("date", () => "2026-12-02");
    prompt.runtimeContext({
      name: "date",
      order: 0,
      text: "Today is {{date}}.",
    });
    prompt.runtimeContext({ name: "git", order: 1, text: "Dirty tree." });
    prompt.runtimeContext({ name: "empty", order: 2, text: "" });
    prompt.scope(agent, { label: "agent" }).runtimeContext({
      name: "git",
      order: 1,
      text: () => "Clean tree.",
    });
    const explanation = await prompt.explain({ scope: agent }, {
      countTokens: words,
    });
    assert.deepEqual(explanation.runtimeContext, [
      {
        name: "date",
        registrar: "registry",
        layer: "global",
        start: 0,
        end: 20,
        tokens: 3,
      },
      {
        name: "git",
        registrar: "registry/agent",
        layer: "scope",
        scope: agent,
        start: 22,
        end: 33,
        tokens: 2,
      },
      {
        name: "empty",
        registrar: "registry",
        layer: "global",
        start: 33,
        end: 33,
        tokens: 0,
      },
    ]);
    const rendered = renderRuntimeContext(explanation.assembly);
    for (const origin of explanation.runtimeContext) {
      const entry = explanation.assembly.runtimeContext!.find((e) =>
        e.name === origin.name
      )!;
      assert.equal(
        rendered.slice(origin.start, origin.end),
        renderRuntimeContext({
          ...explanation.assembly,
          runtimeContext: [entry],
        }),
      );
    }
    assert.deepEqual(explanation.shadowed, [{
      kind: "runtimeContext",
      name: "git",
      registrar: "registry",
      layer: "global",
      by: "registry/agent",
    }]);
    await prompt.dispose();
  });

  it("gives no runtime context origins when runtime context is off, and still lists what a scope shadowed", async () => {
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      includeRuntimeContext: false,
    });
    prompt.runtimeContext({ name: "git", order: 0, text: "global" });
    prompt.scope("a").runtimeContext({ name: "git", order: 0, text: "scope" });
    const explanation = await prompt.explain({ scope: "a" });
    assert.deepEqual(explanation.runtimeContext, []);
    assert.deepEqual(explanation.assembly.runtimeContext, []);
    assert.deepEqual(explanation.shadowed.map((o) => [o.kind, o.by]), [
      ["runtimeContext", "registry/scope"],
    ]);
    await prompt.dispose();
  });

  it("a complete section restored after the waterfall keeps its registry origin", async () => {
    const prompt = new SystemPrompt({ persona: "Persona." });
    prompt.onAssemble((assembly) => {
      assembly.sections.push({ name: "added", order: 5, text: "Added." });
      return assembly;
    });
    prompt.scope("compat", { label: "compat" }).section({
      name: "compat:all",
      order: 0,
      text: "The whole prompt.",
      complete: true,
    });
    const explanation = await prompt.explain({ scope: "compat" });
    assert.equal(explanation.prompt, "The whole prompt.");
    assert.deepEqual(explanation.sections, [{
      name: "compat:all",
      registrar: "registry/compat",
      layer: "scope",
      scope: "compat",
      start: 0,
      end: 17,
      ...AGENT,
    }]);
    await prompt.dispose();
  });
});

describe("explain(): listener-made entries", () => {
  it('marks added and changed entries layer "listener" without a registrar, and keeps the origin of untouched ones', async () => {
    const prompt = bare();
    const plugin = prompt.fork({ label: "plugin" });
    plugin.section({ name: "kept", order: 1, text: "kept" });
    plugin.section({ name: "changed", order: 2, text: "before" });
    plugin.section({ name: "reordered", order: 3, text: "same text" });
    plugin.variable("kept_var", () => "k");
    plugin.variable("changed_var", () => "before");
    plugin.variable("unset", () => undefined);
    plugin.tools(() => ({
      schemas: [tool("kept_tool"), tool("changed_tool")],
    }));
    prompt.onAssemble(async (assembly, _context, next) => {
      const named = (name: string) =>
        assembly.sections.find((section) => section.name === name)!;
      named("changed").text = "after";
      named("reordered").order = 30;
      assembly.sections.push({ name: "added", order: 9, text: "new" });
      assembly.tools[0].parameters.extra = true; // changed_tool sorts first
      assembly.tools.push(tool("added_tool"));
      assembly.variables.changed_var = "after";
      assembly.variables.added_var = "a";
      return await next();
    });

    const explanation = await prompt.explain();
    const byName = new Map(
      [...explanation.sections, ...explanation.tools, ...explanation.variables]
        .map((origin) => [origin.name, origin]),
    );
    for (const name of ["kept", "kept_tool", "kept_var", "unset"]) {
      assert.equal(byName.get(name)?.registrar, "registry/plugin", name);
      assert.equal(byName.get(name)?.layer, "global", name);
    }
    for (
      const name of [
        "changed",
        "reordered",
        "added",
        "changed_tool",
        "added_tool",
        "changed_var",
        "added_var",
      ]
    ) {
      const origin = byName.get(name)!;
      assert.equal(origin.layer, "listener", name);
      assert.equal("registrar" in origin, false, name);
      assert.equal("scope" in origin, false, name);
    }
    assert.deepEqual(explanation.shadowed, []);
    await prompt.dispose();
  });

  it("marks a listener's copy of a registered entry as the listener's: each registered entry has one origin", async () => {
    const prompt = bare();
    prompt.section({ name: "s", order: 1, text: "same" });
    prompt.tools(() => ({ schemas: [tool("t")] }));
    prompt.onAssemble((assembly) => {
      assembly.sections.push({ ...assembly.sections.at(-1)! });
      assembly.tools.push(structuredClone(assembly.tools[0]));
      return assembly;
    });
    const { sections, tools } = await prompt.explain();
    assert.deepEqual(sections.map((o) => o.layer), [
      "global",
      "global",
      "listener",
    ]);
    assert.deepEqual(tools.map((o) => o.layer), ["global", "listener"]);
    await prompt.dispose();
  });

  it("a listener that replaces the assembly with equal entries keeps their origins", async () => {
    const prompt = bare();
    prompt.fork({ label: "p" }).section({ name: "s", order: 1, text: "x" });
    prompt.onAssemble((assembly) => structuredClone(assembly));
    const { sections } = await prompt.explain();
    assert.deepEqual(sections.map((o) => o.registrar), [
      "registry",
      "registry/p",
    ]);
    await prompt.dispose();
  });

  it("reports runtime context entries a listener adds, with offsets into renderRuntimeContext", async () => {
    const prompt = bare();
    prompt.variable("date", () => "2026-12-02");
    prompt.onAssemble((assembly) => {
      assembly.runtimeContext = [
        { name: "empty", order: 0, text: "" },
        { name: "date", order: 1, text: "Today is {{date}}." },
        { name: "git", order: 2, text: "Clean tree." },
      ];
      return assembly;
    });
    const explanation = await prompt.explain(undefined, {
      countTokens: words,
    });
    const rendered = renderRuntimeContext(explanation.assembly);
    assert.deepEqual(explanation.runtimeContext, [
      { name: "empty", layer: "listener", start: 0, end: 0, tokens: 0 },
      { name: "date", layer: "listener", start: 0, end: 20, tokens: 3 },
      { name: "git", layer: "listener", start: 22, end: 33, tokens: 2 },
    ]);
    assert.equal(rendered.slice(22, 33), "Clean tree.");
    assert.deepEqual((await bare().explain()).runtimeContext, []);
    await prompt.dispose();
  });

  it("rejects INVALID_ASSEMBLY naming the index when a listener adds a tool that is not an object with a string name", async () => {
    function run(): void {}
    for (const bad of [null, 7, { name: 5, description: "d" }, run]) {
      const prompt = bare();
      prompt.tools(() => ({ schemas: [tool("ok")] }));
      prompt.onAssemble((assembly) => {
        assembly.tools.push(bad as never);
        return assembly;
      });
      await assert.rejects(
        prompt.explain(),
        rejects("INVALID_ASSEMBLY", "tools[1]", "string name"),
        String(bad),
      );
      await prompt.dispose();
    }
  });
});

describe("explain(): token counts", () => {
  it("counts each section's rendered text and each tool's JSON with the given counter", async () => {
    const prompt = bare("Persona on {{model}}.");
    prompt.variable("model", () => "m1");
    prompt.section({ name: "empty", order: 5, text: "" });
    prompt.tools(() => ({ schemas: [tool("read", "Read a file.")] }));
    const counter = mock.fn((text: string) => text.length);

    const explanation = await prompt.explain(undefined, {
      countTokens: counter,
    });
    const read = explanation.assembly.tools[0];
    // SPEC 8.9's one accounting: a section that renders empty is 0 tokens
    // without a call.
    assert.deepEqual(counter.mock.calls.map((call) => call.arguments[0]), [
      "Persona on m1.",
      JSON.stringify(read),
    ]);
    assert.deepEqual(explanation.sections.map((o) => o.tokens), [14, 0]);
    assert.deepEqual(explanation.tools.map((o) => o.tokens), [
      JSON.stringify(read).length,
    ]);
    assert.equal("tokens" in explanation.variables[0], false);
    await prompt.dispose();
  });

  it("rejects PROVIDER_FAILED when the counter throws or returns no count, and validates the options", async () => {
    const prompt = bare("Persona.");
    const failure = new Error("tokenizer down");
    await assert.rejects(
      prompt.explain(undefined, {
        countTokens: () => {
          throw failure;
        },
      }),
      (error) => {
        rejects(
          "PROVIDER_FAILED",
          "countTokens",
          `on section "${PERSONA_SECTION}"`,
        )(error);
        assert.ok(error instanceof SystemPromptError);
        assert.equal(error.cause, failure);
        return true;
      },
    );
    const context = bare();
    context.runtimeContext({ name: "git", order: 0, text: "Clean." });
    await assert.rejects(
      context.explain(undefined, {
        countTokens: (text) => text === "Clean." ? -1 : 0,
      }),
      rejects("PROVIDER_FAILED", 'for runtime context entry "git"'),
    );
    await context.dispose();
    for (const bad of [Number.NaN, -1, Infinity, "3", undefined]) {
      await assert.rejects(
        prompt.explain(undefined, {
          countTokens: () => bad as unknown as number,
        }),
        rejects("PROVIDER_FAILED", "countTokens", PERSONA_SECTION),
      );
    }
    await assert.rejects(
      prompt.explain(undefined, {
        countTokens: "tiktoken" as unknown as () => number,
      }),
      rejects("INVALID_PROVIDER", "countTokens", '"tiktoken"'),
    );
    await assert.rejects(
      prompt.explain(undefined, 5 as unknown as undefined),
      rejects("INVALID_CONFIG", "explain()", "5"),
    );
    await prompt.dispose();
  });

  it("rejects INVALID_CONFIG with the cause when the options cannot be read", async () => {
    // Issue 21, defect 5: a getter's or a Proxy's error escaped raw.
    const prompt = bare("Persona.");
    const boom = new Error("hostile options");
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const hostile: [string, unknown][] = [
      ["getter", {
        get countTokens(): never {
          throw boom;
        },
      }],
      [
        "Proxy",
        new Proxy({}, {
          get(): never {
            throw boom;
          },
        }),
      ],
      ["revoked Proxy", revoked],
    ];
    for (const [label, options] of hostile) {
      await assert.rejects(
        prompt.explain(undefined, options as never),
        (error) => {
          rejects("INVALID_CONFIG", "explain()", "countTokens")(error);
          const { cause } = error as Error;
          if (label === "revoked Proxy") assert.ok(cause instanceof TypeError);
          else assert.equal(cause, boom, label);
          return true;
        },
      );
    }
    await prompt.dispose();
  });

  it("numbers pruned sections in English: 1st, 2nd, 3rd … 11th, 12th, 13th … 21st", async () => {
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      budget: { maxTokens: 1, countTokens: (text) => text.length },
    });
    for (let index = 0; index < 25; index++) {
      prompt.section({ name: `s${index}`, order: index, text: "x" });
    }
    const { pruned = [] } = await prompt.explain();
    const ordinals = pruned.map(({ reason }) => reason.split(" ")[0]);
    assert.deepEqual(ordinals.slice(0, 23), [
      "1st",
      "2nd",
      "3rd",
      "4th",
      "5th",
      "6th",
      "7th",
      "8th",
      "9th",
      "10th",
      "11th",
      "12th",
      "13th",
      "14th",
      "15th",
      "16th",
      "17th",
      "18th",
      "19th",
      "20th",
      "21st",
      "22nd",
      "23rd",
    ]);
    await prompt.dispose();
  });

  it("rejects a tool that cannot be written as JSON when tokens are asked for", async () => {
    const prompt = bare();
    prompt.onAssemble((assembly) => {
      assembly.tools.push(tool("big", "d", { n: 1n }));
      return assembly;
    });
    const { tools } = await prompt.explain();
    assert.deepEqual(tools, [{
      name: "big",
      layer: "listener",
      stability: "stable",
      stabilityReason: "listener",
    }]);
    await assert.rejects(
      prompt.explain(undefined, { countTokens: words }),
      rejects("INVALID_ASSEMBLY", '"big"', "JSON"),
    );
    await prompt.dispose();
  });
});

describe("explain(): variables", () => {
  it("lists every key of assembly.variables in order, with defined false for an undefined value", async () => {
    const prompt = bare();
    const agent = "a";
    prompt.variable("zeta", () => "z");
    prompt.variable("alpha", () => undefined);
    prompt.scope(agent, { label: "agent" }).variable("mid", () => "m");
    const explanation = await prompt.explain({ scope: agent });
    assert.deepEqual(
      explanation.variables.map((o) => o.name),
      Object.keys(explanation.assembly.variables),
    );
    assert.deepEqual(explanation.variables, [
      {
        name: "alpha",
        registrar: "registry",
        layer: "global",
        defined: false,
        ...STABLE,
      },
      {
        name: "mid",
        registrar: "registry/agent",
        layer: "scope",
        scope: agent,
        defined: true,
        ...AGENT,
      },
      {
        name: "zeta",
        registrar: "registry",
        layer: "global",
        defined: true,
        ...STABLE,
      },
    ]);
    await prompt.dispose();
  });
});

describe("explain(): the assembly and failures of assemble()", () => {
  it("resolves to the assembly assemble() gives, calling each provider once, from one snapshot", async () => {
    const prompt = new SystemPrompt<{ scope?: string }>({
      toolOrder: ["b", TOOL_ORDER_REST],
    });
    const calls = { section: 0, variable: 0, tools: 0 };
    let late: (() => unknown) | undefined;
    prompt.section({
      name: "s",
      order: 1,
      text: () => {
        calls.section++;
        // A registration made while assembling does not reach this one.
        late ??= prompt.section({ name: "late", order: 2, text: "late" });
        return "S {{v}}";
      },
    });
    prompt.variable("v", () => (calls.variable++, "value"));
    prompt.tools(() => (calls.tools++, { schemas: [tool("a"), tool("b")] }));

    const explanation = await prompt.explain();
    assert.deepEqual(calls, { section: 1, variable: 1, tools: 1 });
    assert.equal(explanation.sections.some((o) => o.name === "late"), false);
    await late?.();
    assert.deepEqual(explanation.assembly, await prompt.assemble());
    assert.deepEqual(explanation.tools.map((o) => o.name), ["b", "a"]);
    await prompt.dispose();
  });

  it("returns fresh objects: mutating an explanation changes no later assembly", async () => {
    const prompt = bare("P");
    prompt.tools(() => ({ schemas: [tool("t")] }));
    const first = await prompt.explain();
    first.assembly.sections[0].text = "changed";
    first.assembly.tools[0].parameters.x = 1;
    const second = await prompt.explain();
    assert.equal(second.prompt, "P");
    assert.deepEqual(second.assembly.tools[0].parameters, { type: "object" });
    await prompt.dispose();
  });

  it("rejects exactly as assemble() does", async () => {
    const listenerError = new Error("listener broke");
    const cases: [string, (prompt: SystemPrompt) => void, object?][] = [
      ["a throwing section", (p) =>
        p.section({
          name: "s",
          order: 1,
          text: () => {
            throw new Error("no text");
          },
        })],
      ["a throwing variable", (p) =>
        p.variable("v", () => {
          throw new Error("no value");
        })],
      [
        "a duplicate tool",
        (p) => p.tools(() => ({ schemas: [tool("t"), tool("t")] })),
      ],
      [
        "a bad tool schema",
        (p) => p.tools(() => ({ schemas: [{ name: "" }] as never })),
      ],
      ["a throwing listener", (p) =>
        p.onAssemble(() => {
          throw listenerError;
        })],
      [
        "a listener returning nothing",
        (p) => p.onAssemble(() => undefined as never),
      ],
      ["an invalid context", () => {}, 42 as unknown as object],
      ["a null scope", () => {}, { scope: null }],
      ["an aborted signal", () => {}, {
        signal: AbortSignal.abort(new Error("stop")),
      }],
    ];
    for (const [what, setUp, context] of cases) {
      const prompt = new SystemPrompt();
      setUp(prompt);
      const assembled = await prompt.assemble(context as never).then(
        () => assert.fail(`${what}: assemble resolved`),
        (error: unknown) => error,
      );
      const explained = await prompt.explain(context as never).then(
        () => assert.fail(`${what}: explain resolved`),
        (error: unknown) => error,
      );
      assert.equal(
        (explained as Error).constructor,
        (assembled as Error).constructor,
        what,
      );
      assert.equal(String(explained), String(assembled), what);
      assert.equal(
        (explained as SystemPromptError).code,
        (assembled as SystemPromptError).code,
        what,
      );
      await prompt.dispose();
    }

    const prompt = new SystemPrompt();
    prompt.onAssemble(() => {
      throw listenerError;
    });
    await assert.rejects(prompt.explain(), (error) => error === listenerError);
    await prompt.dispose();
    await assert.rejects(prompt.explain(), rejects("DISPOSED"));
  });

  it("rejects with the signal's reason when aborted while listeners run", async () => {
    const prompt = bare();
    const controller = new AbortController();
    const reason = new Error("superseded");
    prompt.onAssemble(async (_assembly, _context, next) => {
      await Promise.resolve();
      controller.abort(reason);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return next();
    });
    await assert.rejects(
      prompt.explain({ signal: controller.signal }),
      (error) => error === reason,
    );
    await prompt.dispose();
  });

  it("rejects when the prompt does not render, with renderPrompt's error", async () => {
    const prompt = bare("Hello {{missing}}.");
    await prompt.assemble(); // assembling is fine, rendering is not
    await assert.rejects(
      prompt.explain(),
      rejects("UNKNOWN_VARIABLE", PERSONA_SECTION, "{{missing}}"),
    );
    await prompt.dispose();
  });

  it("never throws synchronously", () => {
    const prompt = bare();
    const pending = prompt.explain(7 as never, 7 as never);
    assert.ok(pending instanceof Promise);
    return assert.rejects(pending, rejects("INVALID_CONTEXT"));
  });
});
