/**
 * SPEC 9.1 (issue "The request loop as an object"): every form's bodies are
 * the same bytes whatever order the plugins registered in, and on every
 * runtime: this file runs on Deno, Node and Bun (the npm build's suite), and
 * the digest of the three steps' bodies is pinned, so a runtime that built
 * other bytes fails here.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, TOOL_GUIDANCE_ORDER } from "../../mod.ts";
import { sha256Hex } from "../../src/shared/sha256.ts";
import { FORMS } from "./forms.ts";
import { schema } from "./helpers.ts";

/** Three plugins of a coding agent, registered in the order given. */
function registry(order: readonly number[]): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  const plugins = [
    () => {
      const files = prompt.fork({ label: "files" });
      files.section({
        name: "tools:files",
        order: TOOL_GUIDANCE_ORDER,
        text: "Read a file before you change it.",
      });
      files.tools(() => ({ schemas: [schema("read_file"), schema("edit")] }));
    },
    () => {
      const shell = prompt.fork({ label: "shell" });
      shell.section({
        name: "tools:shell",
        order: TOOL_GUIDANCE_ORDER + 1,
        text: "Prefer short commands.",
      });
      shell.tools(() => ({ schemas: [schema("shell")] }));
      shell.toolGate(() => ["read_file", "shell"]);
    },
    () => {
      const git = prompt.fork({ label: "git" });
      git.runtimeContext({ name: "git", order: 0, text: "On main." });
      git.section({ name: "rules", order: 900, text: "Commit small." });
    },
  ];
  for (const index of order) plugins[index]();
  return prompt;
}

/** A tool round trip: three requests, each body as JSON. */
async function threeBodies(
  form: (typeof FORMS)[number],
  prompt: SystemPrompt,
): Promise<string[]> {
  const conv = form.start(prompt);
  conv.user("Fix the failing test.");
  const bodies = [JSON.stringify(await conv.request())];
  for (
    const call of conv.record(form.answer([{ id: "c1", name: "read_file" }]))
  ) {
    conv.toolResult(call.id, "export {};");
  }
  bodies.push(JSON.stringify(await conv.request()));
  conv.record(form.answer([]));
  conv.user("Thanks.");
  bodies.push(
    JSON.stringify(await conv.request(undefined, { awaiting: "person" })),
  );
  await prompt.dispose();
  return bodies;
}

/** The SHA-256 of each form's three bodies, as Deno computed them. */
const PINNED: Record<string, string> = {
  anthropic: "ce1620dcf80b9becce9c4ab167d7592750a0a296888b7d72cd5848af4ac49e79",
  "anthropic-inline":
    "6ba678007a882a7150e76d9e78851516a2d1b144f250db446bc3ad1bba859ff0",
  "openai-chat":
    "7d83feba0c39826132ff0e07204ae1b653bf0900395c4bd6574fc5815dc7084e",
  "openai-responses":
    "7b01eb60585a779d6aae42bfe1f233ff88f509382cb6b7a72f943a09e500dfe7",
  // No tool changes in this round trip: the bytes of the default.
  "openai-responses-inline":
    "7b01eb60585a779d6aae42bfe1f233ff88f509382cb6b7a72f943a09e500dfe7",
  "ai-sdk": "f73e02f9b147cc679132118ce06db9f9013877e58b324929cc36bf41f0faf9ec",
  "bedrock-converse":
    "7775cebfd8288709566734b60a7e1f398ead181ea8fe54d5440e013da0f74b52",
  gemini: "89caf32d65d8782b1f3c701c741f20d1f229232e9c297fbef4ee255f014d3b35",
};

describe("conversation bodies: the same bytes", () => {
  for (const form of FORMS) {
    it(`${form.name}: in every plugin load order, on every runtime`, async () => {
      const first = await threeBodies(form, registry([0, 1, 2]));
      for (const order of [[2, 1, 0], [1, 2, 0], [2, 0, 1]]) {
        assert.deepEqual(await threeBodies(form, registry(order)), first);
      }
      assert.equal(sha256Hex(first.join("\n")), PINNED[form.name]);
    });
  }
});
