// Deno-only: sends toGemini's output through the real `@google/genai`
// client (its base URL the loopback server) to a server that checks the
// bodies as Gemini does and answers from an implicit prefix cache.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Content, GoogleGenAI } from "@google/genai";
import { SystemPrompt } from "../../mod.ts";
import {
  type GeminiOptions,
  toGemini,
  withGeminiRuntimeContext,
} from "../../adapters/gemini/mod.ts";
import { readReportedUsage } from "../../adapters/cache/mod.ts";
import {
  GEMINI_ALTERNATION,
  geminiServer,
  withCacheServer,
} from "./loopback_caches.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";

const MINIMUM = 256;
const MODEL = "gemini-3-flash";

/** A registry with a long stable prefix, two tools, a gate, a runtime context. */
function registry() {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  prompt.section({
    name: "house-rules",
    order: 10,
    text: "Follow the house rules, every one of them. ".repeat(40),
  });
  prompt.tools(() => ({
    schemas: ["read_file", "write_file"].map((name) => ({
      name,
      description: `The ${name} tool.`,
      parameters: { properties: { path: { type: "string" } } },
    })),
  }));
  let active = ["read_file", "write_file"];
  prompt.toolGate(() => active);
  let day = "Monday";
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `It is ${day}.`,
  });
  return {
    prompt,
    setDay: (next: string) => day = next,
    setActive: (next: string[]) => active = next,
  };
}

async function step(
  baseUrl: string,
  prompt: SystemPrompt,
  { history, options }: { history: Content[]; options?: GeminiOptions },
) {
  const { systemInstruction, tools, toolConfig, runtimeContext } = toGemini(
    await prompt.assemble(),
    options,
  );
  const ai = new GoogleGenAI({ apiKey: "loopback", httpOptions: { baseUrl } });
  const response = await ai.models.generateContent({
    model: MODEL,
    contents: withGeminiRuntimeContext(history, runtimeContext),
    config: { systemInstruction, tools, toolConfig },
  });
  assert.equal(response.text, "ok");
  return readReportedUsage(response, "gemini");
}

describe("@google/genai round trip", { skip: SDK_PERMISSIONS }, () => {
  it("reads the stable prefix on the next steps, gates changing", async () => {
    const { prompt, setDay, setActive } = registry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const history: Content[] = [
        { role: "user", parts: [{ text: "Review #42." }] },
      ];
      const first = await step(url, prompt, { history });
      assert.equal(first.cacheReadTokens, 0);
      assert.equal(first.responseModel, "gemini-loopback");
      history.push({ role: "model", parts: [{ text: "ok" }] });
      history.push({ role: "user", parts: [{ text: "And #43?" }] });
      setDay("Tuesday");
      setActive(["read_file"]);
      const second = await step(url, prompt, { history });
      // The tools, the system prompt and the first turn: all but the
      // runtime context the first step sent last.
      assert.ok(second.cacheReadTokens! >= MINIMUM);
      assert.ok(second.cacheReadTokens! < first.inputTokens!);
      history.push({ role: "model", parts: [{ text: "ok" }] });
      history.push({ role: "user", parts: [{ text: "Thanks." }] });
      const third = await step(url, prompt, {
        history,
        options: { toolChoiceMode: "required" },
      });
      assert.ok(third.cacheReadTokens! > second.cacheReadTokens!);
      assert.deepEqual(server.rejections, []);
      const [, body] = server.bodies as Record<string, unknown>[];
      const built = toGemini(await prompt.assemble());
      assert.deepEqual(body.systemInstruction, built.systemInstruction);
      assert.deepEqual(body.tools, built.tools);
      assert.deepEqual(body.toolConfig, {
        functionCallingConfig: {
          mode: "VALIDATED",
          allowedFunctionNames: ["read_file"],
        },
      });
      assert.match(
        server.paths[0],
        /\/models\/gemini-3-flash:generateContent$/,
      );
    });
    await prompt.dispose();
  });

  it("meets a server that refuses a changed prompt's cache and a bad config", async () => {
    const { prompt, setActive } = registry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const history: Content[] = [{ role: "user", parts: [{ text: "Go." }] }];
      await step(url, prompt, { history });
      prompt.section({ name: "house-rules-2", order: 5, text: "New rule." });
      const changed = await step(url, prompt, { history });
      assert.equal(changed.cacheReadTokens, 0, "the prefix changed early");
      setActive([]);
      const none = toGemini(await prompt.assemble());
      assert.deepEqual(none.toolConfig, {
        functionCallingConfig: { mode: "NONE" },
      });
      await step(url, prompt, { history });
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      await assert.rejects(ai.models.generateContent({
        model: MODEL,
        contents: history,
        config: {
          tools: none.tools,
          toolConfig: {
            functionCallingConfig: {
              mode: none.toolConfig!.functionCallingConfig.mode,
              allowedFunctionNames: ["read_file"],
            },
          },
        },
      }));
      assert.deepEqual(server.rejections, [
        "allowedFunctionNames needs mode ANY or VALIDATED",
      ]);
    });
    await prompt.dispose();
  });
  it("sends the runtime context after a person's turn and after function responses", async () => {
    const { prompt } = registry();
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const { systemInstruction, tools, runtimeContext } = toGemini(
        await prompt.assemble(),
      );
      const ai = new GoogleGenAI({
        apiKey: "loopback",
        httpOptions: { baseUrl: url },
      });
      const send = (contents: Content[]) =>
        ai.models.generateContent({
          model: MODEL,
          contents,
          config: { systemInstruction, tools },
        });
      const history: Content[] = [
        { role: "user", parts: [{ text: "Review #42." }] },
      ];
      // The old way: two user turns in a row, refused as Gemini does.
      const refused = await send([...history, runtimeContext!]).then(
        () => undefined,
        (error: Error) => error,
      );
      assert.match(refused?.message ?? "", /"status":"INVALID_ARGUMENT"/);
      assert.ok(refused?.message.includes(GEMINI_ALTERNATION));
      await send(withGeminiRuntimeContext(history, runtimeContext));
      history.push({
        role: "model",
        parts: [{ functionCall: { name: "read_file", args: {} } }],
      }, {
        role: "user",
        parts: [{
          functionResponse: { name: "read_file", response: { output: "x" } },
        }],
      });
      await send(withGeminiRuntimeContext(history, runtimeContext));
      const answered: Content[] = [...history, {
        role: "model",
        parts: [{ text: "Looks good." }],
      }];
      await send(withGeminiRuntimeContext(answered, runtimeContext));
      assert.deepEqual(server.rejections, [GEMINI_ALTERNATION]);
      const last = server.bodies.map((body) =>
        (body.contents as Content[]).at(-1)
      );
      assert.deepEqual(last, [
        {
          role: "user",
          parts: [{ text: "Review #42." }, ...runtimeContext!.parts],
        },
        {
          role: "user",
          parts: [history[2].parts![0], ...runtimeContext!.parts],
        },
        runtimeContext,
      ]);
      assert.equal(history[2].parts!.length, 1, "the history is unchanged");
    });
    await prompt.dispose();
  });
});
