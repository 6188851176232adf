/**
 * A coding agent with a reviewer sub-agent, as an `rxprompt` config:
 *
 * ```sh
 * deno task rxprompt render examples/coding_agent.ts
 * deno task rxprompt inspect examples/coding_agent.ts --scope reviewer
 * deno task rxprompt check examples/coding_agent.ts --max-tokens 4000
 * ```
 *
 * Plugins register through their own registrars (`fork` with a label), so
 * `inspect` can say who contributed what. The reviewer is a scope: it
 * replaces the persona, adds its own tool and rules, and leaves the global
 * sections and tools in place, except `edit_file`, which its listener
 * removes (a reviewer reads; it does not edit).
 *
 * @module
 */

import {
  type ScopeKey,
  SystemPrompt,
  TOOL_ORDER_REST,
  type ToolSchema,
} from "../mod.ts";

/** What the agent loop passes to every assembly. */
export interface AgentContext {
  scope?: ScopeKey;
  signal?: AbortSignal;
  /** The working directory of the session. */
  cwd?: string;
}

/** The reviewer sub-agent's scope key. */
export const REVIEWER = "reviewer";

const prompt = new SystemPrompt<AgentContext>({
  persona: "You are a coding agent. You work in the repository at {{cwd}}.",
  toolOrder: ["read_file", "edit_file", "shell", TOOL_ORDER_REST],
});
prompt.variable("cwd", (context) => context.cwd ?? "/workspace/app");

function tool(
  name: string,
  description: string,
  properties: object,
): ToolSchema {
  return {
    name,
    description,
    parameters: {
      type: "object",
      properties,
      required: Object.keys(properties),
    },
  };
}

const files = prompt.fork({ label: "files" });
files.section({
  name: "tools:files",
  order: 100,
  text: "Read a file before you edit it. Keep edits small and focused; " +
    "never rewrite a file you have not read in this session.",
});
files.tools(() => ({
  schemas: [
    tool("read_file", "Read a UTF-8 file of the repository.", {
      path: {
        type: "string",
        description: "Path relative to the repository root.",
      },
    }),
    tool("edit_file", "Replace one exact passage of a file.", {
      path: { type: "string" },
      old: { type: "string" },
      new: { type: "string" },
    }),
  ],
}));

const shell = prompt.fork({ label: "shell" });
shell.section({
  name: "tools:shell",
  order: 110,
  text: "Run tests with the shell tool after every change. Never run " +
    "commands that need a network or change global state.",
});
shell.tools(() => ({
  schemas: [
    tool("shell", "Run a command in the working directory.", {
      command: { type: "string" },
    }),
  ],
}));

const git = prompt.fork({ label: "git" });
git.variable("branch", () => "main");
git.section({
  name: "git",
  order: 200,
  text: "You are on branch {{branch}}. Commit in small steps with " +
    "imperative messages; never push.",
});

const reviewer = prompt.scope(REVIEWER, { label: "reviewer" });
reviewer.section({
  name: "deployment:persona",
  order: 0,
  text: "You review the coding agent's changes in {{cwd}}: correctness " +
    "first, then tests, then clarity. You do not edit files.",
});
reviewer.section({
  name: "review:rules",
  order: 300,
  text: "Cite file and line for every finding. End with one verdict: " +
    "approve, or request changes.",
});
reviewer.tools(() => ({
  schemas: [
    tool("submit_review", "Submit the review with its verdict.", {
      verdict: { type: "string", enum: ["approve", "request_changes"] },
      findings: { type: "array", items: { type: "string" } },
    }),
  ],
}));
reviewer.onAssemble(async (_assembly, _context, next) => {
  const assembly = await next();
  return {
    ...assembly,
    tools: assembly.tools.filter((schema) => schema.name !== "edit_file"),
  };
});

export default {
  prompt,
  scopes: { reviewer: REVIEWER },
  context: (scope?: ScopeKey): AgentContext => ({
    scope,
    cwd: "/workspace/app",
  }),
};
