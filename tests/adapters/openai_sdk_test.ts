// Deno-only: sends the adapter's output through the real `openai` client to
// a loopback server and checks what reached the wire.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { renderPrompt } from "../../mod.ts";
import {
  type OpenAIPlainOptions,
  promptCacheKey,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import type { TestAssembly } from "./fixtures.ts";
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

  /** The sample with a volatile tail section and a volatile tool, gated. */
  function gatedAssembly(): TestAssembly {
    const assembly = sampleAssembly();
    assembly.sections.push({
      name: "memory",
      order: 900,
      text: "Notes: none.",
      stability: "volatile",
    });
    assembly.tools.push({
      name: "mcp_search",
      description: "Search.",
      parameters: { type: "object" },
    });
    assembly.toolStability = { mcp_search: "volatile" };
    assembly.activeTools = ["shell", "mcp_search"];
    return assembly;
  }

  it("chat.completions with cache sends text parts with explicit marks, the key and allowed_tools", async () => {
    // An agent-tier MCP tool: after a volatile one no block is marked
    // (SPEC 9.2).
    const assembly = { ...gatedAssembly(), toolStability: {} };
    const produced = toChatCompletions(assembly, { cache: { ttl: "30m" } });
    const body = await withLoopback(async (baseURL, requests) => {
      await client(baseURL).chat.completions.create({
        model: "gpt-5.6",
        messages: [produced.system, { role: "user", content: "Go." }],
        tools: produced.tools,
        tool_choice: produced.tool_choice,
        prompt_cache_key: produced.prompt_cache_key,
      });
      return JSON.parse(requests[0].body);
    });
    const mark = { mode: "explicit", ttl: "30m" };
    assert.deepEqual(body.messages[0], {
      role: "system",
      content: [
        {
          type: "text",
          text: "You are a coding agent.\n\nWork in /work/app.\n\n",
          prompt_cache_breakpoint: mark,
        },
        {
          type: "text",
          text: "Prefer short commands.\n\n",
          prompt_cache_breakpoint: mark,
        },
        { type: "text", text: "Notes: none." },
      ],
    });
    assert.equal(body.prompt_cache_key, promptCacheKey(assembly));
    assert.deepEqual(body.tool_choice, {
      type: "allowed_tools",
      allowed_tools: {
        mode: "auto",
        tools: [
          { type: "function", function: { name: "shell" } },
          { type: "function", function: { name: "mcp_search" } },
        ],
      },
    });
    assert.deepEqual(
      body.tools.map((tool: { function: { name: string } }) =>
        tool.function.name
      ),
      ["read_file", "shell", "mcp_search"],
    );
  });

  it("responses with cache sends the system message first in input, no instructions", async () => {
    const assembly = { ...gatedAssembly(), toolStability: {} };
    assembly.activeTools = [];
    const produced = toResponses(assembly, { cache: true });
    const body = await withLoopback(async (baseURL, requests) => {
      await client(baseURL).responses.create({
        model: "gpt-5.6",
        input: [produced.system, { role: "user", content: "Go." }],
        tools: produced.tools,
        tool_choice: produced.tool_choice,
        prompt_cache_key: produced.prompt_cache_key,
      });
      return JSON.parse(requests[0].body);
    });
    assert.equal("instructions" in body, false);
    assert.deepEqual(body.input[0], {
      role: "system",
      content: [
        {
          type: "input_text",
          text: "You are a coding agent.\n\nWork in /work/app.\n\n",
          prompt_cache_breakpoint: { mode: "explicit" },
        },
        {
          type: "input_text",
          text: "Prefer short commands.\n\n",
          prompt_cache_breakpoint: { mode: "explicit" },
        },
        { type: "input_text", text: "Notes: none." },
      ],
    });
    assert.equal(body.tool_choice, "none");
    assert.equal(body.prompt_cache_key, promptCacheKey(assembly));
  });

  it("responses sends the allowed_tools choice in its flat shape", async () => {
    const assembly = gatedAssembly();
    const produced = toResponses(assembly, { toolChoiceMode: "required" });
    const body = await withLoopback(async (baseURL, requests) => {
      await client(baseURL).responses.create({
        model: "gpt-5.6",
        instructions: produced.instructions,
        input: "Go.",
        tools: produced.tools,
        tool_choice: produced.tool_choice,
      });
      return JSON.parse(requests[0].body);
    });
    assert.deepEqual(body.tool_choice, {
      type: "allowed_tools",
      mode: "required",
      tools: [
        { type: "function", name: "shell" },
        { type: "function", name: "mcp_search" },
      ],
    });
  });
});
