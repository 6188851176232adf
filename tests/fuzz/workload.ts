/**
 * The reference workload of the fuzz suite: a registry with sections,
 * variables, tools, a listener and a scope. Every fuzz case checks that the
 * workload renders the same bytes after the attack as before it.
 */

import assert from "node:assert/strict";
import {
  type AssembleContext,
  renderPrompt,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";

/** The scope key of the workload's agent. */
export const AGENT = { id: "agent" };

/** A registry loaded with the workload. */
export function workloadRegistry(): SystemPrompt<AssembleContext> {
  const prompt = new SystemPrompt({
    persona: "You work in {{cwd}} on {{model}}.",
    toolOrder: ["shell", TOOL_ORDER_REST],
  });
  prompt.variable("cwd", () => "/repo");
  prompt.variable("model", () => "example-model");
  prompt.section({ name: "rules", order: 10, text: "Be brief." });
  prompt.section({
    name: "tools:shell",
    order: 110,
    text: () => "Run one command at a time.",
  });
  prompt.tools(() => ({
    schemas: [
      {
        name: "shell",
        description: "Run a command.",
        parameters: {
          type: "object",
          properties: { command: { type: "string" } },
        },
      },
      { name: "read_file", description: "Read a file.", parameters: {} },
    ],
  }));
  prompt.onAssemble((_assembly, _context, next) => next());
  const agent = prompt.scope(AGENT, { label: "agent" });
  agent.section({ name: "agent:role", order: 20, text: "You review {{cwd}}." });
  agent.variable("cwd", () => "/agent");
  return prompt;
}

/** What the workload produces: both prompts and the tools, as bytes. */
export async function workloadBytes(prompt: SystemPrompt): Promise<string> {
  const global = await prompt.assemble();
  const scoped = await prompt.assemble({ scope: AGENT });
  return JSON.stringify([
    renderPrompt(global),
    renderPrompt(scoped),
    global.tools,
    scoped.variables,
  ]);
}

/** Asserts that `prompt` still renders `reference`. */
export async function assertWorkload(
  prompt: SystemPrompt,
  reference: string,
): Promise<void> {
  assert.equal(await workloadBytes(prompt), reference);
}
