/**
 * A coding agent's registry (house rules, a git plugin whose branch
 * variable changes a section, a files plugin, an MCP server's tools) and
 * its Anthropic request bodies built with `toMessages`, step by step.
 */

import type Anthropic from "@anthropic-ai/sdk";
import { type PromptExplanation, SystemPrompt } from "../../../mod.ts";
import { toMessages } from "../../../adapters/anthropic/mod.ts";

/** One step's explanation, body and time. */
export interface Step {
  explanation: PromptExplanation;
  body: Record<string, unknown>;
  time: number;
}

/** A coding agent: house rules, a git plugin, a files plugin, MCP tools. */
export function agent() {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Follow the house rules: small commits, tests first. ".repeat(200),
  });
  const git = prompt.fork({ label: "git" });
  const state = { branch: "main", mcp: ["search"], model: "claude-sonnet-4-5" };
  git.variable("branch", () => state.branch);
  git.section({
    name: "git",
    order: 20,
    text: "Work on branch {{branch}}. ".repeat(40),
  });
  const files = prompt.fork({ label: "files" });
  files.tools(() => ({
    schemas: [
      { name: "read_file", description: "Read a file.", parameters: {} },
      { name: "write_file", description: "Write a file.", parameters: {} },
    ],
  }));
  const mcp = prompt.fork({ label: "mcp" });
  mcp.tools(() => ({
    schemas: state.mcp.map((name) => ({
      name,
      description: `The ${name} tool of the MCP server.`,
      parameters: {},
    })),
  }));
  const messages: Anthropic.Messages.MessageParam[] = [];
  async function step(question: string, time: number): Promise<Step> {
    messages.push({ role: "user", content: question });
    const explanation = await prompt.explain();
    const { system, tools } = toMessages(explanation.assembly, {
      cache: true,
    });
    const body = {
      model: state.model,
      max_tokens: 1024,
      ...(tools !== undefined ? { tools } : {}),
      system,
      messages: structuredClone(messages),
    };
    messages.push({ role: "assistant", content: `Done: ${question}` });
    return { explanation, body, time };
  }
  return { prompt, state, messages, step };
}
