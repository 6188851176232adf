import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembledSection, renderPrompt } from "../../mod.ts";
import {
  type ConverseRequest,
  toConverse,
} from "../../adapters/bedrock/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { rejects } from "../assertions.ts";
import {
  assertRejectsAddedTool,
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

/** What each cache point follows, in wire order. */
function points(request: ConverseRequest): string[] {
  const marked: string[] = [];
  let before = "";
  for (const entry of request.toolConfig?.tools ?? []) {
    if ("toolSpec" in entry) before = `tool:${entry.toolSpec.name}`;
    else marked.push(before);
  }
  for (const block of request.system) {
    if ("text" in block) before = `block:${block.text.trim()}`;
    else marked.push(before);
  }
  return marked;
}

/** Where toMessages puts its markers, in the same notation. */
function anthropicMarkers(assembly: TestAssembly, options = {}): string[] {
  const request = toMessages(assembly, { cache: true, ...options });
  return [
    ...(request.tools ?? []).filter((tool) => tool.cache_control).map((
      tool,
    ) => `tool:${tool.name}`),
    ...request.system.filter((block) => block.cache_control).map((block) =>
      `block:${block.text.trim()}`
    ),
  ];
}

describe("toConverse", () => {
  it("sends one text block per prompt block, concatenating to the prompt", () => {
    const assembly = sampleAssembly();
    const { system } = toConverse(assembly);
    assert.deepEqual(system, [
      { text: "You are a coding agent.\n\nWork in /work/app.\n\n" },
      { text: "Prefer short commands." },
    ]);
    assert.equal(
      system.map((block) => "text" in block ? block.text : "").join(""),
      renderPrompt(assembly),
    );
  });

  it("maps tools to toolSpec with an object schema, in order", () => {
    const { toolConfig } = toConverse({
      ...sampleAssembly(),
      tools: [
        toolNamed("read_file"),
        { name: "shell", description: "", parameters: {} },
      ],
    });
    assert.deepEqual(toolConfig, {
      tools: [
        {
          toolSpec: {
            name: "read_file",
            description: "The read_file tool.",
            inputSchema: { json: toolNamed("read_file").parameters },
          },
        },
        // Bedrock takes no empty description.
        {
          toolSpec: {
            name: "shell",
            inputSchema: { json: { type: "object" } },
          },
        },
      ],
    });
    assert.equal(
      "toolConfig" in toConverse({ ...sampleAssembly(), tools: [] }),
      false,
    );
  });

  it("puts no cachePoint anywhere without cache", () => {
    for (const options of [undefined, {}, { cache: false }]) {
      const request = toConverse(fourBlocks(), options);
      assert.equal(JSON.stringify(request).includes("cachePoint"), false);
    }
  });

  it("places cache points where toMessages places its markers", () => {
    const cases: [TestAssembly, Record<string, unknown>][] = [
      [sampleAssembly(), {}],
      [fourBlocks(), {}],
      [fourBlocks(), { maxCacheBreakpoints: 1 }],
      [fourBlocks(), { maxCacheBreakpoints: 4 }],
      [{
        ...sampleAssembly(),
        toolStability: { shell: "volatile" },
      }, {}],
      [{
        ...fourBlocks(),
        sections: fourBlocks().sections.map((section, index) =>
          index === 2 ? { ...section, stability: "volatile" } : section
        ),
      }, {}],
    ];
    for (const [assembly, options] of cases) {
      const request = toConverse(assembly, { cache: true, ...options });
      assert.deepEqual(points(request), anthropicMarkers(assembly, options));
    }
    assert.deepEqual(points(toConverse(sampleAssembly(), { cache: true })), [
      "tool:shell",
      "block:You are a coding agent.\n\nWork in /work/app.",
      "block:Prefer short commands.",
    ]);
  });

  it("gives each cache point the ttl, each its own object", () => {
    const request = toConverse(sampleAssembly(), { cache: { ttl: "1h" } });
    const all = [...request.toolConfig!.tools, ...request.system].flatMap((
      entry,
    ) => "cachePoint" in entry ? [entry.cachePoint] : []);
    assert.deepEqual(all, [
      { type: "default", ttl: "1h" },
      { type: "default", ttl: "1h" },
      { type: "default", ttl: "1h" },
    ]);
    all[0].ttl = "5m";
    assert.equal(all[1].ttl, "1h");
    const plain = toConverse(sampleAssembly(), { cache: true });
    assert.deepEqual(plain.system[1], { cachePoint: { type: "default" } });
  });

  it("never exceeds Bedrock's four cache points", () => {
    const many: TestAssembly = {
      ...sampleAssembly(),
      sections: Array.from({ length: 9 }, (_, index) => ({
        name: `s${index}`,
        order: index,
        text: `Section ${index}.`,
        cacheBreakpoint: true,
      })),
      tools: ["a", "b", "c"].map((name) => toolNamed(name)),
      toolStability: { b: "agent" },
    };
    const request = toConverse(many, { cache: true, maxCacheBreakpoints: 4 });
    assert.equal(points(request).length, 4);
    assert.throws(
      () => toConverse(many, { cache: true, maxCacheBreakpoints: 5 }),
      rejects("INVALID_CONFIG", "maxCacheBreakpoints is 5"),
    );
  });

  it("sends the runtime context as a user message of one text block", () => {
    assert.deepEqual(toConverse(sampleAssembly()).runtimeContext, {
      role: "user",
      content: [{ text: "Today is Monday." }],
    });
    const blank = { ...sampleAssembly(), runtimeContext: [] };
    assert.equal("runtimeContext" in toConverse(blank), false);
  });

  it("leaves gated tools out by default, keeps them with gating: keep", () => {
    const gated = { ...sampleAssembly(), activeTools: ["shell"] };
    const removed = toConverse(gated, { cache: true });
    assert.deepEqual(points(removed)[0], "tool:shell");
    assert.deepEqual(
      removed.toolConfig!.tools.flatMap((entry) =>
        "toolSpec" in entry ? [entry.toolSpec.name] : []
      ),
      ["shell"],
    );
    assert.equal("allowedTools" in removed, false);
    const kept = toConverse(gated, { gating: "keep" });
    assert.deepEqual(
      kept.toolConfig!.tools.flatMap((entry) =>
        "toolSpec" in entry ? [entry.toolSpec.name] : []
      ),
      ["read_file", "shell"],
    );
    assert.deepEqual(kept.allowedTools, ["shell"]);
    assert.deepEqual(
      toConverse({ ...gated, activeTools: [] }, { gating: "keep" })
        .allowedTools,
      [],
    );
  });

  it("rejects what Bedrock would reject, before anything is sent", async () => {
    assert.throws(
      () =>
        toConverse({ ...sampleAssembly(), tools: [toolNamed("read.file")] }),
      rejects("INVALID_TOOL_NAME", "Amazon Bedrock Converse API"),
    );
    assert.throws(
      () =>
        toConverse({
          ...sampleAssembly(),
          tools: [toolNamed("list", { type: "array" })],
        }),
      rejects("INVALID_TOOL_SCHEMA", "inputSchema.json", '"array"'),
    );
    assert.throws(
      () => toConverse(sampleAssembly(), { cache: { ttl: "2h" } } as never),
      rejects("INVALID_CONFIG", "ttl"),
    );
    assert.throws(
      () => toConverse(sampleAssembly(), { gating: "drop" } as never),
      rejects("INVALID_CONFIG", "gating"),
    );
    await assertRejectsAddedTool(toConverse, { name: "shell", at: "back" });
  });
});
