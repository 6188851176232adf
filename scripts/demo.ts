/**
 * A realistic harness in one file: a persona template, two tool plugins
 * that each own a guidance section and a tool provider, a tool order, two
 * agents as scopes (one with its own persona and a private tool), a
 * sub-agent that inherits the coder's scope through a scope chain and
 * overrides one section, runtime context (volatile facts sent after the
 * conversation's last message, only when they change), and a listener that
 * appends a section.
 * It prints each agent's prompt and tools, explains where the sub-agent's
 * sections and tools come from (with token counts from `gpt-tokenizer`),
 * unloads a plugin, then watches one agent live while plugins come and go,
 * the working directory changes (a live value) and an in-process MCP
 * server's tools load, change and unload. Then it runs two steps of the
 * coder between which one plugin changes its section, sends the second
 * step through the real `@anthropic-ai/sdk` client to a recording server on
 * 127.0.0.1 and prints the request body (exactly what reaches the wire),
 * and ends with the cache-break report of `diffAssemblies` between the two
 * steps (the one `rxprompt diff` prints).
 *
 * Run: `deno task -q demo` (or `npx -y deno@2.9.6 task -q demo`).
 *
 * @module
 */

import Anthropic from "@anthropic-ai/sdk";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { BehaviorSubject } from "rxjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { mcpTools } from "../adapters/mcp/mod.ts";
import { diffReport } from "../cli/diff_report.ts";
import { style } from "../cli/output.ts";
import {
  countAssemblyTokens,
  diffAssemblies,
  type PromptAssembly,
  type PromptExplanation,
  type PromptView,
  type Registrar,
  renderPrompt,
  renderRuntimeContext,
  SystemPrompt,
  TOOL_GUIDANCE_ORDER,
  TOOL_ORDER_REST,
} from "../mod.ts";
import {
  anthropicConversation,
  type AnthropicConversationBody,
} from "../adapters/anthropic/mod.ts";
import { recordOneRequest } from "./_recording_server.ts";

interface Agent {
  name: string;
  model: string;
}

interface StepContext {
  scope?: Agent;
  signal?: AbortSignal;
}

const coder: Agent = { name: "coder", model: "large-model-2" };
const reviewer: Agent = { name: "reviewer", model: "small-model-1" };
// The working directory is live: the agent loop pushes each change.
const cwd$ = new BehaviorSubject("/work/shop");

// The harness: identity, persona template, facts as variables, tool order.
const prompt = new SystemPrompt<StepContext>({
  persona: "You are a software agent on {{model}}, working in {{cwd}}.",
  toolOrder: ["read_file", "write_file", TOOL_ORDER_REST],
});
prompt.variable("model", (context) => context.scope?.model);
prompt.variable("cwd", cwd$);
// Volatile facts stay out of the system prompt (its bytes stay stable and
// cacheable): the model gets them after the conversation's last message,
// only when they changed (the conversation does it; see printWireRequest).
prompt.runtimeContext({
  name: "date",
  order: 0,
  text: () => `Today is ${new Date().toISOString().slice(0, 10)}.`,
});
prompt.runtimeContext({
  name: "git",
  order: 10,
  text: "Branch main; 2 files modified.",
});
prompt.onAssemble(async (_assembly, _context, next) => {
  const assembly = await next();
  assembly.sections.push({
    name: "harness:budget",
    order: 900,
    text: "Stop after 30 tool calls and summarise what is left.",
  });
  return assembly;
});

// A tool plugin: one guidance section and one tool provider, both owned by
// the plugin's own registrar, so unloading the plugin is one dispose(). The
// files plugin stays loaded: `toolOrder` names its tools, and naming a tool
// that no provider knows fails the assembly loudly.
function loadFilesPlugin(host: Registrar<StepContext>): Registrar<StepContext> {
  const plugin = host.fork({ label: "files" });
  plugin.section({
    name: "tools:files",
    order: TOOL_GUIDANCE_ORDER + 10,
    text: "Read a file before you change it. Paths are relative to {{cwd}}.",
  });
  plugin.tools(() => ({
    schemas: [
      tool("read_file", "Read a file.", { path: "string" }),
      tool("write_file", "Write a file.", { path: "string", text: "string" }),
    ],
  }));
  return plugin;
}

function loadShellPlugin(host: Registrar<StepContext>): Registrar<StepContext> {
  const plugin = host.fork({ label: "shell" });
  plugin.section({
    name: "tools:shell",
    order: TOOL_GUIDANCE_ORDER + 20,
    text: "Run one command at a time and read its output.",
  });
  plugin.tools(() => ({
    schemas: [tool("shell", "Run a shell command.", { command: "string" })],
  }));
  return plugin;
}

/** An in-process MCP server with one tool, and a client connected to it. */
async function startMcpDocs(): Promise<{ server: McpServer; client: Client }> {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  server.registerTool("search", {
    description: "Search the project documentation.",
    inputSchema: {},
  }, () => ({ content: [{ type: "text", text: "see README, Reactive use" }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "demo-agent", version: "1.0.0" });
  await client.connect(clientSide);
  return { server, client };
}

function tool(
  name: string,
  description: string,
  fields: Record<string, string>,
): { name: string; description: string; parameters: Record<string, unknown> } {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([field, type]) => [field, { type }]),
  );
  return {
    name,
    description,
    parameters: { type: "object", properties, required: Object.keys(fields) },
  };
}

const files = loadFilesPlugin(prompt);
const shell = loadShellPlugin(prompt);

// The coder agent: its own persona (shadows the deployment's for this agent
// only) and a private tool.
const coderScope = prompt.scope(coder, { label: "coder" });
coderScope.section({
  name: "deployment:persona",
  order: 0,
  text: "You are the coder. You write small, tested changes on {{model}}.",
});
coderScope.tools(() => ({
  schemas: [tool("run_tests", "Run the test suite.", {})],
}));

async function show(agent: Agent): Promise<PromptAssembly> {
  const assembly = await prompt.assemble({ scope: agent });
  console.log(box(`${agent.name} (${agent.model})`));
  console.log(`[system]\n${renderPrompt(assembly)}`);
  console.log(`\n[user: runtime context]\n${renderRuntimeContext(assembly)}`);
  console.log(`\ntools: ${assembly.tools.map((t) => t.name).join(", ")}\n`);
  return assembly;
}

function printExplanation(explanation: PromptExplanation): void {
  const rows = [["entry", "registrar", "layer", "characters", "tokens"]];
  const entries = [
    ...explanation.sections.map((origin) => ({ kind: "section", origin })),
    ...explanation.runtimeContext.map((origin) => ({
      kind: "runtime",
      origin,
    })),
  ];
  for (const { kind, origin } of entries) {
    rows.push([
      `${kind} ${origin.name}`,
      origin.registrar ?? "-",
      origin.layer,
      String(origin.end - origin.start),
      String(origin.tokens),
    ]);
  }
  for (const origin of explanation.tools) {
    rows.push([
      `tool ${origin.name}`,
      origin.registrar ?? "-",
      origin.layer,
      "",
      String(origin.tokens),
    ]);
  }
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => row[column].length))
  );
  for (const row of rows) {
    const cells = row.map((cell, column) =>
      column >= 3 ? cell.padStart(widths[column]) : cell.padEnd(widths[column])
    );
    console.log(cells.join("  "));
  }
  const tokens = (origins: { tokens?: number }[]) =>
    origins.reduce((sum, origin) => sum + (origin.tokens ?? 0), 0);
  console.log(
    `system prompt: ${explanation.prompt.length} characters, ` +
      `${tokens(explanation.sections)} tokens; tools: ` +
      `${tokens(explanation.tools)} tokens`,
  );
  for (const hidden of explanation.shadowed) {
    console.log(
      `shadowed: ${hidden.kind} ${hidden.name} of ${hidden.registrar} ` +
        `(${hidden.layer}), by ${hidden.by}`,
    );
  }
  console.log();
}

/**
 * One agent's step through the real Anthropic client, pointed at a local
 * recording server: the request body is what the API would receive. The
 * body is the conversation's (`anthropicConversation`, the README's request
 * loop): the runtime context after the conversation's last item only when
 * it changed (the first step's stays in the history), gated tools kept
 * listed, and a cache marker on the conversation's last block.
 */
async function printWireRequest(
  body: AnthropicConversationBody,
  step: string,
): Promise<void> {
  console.log(`\n${box(`on the wire: ${step} via @anthropic-ai/sdk`)}`);
  const request = await recordOneRequest(async (baseURL) => {
    const client = new Anthropic({
      apiKey: "sk-local-demo",
      baseURL,
      maxRetries: 0,
      timeout: 5_000,
    });
    await client.messages.create(body);
  });
  console.log(
    `${request.method} ${request.path}\n` +
      formatJson(JSON.parse(request.body), ""),
  );
}

/**
 * Pretty-printed JSON that keeps short objects on one line, with long
 * strings shortened (the prompt was printed in full above).
 */
function formatJson(value: unknown, indent: string): string {
  if (typeof value === "string" && value.length > 72) {
    return JSON.stringify(
      `${value.slice(0, 56)}… (${value.length} characters)`,
    );
  }
  const inline = JSON.stringify(value, null, 1)?.replace(/\n\s*/g, " ") ??
    "null";
  if (typeof value !== "object" || value === null) return inline;
  if (indent.length + inline.length <= 72) return inline;
  const inner = `${indent}  `;
  const lines = Array.isArray(value)
    ? value.map((item) => inner + formatJson(item, inner))
    : Object.entries(value).map(([key, item]) =>
      `${inner}${JSON.stringify(key)}: ${formatJson(item, inner)}`
    );
  const [open, close] = Array.isArray(value) ? "[]" : "{}";
  return `${open}\n${lines.join(",\n")}\n${indent}${close}`;
}

function box(title: string): string {
  return `── ${title} ${"─".repeat(Math.max(0, 60 - title.length))}`;
}

/** Each section's rendered text, by name. */
function renderedSections(assembly: PromptAssembly): Map<string, string> {
  return new Map(assembly.sections.map((section) => [
    section.name,
    renderPrompt({ ...assembly, sections: [section] }),
  ]));
}

function diff(before: PromptAssembly, after: PromptAssembly): string[] {
  const lines: string[] = [];
  const old = renderedSections(before);
  const now = renderedSections(after);
  for (const [name, text] of now) {
    if (!old.has(name)) lines.push(`+ section ${name}`);
    else if (old.get(name) !== text) lines.push(`~ section ${name}: "${text}"`);
  }
  for (const name of old.keys()) {
    if (!now.has(name)) lines.push(`- section ${name}`);
  }
  const oldTools = new Set(before.tools.map((t) => t.name));
  const newTools = new Set(after.tools.map((t) => t.name));
  for (const name of newTools) {
    if (!oldTools.has(name)) lines.push(`+ tool ${name}`);
  }
  for (const name of oldTools) {
    if (!newTools.has(name)) lines.push(`- tool ${name}`);
  }
  return lines;
}

// 1. Both agents, as the model would see them.
const coderBefore = await show(coder);
const reviewerBefore = await show(reviewer);

// 1b. A sub-agent the coder spawns: it inherits the coder's scope (its
// persona and its private tool) through a scope chain, and overrides one
// section, the persona, for itself only.
const tester: Agent = {
  name: "tester, sub-agent of coder",
  model: "small-model-1",
};
const unbindTester = prompt.bindScope(tester, coder);
prompt.scope(tester, { label: "tester" }).section({
  name: "deployment:persona",
  order: 0,
  text: "You are the coder's test sub-agent on {{model}}: run tests, report.",
});
await show(tester);

// 1c. Where the sub-agent's prompt comes from: each entry's registrar and
// layer (the chain's scopes included), its size, and its tokens (o200k_base,
// from the npm package gpt-tokenizer; the registry depends on no tokenizer).
console.log(box("explain(): the tester's prompt"));
printExplanation(await prompt.explain({ scope: tester }, { countTokens }));
await unbindTester();

// 2. The shell plugin unloads: its section and its tool go, for everyone.
await shell.dispose();
console.log(box("after unloading the shell plugin"));
for (
  const [agent, before] of [[coder, coderBefore], [
    reviewer,
    reviewerBefore,
  ]] as const
) {
  const after = await prompt.assemble({ scope: agent });
  console.log(`${agent.name}: ${diff(before, after).join(", ")}`);
}

// 3. Live: watch the reviewer while plugins load and unload, then change a
// provider's underlying value and invalidate.
console.log(`\n${box("watching reviewer")}`);
let previous: PromptAssembly | undefined;
let views = 0;
const settled: Array<() => void> = [];
function nextView(): Promise<void> {
  return new Promise((resolve) => settled.push(resolve));
}
const subscription = prompt.watch({ scope: reviewer }).subscribe(
  (view: PromptView) => {
    views++;
    if ("error" in view) {
      console.log(`view ${views}: error ${String(view.error)}`);
    } else if (previous === undefined) {
      console.log(
        `view ${views}: ${view.assembly.sections.length} sections, tools ` +
          view.assembly.tools.map((t) => t.name).join(", "),
      );
    } else {
      const changes = diff(previous, view.assembly);
      // A registration that contributes nothing yet (an MCP source before
      // its first listing) still makes a view: say so, not an empty line.
      console.log(
        `view ${views}:` +
          (changes.length === 0
            ? " no change yet (a registration that " +
              "contributes nothing until its source delivers)"
            : ""),
      );
      for (const change of changes) console.log(`  ${change}`);
    }
    if ("assembly" in view) previous = view.assembly;
    settled.shift()?.();
  },
);
await nextView();

/** Waits for views until the latest one offers `name`. */
async function viewWithTool(name: string): Promise<void> {
  while (!previous?.tools.some((tool) => tool.name === name)) await nextView();
}

console.log("> load the shell plugin again (two registrations, one view)");
const shellAgain = loadShellPlugin(prompt);
await nextView();

console.log("> the reviewer gets a persona of its own");
prompt.scope(reviewer).section({
  name: "deployment:persona",
  order: 0,
  text: "You are the reviewer in {{cwd}}. Comment; never edit.",
});
await nextView();

console.log("> a change to the coder only: no view for the reviewer");
const coderExtra = prompt.scope(coder).section({
  name: "coder:extra",
  order: 50,
  text: "Prefer small commits.",
});
await new Promise((resolve) => setTimeout(resolve, 20));
console.log(`  views so far: ${views}`);

console.log("> the working directory changes (a live value: no invalidate())");
cwd$.next("/work/shop/backend");
await nextView();

const mcp = await startMcpDocs();
console.log("> an MCP server's tools load as a live tool source");
const docsPlugin = prompt.fork({ label: "mcp-docs" });
const docs = mcpTools(mcp.client, { prefix: "docs_" });
docsPlugin.tools(docs.tools$);
await viewWithTool("docs_search"); // the first listing arrives as an update

console.log("> the server adds a tool (list_changed): listed again, one view");
mcp.server.registerTool("changelog", {
  description: "The latest changelog entries.",
}, () => ({ content: [{ type: "text", text: "0.2.0: live values" }] }));
await viewWithTool("docs_changelog");

const answer = await docs.call("docs_search", { query: "watch" });
console.log(`  docs_search → ${JSON.stringify(answer)}`);
await docsPlugin.dispose(); // stops listening to the server
await nextView();
await mcp.client.close();

subscription.unsubscribe();

// 4. Why did the cache miss? Two steps of the coder; between them a plugin
// changes its section (a live value: the task it was given).
const task$ = new BehaviorSubject("Fix the failing login test.");
const tasks = prompt.fork({ label: "tasks" });
tasks.section({ name: "task", order: 500, text: task$ });
// The coder's conversation builds each step's whole request body.
// 0.4's bytes (the system prompt rebuilt), so the tasks plugin's change
// below is the cache break the report explains; the default tells it in a
// system message instead (docs/conversation.md, "Changes").
const conversation = anthropicConversation(prompt, {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  changes: "rebuild",
});
conversation.user("Run the tests and report.");
const stepOne = await prompt.assemble({ scope: coder });
await conversation.request({ scope: coder });
conversation.record({
  role: "assistant",
  content: [{ type: "text", text: "Two tests fail in auth/. Fix them?" }],
});
task$.next("Add a test for the logout flow.");
const stepTwo = await prompt.assemble({ scope: coder });
conversation.user("Yes, fix them.");
const requestTwo = await conversation.request({ scope: coder });
await tasks.dispose();

// 4b. A token budget: a memory plugin's section (live, so volatile) grows.
// Volatile sections are pruned first, lowest priority first: the memory goes
// and the stable prefix, which the provider caches, stays byte-identical.
const memory$ = new BehaviorSubject("The user prefers small commits.");
const memories = prompt.fork({ label: "memory" });
memories.section({ name: "memory", order: 600, text: memory$, priority: -1 });
const budget = {
  maxTokens: countAssemblyTokens(
    await prompt.assemble({ scope: coder }),
    countTokens,
  ).total + 40,
  countTokens,
};
const roomy = await prompt.assemble({ scope: coder }, { budget });
memory$.next("The user prefers small commits. ".repeat(30));
const tight = await prompt.assemble({ scope: coder }, { budget });
await memories.dispose();
console.log(`\n${box("a token budget prunes the growing memory first")}`);
console.log(
  `budget ${budget.maxTokens} tokens (o200k_base); memory grows to ` +
    `${countTokens(memory$.value)} tokens; pruned: ` +
    `${JSON.stringify(roomy.pruned ?? [])} → ${JSON.stringify(tight.pruned)}`,
);
const budgetDiff = diffAssemblies(roomy, tight);
console.log(
  `cache: tools ${budgetDiff.cache.toolsStable ? "intact" : "changed"}; ` +
    `the prompt up to the memory (${budgetDiff.cache.promptStablePrefix} ` +
    `characters) is unchanged, the cached prefix; ` +
    `${
      tight.pruned?.every(({ name }) => name === "memory")
        ? "no other section"
        : "other sections too"
    } pruned`,
);

await coderExtra();
await shellAgain.dispose();
await files.dispose();
await prompt.dispose();
console.log("\ndone: registry disposed.");

// 5. What reaches the wire: the coder's second step. Last, why that
// request's prompt cache misses against the first step: the report
// `rxprompt diff` prints.
await printWireRequest(requestTwo, "the coder's step 2");
console.log(`\n${box("step 1 → step 2 of the coder: the cache-break report")}`);
console.log("> step 1; then the tasks plugin changed its section; step 2");
const cacheBreak = diffAssemblies(stepOne, stepTwo);
console.log(`identical: ${cacheBreak.identical ? "yes" : "no"}`);
const prompts = { before: renderPrompt(stepOne), after: renderPrompt(stepTwo) };
const colour = Deno.stdout.isTerminal() && !Deno.noColor;
for (const line of diffReport(cacheBreak, prompts, style(colour))) {
  console.log(line);
}
