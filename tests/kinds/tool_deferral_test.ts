/**
 * Deferred tool sources (SPEC §10.3), the registry's side: which tools a
 * source defers (its registration's `defer`, its result's `defer`), and
 * that a deferred tool is known like a listed one (order, shadowing,
 * duplicates, gates, listeners, stability, budget, `explain()`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BehaviorSubject } from "rxjs";
import {
  type PromptAssembly,
  SystemPrompt,
  TOOL_ORDER_REST,
  type ToolProviderResult,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool, toolNames } from "../fixtures.ts";

function bare(
  config: ConstructorParameters<typeof SystemPrompt>[0] = {},
): SystemPrompt {
  return new SystemPrompt({ includeHarnessIdentity: false, ...config });
}

function deferredNames(assembly: PromptAssembly): string[] | undefined {
  return assembly.deferredTools?.map((tool) => tool.name);
}

/** A registry with a listed `read_file` and a `crm` plugin of `names`. */
function withCrm(
  names: string[],
  defer: Parameters<SystemPrompt["tools"]>[1],
  config?: ConstructorParameters<typeof SystemPrompt>[0],
): SystemPrompt {
  const prompt = bare(config);
  prompt.tools(() => ({ schemas: [tool("read_file")] }));
  prompt.fork({ label: "crm" }).tools(
    () => ({ schemas: names.map((name) => tool(name)) }),
    defer,
  );
  return prompt;
}

describe("deferred tool sources: which tools are deferred", () => {
  it("defer: true puts every tool of the source in deferredTools, with its registrar's label", async () => {
    const prompt = withCrm(["crm_log", "crm_find"], { defer: true });
    const assembly = await prompt.assemble();
    assert.deepEqual(toolNames(assembly), ["read_file"]);
    assert.deepEqual(deferredNames(assembly), ["crm_find", "crm_log"]);
    assert.deepEqual(assembly.deferredSources, {
      crm_find: "registry/crm",
      crm_log: "registry/crm",
    });
    await prompt.dispose();
  });

  it("without deferral the assembly has neither key (its bytes are 0.4's)", async () => {
    for (
      const defer of [undefined, { defer: false }, { defer: { above: 2 } }]
    ) {
      const prompt = withCrm(["crm_log", "crm_find"], defer);
      const assembly = await prompt.assemble();
      assert.deepEqual(toolNames(assembly), [
        "crm_find",
        "crm_log",
        "read_file",
      ]);
      assert.equal("deferredTools" in assembly, false);
      assert.equal("deferredSources" in assembly, false);
      await prompt.dispose();
    }
  });

  it("{ above: n } defers the source's tools only when it offers more than n", async () => {
    const names = ["crm_a", "crm_b", "crm_c"];
    for (
      const [above, deferred] of [[3, false], [2, true], [0, true]] as const
    ) {
      const prompt = withCrm(names, { defer: { above } });
      const assembly = await prompt.assemble();
      assert.deepEqual(
        deferredNames(assembly),
        deferred ? names : undefined,
        `above ${above}`,
      );
      assert.deepEqual(
        toolNames(assembly),
        deferred ? ["read_file"] : [...names, "read_file"],
      );
      await prompt.dispose();
    }
  });

  it("a result's defer defers its tools; the registration's option wins over it", async () => {
    const result: ToolProviderResult = {
      schemas: [tool("crm_find")],
      defer: true,
    };
    const prompt = bare();
    prompt.tools(() => result);
    assert.deepEqual(deferredNames(await prompt.assemble()), ["crm_find"]);
    await prompt.dispose();

    const listed = bare();
    // The result's defer is not even read when the registration decides.
    listed.tools(() => ({
      schemas: [tool("crm_find")],
      get defer(): never {
        throw new Error("read");
      },
    }), { defer: false });
    const assembly = await listed.assemble();
    assert.deepEqual(toolNames(assembly), ["crm_find"]);
    assert.equal(assembly.deferredTools, undefined);
    await listed.dispose();
  });

  it("a live source's deferral follows its values ({ above } on each listing's size)", async () => {
    const source = new BehaviorSubject<ToolProviderResult>({
      schemas: [tool("mcp_a")],
      defer: { above: 1 },
    });
    const prompt = bare();
    prompt.tools(source);
    assert.deepEqual(toolNames(await prompt.assemble()), ["mcp_a"]);
    source.next({
      schemas: [tool("mcp_a"), tool("mcp_b")],
      defer: { above: 1 },
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(toolNames(assembly), []);
    assert.deepEqual(deferredNames(assembly), ["mcp_a", "mcp_b"]);
    await prompt.dispose();
  });

  it("a bad defer option is INVALID_CONFIG at registration, naming the registrar", () => {
    const prompt = bare();
    const plugin = prompt.fork({ label: "crm" });
    for (const defer of [1, "yes", { above: -1 }, { above: 1.5 }, {}, null]) {
      assert.throws(
        () => plugin.tools(() => ({ schemas: [] }), { defer: defer as never }),
        rejects("INVALID_CONFIG", "defer option", '"registry/crm"', "above"),
      );
    }
    assert.throws(
      () =>
        plugin.tools(() => ({ schemas: [] }), {
          get defer(): never {
            throw new Error("boom");
          },
        }),
      rejects("INVALID_CONFIG", "Reading the options", '"registry/crm"'),
    );
  });

  it("a bad defer in a result is INVALID_TOOL_SCHEMA at assembly, naming the provider", async () => {
    const prompt = bare();
    prompt.fork({ label: "crm" }).tools(function crmTools() {
      return { schemas: [tool("crm_find")], defer: { above: "ten" } as never };
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_TOOL_SCHEMA", "crmTools", '"registry/crm"', '"ten"'),
    );
    await prompt.dispose();
  });
});

describe("deferred tool sources: known like listed tools", () => {
  it("toolOrder orders both lists and may name a deferred tool; the listed order is what it is without them", async () => {
    const toolOrder = ["crm_log", "read_file", TOOL_ORDER_REST];
    const deferred = withCrm(["crm_log", "crm_find"], { defer: true }, {
      toolOrder,
    });
    const assembly = await deferred.assemble();
    assert.deepEqual(deferredNames(assembly), ["crm_log", "crm_find"]);
    assert.deepEqual(toolNames(assembly), ["read_file"]);
    await deferred.dispose();

    // The same registry with the crm tools listed: the listed tools keep
    // their relative order, the deferred ones are simply taken out.
    const listed = withCrm(["crm_log", "crm_find"], undefined, { toolOrder });
    assert.deepEqual(toolNames(await listed.assemble()), [
      "crm_log",
      "read_file",
      "crm_find",
    ]);
    await listed.dispose();
  });

  it("a scope's listed tool shadows a global deferred tool of its name, and the reverse", async () => {
    const prompt = bare();
    prompt.tools(() => ({ schemas: [tool("search", "global")] }), {
      defer: true,
    });
    const agent = prompt.scope("agent");
    agent.tools(() => ({ schemas: [tool("search", "scoped")] }));
    const scoped = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(scoped.tools, [tool("search", "scoped")]);
    assert.equal(scoped.deferredTools, undefined);
    const global = await prompt.assemble();
    assert.deepEqual(global.deferredTools, [tool("search", "global")]);
    await prompt.dispose();
  });

  it("one layer offering a name listed and deferred is DUPLICATE_TOOL", async () => {
    const prompt = bare();
    prompt.tools(() => ({ schemas: [tool("search")] }));
    prompt.tools(() => ({ schemas: [tool("search")] }), { defer: true });
    await assert.rejects(
      prompt.assemble(),
      rejects("DUPLICATE_TOOL", '"search"'),
    );
    await prompt.dispose();
  });

  it("gates may name deferred tools: activeTools holds the listed, then the deferred ones", async () => {
    const prompt = withCrm(["crm_log", "crm_find"], { defer: true });
    prompt.toolGate(() => ["crm_log", "read_file"]);
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.activeTools, ["read_file", "crm_log"]);
    prompt.toolGate(() => ["crm_nope"]);
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_GATE", '"crm_nope"', '"crm_find"'),
    );
    await prompt.dispose();
  });

  it("a listener may activate a deferred tool; an unknown name still rejects naming it", async () => {
    const prompt = withCrm(["crm_log", "crm_find"], { defer: true });
    prompt.onAssemble((assembly, _context, next) => {
      assembly.activeTools = ["crm_find"];
      return next();
    });
    assert.deepEqual((await prompt.assemble()).activeTools, ["crm_find"]);
    prompt.onAssemble((assembly, _context, next) => {
      assembly.activeTools = ["crm_find", "ghost"];
      return next();
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_GATE", "listener #2", '"ghost"'),
    );
    await prompt.dispose();
  });

  it("a deferred tool's stability is in toolStability, a listed one's as before", async () => {
    const prompt = bare();
    prompt.tools(() => ({ schemas: [tool("read_file")] }), {
      stability: "agent",
    });
    prompt.tools(() => ({ schemas: [tool("crm_find")] }), {
      stability: "volatile",
      defer: true,
    });
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.toolStability, {
      crm_find: "volatile",
      read_file: "agent",
    });
    await prompt.dispose();
  });

  it("a token budget counts the listed tools only: deferred tools prune nothing", async () => {
    const big = tool("crm_export", "x".repeat(500));
    const budget = {
      maxTokens: 200,
      countTokens: (text: string) => text.length,
    };
    for (const defer of [true, false]) {
      const prompt = bare({ budget });
      prompt.section({ name: "rules", order: 10, text: "Be brief." });
      prompt.tools(() => ({ schemas: [big] }), { defer });
      if (defer) {
        const assembly = await prompt.assemble();
        assert.deepEqual(deferredNames(assembly), ["crm_export"]);
        assert.equal(assembly.pruned, undefined);
      } else {
        await assert.rejects(prompt.assemble(), rejects("BUDGET_EXCEEDED"));
      }
      await prompt.dispose();
    }
  });
});

describe("deferred tool sources: explain()", () => {
  it("explains each deferred tool apart: registrar, stability, inactiveBy, tokens", async () => {
    const prompt = withCrm(["crm_log", "crm_find"], {
      defer: true,
      stability: "agent",
    });
    prompt.fork({ label: "review" }).toolGate(function reviewGate() {
      return ["read_file", "crm_find"];
    });
    const explanation = await prompt.explain({}, {
      countTokens: (text) => text.length,
    });
    assert.deepEqual(explanation.tools.map((origin) => origin.name), [
      "read_file",
    ]);
    assert.deepEqual(explanation.deferredTools, [
      {
        name: "crm_find",
        registrar: "registry/crm",
        layer: "global",
        stability: "agent",
        stabilityReason: "own",
        tokens: JSON.stringify(tool("crm_find")).length,
      },
      {
        name: "crm_log",
        registrar: "registry/crm",
        layer: "global",
        stability: "agent",
        stabilityReason: "own",
        tokens: JSON.stringify(tool("crm_log")).length,
        inactiveBy:
          'tool gate reviewGate (#1) of registrar "registry/review" ' +
          "(the global layer)",
      },
    ]);
    assert.equal(explanation.prompt.includes("crm_"), false);
    await prompt.dispose();
  });

  it("names a deferred tool shadowed by a scope's tool, and a listener's deferred tool as the listener's", async () => {
    const prompt = bare();
    prompt.tools(() => ({ schemas: [tool("search")] }), { defer: true });
    prompt.scope("agent").tools(() => ({ schemas: [tool("search", "mine")] }));
    const scoped = await prompt.explain({ scope: "agent" });
    assert.deepEqual(scoped.shadowed.map((entry) => [entry.kind, entry.name]), [
      ["tool", "search"],
    ]);
    assert.equal(scoped.deferredTools, undefined);

    prompt.onAssemble((assembly, _context, next) => {
      assembly.deferredTools = [...assembly.deferredTools ?? [], tool("later")];
      return next();
    });
    const global = await prompt.explain();
    assert.deepEqual(
      global.deferredTools?.map(({ name, registrar, layer }) => ({
        name,
        registrar,
        layer,
      })),
      [
        { name: "search", registrar: "registry", layer: "global" },
        { name: "later", registrar: undefined, layer: "listener" },
      ],
    );
    await prompt.dispose();
  });

  it("a listener's deferredTools that is not a list is INVALID_ASSEMBLY in explain()", async () => {
    const prompt = bare();
    prompt.onAssemble((assembly, _context, next) => {
      (assembly as { deferredTools?: unknown }).deferredTools = "all";
      return next();
    });
    await assert.rejects(
      prompt.explain(),
      rejects("INVALID_ASSEMBLY", "deferredTools"),
    );
    await prompt.dispose();
  });
});
