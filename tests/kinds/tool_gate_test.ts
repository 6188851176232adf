import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BehaviorSubject, filter, firstValueFrom, Subject } from "rxjs";
import {
  type AssembleContext,
  type PromptAssembly,
  type PromptChange,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool, toolNames } from "../fixtures.ts";

interface Mode extends AssembleContext {
  mode?: string;
}

function registry(): SystemPrompt<Mode> {
  const prompt = new SystemPrompt<Mode>({ includeHarnessIdentity: false });
  prompt.tools(() => ({
    schemas: [tool("write"), tool("read"), tool("search")],
    knownNames: ["deploy"],
  }));
  return prompt;
}

describe("toolGate", () => {
  it("no gate: activeTools is absent (the key itself)", async () => {
    const prompt = registry();
    const assembly = await prompt.assemble();
    assert.equal("activeTools" in assembly, false);
    await prompt.dispose();
  });

  it("a gate's names become activeTools in canonical tool order; tools stay all listed", async () => {
    const prompt = registry();
    prompt.toolGate(() => ["search", "read"]);
    const assembly = await prompt.assemble();
    assert.deepEqual(toolNames(assembly), ["read", "search", "write"]);
    assert.deepEqual(assembly.activeTools, ["read", "search"]);
    await prompt.dispose();
  });

  it("follows toolOrder, accepts any iterable and duplicate names", async () => {
    const prompt = new SystemPrompt({
      includeHarnessIdentity: false,
      toolOrder: ["write", TOOL_ORDER_REST],
    });
    prompt.tools(() => ({ schemas: [tool("read"), tool("write")] }));
    prompt.toolGate(() => new Set(["read", "write"]));
    prompt.toolGate(function* () {
      yield "read";
      yield "write";
      yield "read";
    });
    assert.deepEqual((await prompt.assemble()).activeTools, ["write", "read"]);
    await prompt.dispose();
  });

  it("undefined is no answer; every answering gate must allow a tool (intersection)", async () => {
    const prompt = registry();
    prompt.toolGate((context) =>
      context.mode === "review" ? ["read", "search"] : undefined
    );
    prompt.toolGate((context) =>
      context.mode === undefined ? undefined : ["read", "write"]
    );
    assert.equal("activeTools" in await prompt.assemble(), false);
    assert.deepEqual(
      (await prompt.assemble({ mode: "review" })).activeTools,
      ["read"],
    );
    assert.deepEqual(
      (await prompt.assemble({ mode: "edit" })).activeTools,
      ["read", "write"],
    );
    await prompt.dispose();
  });

  it("an empty answer: no tool is active (an empty array, not absent)", async () => {
    const prompt = registry();
    prompt.toolGate(() => []);
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.activeTools, []);
    assert.equal(assembly.tools.length, 3);
    await prompt.dispose();
  });

  it("a known tool absent this step (knownNames) is a normal absence", async () => {
    const prompt = registry();
    prompt.toolGate(() => ["deploy", "read"]);
    assert.deepEqual((await prompt.assemble()).activeTools, ["read"]);
    await prompt.dispose();
  });

  it("UNKNOWN_TOOL_IN_GATE names the gate's registrar, its layer and the name", async () => {
    const prompt = registry();
    const plugin = prompt.scope("agent", { label: "review" });
    plugin.toolGate(function reviewGate() {
      return ["read", "raed"];
    });
    await assert.rejects(
      prompt.assemble({ scope: "agent" }),
      rejects(
        "UNKNOWN_TOOL_IN_GATE",
        '"raed"',
        "reviewGate (#1)",
        '"registry/review"',
        'scope "agent"',
        '"read"',
      ),
    );
    // The global view does not read the scope's gate.
    assert.equal("activeTools" in await prompt.assemble(), false);
    await prompt.dispose();
  });

  it("scoped like the others: a scope's gate narrows the global gate for that scope only", async () => {
    const prompt = registry();
    prompt.toolGate(() => ["read", "search"]);
    prompt.scope("reader").toolGate(() => ["read", "write"]);
    assert.deepEqual((await prompt.assemble()).activeTools, ["read", "search"]);
    assert.deepEqual(
      (await prompt.assemble({ scope: "reader" })).activeTools,
      ["read"],
    );
    // A bound child reads its parent's gate too.
    prompt.bindScope("child", "reader");
    assert.deepEqual(
      (await prompt.assemble({ scope: "child" })).activeTools,
      ["read"],
    );
    await prompt.dispose();
  });

  it("exact disposer, owned by its registrar; change$ says kind toolGate", async () => {
    const prompt = registry();
    const changes: PromptChange[] = [];
    prompt.change$.subscribe((change) => changes.push(change));
    const gate = () => ["read"];
    const first = prompt.toolGate(gate);
    const plugin = prompt.fork();
    plugin.toolGate(gate);
    plugin.toolGate(() => ["write", "read"]);
    assert.deepEqual((await prompt.assemble()).activeTools, ["read"]);
    await first();
    await first();
    assert.deepEqual((await prompt.assemble()).activeTools, ["read"]);
    await plugin.dispose();
    assert.equal("activeTools" in await prompt.assemble(), false);
    assert.deepEqual(
      changes.map(({ type, kind }) => `${type}:${kind}`),
      [
        "register:toolGate",
        "register:toolGate",
        "register:toolGate",
        "unregister:toolGate",
        "unregister:toolGate",
        "unregister:toolGate",
      ],
    );
    assert.throws(
      () => plugin.toolGate(gate),
      rejects("DISPOSED", "register a tool gate"),
    );
    await prompt.dispose();
  });

  it("an Observable gate is live: its latest value; no answer before the first", async () => {
    const prompt = registry();
    const gate$ = new Subject<Iterable<string> | undefined>();
    prompt.toolGate(gate$);
    assert.equal("activeTools" in await prompt.assemble(), false);
    const view = firstValueFrom(
      prompt.watch().pipe(
        filter((view) =>
          "assembly" in view && view.assembly.activeTools?.[0] === "search"
        ),
      ),
    );
    gate$.next(["search"]);
    await view;
    gate$.next(undefined);
    assert.equal("activeTools" in await prompt.assemble(), false);
    await prompt.dispose();
  });

  it("a BehaviorSubject gate's current value is its initial answer", async () => {
    const prompt = registry();
    const gate$ = new BehaviorSubject<Iterable<string> | undefined>(["write"]);
    const dispose = prompt.toolGate(gate$);
    assert.deepEqual((await prompt.assemble()).activeTools, ["write"]);
    await dispose();
    assert.equal(gate$.observed, false);
    await prompt.dispose();
  });

  it("bad input: a non-function, a non-iterable, a string, a non-string name, a throwing iterator", async () => {
    const prompt = registry();
    assert.throws(
      () => prompt.toolGate(42 as never),
      rejects("INVALID_PROVIDER", "tool gate", "42"),
    );
    for (
      const [answer, part] of [
        [42, "42"],
        [{}, "iterable"],
        ["read", '"read"'],
        [["read", 7], "7"],
        [[null], "null"],
      ] as const
    ) {
      const gates = prompt.fork({ label: "bad" });
      gates.toolGate(() => answer as never);
      await assert.rejects(
        prompt.assemble(),
        rejects("INVALID_PROVIDER", part, '"registry/bad"'),
      );
      await gates.dispose();
    }
    const gates = prompt.fork({ label: "throws" });
    gates.toolGate(() => ({
      *[Symbol.iterator]() {
        yield "read";
        throw new Error("iterator broke");
      },
    }));
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", '"registry/throws"'),
    );
    await gates.dispose();
    gates.dispose();
    const failing = prompt.fork({ label: "fails" });
    failing.toolGate(() => {
      throw new Error("gate broke");
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", "tool gate", '"registry/fails"'),
    );
    await prompt.dispose();
  });
});

describe("activeTools and listeners", () => {
  it("a listener may set, change or remove activeTools; the result keeps tool order and present tools", async () => {
    const prompt = registry();
    prompt.onAssemble((assembly) => {
      assembly.activeTools = ["write", "deploy", "read", "write"];
      return assembly;
    });
    assert.deepEqual((await prompt.assemble()).activeTools, ["read", "write"]);
    prompt.toolGate(() => ["search"]);
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      delete result.activeTools;
      return result;
    });
    // The second listener runs inside the first: the first has the last word.
    assert.deepEqual((await prompt.assemble()).activeTools, ["read", "write"]);
    await prompt.dispose();
  });

  it("a listener's unknown name: UNKNOWN_TOOL_IN_GATE naming listener #N", async () => {
    const prompt = registry();
    prompt.onAssemble((_assembly, _context, next) => next());
    prompt.onAssemble(async (assembly, _context, next) => {
      const result = await next();
      result.activeTools = ["read", "nope"];
      return assembly;
    });
    prompt.onAssemble((assembly) => assembly);
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_GATE", '"nope"', "assembly listener #2"),
    );
    await prompt.dispose();
  });

  it("names the listener that set the name before calling next(), not the later ones", async () => {
    const prompt = registry();
    prompt.onAssemble((assembly, _context, next) => {
      assembly.activeTools = ["ghost"];
      return next();
    });
    prompt.onAssemble((assembly) => assembly);
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_GATE", '"ghost"', "assembly listener #1"),
    );
    await prompt.dispose();
  });

  it("names the last listener that set the name after calling next(), though its own answer leaves it out", async () => {
    const prompt = registry();
    let shared: PromptAssembly | undefined;
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      // Copies the name the second listener left on the shared assembly.
      return { ...result, activeTools: shared!.activeTools };
    });
    prompt.onAssemble(async (assembly, _context, next) => {
      shared = assembly;
      const rest = next();
      assembly.activeTools = ["read", "nope"];
      return { ...(await rest), activeTools: undefined };
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("UNKNOWN_TOOL_IN_GATE", '"nope"', "assembly listener #2"),
    );
    await prompt.dispose();
  });

  it("a listener may name a tool it adds; a non-array activeTools is INVALID_LISTENER_RESULT", async () => {
    const prompt = registry();
    const dispose = prompt.onAssemble((assembly) => {
      assembly.tools.push(tool("extra"));
      assembly.activeTools = ["extra"];
      return assembly;
    });
    assert.deepEqual((await prompt.assemble()).activeTools, ["extra"]);
    await dispose();
    prompt.onAssemble((assembly) => ({
      ...assembly,
      activeTools: "read" as never,
    }));
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_LISTENER_RESULT", "activeTools", "listener #1"),
    );
    await prompt.dispose();
  });

  it("a tool a listener removes leaves activeTools", async () => {
    const prompt = registry();
    prompt.toolGate(() => ["read", "write"]);
    prompt.onAssemble((assembly) => ({
      ...assembly,
      tools: assembly.tools.filter((t) => t.name !== "write"),
    }));
    assert.deepEqual((await prompt.assemble()).activeTools, ["read"]);
    await prompt.dispose();
  });
});
