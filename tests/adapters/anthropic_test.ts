import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembledSection, renderPrompt } from "../../mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
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

/** Four sections, each a breakpoint: four blocks. */
function fourBlocks(): TestAssembly {
  const sections: AssembledSection[] = ["a", "b", "c", "d"].map((name) => ({
    name,
    order: 0,
    text: name.toUpperCase(),
    cacheBreakpoint: true,
  }));
  return { ...sampleAssembly(), sections };
}

/** Where the markers are, in wire order: the last tool, then the blocks. */
function markers(request: ReturnType<typeof toMessages>): string[] {
  const marked: string[] = [];
  for (const tool of request.tools ?? []) {
    if (tool.cache_control) marked.push(`tool:${tool.name}`);
  }
  for (const block of request.system) {
    if (block.cache_control) marked.push(`block:${block.text.trim()}`);
  }
  return marked;
}

describe("toMessages", () => {
  it("sends one text block per prompt block, concatenating to the prompt", () => {
    const assembly = sampleAssembly();
    const { system } = toMessages(assembly);
    assert.deepEqual(system, [
      {
        type: "text",
        text: "You are a coding agent.\n\nWork in /work/app.\n\n",
      },
      { type: "text", text: "Prefer short commands." },
    ]);
    assert.equal(
      system.map((block) => block.text).join(""),
      renderPrompt(assembly),
    );
  });

  it("puts no cache_control anywhere without cache", () => {
    for (const options of [undefined, {}, { cache: false }]) {
      const request = toMessages(fourBlocks(), options);
      assert.equal(JSON.stringify(request).includes("cache_control"), false);
    }
  });

  it("with cache, marks the last tool and each block", () => {
    const request = toMessages(sampleAssembly(), { cache: true });
    assert.deepEqual(markers(request), [
      "tool:shell",
      "block:You are a coding agent.\n\nWork in /work/app.",
      "block:Prefer short commands.",
    ]);
    assert.deepEqual(request.tools?.[1].cache_control, { type: "ephemeral" });
    assert.equal("cache_control" in (request.tools?.[0] ?? {}), false);
  });

  it("carries the ttl into every marker", () => {
    const request = toMessages(sampleAssembly(), { cache: { ttl: "1h" } });
    assert.deepEqual(request.system.map((block) => block.cache_control), [
      { type: "ephemeral", ttl: "1h" },
      { type: "ephemeral", ttl: "1h" },
    ]);
    assert.deepEqual(request.tools?.[1].cache_control, {
      type: "ephemeral",
      ttl: "1h",
    });
  });

  it("gives every marker its own object: editing one leaves the others", () => {
    const request = toMessages(sampleAssembly(), { cache: { ttl: "1h" } });
    const [first, second] = request.system.map((block) => block.cache_control);
    first!.ttl = "5m";
    assert.deepEqual(second, { type: "ephemeral", ttl: "1h" });
    assert.deepEqual(request.tools?.[1].cache_control, {
      type: "ephemeral",
      ttl: "1h",
    });
  });

  it("keeps at most 3 markers by default, the latest, dropping the last tool's first", () => {
    assert.deepEqual(markers(toMessages(fourBlocks(), { cache: true })), [
      "block:B",
      "block:C",
      "block:D",
    ]);
    const threeBlocks = {
      ...fourBlocks(),
      sections: fourBlocks().sections.slice(1),
    };
    assert.deepEqual(markers(toMessages(threeBlocks, { cache: true })), [
      "block:B",
      "block:C",
      "block:D",
    ]);
    const twoBlocks = {
      ...fourBlocks(),
      sections: fourBlocks().sections.slice(2),
    };
    assert.deepEqual(markers(toMessages(twoBlocks, { cache: true })), [
      "tool:shell",
      "block:C",
      "block:D",
    ]);
  });

  it("honours maxCacheBreakpoints from 0 to 4", () => {
    const counts = [0, 1, 2, 3, 4].map((max) =>
      markers(
        toMessages(fourBlocks(), { cache: true, maxCacheBreakpoints: max }),
      )
    );
    assert.deepEqual(counts, [
      [],
      ["block:D"],
      ["block:C", "block:D"],
      ["block:B", "block:C", "block:D"],
      ["block:A", "block:B", "block:C", "block:D"],
    ]);
    const all = toMessages(fourBlocks(), {
      cache: true,
      maxCacheBreakpoints: 4,
    });
    assert.equal(all.tools?.[1].cache_control, undefined);
    const noTools = { ...fourBlocks(), tools: [] };
    assert.deepEqual(
      markers(toMessages(noTools, { cache: true, maxCacheBreakpoints: 4 }))
        .length,
      4,
    );
  });

  it("rejects a bad cache or maxCacheBreakpoints option", () => {
    for (const max of [-1, 5, 1.5, Number.NaN, "2"]) {
      assert.throws(
        () =>
          toMessages(sampleAssembly(), {
            cache: true,
            maxCacheBreakpoints: max as number,
          }),
        rejects("INVALID_CONFIG", "maxCacheBreakpoints", "0 to 4"),
      );
    }
    for (const cache of [{ ttl: "2h" }, {}, "yes", 1]) {
      assert.throws(
        () => toMessages(sampleAssembly(), { cache: cache as { ttl: "1h" } }),
        rejects("INVALID_CONFIG", "cache", 'ttl: "1h"'),
      );
    }
  });

  it("adds type: object to a schema without type and keeps every other key", () => {
    const parameters = {
      properties: { q: { type: "string" } },
      required: ["q"],
    };
    const request = toMessages({
      ...sampleAssembly(),
      tools: [toolNamed("search", parameters)],
    });
    assert.deepEqual(request.tools, [{
      name: "search",
      description: "The search tool.",
      input_schema: {
        type: "object",
        properties: { q: { type: "string" } },
        required: ["q"],
      },
    }]);
    assert.deepEqual(parameters, {
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("passes an object schema through unchanged", () => {
    const assembly = sampleAssembly();
    const request = toMessages(assembly);
    assert.deepEqual(request.tools?.map((tool) => tool.input_schema), [
      assembly.tools[0].parameters,
      assembly.tools[1].parameters,
    ]);
  });

  it("rejects a schema of another type, naming the tool", () => {
    for (const type of ["array", "string", null, 3]) {
      const tools = [toolNamed("list", { type, items: {} })];
      assert.throws(
        () => toMessages({ ...sampleAssembly(), tools }),
        rejects("INVALID_TOOL_SCHEMA", '"list"', 'type "object"'),
      );
    }
  });

  it("rejects a tool name outside ^[a-zA-Z0-9_-]{1,64}$, naming the tool and the rule", () => {
    assert.throws(
      () => toMessages({ ...sampleAssembly(), tools: [toolNamed("mcp.read")] }),
      rejects(
        "INVALID_TOOL_NAME",
        '"mcp.read"',
        "^[a-zA-Z0-9_-]{1,64}$",
        "Anthropic",
      ),
    );
  });

  it("rejects a duplicate tool name that a listener added", async () => {
    await assertRejectsAddedTool(toMessages, {
      name: "write_file",
      at: "front",
    });
  });

  it("omits tools when there are none and sends [] for an empty prompt", () => {
    const request = toMessages({ sections: [], tools: [], variables: {} });
    assert.deepEqual(request, { system: [] });
  });

  it("sends the runtime context as a user message only when it renders non-empty", () => {
    assertRuntimeContextMessage(toMessages);
  });

  it("is byte-identical under every plugin registration order", async () => {
    const bodies = new Set<string>();
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const prompt = buildRegistry(order.map((index) => PLUGINS[index]), [
        "deployment:persona",
      ]);
      const request = toMessages(await prompt.assemble(), { cache: true });
      assert.equal(request.system.length, 2);
      bodies.add(JSON.stringify(request));
      await prompt.dispose();
    }
    assert.equal(bodies.size, 1);
  });
});
