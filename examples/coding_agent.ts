/**
 * A coding agent with a reviewer sub-agent, as an `rxprompt` config:
 *
 * ```sh
 * deno task rxprompt render examples/coding_agent.ts --scope coder
 * deno task rxprompt inspect examples/coding_agent.ts --scope reviewer
 * deno task rxprompt check examples/coding_agent.ts --max-tokens 4000
 * ```
 *
 * The coding agent is a preset scope, `coder`: its persona, its tool
 * plugins (files, shell) and its git section live there, each plugin
 * registering through its own registrar (`fork` with a label), so `inspect`
 * can say who contributed what. The reviewer is a sub-agent bound to the
 * coder's scope (`bindScope`): it inherits all of that through the scope
 * chain, overrides one section (the persona), adds its own rules and tool,
 * and its listener removes `edit_file` (a reviewer reads; it does not edit).
 * The global view is what every agent of the harness shares.
 *
 * @module
 */

import { type ScopeKey, SystemPrompt, type ToolSchema } from "../mod.ts";

/** What the agent loop passes to every assembly. */
export interface AgentContext {
  scope?: ScopeKey;
  signal?: AbortSignal;
  /** The working directory of the session. */
  cwd?: string;
}

/** The coding agent's preset scope key. */
export const CODER = "coder";

/** The reviewer sub-agent's scope key; its chain is reviewer, coder. */
export const REVIEWER = "reviewer";

const prompt = new SystemPrompt<AgentContext>({
  persona: "You are a software agent. You work in the repository at {{cwd}}.",
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

const coder = prompt.scope(CODER, { label: "coder" });
coder.section({
  name: "deployment:persona",
  order: 0,
  text: "You are a coding agent. You work in the repository at {{cwd}}.",
});

const files = coder.fork({ label: "files" });
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

const shell = coder.fork({ label: "shell" });
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

const git = coder.fork({ label: "git" });
git.variable("branch", () => "main");
git.section({
  name: "git",
  order: 200,
  text: "You are on branch {{branch}}. Commit in small steps with " +
    "imperative messages; never push.",
});

prompt.bindScope(REVIEWER, CODER);
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
  scopes: { coder: CODER, reviewer: REVIEWER },
  context: (scope?: ScopeKey): AgentContext => ({
    scope,
    cwd: "/workspace/app",
  }),
};
