/**
 * The fixed search-and-call pair (SPEC §10.3) of the forms without a tool
 * search of their own (`ConversationForm.deferredTools: "pair"`): two
 * tools listed after the listed ones while the assembly has deferred
 * tools, their definitions fixed strings, so the tools block never
 * changes whatever the deferred set is.
 *
 * - `find_tools { query, limit? }` is answered by the conversation itself,
 *   at the next request, with `searchTools` over the active deferred tools
 *   (one JSON line per hit: name, description, parameters). It is never an
 *   open call.
 * - `call_tool { name, arguments }` is an open call of the named tool with
 *   those arguments: the harness runs it as it runs any call, and its
 *   result goes back as the pair's result (the wire pairs results with
 *   calls by id).
 *
 * Pure.
 *
 * @module
 */

import type { PromptAssembly, ToolSchema } from "../types.ts";
import { searchTools, toolSearchIndex } from "../shared/tool_search.ts";
import type { ToolCall } from "./types.ts";

/** The pair's search tool. */
export const FIND_TOOLS = "find_tools";
/** The pair's call tool. */
export const CALL_TOOL = "call_tool";

/**
 * The result of a `find_tools` call until the next request answers it
 * (compared by identity): it keeps the call out of `openCalls`.
 */
export const PENDING_SEARCH: { readonly content: unknown; isError: boolean } =
  Object.freeze({ content: null, isError: false });

/** How many hits a search returns when the model names no limit. */
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

/**
 * The search tool's description: fixed, and distinctive enough that a
 * recorded head holding it lists the pair.
 */
const FIND_DESCRIPTION = "Search the tools not listed here by words; " +
  "returns their names, descriptions and parameters. Call one with " +
  "call_tool.";

/** The pair's definitions, in the order they are listed. */
export const TOOL_PAIR: readonly ToolSchema[] = Object.freeze([
  {
    name: FIND_TOOLS,
    description: FIND_DESCRIPTION,
    parameters: {
      type: "object",
      properties: {
        query: {
          type: "string",
          description: "Words of what the tool does.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: MAX_LIMIT,
          description: "The most tools returned (default 5).",
        },
      },
      required: ["query"],
    },
  },
  {
    name: CALL_TOOL,
    description: "Call a tool that find_tools returned, with its arguments.",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name." },
        arguments: {
          type: "object",
          description: "The tool's arguments, as its parameters describe.",
        },
      },
      required: ["name", "arguments"],
    },
  },
]);

/**
 * The assembly the form builds from: with deferred tools, the pair after
 * the listed tools (and, with gates, among the active names).
 */
export function withToolPair(assembly: PromptAssembly): PromptAssembly {
  if ((assembly.deferredTools ?? []).length === 0) return assembly;
  const listed: PromptAssembly = {
    ...assembly,
    tools: [...assembly.tools, ...TOOL_PAIR],
  };
  if (assembly.activeTools !== undefined) {
    // The active deferred names stay after the pair, as after the listed
    // ones in the assembly: a found tool called through the pair is allowed.
    const listedNames = new Set(assembly.tools.map((tool) => tool.name));
    listed.activeTools = [
      ...assembly.activeTools.filter((name) => listedNames.has(name)),
      FIND_TOOLS,
      CALL_TOOL,
      ...assembly.activeTools.filter((name) => !listedNames.has(name)),
    ];
  }
  return listed;
}

/** Whether a recorded head (as JSON) lists the pair. */
export function headListsPair(head: string | undefined): boolean {
  return head !== undefined && head.includes(FIND_DESCRIPTION);
}

/**
 * Whether a request listed the pair: in its head (as JSON), or among the
 * tools told inline (a conversation whose deferred tools came after its
 * first request adds the pair as it adds any tool).
 */
export function listsPair(
  head: string | undefined,
  inline: readonly { readonly schema: ToolSchema }[] | undefined,
): boolean {
  return headListsPair(head) ||
    (inline ?? []).some(({ schema }) =>
      schema.name === FIND_TOOLS && schema.description === FIND_DESCRIPTION
    );
}

/**
 * Whether a recorded request's pair was active, its calls the pair's: it
 * listed the pair (`listsPair`) and allowed it. A pair left listed after
 * the deferred tools went away is inactive: its calls were refused as any
 * inactive tool's, and a resume answers them so again.
 */
export function pairWasActive(
  request: {
    readonly head: string | undefined;
    readonly effective?: readonly { readonly schema: ToolSchema }[];
  },
  allowed: readonly string[] | undefined,
): boolean {
  return listsPair(request.head, request.effective) &&
    (allowed === undefined || allowed.includes(FIND_TOOLS));
}

/**
 * The calls of an answer to a request that listed the pair: a `call_tool`
 * call becomes a call of the tool it names with its arguments (same id);
 * a `find_tools` call stays as it is (the conversation answers it).
 */
export function pairCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => {
    if (call.name !== CALL_TOOL) return call;
    const input = call.input as { name?: unknown; arguments?: unknown } | null;
    if (typeof input?.name !== "string") return call;
    return {
      id: call.id,
      name: input.name,
      input: input.arguments ?? {},
      via: CALL_TOOL,
    };
  });
}

/**
 * The conversation's answer to a `find_tools` call: one JSON line per
 * active deferred tool its query finds, best first; a line saying none
 * was found otherwise.
 */
export function findToolsAnswer(
  input: unknown,
  assembly: Pick<PromptAssembly, "deferredTools" | "activeTools">,
): string {
  const args = input as { query?: unknown; limit?: unknown } | null;
  const query = typeof args?.query === "string" ? args.query : "";
  const limit = Number.isSafeInteger(args?.limit) &&
      (args!.limit as number) >= 1
    ? Math.min(args!.limit as number, MAX_LIMIT)
    : DEFAULT_LIMIT;
  const active = assembly.activeTools === undefined
    ? undefined
    : new Set(assembly.activeTools);
  const tools = (assembly.deferredTools ?? []).filter((tool) =>
    active === undefined || active.has(tool.name)
  );
  const hits = searchTools(toolSearchIndex(tools), query, { limit });
  if (hits.length === 0) {
    return `No tool matches ${JSON.stringify(query)}; search with other words.`;
  }
  return hits.map(({ tool }) =>
    JSON.stringify({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    })
  ).join("\n");
}

/**
 * `results` (the conversation's own refusals) with each `find_tools` call
 * of an answer to a request that listed the pair marked pending (answered
 * at the next request, never refused).
 */
export function pendingSearches<R>(
  results: Map<string, R | typeof PENDING_SEARCH>,
  calls: readonly ToolCall[],
  pair: boolean,
): Map<string, R> {
  if (pair) {
    for (const call of calls) {
      if (call.name === FIND_TOOLS) results.set(call.id, PENDING_SEARCH);
    }
  }
  return results as Map<string, R>;
}
