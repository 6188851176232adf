/**
 * Deferred tools on OpenAI Responses (SPEC §10.3): a `tool_search` tool
 * listed first, the listed functions as they are, then one `namespace`
 * per tool source (named from its label, described from its tools' names)
 * holding its deferred functions with `defer_loading: true`. The server
 * runs the search by default; with `toolSearch: "client"` the model asks
 * and the conversation answers each `tool_search_call` itself, at the next
 * request, with the deterministic search (`searchTools`) over the active
 * deferred tools, so the found set is reproducible.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../../src/errors.ts";
import type { PromptAssembly, ToolSchema } from "../../../src/types.ts";
import {
  searchTools,
  toolSearchIndex,
} from "../../../src/shared/tool_search.ts";
import type { ResponsesTool, ResponsesToolChoice } from "./responses.ts";

/**
 * The `tool_search` tool a conversation lists when it has deferred tools:
 * run by the server (default), or by the conversation (`"client"`).
 *
 * @example
 * ```ts
 * import type { ResponsesToolSearchTool } from "@rxprompt/system-prompt/openai";
 *
 * const search: ResponsesToolSearchTool = { type: "tool_search" };
 * ```
 */
export interface ResponsesToolSearchTool {
  /** Always `"tool_search"`. */
  type: "tool_search";
  /** Who runs the search: absent for the server. */
  execution?: "client";
  /** With client execution: what the search does, for the model. */
  description?: string;
  /** With client execution: the search's arguments. */
  parameters?: Record<string, unknown>;
}

/**
 * A deferred function, as a namespace holds it.
 *
 * @example
 * ```ts
 * import type { ResponsesDeferredFunction } from "@rxprompt/system-prompt/openai";
 *
 * const fn: ResponsesDeferredFunction = {
 *   type: "function",
 *   name: "crm_log_call",
 *   description: "Log a call.",
 *   parameters: { type: "object" },
 *   strict: false,
 *   defer_loading: true,
 * };
 * ```
 */
export interface ResponsesDeferredFunction extends ResponsesTool {
  /** Always `true`: listed only when a search loads it. */
  defer_loading: true;
}

/**
 * One tool source's deferred functions, grouped under a name the model
 * sees with its description (the functions' bodies stay unloaded).
 *
 * @example
 * ```ts
 * import type { ResponsesNamespaceTool } from "@rxprompt/system-prompt/openai";
 *
 * const crm: ResponsesNamespaceTool = {
 *   type: "namespace",
 *   name: "crm",
 *   description: "Tools of crm: call, crm, log.",
 *   tools: [],
 * };
 * ```
 */
export interface ResponsesNamespaceTool {
  /** Always `"namespace"`. */
  type: "namespace";
  /** From the source's label: its last `/` segment, `[a-zA-Z0-9_-]`. */
  name: string;
  /** `Tools of <label>: ` and the most frequent words of its names. */
  description: string;
  /** Its deferred functions, in canonical order. */
  tools: ResponsesDeferredFunction[];
}

/**
 * One tool an `allowed_tools` tool choice allows in a conversation with
 * deferred tools: a function (a deferred one by its namespace and name, as
 * its call names it), or the `tool_search` tool.
 *
 * @example
 * ```ts
 * import type { ResponsesAllowedTool } from "@rxprompt/system-prompt/openai";
 *
 * const found: ResponsesAllowedTool = {
 *   type: "function",
 *   name: "crm_log_call",
 *   namespace: "crm",
 * };
 * ```
 */
export type ResponsesAllowedTool =
  | { type: "function"; name: string; namespace?: string }
  | { type: "tool_search" };

/**
 * A conversation's tool choice with gates and deferred tools: the active
 * listed functions, `tool_search`, then the active deferred functions in
 * their namespaces (the gates live here; the tools block never changes).
 *
 * @example
 * ```ts
 * import type { ResponsesDeferredToolChoice } from "@rxprompt/system-prompt/openai";
 *
 * const choice: ResponsesDeferredToolChoice = {
 *   type: "allowed_tools",
 *   mode: "auto",
 *   tools: [
 *     { type: "function", name: "read_file" },
 *     { type: "tool_search" },
 *     { type: "function", name: "crm_log_call", namespace: "crm" },
 *   ],
 * };
 * ```
 */
export interface ResponsesDeferredToolChoice {
  /** Always `"allowed_tools"`. */
  type: "allowed_tools";
  /** `"auto"` or `"required"`, as the conversation's `toolChoiceMode`. */
  mode: "auto" | "required";
  /** What the model may call this step. */
  tools: ResponsesAllowedTool[];
}

/** The namespace of deferred tools no source labelled. */
const UNLABELLED = "deferred";
/** How many name words a namespace's description holds. */
const DESCRIPTION_WORDS = 8;
/** The most tools a client search returns. */
export const CLIENT_SEARCH_LIMIT = 5;

/** The client-run search's own definition (fixed: the tools never change). */
const CLIENT_SEARCH: ResponsesToolSearchTool = {
  type: "tool_search",
  execution: "client",
  description: "Search the tools not listed here by words in their names " +
    "and descriptions; the ones found become callable.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words to search for." },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

/**
 * The conversation option `toolSearch` read: `"server"` by default;
 * `"pair"` is the fixed search-and-call pair instead of `tool_search`.
 */
export function readToolSearch(
  value: unknown,
  form: string,
): "server" | "client" | "pair" {
  if (value === undefined || value === "server") return "server";
  if (value === "client" || value === "pair") return value;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `${form}'s toolSearch is ${
      quote(value)
    }; it must be "server" (the default), "client" or "pair".`,
  );
}

/**
 * The namespaces of the assembly's deferred tools: one per label of
 * `deferredSources`, in the canonical order of each label's first tool.
 */
export function namespacesOf(
  assembly: Pick<PromptAssembly, "deferredTools" | "deferredSources">,
  strict: boolean,
): ResponsesNamespaceTool[] {
  const groups = new Map<string, ToolSchema[]>();
  for (const tool of assembly.deferredTools ?? []) {
    const label = assembly.deferredSources?.[tool.name] ?? "";
    let group = groups.get(label);
    if (group === undefined) {
      group = [];
      groups.set(label, group);
    }
    group.push(tool);
  }
  const taken = new Set<string>();
  return [...groups].map(([label, tools]) => {
    const base = namespaceName(label);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, 64 - suffix.length) + suffix;
    }
    taken.add(name);
    return {
      type: "namespace",
      name,
      description: `Tools of ${label === "" ? UNLABELLED : label}: ${
        commonWords(tools).join(", ")
      }.`,
      tools: tools.map((tool) => deferredFunction(tool, strict)),
    };
  });
}

/**
 * A head's tools with the assembly's deferred tools: the `tool_search`
 * tool, the listed functions, then the namespaces. Without deferred
 * tools, `listed` as it is.
 */
export function withDeferredTools(
  listed: ResponsesTool[] | undefined,
  assembly: Pick<PromptAssembly, "deferredTools" | "deferredSources">,
  options: { readonly search: "server" | "client"; readonly strict: boolean },
):
  | (ResponsesTool | ResponsesToolSearchTool | ResponsesNamespaceTool)[]
  | undefined {
  if ((assembly.deferredTools ?? []).length === 0) return listed;
  return [
    options.search === "client"
      ? { ...CLIENT_SEARCH }
      : { type: "tool_search" },
    ...listed ?? [],
    ...namespacesOf(assembly, options.strict),
  ];
}

/**
 * A gated step's tool choice with the active deferred tools allowed too:
 * `tool_search` and each active deferred function by its namespace, so a
 * found tool is callable as an active listed one is. `activeTools` holds
 * the active listed names, then the active deferred ones. Without gates
 * (`choice` undefined) or an active deferred tool, `choice` as it is.
 */
export function allowingDeferred(
  choice: ResponsesToolChoice | undefined,
  assembly: Pick<
    PromptAssembly,
    "deferredTools" | "deferredSources" | "activeTools"
  >,
  mode: "auto" | "required",
): ResponsesToolChoice | ResponsesDeferredToolChoice | undefined {
  if (choice === undefined || assembly.activeTools === undefined) {
    return choice;
  }
  const active = new Set(assembly.activeTools);
  const found: ResponsesAllowedTool[] = [];
  for (const namespace of namespacesOf(assembly, false)) {
    for (const { name } of namespace.tools) {
      if (active.has(name)) {
        found.push({ type: "function", name, namespace: namespace.name });
      }
    }
  }
  if (found.length === 0) return choice;
  return {
    type: "allowed_tools",
    mode: choice === "none" ? mode : choice.mode,
    tools: [
      ...choice === "none" ? [] : choice.tools,
      { type: "tool_search" },
      ...found,
    ],
  };
}

/**
 * The tool choice with inline changes: the tools the model may call may
 * have come in through `additional_tools`, outside the tools block.
 * `allowed` holds the active listed and inline names, then the active
 * deferred ones: allowed with `tool_search` and by their namespaces, or
 * through the pair when the conversation lists it.
 */
export function inlineChoice(
  allowed: readonly string[] | undefined,
  assembly: PromptAssembly,
  { mode, pair }: {
    readonly mode: "auto" | "required";
    readonly pair: boolean;
  },
): ResponsesToolChoice | ResponsesDeferredToolChoice | undefined {
  if (allowed === undefined) return undefined;
  const deferred = new Set(
    (assembly.deferredTools ?? []).map((tool) => tool.name),
  );
  // The pair is among the allowed names while a deferred tool is: it is
  // the tool set's own (`withToolPair`).
  const names = allowed.filter((name) => !deferred.has(name));
  const choice: ResponsesToolChoice = names.length === 0 ? "none" : {
    type: "allowed_tools",
    mode,
    tools: names.map((name) => ({ type: "function" as const, name })),
  };
  return pair ? choice : allowingDeferred(
    choice,
    { ...assembly, activeTools: [...allowed] },
    mode,
  );
}

/**
 * The `tool_search_output` items answering the last answer's client-run
 * `tool_search_call`s: for each, the active deferred tools its query
 * finds, grouped in their namespaces as the tools block holds them.
 */
export function clientSearchOutputs(
  history: { readonly length: number; at(index: number): unknown },
  assembly: PromptAssembly | undefined,
  strict: boolean,
): Record<string, unknown>[] {
  const calls: { call_id: string; query: string }[] = [];
  for (let at = history.length - 1; at >= 0; at--) {
    const item = history.at(at) as Record<string, unknown>;
    if (item.type === "tool_search_output" && item.execution === "client") {
      break;
    }
    if (item.role === "user" || item.type === "function_call_output") break;
    if (
      item.type === "tool_search_call" && item.execution === "client" &&
      typeof item.call_id === "string"
    ) {
      const args = item.arguments as { query?: unknown } | null;
      calls.unshift({
        call_id: item.call_id,
        query: typeof args?.query === "string" ? args.query : "",
      });
    }
  }
  if (calls.length === 0) return [];
  const deferred = assembly?.deferredTools ?? [];
  const active = assembly?.activeTools === undefined
    ? undefined
    : new Set(assembly.activeTools);
  const index = toolSearchIndex(
    deferred.filter((tool) => active === undefined || active.has(tool.name)),
  );
  const namespaces = namespacesOf(assembly ?? {}, strict);
  return calls.map(({ call_id, query }) => {
    const found = new Set(
      searchTools(index, query, { limit: CLIENT_SEARCH_LIMIT }).map((hit) =>
        hit.tool.name
      ),
    );
    const tools = namespaces.flatMap((namespace) => {
      const inner = namespace.tools.filter((fn) => found.has(fn.name));
      return inner.length === 0 ? [] : [{ ...namespace, tools: inner }];
    });
    return {
      type: "tool_search_output",
      call_id,
      execution: "client",
      status: "completed",
      tools,
    };
  });
}

/**
 * The deferred tools the items loaded, in order: the functions inside
 * their `tool_search_output`s.
 */
export function foundIn(items: readonly unknown[]): string[] {
  const found: string[] = [];
  for (const item of items) {
    const output = item as { type?: unknown; tools?: unknown };
    if (output.type !== "tool_search_output" || !Array.isArray(output.tools)) {
      continue;
    }
    for (const tool of output.tools as Record<string, unknown>[]) {
      const inner = tool.type === "namespace" && Array.isArray(tool.tools)
        ? tool.tools as Record<string, unknown>[]
        : [tool];
      for (const fn of inner) {
        if (typeof fn.name === "string" && !found.includes(fn.name)) {
          found.push(fn.name);
        }
      }
    }
  }
  return found;
}

function deferredFunction(
  tool: ToolSchema,
  strict: boolean,
): ResponsesDeferredFunction {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict,
    defer_loading: true,
  };
}

/** A label's last `/` segment, other characters `_`, at most 64. */
function namespaceName(label: string): string {
  const last = label.slice(label.lastIndexOf("/") + 1);
  const name = last.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return name === "" ? UNLABELLED : name;
}

/**
 * The most frequent words of the tools' names (ties in code-unit order):
 * a description that changes only when the source's vocabulary does.
 */
function commonWords(tools: readonly ToolSchema[]): string[] {
  const counts = new Map<string, number>();
  for (const { name } of tools) {
    const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase()
      .split(/[^a-z0-9]+/).filter((word) => word !== "");
    for (const word of new Set(words)) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) =>
    b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
  ).slice(0, DESCRIPTION_WORDS).map(([word]) => word);
}
