/**
 * SPEC 8.1, 8.2, 8.13.2: stability on sections, variables and tool
 * providers, its defaults, the effective stability through referenced
 * variables, `toolStability`, and the order of unlisted tools.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BehaviorSubject, of } from "rxjs";
import {
  PERSONA_SECTION,
  type PromptAssembly,
  renderPrompt,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool, tools } from "../fixtures.ts";

function stabilityOf(
  assembly: PromptAssembly,
  name: string,
): string | undefined {
  const section = assembly.sections.find((entry) => entry.name === name);
  assert.ok(section, `no section ${name}`);
  return section.stability;
}

function names(assembly: PromptAssembly): string[] {
  return assembly.tools.map((entry) => entry.name);
}

describe("stability: defaults (SPEC 8.1)", () => {
  it("global sections are stable (no key), scope sections agent, Observable texts volatile", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 1, text: "Be brief." });
    prompt.section({ name: "fn", order: 2, text: () => "dynamic" });
    prompt.section({ name: "live", order: 3, text: of("memory") });
    const scoped = prompt.scope("agent");
    scoped.section({ name: "role", order: 4, text: "You review." });
    scoped.section({ name: "scope-live", order: 5, text: of("x") });
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.equal("stability" in assembly.sections[0], false, "persona");
    assert.equal("stability" in assembly.sections[1], false, "rules");
    assert.equal(stabilityOf(assembly, "fn"), undefined);
    assert.equal(stabilityOf(assembly, "live"), "volatile");
    assert.equal(stabilityOf(assembly, "role"), "agent");
    assert.equal(stabilityOf(assembly, "scope-live"), "volatile");
    assert.equal(assembly.toolStability, undefined);
    assert.equal("toolStability" in assembly, false);
    await prompt.dispose();
  });

  it("an explicit stability overrides the layer's and the Observable's default", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({
      name: "live",
      order: 1,
      text: of("x"),
      stability: "stable",
    });
    prompt.section({ name: "g", order: 2, text: "g", stability: "agent" });
    const scoped = prompt.scope("agent");
    scoped.section({ name: "s", order: 3, text: "s", stability: "stable" });
    scoped.section({ name: "v", order: 4, text: "v", stability: "volatile" });
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(
      assembly.sections.map((section) => [section.name, section.stability]),
      [
        [PERSONA_SECTION, undefined],
        ["live", undefined],
        ["g", "agent"],
        ["s", undefined],
        ["v", "volatile"],
      ],
    );
    assert.equal("stability" in assembly.sections[1], false);
    await prompt.dispose();
  });

  it("the config persona may carry cacheBreakpoint and stability", async () => {
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      persona: { text: "You help.", cacheBreakpoint: true, stability: "agent" },
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.sections, [
      {
        name: PERSONA_SECTION,
        order: 0,
        text: "You help.",
        cacheBreakpoint: true,
        stability: "agent",
      },
    ]);
    const plain = new SystemPrompt({
      includeHarnessIdentity: false,
      persona: { text: "You help." },
    });
    assert.deepEqual((await plain.assemble()).sections, [
      { name: PERSONA_SECTION, order: 0, text: "You help." },
    ]);
  });
});

describe("stability: effective, through referenced variables (SPEC 8.13.2)", () => {
  it("a section is as volatile as the most volatile variable it references", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const branch = new BehaviorSubject("main");
    prompt.variable("branch", branch);
    prompt.variable("model", () => "m");
    prompt.variable("mood", () => "calm", { stability: "agent" });
    prompt.section({ name: "a", order: 1, text: "On {{model}}." });
    prompt.section({ name: "b", order: 2, text: "{{model}} on {{branch}}." });
    prompt.section({ name: "c", order: 3, text: "Feel {{mood}}." });
    prompt.section({ name: "d", order: 4, text: "{{mood}}, {{branch}}" });
    prompt.section({
      name: "e",
      order: 5,
      text: "{{mood}}",
      stability: "volatile",
    });
    prompt.scope("x").variable("model", () => "scoped");
    const global = await prompt.assemble();
    assert.deepEqual(
      global.sections.slice(1).map((section) => section.stability),
      [undefined, "volatile", "agent", "volatile", "volatile"],
    );
    // The scope's model variable is agent: "a" reads it now.
    const scoped = await prompt.assemble({ scope: "x" });
    assert.equal(stabilityOf(scoped, "a"), "agent");
    assert.equal(renderPrompt(scoped).startsWith("On scoped."), true);
    await prompt.dispose();
  });

  it("a variable's explicit stability overrides its Observable default", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("os", of("linux"), { stability: "stable" });
    prompt.section({ name: "a", order: 1, text: "On {{os}}." });
    assert.equal(stabilityOf(await prompt.assemble(), "a"), undefined);
    await prompt.dispose();
  });

  it("listeners see the effective stability, may change it, and it is settled after them", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("date", of("2026-12-03"));
    prompt.section({ name: "a", order: 1, text: "Today: {{date}}." });
    prompt.section({ name: "b", order: 2, text: "Rules." });
    let seen: (string | undefined)[] = [];
    prompt.onAssemble((assembly, _context, next) => {
      seen = assembly.sections.map((section) => section.stability);
      // "stable" on a section reading a volatile variable is raised again.
      assembly.sections[1].stability = "stable" as "agent";
      assembly.sections[2].stability = "agent";
      assembly.sections.push(
        { name: "added", order: 3, text: "{{date}}" },
        { name: "plain", order: 4, text: "x", stability: "stable" as "agent" },
      );
      return next();
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(seen, [undefined, "volatile", undefined]);
    assert.deepEqual(
      assembly.sections.map((section) => section.stability),
      [undefined, "volatile", "agent", "volatile", undefined],
    );
    assert.equal("stability" in assembly.sections[4], false);
    await prompt.dispose();
  });

  it("a listener's rewrite that drops a volatile reference settles from the registration's own stability", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("date", of("2026-12-03"));
    prompt.variable("os", () => "linux", { stability: "agent" });
    prompt.section({ name: "a", order: 1, text: "Today: {{date}}." });
    prompt.section({
      name: "b",
      order: 2,
      text: "{{date}}",
      stability: "agent",
    });
    prompt.section({ name: "c", order: 3, text: () => "Now {{date}}." });
    prompt.section({ name: "d", order: 4, text: "On {{date}}, {{os}}." });
    prompt.section({ name: "e", order: 5, text: "Kept: {{date}}." });
    prompt.onAssemble((assembly, _context, next) => {
      const [persona, a, b, c, d, e] = assembly.sections;
      a.text = "Today."; // in place
      c.text = "Now.";
      // A copy, moved to the end: found by its name.
      assembly.sections = [
        persona,
        a,
        { ...b, text: "Agent rules." },
        c,
        e,
        { ...d, text: "On {{os}}." },
      ];
      return next();
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(
      assembly.sections.slice(1).map((section) => [
        section.name,
        section.stability,
      ]),
      [
        ["a", undefined],
        ["b", "agent"],
        ["c", undefined],
        ["e", "volatile"],
        ["d", "agent"],
      ],
    );
    assert.equal("stability" in assembly.sections[1], false);
    await prompt.dispose();
  });

  it("does not mutate a listener's own section objects", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("date", of("today"));
    const mine = { name: "mine", order: 1, text: "{{date}}" };
    prompt.onAssemble((assembly) => {
      assembly.sections.push(mine);
      return assembly;
    });
    const assembly = await prompt.assemble();
    assert.equal(stabilityOf(assembly, "mine"), "volatile");
    assert.deepEqual(mine, { name: "mine", order: 1, text: "{{date}}" });
    await prompt.dispose();
  });

  it("a complete section keeps its stability", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("date", of("today"));
    prompt.scope("legacy").section({
      name: "all",
      order: 1,
      text: "All of it, {{date}}.",
      complete: true,
    });
    const assembly = await prompt.assemble({ scope: "legacy" });
    assert.deepEqual(assembly.sections, [
      {
        name: "all",
        order: 1,
        text: "All of it, {{date}}.",
        stability: "volatile",
      },
    ]);
    await prompt.dispose();
  });
});

describe("stability: a build started inside another build", () => {
  it("keeps each build's variables, gates and terms its own", async () => {
    const inner = new SystemPrompt({ includeHarnessIdentity: false });
    inner.variable("other", () => "x", { stability: "agent" });
    inner.section({ name: "inner", order: 1, text: "{{other}}" });
    const outer = new SystemPrompt({ includeHarnessIdentity: false });
    outer.variable("clock", () => "12:00", { stability: "volatile" });
    outer.tools(() => ({ schemas: [tool("read"), tool("write")] }));
    outer.toolGate(() => ["read"]);
    let innerAssembly: Promise<PromptAssembly> | undefined;
    // A provider of the outer registry assembles the inner one: the inner
    // build runs inside the outer build.
    outer.section({
      name: "nested",
      order: 1,
      text: () => {
        innerAssembly ??= inner.assemble();
        return "Nested.";
      },
    });
    outer.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      result.sections.push({ name: "late", order: 9, text: "At {{clock}}." });
      return result;
    });
    const assembly = await outer.assemble();
    assert.equal(stabilityOf(assembly, "late"), "volatile");
    assert.deepEqual(assembly.activeTools, ["read"]);
    const explained = await outer.explain();
    assert.match(
      explained.tools.find((origin) => origin.name === "write")?.inactiveBy ??
        "",
      /gate/,
    );
    assert.equal(stabilityOf(await innerAssembly!, "inner"), "agent");
    await outer.dispose();
    await inner.dispose();
  });
});

describe("stability: tools (SPEC 8.1, 8.2)", () => {
  it("orders unlisted tools by stability, then name; toolStability keys in code-unit order; tool objects unchanged", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: tools("zeta", "alpha") }));
    prompt.tools(of({ schemas: tools("mcp_b", "mcp_a") }));
    prompt.tools(() => ({ schemas: tools("Beta") }), { stability: "volatile" });
    prompt.scope("agent").tools(() => ({ schemas: tools("delegate") }));
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(names(assembly), [
      "alpha",
      "zeta",
      "delegate",
      "Beta",
      "mcp_a",
      "mcp_b",
    ]);
    assert.deepEqual(Object.entries(assembly.toolStability!), [
      ["Beta", "volatile"],
      ["delegate", "agent"],
      ["mcp_a", "volatile"],
      ["mcp_b", "volatile"],
    ]);
    for (const entry of assembly.tools) {
      assert.deepEqual(Object.keys(entry), [
        "name",
        "description",
        "parameters",
      ]);
    }
    const global = await prompt.assemble();
    assert.deepEqual(names(global), [
      "alpha",
      "zeta",
      "Beta",
      "mcp_a",
      "mcp_b",
    ]);
    await prompt.dispose();
  });

  it("explicit toolOrder entries keep their places; the rest sorts by stability", async () => {
    const prompt = new SystemPrompt({
      toolOrder: ["mcp_z", "read", TOOL_ORDER_REST, "finish"],
    });
    prompt.tools(() => ({ schemas: tools("read", "write", "finish", "b") }));
    prompt.tools(of({ schemas: tools("mcp_z", "mcp_a") }));
    const assembly = await prompt.assemble();
    assert.deepEqual(names(assembly), [
      "mcp_z",
      "read",
      "b",
      "write",
      "mcp_a",
      "finish",
    ]);
    assert.deepEqual(assembly.toolStability, {
      mcp_a: "volatile",
      mcp_z: "volatile",
    });
    await prompt.dispose();
  });

  it("a scope tool shadowing a global one takes the scope's stability and place", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: tools("a", "read", "z") }));
    prompt.scope("agent").tools(() => ({
      schemas: [tool("read", "scoped read")],
    }));
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(names(assembly), ["a", "z", "read"]);
    assert.equal(assembly.tools[2].description, "scoped read");
    assert.deepEqual(assembly.toolStability, { read: "agent" });
    await prompt.dispose();
  });

  it("keeps __proto__ an own key of toolStability", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: tools("__proto__", "a") }), {
      stability: "agent",
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(Object.keys(assembly.toolStability!), ["__proto__", "a"]);
    assert.equal(
      JSON.stringify(assembly.toolStability),
      '{"__proto__":"agent","a":"agent"}',
    );
    await prompt.dispose();
  });

  it("listeners may change toolStability; it is settled to listed tools, code-unit order, none stable", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: tools("a", "b", "c") }));
    prompt.onAssemble((assembly) => {
      assembly.tools.push(tool("added"));
      assembly.toolStability = {
        c: "volatile",
        added: "agent",
        gone: "volatile",
        a: "stable" as "agent",
      };
      return assembly;
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(Object.entries(assembly.toolStability!), [
      ["added", "agent"],
      ["c", "volatile"],
    ]);
    await prompt.dispose();
    const empty = new SystemPrompt();
    empty.tools(() => ({ schemas: tools("a") }), { stability: "agent" });
    empty.onAssemble((assembly) => {
      assembly.toolStability = { a: "stable" as "agent" };
      return assembly;
    });
    assert.equal("toolStability" in await empty.assemble(), false);
  });
});

describe("stability: bad input", () => {
  it("a listener's unreadable section or toolStability is INVALID_LISTENER_RESULT with the error as cause", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("clock", () => "now", { stability: "volatile" });
    prompt.section({ name: "a", order: 1, text: "{{clock}}" });
    let leave: (assembly: PromptAssembly) => void = () => {};
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      leave(result);
      return result;
    });
    const { proxy, revoke } = Proxy.revocable({ name: "x", order: 2 }, {});
    revoke();
    leave = (result) => result.sections.push(proxy as never);
    await assert.rejects(prompt.assemble(), (error: unknown) => {
      rejects("INVALID_LISTENER_RESULT", "sections")(error);
      assert.ok((error as Error).cause instanceof TypeError);
      return true;
    });
    const thrown = new Error("keys");
    leave = (result) => {
      result.toolStability = new Proxy({}, {
        ownKeys() {
          throw thrown;
        },
      });
    };
    await assert.rejects(prompt.assemble(), (error: unknown) => {
      rejects("INVALID_LISTENER_RESULT", "toolStability")(error);
      assert.equal((error as Error).cause, thrown);
      return true;
    });
    // The registry is unharmed.
    leave = () => {};
    assert.equal(renderPrompt(await prompt.assemble()), "now");
    await prompt.dispose();
  });

  it("rejects an unknown section stability with INVALID_SECTION naming the section and registrar", () => {
    const prompt = new SystemPrompt();
    assert.throws(
      () =>
        prompt.fork({ label: "memory" }).section({
          name: "notes",
          order: 1,
          text: "x",
          stability: "sometimes" as "agent",
        }),
      rejects("INVALID_SECTION", '"notes"', '"registry/memory"', '"sometimes"'),
    );
  });

  it("rejects an unknown variable or tool stability with INVALID_CONFIG naming the registrar", () => {
    const prompt = new SystemPrompt();
    const plugin = prompt.fork({ label: "plugin" });
    assert.throws(
      () => plugin.variable("v", () => "x", { stability: 3 as never }),
      rejects("INVALID_CONFIG", '"v"', '"registry/plugin"', "3"),
    );
    assert.throws(
      () =>
        plugin.tools(() => ({ schemas: [] }), { stability: "Stable" as never }),
      rejects(
        "INVALID_CONFIG",
        "tool provider",
        '"registry/plugin"',
        '"Stable"',
      ),
    );
    assert.throws(
      () => plugin.tools(() => ({ schemas: [] }), "volatile" as never),
      rejects("INVALID_CONFIG", "{ stability?, defer? }"),
    );
    const hostile = new Proxy({}, {
      get() {
        throw new Error("boom");
      },
    });
    assert.throws(
      () => plugin.variable("w", () => "x", hostile),
      rejects("INVALID_CONFIG", "Reading the options"),
    );
  });

  it("rejects a bad persona object with INVALID_CONFIG", () => {
    assert.throws(
      () =>
        new SystemPrompt({ persona: { text: "x", stability: "x" as never } }),
      rejects("INVALID_CONFIG", "persona.stability", '"x"'),
    );
    assert.throws(
      () => new SystemPrompt({ persona: { text: 1 as never } }),
      rejects("INVALID_CONFIG", "persona.text"),
    );
    assert.throws(
      () =>
        new SystemPrompt({
          persona: { text: "", cacheBreakpoint: "yes" as never },
        }),
      rejects("INVALID_CONFIG", "persona.cacheBreakpoint"),
    );
    assert.throws(
      () => new SystemPrompt({ persona: 7 as never }),
      rejects("INVALID_CONFIG", "persona must be a string"),
    );
  });

  it("rejects a listener's unknown stability with INVALID_LISTENER_RESULT", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble((assembly) => {
      assembly.sections[0].stability = "often" as "agent";
      return assembly;
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_LISTENER_RESULT", '"often"', "harness:identity"),
    );
    const tools$ = new SystemPrompt();
    tools$.onAssemble((assembly) => {
      assembly.toolStability = { a: "x" as "agent" };
      return assembly;
    });
    await assert.rejects(
      tools$.assemble(),
      rejects("INVALID_LISTENER_RESULT", "toolStability", '"a"'),
    );
    const notObject = new SystemPrompt();
    notObject.onAssemble((assembly) => {
      assembly.toolStability = "volatile" as never;
      return assembly;
    });
    await assert.rejects(
      notObject.assemble(),
      rejects("INVALID_LISTENER_RESULT", "toolStability"),
    );
  });
});

describe("stability: explain() says each entry's stability and why (SPEC 8.1)", () => {
  it("own, layer default, Observable source, variable NAME, listener", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("branch", of("main"));
    prompt.variable("os", () => "linux", { stability: "agent" });
    prompt.section({ name: "a", order: 1, text: "Rules." });
    prompt.section({ name: "b", order: 2, text: "On {{branch}}." });
    prompt.section({ name: "c", order: 3, text: "x", stability: "agent" });
    prompt.section({ name: "d", order: 4, text: of("live") });
    prompt.section({ name: "e", order: 5, text: "{{os}}" });
    prompt.tools(of({ schemas: tools("mcp") }));
    prompt.tools(() => ({ schemas: tools("own") }), { stability: "agent" });
    prompt.onAssemble((assembly) => {
      assembly.sections.push({ name: "z", order: 9, text: "z" });
      return assembly;
    });
    const explanation = await prompt.explain();
    assert.deepEqual(
      explanation.sections.map((o) => [o.name, o.stability, o.stabilityReason]),
      [
        [PERSONA_SECTION, "stable", "layer default"],
        ["a", "stable", "layer default"],
        ["b", "volatile", "variable branch"],
        ["c", "agent", "own"],
        ["d", "volatile", "Observable source"],
        ["e", "agent", "variable os"],
        ["z", "stable", "listener"],
      ],
    );
    assert.deepEqual(
      explanation.tools.map((o) => [o.name, o.stability, o.stabilityReason]),
      [["own", "agent", "own"], ["mcp", "volatile", "Observable source"]],
    );
    assert.deepEqual(
      explanation.variables.map((
        o,
      ) => [o.name, o.stability, o.stabilityReason]),
      [["branch", "volatile", "Observable source"], ["os", "agent", "own"]],
    );
    assert.equal(explanation.runtimeContext.length, 0);
    await prompt.dispose();
  });
});
