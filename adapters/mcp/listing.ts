/**
 * Listing every page of an MCP server's tools, as an Observable that
 * cancels the requests in flight when it is unsubscribed.
 *
 * @module
 */

import { Observable } from "rxjs";
import { quote, SystemPromptError } from "../../src/errors.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";

/**
 * What `mcpTools` needs of an MCP client: a connected `Client` of
 * `@modelcontextprotocol/sdk` fits (typed by its methods, so a client from
 * another copy of the SDK fits too).
 *
 * @example
 * ```ts
 * import type { McpToolsClient } from "@rxprompt/system-prompt/mcp";
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 *
 * const client: McpToolsClient = new Client({ name: "agent", version: "1.0.0" });
 * ```
 */
export type McpToolsClient = Pick<Client, "listTools" | "callTool">;

/** One tool as `tools/list` returns it. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Every page of `tools/list`, as one value; unsubscribing cancels it. */
export function listing$(client: McpToolsClient): Observable<McpTool[]> {
  return new Observable<McpTool[]>((subscriber) => {
    const controller = new AbortController();
    listAll(client, controller.signal).then(
      (tools) => {
        subscriber.next(tools);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}

async function listAll(
  client: McpToolsClient,
  signal: AbortSignal,
): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(
      cursor === undefined ? undefined : { cursor },
      { signal },
    );
    tools.push(...page.tools as McpTool[]);
    cursor = page.nextCursor;
    if (cursor !== undefined && cursors.has(cursor)) {
      throw new SystemPromptError(
        "PROVIDER_FAILED",
        `The MCP server returned the cursor ${quote(cursor)} twice while ` +
          `listing its tools; the listing stopped instead of looping.`,
      );
    }
    if (cursor !== undefined) cursors.add(cursor);
  } while (cursor !== undefined);
  return tools;
}
