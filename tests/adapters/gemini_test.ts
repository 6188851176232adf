import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../mod.ts";
import { toGemini } from "../../adapters/gemini/mod.ts";
import { rejects } from "../assertions.ts";
import {
  assertRejectsAddedTool,
  buildRegistry,
  PLUGINS,
  sampleAssembly,
  toolNamed,
} from "./fixtures.ts";

describe("toGemini", () => {
  it("sends the rendered prompt as one text part of systemInstruction", async () => {
    const prompt = buildRegistry(PLUGINS);
    const assembly = await prompt.assemble();
    await prompt.dispose();
    const { systemInstruction } = toGemini(assembly);
    assert.deepEqual(systemInstruction, {
      parts: [{ text: renderPrompt(assembly) }],
    });
    const empty = toGemini({ sections: [], tools: [], variables: {} });
    assert.deepEqual(empty, {});
  });

  it("declares each tool with parametersJsonSchema, in order", () => {
    const { tools } = toGemini({
      ...sampleAssembly(),
      tools: [
        toolNamed("read_file"),
        { name: "mcp.shell", description: "", parameters: {} },
      ],
    });
    assert.deepEqual(tools, [{
      functionDeclarations: [
        {
          name: "read_file",
          description: "The read_file tool.",
          parametersJsonSchema: toolNamed("read_file").parameters,
        },
        { name: "mcp.shell", parametersJsonSchema: { type: "object" } },
      ],
    }]);
    assert.equal(
      "tools" in toGemini({ ...sampleAssembly(), tools: [] }),
      false,
    );
  });

  it("keeps every tool declared and allows the active ones", () => {
    const gated = { ...sampleAssembly(), activeTools: ["shell"] };
    const request = toGemini(gated);
    assert.equal(request.tools?.[0].functionDeclarations.length, 2);
    assert.deepEqual(request.toolConfig, {
      functionCallingConfig: {
        mode: "VALIDATED",
        allowedFunctionNames: ["shell"],
      },
    });
    assert.deepEqual(
      toGemini(gated, { toolChoiceMode: "required" }).toolConfig,
      {
        functionCallingConfig: {
          mode: "ANY",
          allowedFunctionNames: ["shell"],
        },
      },
    );
    assert.deepEqual(toGemini({ ...gated, activeTools: [] }).toolConfig, {
      functionCallingConfig: { mode: "NONE" },
    });
    assert.equal("toolConfig" in toGemini(sampleAssembly()), false);
  });

  it("sends the runtime context as a user turn of one text part", () => {
    assert.deepEqual(toGemini(sampleAssembly()).runtimeContext, {
      role: "user",
      parts: [{ text: "Today is Monday." }],
    });
    const blank = { ...sampleAssembly(), runtimeContext: [] };
    assert.equal("runtimeContext" in toGemini(blank), false);
  });

  it("rejects what Gemini would reject, before anything is sent", async () => {
    assert.throws(
      () => toGemini({ ...sampleAssembly(), tools: [toolNamed("9lives")] }),
      rejects("INVALID_TOOL_NAME", "Gemini API", 'a letter or "_"'),
    );
    assert.doesNotThrow(() =>
      toGemini({ ...sampleAssembly(), tools: [toolNamed("fs:read.file")] })
    );
    assert.throws(
      () =>
        toGemini({
          ...sampleAssembly(),
          tools: [toolNamed("list", { type: "array" })],
        }),
      rejects("INVALID_TOOL_SCHEMA", "parametersJsonSchema"),
    );
    assert.throws(
      () => toGemini(sampleAssembly(), { toolChoiceMode: "none" } as never),
      rejects("INVALID_CONFIG", "toolChoiceMode"),
    );
    await assertRejectsAddedTool(toGemini, { name: "shell", at: "front" });
  });
});
