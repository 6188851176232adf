import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  HARNESS_IDENTITY,
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  renderPrompt,
  SystemPrompt,
  type SystemPromptConfig,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { rejects, sectionNames } from "../assertions.ts";
import { recordChanges, textOf } from "../fixtures.ts";

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
      const changes = recordChanges(prompt).changes;
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
      {
        name: PERSONA_SECTION,
        order: 0,
        text: "agent persona",
        stability: "agent",
      },
      {
        name: HARNESS_IDENTITY_SECTION,
        order: 50,
        text: "ID",
        stability: "agent",
      },
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

  it("accepts a valid toolOrder and an absent one, and orders tools by it", async () => {
    const cases: [SystemPromptConfig | undefined, string[]][] = [
      [{ toolOrder: ["shell", TOOL_ORDER_REST] }, ["shell", "edit", "read"]],
      [{ toolOrder: [TOOL_ORDER_REST] }, ["edit", "read", "shell"]],
      [{}, ["edit", "read", "shell"]],
      [undefined, ["edit", "read", "shell"]],
    ];
    for (const [config, expected] of cases) {
      const prompt = new SystemPrompt(config);
      prompt.tools(() => ({
        schemas: ["read", "shell", "edit"].map((name) => ({
          name,
          description: name,
          parameters: {},
        })),
      }));
      const assembly = await prompt.assemble();
      assert.deepEqual(assembly.tools.map((tool) => tool.name), expected);
      await prompt.dispose();
    }
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

  it("throws INVALID_CONFIG when includeHarnessIdentity is not a boolean", () => {
    assert.throws(
      () =>
        new SystemPrompt(
          { includeHarnessIdentity: "no" } as unknown as SystemPromptConfig,
        ),
      rejects("INVALID_CONFIG", "includeHarnessIdentity", '"no"'),
    );
  });
});
