// Deno-only: sends the adapter's output through the real `@anthropic-ai/sdk`
// client to a loopback server and checks what reached the wire.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { renderPromptBlocks } from "../../mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { buildRegistry, PLUGINS, sampleAssembly } from "./fixtures.ts";
import { withLoopback } from "./loopback.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";

async function send(
  assembly: Parameters<typeof toMessages>[0],
  options?: Parameters<typeof toMessages>[1],
): Promise<string> {
  return await withLoopback(async (baseURL, requests) => {
    const { system, tools, runtimeContext } = toMessages(assembly, options);
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: "claude-loopback",
      max_tokens: 64,
      system,
      tools,
      messages: [
        ...(runtimeContext ? [runtimeContext] : []),
        { role: "user", content: "Review #42." },
      ],
    };
    const client = new Anthropic({
      apiKey: "sk-loopback",
      baseURL,
      maxRetries: 0,
      timeout: 10_000,
    });
    const message = await client.messages.create(params);
    assert.deepEqual(message.content, [{ type: "text", text: "ok" }]);
    assert.equal(requests.length, 1);
    return requests[0].body;
  });
}

describe("@anthropic-ai/sdk round trip", { skip: SDK_PERMISSIONS }, () => {
  it("sends the system blocks, tools and runtime context exactly as produced", async () => {
    const assembly = sampleAssembly();
    const produced = toMessages(assembly);
    const body = JSON.parse(await send(assembly));
    assert.deepEqual(body.system, produced.system);
    assert.deepEqual(
      body.system.map((block: { text: string }) => block.text),
      renderPromptBlocks(assembly).map((block) => block.text),
    );
    assert.deepEqual(body.tools, produced.tools);
    assert.deepEqual(body.messages, [
      { role: "user", content: "Today is Monday." },
      { role: "user", content: "Review #42." },
    ]);
    assert.equal(JSON.stringify(body).includes("cache_control"), false);
  });

  it("puts cache_control exactly on the last tool and each block, with the ttl", async () => {
    const body = JSON.parse(
      await send(sampleAssembly(), { cache: { ttl: "1h" } }),
    );
    const marker = { type: "ephemeral", ttl: "1h" };
    assert.deepEqual(
      body.tools.map((tool: { cache_control?: unknown }) => tool.cache_control),
      [undefined, marker],
    );
    assert.deepEqual(
      body.system.map((block: { cache_control?: unknown }) =>
        block.cache_control
      ),
      [marker, marker],
    );
    assert.equal(body.tools[0].input_schema.type, "object");
  });

  it("drops the last tool's marker first under maxCacheBreakpoints", async () => {
    const body = JSON.parse(
      await send(sampleAssembly(), { cache: true, maxCacheBreakpoints: 2 }),
    );
    assert.equal(JSON.stringify(body.tools).includes("cache_control"), false);
    assert.deepEqual(
      body.system.map((block: { cache_control?: unknown }) =>
        block.cache_control
      ),
      [{ type: "ephemeral" }, { type: "ephemeral" }],
    );
  });

  it("sends the tools in canonical order and byte-identical bodies whatever the plugin order", async () => {
    const bodies = new Set<string>();
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const prompt = buildRegistry(order.map((index) => PLUGINS[index]), [
        "deployment:persona",
      ]);
      bodies.add(await send(await prompt.assemble(), { cache: true }));
      await prompt.dispose();
    }
    assert.equal(bodies.size, 1);
    const [body] = [...bodies].map((text) => JSON.parse(text));
    assert.deepEqual(
      body.tools.map((tool: { name: string }) => tool.name),
      ["read_file", "shell", "write_file"],
    );
    // The shell tool's schema had no type: the adapter added it.
    assert.deepEqual(body.tools[1].input_schema, {
      type: "object",
      properties: { command: { type: "string" } },
    });
    assert.equal(body.system.length, 2);
    assert.ok(
      body.system.every((block: { cache_control?: unknown }) =>
        block.cache_control
      ),
    );
    assert.deepEqual(body.tools[2].cache_control, { type: "ephemeral" });
  });
});
