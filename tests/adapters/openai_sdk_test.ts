// Deno-only: sends the adapter's output through the real `openai` client to
// a loopback server and checks what reached the wire.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { renderPrompt } from "../../mod.ts";
import {
  type OpenAIPlainOptions,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai.ts";
import { buildRegistry, PLUGINS, sampleAssembly } from "./fixtures.ts";
import { withLoopback } from "./loopback.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";

function client(baseURL: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

async function sendChat(
  assembly: Parameters<typeof toChatCompletions>[0],
  options?: OpenAIPlainOptions,
): Promise<string> {
  return await withLoopback(async (baseURL, requests) => {
    const { system, runtimeContext, tools } = toChatCompletions(
      assembly,
      options,
    );
    const params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: "gpt-loopback",
      messages: [
        system,
        ...(runtimeContext ? [runtimeContext] : []),
        { role: "user", content: "Review #42." },
      ],
      tools,
    };
    const completion = await client(baseURL).chat.completions.create(params);
    assert.equal(completion.choices[0].message.content, "ok");
    assert.equal(requests.length, 1);
    return requests[0].body;
  });
}

async function sendResponses(
  assembly: Parameters<typeof toResponses>[0],
  options?: OpenAIPlainOptions,
): Promise<string> {
  return await withLoopback(async (baseURL, requests) => {
    const { instructions, runtimeContext, tools } = toResponses(
      assembly,
      options,
    );
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
      model: "gpt-loopback",
      instructions,
      input: [
        ...(runtimeContext ? [runtimeContext] : []),
        { role: "user", content: "Review #42." },
      ],
      tools,
    };
    const response = await client(baseURL).responses.create(params);
    assert.equal(response.output_text, "ok");
    assert.equal(requests.length, 1);
    return requests[0].body;
  });
}

describe("openai SDK round trip", { skip: SDK_PERMISSIONS }, () => {
  it("chat.completions sends the system text, runtime context and tools exactly as produced", async () => {
    const assembly = sampleAssembly();
    const produced = toChatCompletions(assembly, { strict: true });
    const body = JSON.parse(await sendChat(assembly, { strict: true }));
    assert.deepEqual(body.messages, [
      { role: "system", content: renderPrompt(assembly) },
      { role: "user", content: "Today is Monday." },
      { role: "user", content: "Review #42." },
    ]);
    assert.deepEqual(body.tools, produced.tools);
    assert.deepEqual(
      (body.tools as { function: { name: string } }[]).map((tool) =>
        tool.function.name
      ),
      ["read_file", "shell"],
    );
  });

  it("responses sends instructions, runtime context and flat tools exactly as produced", async () => {
    const assembly = sampleAssembly();
    const produced = toResponses(assembly);
    const body = JSON.parse(await sendResponses(assembly));
    assert.equal(body.instructions, renderPrompt(assembly));
    assert.deepEqual(body.input, [
      { role: "user", content: "Today is Monday." },
      { role: "user", content: "Review #42." },
    ]);
    assert.deepEqual(body.tools, produced.tools);
  });

  it("sends no tools key when the assembly has none", async () => {
    const body = JSON.parse(await sendChat({ ...sampleAssembly(), tools: [] }));
    assert.equal("tools" in body, false);
  });

  it("sends the tools in canonical order and byte-identical bodies whatever the plugin order", async () => {
    const chat = new Set<string>();
    const responses = new Set<string>();
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const prompt = buildRegistry(order.map((index) => PLUGINS[index]));
      const assembly = await prompt.assemble();
      chat.add(await sendChat(assembly));
      responses.add(await sendResponses(assembly));
      await prompt.dispose();
    }
    assert.equal(chat.size, 1);
    assert.equal(responses.size, 1);
    const [body] = [...chat].map((text) => JSON.parse(text));
    assert.deepEqual(
      body.tools.map((tool: { function: { name: string } }) =>
        tool.function.name
      ),
      ["read_file", "shell", "write_file"],
    );
  });
});
