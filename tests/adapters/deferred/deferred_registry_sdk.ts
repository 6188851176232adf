/**
 * The deferred-tools sessions' registry (SPEC §10.3), as every SDK test of
 * the deferred tools sets it up: the three MCP servers of
 * `mcp_servers.ts` connected, each a deferred `mcpTools` source in a fork
 * of its own, beside one listed `read_file` tool and, when given, a
 * section. Loaded by the `*_sdk_test.ts` files only.
 */
import {
  type PromptSection,
  SystemPrompt,
  type ToolSchema,
} from "../../../mod.ts";
import { mcpTools, type McpToolSource } from "../../../adapters/mcp/mod.ts";
import { connectServers } from "./mcp_servers.ts";

/** The one tool every deferred session lists. */
export const READ_FILE: ToolSchema = {
  name: "read_file",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};

/** The section most sessions add: search before saying no. */
export const SEARCH_RULES: PromptSection = {
  name: "rules",
  order: 10,
  text: "Search for a tool before you say you cannot do something.",
};

/** A connected registry: its prompt, its deferred sources, and `close`. */
export interface DeferredRegistry {
  readonly prompt: SystemPrompt;
  readonly sources: McpToolSource[];
  /** Closes every MCP client and server (dispose the prompt first). */
  close(): Promise<void>;
}

/**
 * The registry with its 300 deferred tools ready: `persona` (the
 * operations agent's by default; `null` for none), `section` when given,
 * the sources' tools `stable` when asked.
 */
export async function deferredRegistry(
  { persona = "You run operations for a software company.", section, stable }: {
    readonly persona?: string | null;
    readonly section?: PromptSection;
    readonly stable?: boolean;
  } = {},
): Promise<DeferredRegistry> {
  const connected = await connectServers();
  const prompt = new SystemPrompt({
    includeHarnessIdentity: false,
    ...(persona === null ? {} : { persona }),
  });
  if (section !== undefined) prompt.section(section);
  prompt.tools(() => ({ schemas: [READ_FILE] }));
  const sources: McpToolSource[] = [];
  for (const { plan, client } of connected.servers) {
    const source = mcpTools(client, { prefix: plan.prefix, defer: true });
    prompt.fork({ label: plan.name }).tools(
      source.tools$,
      ...(stable === true ? [{ stability: "stable" as const }] : []),
    );
    sources.push(source);
  }
  for (const source of sources) await source.ready;
  return { prompt, sources, close: connected.close };
}
