import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
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

const ADAPTERS = [
  ["toChatCompletions", toChatCompletions],
  ["toResponses", toResponses],
] as const;

describe("toChatCompletions", () => {
  it("maps the prompt to a system message and the tools to function tools, in order", () => {
    const assembly = sampleAssembly();
    const request = toChatCompletions(assembly);
    assert.deepEqual(request.system, {
      role: "system",
      content: renderPrompt(assembly),
    });
    assert.deepEqual(request.tools, [
      {
        type: "function",
        function: {
          name: "read_file",
          description: "The read_file tool.",
          parameters: assembly.tools[0].parameters,
        },
      },
      {
        type: "function",
        function: {
          name: "shell",
          description: "The shell tool.",
          parameters: assembly.tools[1].parameters,
        },
      },
    ]);
  });

  it("marks every tool strict only with strict: true", () => {
    const assembly = sampleAssembly();
    for (const options of [undefined, {}, { strict: false }]) {
      const tools = toChatCompletions(assembly, options).tools ?? [];
      assert.ok(tools.every((tool) => !("strict" in tool.function)));
    }
    const strict = toChatCompletions(assembly, { strict: true }).tools ?? [];
    assert.deepEqual(strict.map((tool) => tool.function.strict), [true, true]);
  });
});

describe("the promptCacheKey option without cache", () => {
  for (const [name, adapter] of ADAPTERS) {
    it(`${name} sends it when given, and no key otherwise`, () => {
      const assembly = sampleAssembly();
      const keyed = adapter(assembly, { promptCacheKey: "session-7" });
      assert.equal(keyed.prompt_cache_key, "session-7");
      assert.ok(!("prompt_cache_key" in adapter(assembly)));
      // With cache, the option replaces the assembly's key.
      const cached = adapter(assembly, { cache: true, promptCacheKey: "s-8" });
      assert.equal(cached.prompt_cache_key, "s-8");
    });
  }
});

describe("toResponses", () => {
  it("maps the prompt to instructions and the tools to flat function tools with strict", () => {
    const assembly = sampleAssembly();
    const request = toResponses(assembly);
    assert.equal(request.instructions, renderPrompt(assembly));
    assert.deepEqual(request.tools, [
      {
        type: "function",
        name: "read_file",
        description: "The read_file tool.",
        parameters: assembly.tools[0].parameters,
        strict: false,
      },
      {
        type: "function",
        name: "shell",
        description: "The shell tool.",
        parameters: assembly.tools[1].parameters,
        strict: false,
      },
    ]);
    const strict = toResponses(assembly, { strict: true }).tools ?? [];
    assert.deepEqual(strict.map((tool) => tool.strict), [true, true]);
  });
});

for (const [name, adapter] of ADAPTERS) {
  describe(`${name} (shared clauses)`, () => {
    it("passes schemas through unchanged, including schemas without type", () => {
      const parameters = { properties: { q: { type: "string" } } };
      const assembly = {
        ...sampleAssembly(),
        tools: [toolNamed("search", parameters)],
      };
      const request = adapter(assembly);
      const tool = request.tools?.[0];
      const sent = tool && ("function" in tool ? tool.function : tool);
      assert.deepEqual(sent?.parameters, {
        properties: { q: { type: "string" } },
      });
    });

    it("omits tools when the assembly has none", () => {
      const request = adapter({ ...sampleAssembly(), tools: [] });
      assert.equal("tools" in request, false);
    });

    it("sends the runtime context as a user message only when it renders non-empty", () => {
      assertRuntimeContextMessage(adapter);
      const blank: TestAssembly = {
        ...sampleAssembly(),
        runtimeContext: [{ name: "empty", order: 0, text: "" }],
      };
      assert.equal("runtimeContext" in adapter(blank), false);
      const none: TestAssembly = { ...sampleAssembly() };
      delete none.runtimeContext;
      assert.equal("runtimeContext" in adapter(none), false);
      assert.equal(
        "runtimeContext" in adapter({ ...none, runtimeContext: [] }),
        false,
      );
    });

    it("renders the runtime context strictly, naming the section", () => {
      const assembly = sampleAssembly();
      delete assembly.variables.day;
      assert.throws(
        () => adapter(assembly),
        rejects("UNKNOWN_VARIABLE", '"date"', "{{day}}"),
      );
    });

    it("rejects a tool name outside ^[a-zA-Z0-9_-]{1,64}$, naming the tool and the rule", () => {
      for (const bad of ["read.file", "a".repeat(65), "ünicode", "has space"]) {
        const assembly = { ...sampleAssembly(), tools: [toolNamed(bad)] };
        assert.throws(
          () => adapter(assembly),
          rejects(
            "INVALID_TOOL_NAME",
            JSON.stringify(bad),
            "^[a-zA-Z0-9_-]{1,64}$",
          ),
        );
      }
      const longest = {
        ...sampleAssembly(),
        tools: [toolNamed("a".repeat(64))],
      };
      assert.equal(adapter(longest).tools?.length, 1);
    });

    it("rejects a duplicate tool name that a listener added", async () => {
      await assertRejectsAddedTool(adapter, { name: "shell", at: "back" });
    });

    it("rejects a strict option that is not a boolean", () => {
      assert.throws(
        () =>
          adapter(sampleAssembly(), { strict: "yes" as unknown as boolean }),
        rejects("INVALID_CONFIG", "strict", '"yes"'),
      );
    });

    it("is byte-identical under every plugin registration order", async () => {
      const bodies = new Set<string>();
      for (const order of [[0, 1, 2], [2, 1, 0], [1, 0, 2]]) {
        const prompt = buildRegistry(order.map((index) => PLUGINS[index]));
        bodies.add(JSON.stringify(adapter(await prompt.assemble())));
        await prompt.dispose();
      }
      assert.equal(bodies.size, 1);
    });
  });
}
