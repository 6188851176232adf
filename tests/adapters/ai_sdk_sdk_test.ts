// Deno-only: the AI SDK adapter needs `ai` (a peer dependency), so every
// clause of `toAISDK` is tested here, and its output goes through the real
// `generateText` with `@ai-sdk/openai` and `@ai-sdk/anthropic` to a loopback
// server. `ai` reads the host name when it loads, so the modules are loaded
// only when this run has the permissions.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  renderPrompt,
  renderPromptBlocks,
  type SystemPrompt,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import {
  assertRejectsAddedTool,
  assertRuntimeContextMessage,
  buildRegistry,
  PLUGINS,
  sampleAssembly,
  type TestAssembly,
  toolNamed,
} from "./fixtures.ts";
import {
  assertRuntimeContext,
  HOSTILE_SEED,
  hostileAssemblyArb,
  hostileOptionsArb,
  outputOrCode,
} from "./hostile.ts";
import { withLoopback } from "./loopback.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";

async function load() {
  const [adapter, ai, openai, anthropic] = await Promise.all([
    import("../../adapters/ai_sdk/mod.ts"),
    import("ai"),
    import("@ai-sdk/openai"),
    import("@ai-sdk/anthropic"),
  ]);
  return { toAISDK: adapter.toAISDK, ai, openai, anthropic };
}

const sdk = SDK_PERMISSIONS === false ? await load() : undefined;

/** The JSON Schema a tool of the set carries. */
function schemaOf(tool: unknown): unknown {
  return (tool as { inputSchema: { jsonSchema: unknown } }).inputSchema
    .jsonSchema;
}

function fourBlocks(): TestAssembly {
  return {
    ...sampleAssembly(),
    sections: ["a", "b", "c", "d"].map((name) => ({
      name,
      order: 0,
      text: name.toUpperCase(),
      cacheBreakpoint: true as const,
    })),
  };
}

describe("toAISDK", { skip: SDK_PERMISSIONS }, () => {
  if (sdk === undefined) return;
  const { toAISDK } = sdk;

  it("gives the rendered prompt as system and the tools keyed in the assembly's order", () => {
    const assembly = sampleAssembly();
    const { system, tools } = toAISDK(assembly);
    assert.equal(system, renderPrompt(assembly));
    assert.deepEqual(Object.keys(tools), ["read_file", "shell"]);
    assert.equal(tools.shell.description, "The shell tool.");
    assert.deepEqual(schemaOf(tools.shell), assembly.tools[1].parameters);
    assert.equal(tools.shell.execute, undefined);
  });

  it("passes a schema without type through unchanged", () => {
    const parameters = { properties: { q: { type: "string" } } };
    const { tools } = toAISDK({
      ...sampleAssembly(),
      tools: [toolNamed("search", parameters)],
    });
    assert.deepEqual(schemaOf(tools.search), {
      properties: { q: { type: "string" } },
    });
  });

  it("makes every tool an own key, even __proto__, in order", () => {
    const names = ["zeta", "__proto__", "constructor", "alpha"];
    const { tools } = toAISDK({
      ...sampleAssembly(),
      tools: names.map((name) => toolNamed(name)),
    });
    assert.deepEqual(Object.keys(tools), names);
    assert.ok(Object.hasOwn(tools, "__proto__"));
    assert.equal(Object.getPrototypeOf(tools), Object.prototype);
    assert.equal(tools["__proto__"].description, "The __proto__ tool.");
  });

  it("wires execute functions by tool name", () => {
    const shell = (input: unknown) => `ran ${JSON.stringify(input)}`;
    const { tools } = toAISDK(sampleAssembly(), { execute: { shell } });
    assert.equal(tools.shell.execute, shell);
    assert.equal(tools.read_file.execute, undefined);
  });

  it("rejects an execute key that names no tool, naming it", () => {
    for (const key of ["shel", "constructor", "__proto__"]) {
      const execute = Object.defineProperty({}, key, {
        value: () => "x",
        enumerable: true,
      });
      assert.throws(
        () => toAISDK(sampleAssembly(), { execute }),
        rejects(
          "INVALID_CONFIG",
          JSON.stringify(key),
          "not in the assembly",
          '"shell"',
        ),
      );
    }
    assert.throws(
      () =>
        toAISDK(sampleAssembly(), {
          execute: { shell: "run" as unknown as () => unknown },
        }),
      rejects("INVALID_CONFIG", '"shell"', "must be a function"),
    );
  });

  it("rejects an execute that is not an object with INVALID_CONFIG", () => {
    for (const execute of [3, "shell", null, true]) {
      assert.throws(
        () => toAISDK(sampleAssembly(), { execute: execute as never }),
        rejects("INVALID_CONFIG", "execute must be an object of functions"),
        String(execute),
      );
    }
  });

  it("marks a tool with execute like one without, and leaves the others unmarked", () => {
    const shell = () => "ran";
    const marker = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const executes: Record<string, () => string>[] = [
      {},
      { shell },
      { shell, read_file: shell },
    ];
    for (const execute of executes) {
      const { tools } = toAISDK(sampleAssembly(), { cache: true, execute });
      assert.deepEqual(tools.shell.providerOptions, marker);
      assert.equal("providerOptions" in tools.read_file, false);
      assert.equal("anthropic" in tools.shell, false);
    }
  });

  it("gives every cache marker its own object: editing one leaves the others", () => {
    const { tools, system } = toAISDK(sampleAssembly(), {
      cache: { ttl: "1h" },
      execute: { shell: () => "ran" },
    });
    const messages = system as {
      providerOptions?: { anthropic: { cacheControl: { ttl?: string } } };
    }[];
    const marked = messages.filter((message) => message.providerOptions);
    assert.equal(marked.length, 2);
    marked[0].providerOptions!.anthropic.cacheControl.ttl = "5m";
    const expected = {
      anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } },
    };
    assert.deepEqual(marked[1].providerOptions, expected);
    assert.deepEqual(tools.shell.providerOptions, expected);
    const layered = toAISDK({
      ...sampleAssembly(),
      tools: ["a", "b", "c"].map((name) => toolNamed(name)),
      toolStability: { b: "agent", c: "volatile" },
    }, { cache: { ttl: "1h" }, maxCacheBreakpoints: 4 });
    const { a, b } = layered.tools as Record<string, typeof tools.shell>;
    (a.providerOptions!.anthropic.cacheControl as { ttl: string }).ttl = "5m";
    assert.deepEqual(b.providerOptions, expected);
  });

  it("returns the tools as a plain object: a tool can be replaced or deleted", () => {
    const { tools } = toAISDK(sampleAssembly());
    const replacement = tools.read_file;
    tools.shell = replacement;
    assert.equal(tools.shell, replacement);
    delete tools.read_file;
    assert.deepEqual(Object.keys(tools), ["shell"]);
  });

  it("with cache, gives one system message per block, marking the latest maxCacheBreakpoints", () => {
    const marker = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const { system } = toAISDK(fourBlocks(), { cache: true });
    assert.deepEqual(system, [
      { role: "system", content: "A\n\n" },
      { role: "system", content: "B\n\n", providerOptions: marker },
      { role: "system", content: "C\n\n", providerOptions: marker },
      { role: "system", content: "D", providerOptions: marker },
    ]);
    const one = toAISDK(fourBlocks(), {
      cache: { ttl: "1h" },
      maxCacheBreakpoints: 1,
    });
    assert.deepEqual(
      (one.system as { providerOptions?: unknown }[]).map((message) =>
        message.providerOptions
      ),
      [undefined, undefined, undefined, {
        anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } },
      }],
    );
    assert.throws(
      () => toAISDK(fourBlocks(), { cache: true, maxCacheBreakpoints: 9 }),
      rejects("INVALID_CONFIG", "maxCacheBreakpoints"),
    );
  });

  it("rejects a duplicate tool name that a listener added", async () => {
    await assertRejectsAddedTool(toAISDK, { name: "read_file", at: "back" });
  });

  it("with cache, marks tools too: the last of each stability run before a more volatile tool or the system prompt (SPEC 8.3, 9.2)", () => {
    const assembly: TestAssembly = {
      ...sampleAssembly(),
      tools: ["a", "b", "c"].map((name) => toolNamed(name)),
      toolStability: { b: "agent", c: "volatile" },
    };
    const marker = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const marked = (request: ReturnType<typeof toAISDK>) => ({
      tools: Object.values(request.tools).map((entry) =>
        entry.providerOptions !== undefined
      ),
      system: (request.system as { providerOptions?: unknown }[]).map((
        message,
      ) => message.providerOptions !== undefined),
    });
    const { tools } = toAISDK(assembly, { cache: true });
    assert.deepEqual(
      Object.values(tools).map((entry) => entry.providerOptions),
      [marker, marker, undefined],
    );
    // Candidates: tools a and b; nothing after the volatile tool c.
    assert.deepEqual(
      marked(toAISDK(assembly, { cache: true, maxCacheBreakpoints: 4 })),
      { tools: [true, true, false], system: [false, false] },
    );
    // Nothing volatile: tools a and c, blocks 0 and 1; three keep a (the
    // end of the stable prefix every scope shares), block 1, block 0.
    const steady = { ...assembly, toolStability: { b: "agent" as const } };
    assert.deepEqual(marked(toAISDK(steady, { cache: true })), {
      tools: [true, false, false],
      system: [true, true],
    });
    const explicit = toAISDK(assembly, {
      cache: true,
      breakpoints: "explicit",
    });
    assert.deepEqual(
      Object.values(explicit.tools).map((entry) => entry.providerOptions),
      [undefined, undefined, undefined],
    );
  });

  it("gating: remove leaves inactive tools out; keep lists them, returns allowedTools and refuses their execute; never the key activeTools", async () => {
    const assembly: TestAssembly = {
      ...sampleAssembly(),
      activeTools: ["shell"],
    };
    const execute = { read_file: () => "read", shell: () => "ran" };
    const removed = toAISDK(assembly, { execute });
    assert.deepEqual(Object.keys(removed.tools), ["shell"]);
    assert.equal("allowedTools" in removed, false);
    assert.equal("activeTools" in removed, false);
    const kept = toAISDK(assembly, { execute, gating: "keep" });
    assert.deepEqual(Object.keys(kept.tools), ["read_file", "shell"]);
    assert.deepEqual(kept.allowedTools, ["shell"]);
    assert.equal("activeTools" in kept, false);
    const options = { toolCallId: "1", messages: [] } as unknown as Parameters<
      NonNullable<typeof kept.tools.shell.execute>
    >[1];
    assert.equal(await kept.tools.shell.execute!({}, options), "ran");
    await assert.rejects(
      async () => await kept.tools.read_file.execute!({}, options),
      rejects("UNKNOWN_TOOL", '"read_file"', '"shell"'),
    );
    const none = toAISDK({ ...sampleAssembly(), activeTools: [] });
    assert.deepEqual(Object.keys(none.tools), []);
  });

  it("sends the runtime context as a user message only when it renders non-empty", () => {
    assertRuntimeContextMessage(toAISDK);
  });

  it(`returns well-formed options or throws a coded SystemPromptError on hostile assemblies (seed ${HOSTILE_SEED})`, () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const result = outputOrCode(() => toAISDK(assembly, options));
          if (result === undefined) return;
          const names = Object.keys(result.tools);
          const active = assembly.activeTools;
          const removed = active !== undefined && options?.gating !== "keep";
          assert.equal(
            names.length,
            removed
              ? assembly.tools.filter((tool) => active.includes(tool.name))
                .length
              : assembly.tools.length,
          );
          assert.equal("activeTools" in result, false);
          for (const name of names) {
            assert.ok(Object.hasOwn(result.tools, name));
          }
          if (typeof result.system !== "string") {
            assert.ok(
              result.system.every((message) => message.role === "system"),
            );
          }
          assertRuntimeContext(result.runtimeContext);
        },
      ),
      { seed: HOSTILE_SEED, numRuns: 1000 },
    );
  });
});

describe("AI SDK round trip", { skip: SDK_PERMISSIONS }, () => {
  if (sdk === undefined) return;
  const { toAISDK, ai, openai, anthropic } = sdk;

  async function sendOpenAI(assembly: TestAssembly): Promise<string> {
    return await withLoopback(async (baseURL, requests) => {
      const { system, tools } = toAISDK(assembly);
      const model = openai.createOpenAI({ apiKey: "sk-loopback", baseURL })
        .chat("gpt-loopback");
      const result = await ai.generateText({
        model,
        system,
        tools,
        prompt: "Review #42.",
        maxRetries: 0,
      });
      assert.equal(result.text, "ok");
      assert.equal(requests.length, 1);
      return requests[0].body;
    });
  }

  async function sendAnthropic(
    assembly: TestAssembly,
    options?: Parameters<typeof toAISDK>[1],
  ): Promise<string> {
    return await withLoopback(async (baseURL, requests) => {
      const { system, tools, runtimeContext } = toAISDK(assembly, options);
      const model = anthropic.createAnthropic({
        apiKey: "sk-loopback",
        baseURL,
      })("claude-loopback");
      const result = await ai.generateText({
        model,
        system,
        tools,
        messages: [
          ...(runtimeContext ? [runtimeContext] : []),
          { role: "user", content: "Review #42." },
        ],
        maxOutputTokens: 64,
        maxRetries: 0,
      });
      assert.equal(result.text, "ok");
      assert.equal(requests.length, 1);
      return requests[0].body;
    });
  }

  it("@ai-sdk/openai sends the system text and the tools exactly as given, in order", async () => {
    const assembly = sampleAssembly();
    const body = JSON.parse(await sendOpenAI(assembly));
    assert.deepEqual(body.messages[0], {
      role: "system",
      content: renderPrompt(assembly),
    });
    assert.deepEqual(
      body.tools.map((
        tool: { function: { name: string; parameters: unknown } },
      ) => [
        tool.function.name,
        tool.function.parameters,
      ]),
      assembly.tools.map((tool) => [tool.name, tool.parameters]),
    );
  });

  it("@ai-sdk/openai sends no tools key when the assembly has none", async () => {
    const body = JSON.parse(
      await sendOpenAI({ ...sampleAssembly(), tools: [] }),
    );
    assert.equal("tools" in body, false);
  });

  it("@ai-sdk/anthropic puts cache_control exactly on the marked blocks", async () => {
    const assembly = fourBlocks();
    const body = JSON.parse(await sendAnthropic(assembly, { cache: true }));
    assert.deepEqual(
      body.system,
      renderPromptBlocks(assembly).map((block, index) =>
        index === 0 ? { type: "text", text: block.text } : {
          type: "text",
          text: block.text,
          cache_control: { type: "ephemeral" },
        }
      ),
    );
    // The Anthropic provider merges consecutive user messages into one.
    assert.deepEqual(body.messages, [{
      role: "user",
      content: [
        { type: "text", text: "Today is Monday." },
        { type: "text", text: "Review #42." },
      ],
    }]);
    assert.deepEqual(
      body.tools.map((tool: { name: string }) => tool.name),
      ["read_file", "shell"],
    );
  });

  it("@ai-sdk/anthropic puts cache_control on the marked tool", async () => {
    const assembly: TestAssembly = {
      ...sampleAssembly(),
      toolStability: { shell: "volatile" },
    };
    const body = JSON.parse(await sendAnthropic(assembly, { cache: true }));
    assert.deepEqual(
      body.tools.map((tool: { name: string; cache_control?: unknown }) => [
        tool.name,
        tool.cache_control,
      ]),
      [["read_file", { type: "ephemeral" }], ["shell", undefined]],
    );
  });

  it("sends byte-identical bodies with stability, gates and breakpoints whatever the registration order", async () => {
    const { of } = await import("rxjs");
    const plugins: ((prompt: SystemPrompt) => void)[] = [
      ...PLUGINS,
      (prompt) => void prompt.tools(of({ schemas: [toolNamed("mcp_search")] })),
      (prompt) =>
        void prompt.section({
          name: "memory",
          order: 900,
          text: "Notes: {{notes}}.",
        }),
      (prompt) => void prompt.variable("notes", of("none")),
      (prompt) =>
        void prompt.section({
          name: "rules",
          order: 50,
          text: "Be brief.",
          cacheBreakpoint: true,
        }),
    ];
    const bodies = new Set<string>();
    for (const order of [[0, 1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1, 0]]) {
      const prompt = buildRegistry(order.map((index) => plugins[index]));
      const assembly = await prompt.assemble();
      assert.deepEqual(assembly.toolStability, { mcp_search: "volatile" });
      bodies.add(
        await sendAnthropic(
          { ...assembly, activeTools: ["shell"] },
          { cache: true, gating: "keep" },
        ),
      );
      await prompt.dispose();
    }
    assert.equal(bodies.size, 1);
    const [body] = [...bodies].map((text) => JSON.parse(text));
    assert.deepEqual(
      body.tools.map((tool: { name: string; cache_control?: unknown }) => [
        tool.name,
        tool.cache_control !== undefined,
      ]),
      [
        ["read_file", false],
        ["shell", false],
        ["write_file", true],
        ["mcp_search", false],
      ],
    );
    assert.equal(
      body.system.at(-1).text,
      "Notes: none.",
      "the volatile memory section is its own last block",
    );
    assert.equal(body.system.at(-1).cache_control, undefined);
  });

  it("sends byte-identical bodies whatever the plugin order", async () => {
    const openaiBodies = new Set<string>();
    const anthropicBodies = new Set<string>();
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const prompt = buildRegistry(order.map((index) => PLUGINS[index]), [
        "deployment:persona",
      ]);
      const assembly = await prompt.assemble();
      openaiBodies.add(await sendOpenAI(assembly));
      anthropicBodies.add(await sendAnthropic(assembly, { cache: true }));
      await prompt.dispose();
    }
    assert.equal(openaiBodies.size, 1);
    assert.equal(anthropicBodies.size, 1);
    const [body] = [...anthropicBodies].map((text) => JSON.parse(text));
    assert.deepEqual(
      body.tools.map((tool: { name: string }) => tool.name),
      ["read_file", "shell", "write_file"],
    );
    assert.equal(body.system.length, 2);
  });
});
