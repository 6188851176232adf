/**
 * Session (a): a coding agent with built-in tools and an in-process MCP
 * server's tools through `mcpTools`. The server's tool list changes twice
 * (a tool added at step 15, one removed at step 30); the date (step 25),
 * the git branch (steps 12 and 34) and the modified files (every third
 * step) are runtime context. 44 steps, one thread.
 *
 * ```sh
 * deno run -A cli/main.ts simulate examples/sessions/coding_agent.ts
 * ```
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport as untypedTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as untypedMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { InMemoryTransport as Transport } from "@modelcontextprotocol/sdk/inMemory";
import type { McpServer as McpServerClass } from "@modelcontextprotocol/sdk/server/mcp";
import { z } from "zod";
import { SystemPrompt } from "../../mod.ts";
import { mcpTools } from "../../adapters/mcp/mod.ts";
import type { CacheSession } from "../../adapters/cache/mod.ts";
import { Conversations, date, tool } from "./_common.ts";
import { CODING, instructions, seeded } from "./_text.ts";

const InMemoryTransport = untypedTransport as typeof Transport;
const McpServer = untypedMcpServer as typeof McpServerClass;

/** Sections the author knows to change during the session (none here). */
export const volatileSections: readonly string[] = [];

/** The number of steps. */
export const STEPS = 44;

const RULES = [
  "Read a file before you edit it, and keep each edit as small as the change needs.",
  "Run the test suite after every change and report the failing tests by name.",
  "Never commit secrets, credentials or generated files to the repository.",
  "Prefer the project's existing helpers to new dependencies.",
  "Write commit messages that describe the change in plain words.",
  "When a command fails, read its whole output before trying again.",
  "Ask before deleting files or rewriting history.",
  "Keep the public API stable; mark breaking changes in the changelog.",
];

const STYLE = [
  "Use the formatter's defaults; do not hand-align code.",
  "Name functions after what they return, and files after what they hold.",
  "Comments say why, not what.",
  "Prefer early returns to nested conditions.",
  "Handle every error path explicitly; never swallow an exception.",
];

/** The session: a fresh registry, server and conversation. */
export default async function session(): Promise<CacheSession> {
  const random = seeded(11);
  const prompt = new SystemPrompt({
    persona: "You are Forge, a coding agent working in a TypeScript monorepo.",
  });
  prompt.section({
    name: "workflow",
    order: 10,
    text: instructions(random, "Workflow", RULES, 900),
  });
  prompt.section({
    name: "style",
    order: 20,
    text: instructions(random, "Code style", STYLE, 600),
  });
  prompt.tools(() => ({
    schemas: [
      tool("read_file", "Read a file of the workspace and return its text.", {
        path: "The file's path, relative to the workspace root.",
        range: "Optional line range such as 10-40.",
      }),
      tool("edit_file", "Replace an exact string in a file with another.", {
        path: "The file's path.",
        old: "The exact text to replace; it must occur once.",
        new: "The replacement text.",
      }),
      tool(
        "shell",
        "Run a shell command in the workspace and return its output.",
        {
          command: "The command line.",
          timeout: "Seconds before the command is stopped (default 120).",
        },
      ),
      tool("search", "Search the workspace for a regular expression.", {
        pattern: "The regular expression.",
        glob: "Optional glob limiting the files searched.",
      }),
    ],
  }));
  let branch = "main";
  let day = 0;
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `Today is ${date(day)}.`,
  });
  let modified: string[] = [];
  prompt.runtimeContext({
    name: "git",
    order: 10,
    text: () =>
      `Git branch: ${branch}. ` +
      (modified.length === 0
        ? "The working tree is clean."
        : `Modified: ${modified.join(", ")}.`),
  });

  const server = new McpServer({ name: "tracker", version: "1.0.0" });
  const text = (value: string) => ({
    content: [{ type: "text" as const, text: value }],
  });
  server.registerTool("issue_get", {
    description: "Fetch an issue of the tracker with its comments.",
    inputSchema: { id: z.string().describe("The issue's id, like PROJ-123.") },
  }, ({ id }) => text(`issue ${id}`));
  server.registerTool("issue_search", {
    description: "Search the tracker's issues by text, label or assignee.",
    inputSchema: {
      query: z.string().describe("Words to search for."),
      label: z.string().optional().describe("Only issues with this label."),
    },
  }, ({ query }) => text(`results for ${query}`));
  const comment = server.registerTool("issue_comment", {
    description: "Add a comment to an issue.",
    inputSchema: {
      id: z.string().describe("The issue's id."),
      body: z.string().describe("The comment, in Markdown."),
    },
  }, () => text("ok"));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "forge", version: "1.0.0" });
  await client.connect(clientSide);
  const source = mcpTools(client, { prefix: "tracker_" });
  prompt.tools(source.tools$);
  await source.ready;

  const conversations = new Conversations(101);
  const steps = Array.from({ length: STEPS }, (_, index) => async () => {
    // The agent edits files as it goes; a commit every 12 steps cleans up.
    if (index % 3 === 0) {
      modified = index % 12 === 0
        ? []
        : [...modified, CODING.things[(index / 3) % CODING.things.length]];
    }
    if (index === 12) branch = "fix/retry-backoff";
    if (index === 34) branch = "feat/cache-metrics";
    if (index === 25) day = 1;
    if (index === 15) {
      server.registerTool("ci_status", {
        description: "The status of the latest CI run of a branch.",
        inputSchema: { branch: z.string().describe("The branch name.") },
      }, ({ branch }) => text(`green on ${branch}`));
      await until(() => source.owns("tracker_ci_status"));
    }
    if (index === 30) {
      comment.remove();
      await until(() => !source.owns("tracker_issue_comment"));
    }
    return { messages: conversations.turn("main", CODING) };
  });
  return {
    prompt,
    steps,
    dispose: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Waits (a few macrotasks at a time) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the MCP tool list did not change in time");
}
