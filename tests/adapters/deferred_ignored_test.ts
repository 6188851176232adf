/**
 * The stateless adapters, and the conversation forms that do not compile
 * deferred tools (SPEC §10.3), list exactly what they list without them:
 * an assembly's `deferredTools` changes no byte, and a gate naming a
 * deferred tool reaches no `allowed_tools`. The forms that do list them
 * (`NATIVE`) are tested in tests/adapters/deferred/.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PromptAssembly, SystemPrompt } from "../../mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import { toConverse } from "../../adapters/bedrock/mod.ts";
import { toGemini } from "../../adapters/gemini/mod.ts";
import { tool } from "../fixtures.ts";
import { FORMS } from "../conversation/forms.ts";

const ADAPTERS: [string, (assembly: PromptAssembly) => unknown][] = [
  ["toMessages", (assembly) => toMessages(assembly, { cache: true })],
  ["toChatCompletions", (assembly) => toChatCompletions(assembly)],
  ["toResponses", (assembly) => toResponses(assembly, { cache: true })],
  ["toAISDK", (assembly) => toAISDK(assembly)],
  ["toConverse", (assembly) => toConverse(assembly, { cache: true })],
  ["toGemini", (assembly) => toGemini(assembly)],
];

/** A registry with two listed tools, a gate, and (or not) a deferred source. */
function registry(deferred: boolean): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  prompt.section({ name: "rules", order: 10, text: "Be brief." });
  prompt.tools(() => ({ schemas: [tool("read_file"), tool("write_file")] }));
  if (deferred) {
    prompt.fork({ label: "crm" }).tools(() => ({
      schemas: [tool("crm_find"), tool("crm_log")],
    }), { defer: true });
  }
  prompt.toolGate(() => deferred ? ["read_file", "crm_find"] : ["read_file"]);
  return prompt;
}

/** The conversation forms that list the search-and-call pair instead. */
const PAIR = new Set([
  "openai-chat",
  "ai-sdk",
  "bedrock-converse",
  "gemini",
]);

/** The conversation forms that list deferred tools natively. */
const NATIVE = new Set([
  "anthropic",
  "anthropic-inline",
  "openai-responses",
  "openai-responses-inline",
]);

describe("deferred tools are ignored by the adapters that do not compile them", () => {
  it("each stateless adapter's output is the same with and without the deferred source", async () => {
    const without = registry(false);
    const withDeferred = registry(true);
    const plain = await without.assemble();
    const assembly = await withDeferred.assemble();
    assert.deepEqual(assembly.activeTools, ["read_file", "crm_find"]);
    assert.equal(assembly.deferredTools?.length, 2);
    for (const [name, adapt] of ADAPTERS) {
      const output = JSON.stringify(adapt(assembly));
      assert.equal(output, JSON.stringify(adapt(plain)), name);
      assert.equal(output.includes("crm_"), false, name);
    }
    await without.dispose();
    await withDeferred.dispose();
  });

  it("every conversation form builds the same request bytes with and without the deferred source", async () => {
    for (const form of FORMS) {
      const bodies: string[] = [];
      for (const deferred of [false, true]) {
        const prompt = registry(deferred);
        const conversation = form.start(prompt);
        conversation.user("Find the contact.");
        bodies.push(JSON.stringify(await conversation.request()));
        await prompt.dispose();
      }
      if (NATIVE.has(form.name)) {
        assert.notEqual(bodies[1], bodies[0], form.name);
        const { tools } = JSON.parse(bodies[1]) as {
          tools: {
            name: string;
            defer_loading?: boolean;
            tools?: { name: string; defer_loading?: boolean }[];
          }[];
        };
        const deferred = tools.flatMap((tool) => tool.tools ?? [tool])
          .filter((tool) => tool.defer_loading === true);
        assert.deepEqual(deferred.map((tool) => tool.name), [
          "crm_find",
          "crm_log",
        ]);
        continue;
      }
      if (PAIR.has(form.name)) {
        assert.match(bodies[1], /"find_tools"/, form.name);
        assert.match(bodies[1], /"call_tool"/, form.name);
        assert.doesNotMatch(bodies[0], /find_tools/);
        // No deferred tool's name is sent: the model finds them.
        assert.equal(bodies[1].includes("crm_"), false, form.name);
        continue;
      }
      assert.equal(bodies[1], bodies[0], form.name);
      assert.equal(bodies[1].includes("crm_"), false, form.name);
    }
  });
});
