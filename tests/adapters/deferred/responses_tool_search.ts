/**
 * A loopback Responses API that holds a request to OpenAI's deferred-tool
 * rules (`tool_search`, `namespace` tools, `defer_loading` functions; the
 * shapes of `openai`'s responses.d.ts) and plays the model from a script:
 *
 * - A function with `defer_loading: true` (top level or in a namespace)
 *   needs a `tool_search` tool; at most one `tool_search`.
 * - A `namespace` has a name of `[a-zA-Z0-9_-]`, a description, at least
 *   one function, and function names unique within it; namespace names are
 *   unique and differ from the top-level functions' names.
 * - A `tool_search_output` in the input loads only deferred functions the
 *   request defines (a namespace by its name, its functions by theirs).
 * - A `function_call` in the input of a deferred function comes after a
 *   `tool_search_output` that loaded it (matched by `namespace` and
 *   `name`), else 400; of a function the request does not define, 400.
 * - An `additional_tools` input item defines its functions from there on,
 *   as the tools block's listed ones.
 * - An `allowed_tools` tool choice names only tools the request defines:
 *   `{ type: "tool_search" }` with a `tool_search` listed, and
 *   `{ type: "function", name, namespace? }` (a namespaced function by its
 *   namespace and name, as its call names it), else 400. The model then
 *   searches and calls only what it allows (`"none"`: nothing); a script
 *   asking for more is a test's error (500).
 *
 * With `execution: "server"` (the default) the server runs the search over
 * the deferred functions (words over names, descriptions and the
 * namespace's description; at most 5, in the tools' order) and answers
 * with a `tool_search_call` and a `tool_search_output` item loading what it
 * found, grouped by namespace; with `execution: "client"` it answers a
 * `tool_search_call` for the client to answer with a `tool_search_output`.
 * The model may then call a function it can see.
 *
 * Usage: tokens are a quarter of each part's JSON; a deferred function's
 * definition counts only where an output loads it; the cache reads the
 * longest run of leading parts an earlier request sent (automatic prefix
 * caching, no minimum).
 */

import {
  type Received,
  record,
  type Reply,
  RuleBroken,
  tokensOf,
} from "./rule_server.ts";

/** What the model does in one answer. */
export interface ResponsesTurn {
  /** A search, by words. */
  readonly search?: string;
  /** A call of a function it can see (`namespace` for a namespaced one). */
  readonly call?: {
    readonly name: string;
    readonly namespace?: string;
    readonly arguments: unknown;
  };
  /** Text after the rest. */
  readonly text?: string;
}

/** The usage the server reported for one request. */
export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly cached_tokens: number;
}

/** A server's record of what it saw and said. */
export interface ResponsesToolSearchServer {
  answer(request: Received): Reply;
  readonly bodies: Record<string, unknown>[];
  readonly rejections: string[];
  readonly usages: ResponsesUsage[];
}

const NAMESPACE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LOADED = 5;

/** A function's key: `namespace.name`, or `name` at the top level. */
function keyOf(namespace: string | undefined, name: string): string {
  return namespace === undefined ? name : `${namespace}.${name}`;
}

/** What the rules read of a request's tools. */
interface ToolSet {
  /** Every function by key. */
  readonly functions: Map<string, Record<string, unknown>>;
  /** The deferred functions' keys, in the tools' order. */
  readonly deferred: string[];
  /** Each namespace by name. */
  readonly namespaces: Map<string, Record<string, unknown>>;
  readonly search?: { readonly execution: "server" | "client" };
  /** The parts the model reads of the tools. */
  readonly parts: string[];
}

function toolSetOf(body: Record<string, unknown>): ToolSet {
  const tools = body.tools ?? [];
  if (!Array.isArray(tools)) throw new RuleBroken("tools: must be a list");
  const functions = new Map<string, Record<string, unknown>>();
  const namespaces = new Map<string, Record<string, unknown>>();
  const deferred: string[] = [];
  const parts: string[] = [];
  let search: ToolSet["search"];
  const addFunction = (
    fn: unknown,
    where: string,
    namespace: string | undefined,
  ) => {
    if (!record(fn) || fn.type !== "function" || typeof fn.name !== "string") {
      throw new RuleBroken(`${where}: a function { type, name }`);
    }
    const key = keyOf(namespace, fn.name);
    if (functions.has(key)) {
      throw new RuleBroken(`${where}: the function ${key} is defined twice`);
    }
    functions.set(key, fn);
    if (fn.defer_loading === true) deferred.push(key);
    else parts.push(JSON.stringify(fn));
  };
  for (const [index, tool] of tools.entries()) {
    const where = `tools[${index}]`;
    if (!record(tool)) throw new RuleBroken(`${where}: a tool`);
    if (tool.type === "tool_search") {
      if (search !== undefined) {
        throw new RuleBroken(`${where}: at most one tool_search`);
      }
      const execution = tool.execution ?? "server";
      if (execution !== "server" && execution !== "client") {
        throw new RuleBroken(`${where}.execution: "server" or "client"`);
      }
      search = { execution };
      parts.push(JSON.stringify(tool));
    } else if (tool.type === "namespace") {
      const { name, description } = tool;
      if (typeof name !== "string" || !NAMESPACE_NAME.test(name)) {
        throw new RuleBroken(
          `${where}.name: a namespace name of [a-zA-Z0-9_-]`,
        );
      }
      if (namespaces.has(name)) {
        throw new RuleBroken(
          `${where}: the namespace ${name} is defined twice`,
        );
      }
      if (typeof description !== "string" || description === "") {
        throw new RuleBroken(`${where}.description: a namespace is described`);
      }
      const inner = tool.tools;
      if (!Array.isArray(inner) || inner.length === 0) {
        throw new RuleBroken(`${where}.tools: a namespace holds functions`);
      }
      namespaces.set(name, tool);
      parts.push(JSON.stringify({ type: "namespace", name, description }));
      inner.forEach((fn, at) => addFunction(fn, `${where}.tools[${at}]`, name));
    } else {
      addFunction(tool, where, undefined);
    }
  }
  for (const name of namespaces.keys()) {
    if (functions.has(name)) {
      throw new RuleBroken(
        `tools: the namespace ${name} has the name of a function`,
      );
    }
  }
  if (deferred.length > 0 && search === undefined) {
    throw new RuleBroken(
      "tools: functions with defer_loading need a tool_search tool",
    );
  }
  return { functions, deferred, namespaces, search, parts };
}

/** The keys a `tool_search_output`'s tools load; 400 for any other. */
function loadedBy(
  tools: unknown,
  set: ToolSet,
  where: string,
): string[] {
  if (!Array.isArray(tools)) throw new RuleBroken(`${where}.tools: a list`);
  const keys: string[] = [];
  const load = (namespace: string | undefined, fn: unknown, at: string) => {
    const name = record(fn) ? fn.name : undefined;
    const key = typeof name === "string" ? keyOf(namespace, name) : "";
    if (!set.deferred.includes(key)) {
      throw new RuleBroken(
        `${at}: loads ${JSON.stringify(key)}, which is no deferred function ` +
          `of this request`,
      );
    }
    keys.push(key);
  };
  tools.forEach((tool, index) => {
    const at = `${where}.tools[${index}]`;
    if (record(tool) && tool.type === "namespace") {
      if (typeof tool.name !== "string" || !set.namespaces.has(tool.name)) {
        throw new RuleBroken(`${at}: no namespace ${String(tool.name)}`);
      }
      const inner = Array.isArray(tool.tools) ? tool.tools : [];
      inner.forEach((fn, n) =>
        load(tool.name as string, fn, `${at}.tools[${n}]`)
      );
    } else load(undefined, tool, at);
  });
  return keys;
}

/** Checks the input; its parts and the deferred functions loaded so far. */
function readInput(
  body: Record<string, unknown>,
  set: ToolSet,
): { parts: string[]; loaded: Set<string> } {
  const parts: string[] = [];
  if (typeof body.instructions === "string") parts.push(body.instructions);
  parts.push(...set.parts);
  const loaded = new Set<string>();
  const input = typeof body.input === "string"
    ? [{ role: "user", content: body.input }]
    : body.input;
  if (!Array.isArray(input)) throw new RuleBroken("input: required");
  input.forEach((item, index) => {
    const where = `input[${index}]`;
    if (!record(item)) throw new RuleBroken(`${where}: an item`);
    parts.push(JSON.stringify(item));
    if (item.type === "additional_tools") {
      const tools = Array.isArray(item.tools) ? item.tools : [];
      tools.forEach((fn, at) => {
        if (
          !record(fn) || fn.type !== "function" || typeof fn.name !== "string"
        ) {
          throw new RuleBroken(
            `${where}.tools[${at}]: a function { type, name }`,
          );
        }
        if (set.functions.has(fn.name)) {
          throw new RuleBroken(
            `${where}.tools[${at}]: the function ${fn.name} is defined twice`,
          );
        }
        set.functions.set(fn.name, fn);
      });
    }
    if (item.type === "tool_search_output") {
      for (const key of loadedBy(item.tools, set, where)) loaded.add(key);
    }
    if (item.type === "function_call") {
      const namespace = typeof item.namespace === "string"
        ? item.namespace
        : undefined;
      const key = keyOf(namespace, String(item.name));
      if (!set.functions.has(key)) {
        throw new RuleBroken(
          `${where}: a call of ${key}, which the request does not define`,
        );
      }
      if (set.deferred.includes(key) && !loaded.has(key)) {
        throw new RuleBroken(
          `${where}: a call of the deferred function ${key} before a ` +
            `tool_search_output loaded it`,
        );
      }
    }
  });
  return { parts, loaded };
}

/** What a tool choice allows the model: `undefined` for every tool. */
interface Allowed {
  readonly search: boolean;
  /** The functions' keys (`namespace.name` or `name`). */
  readonly functions: ReadonlySet<string>;
}

function allowedBy(
  body: Record<string, unknown>,
  set: ToolSet,
): Allowed | undefined {
  const choice = body.tool_choice;
  if (choice === undefined || choice === "auto" || choice === "required") {
    return undefined;
  }
  if (choice === "none") return { search: false, functions: new Set() };
  if (!record(choice) || choice.type !== "allowed_tools") {
    throw new RuleBroken("tool_choice: none, auto, required or allowed_tools");
  }
  if (choice.mode !== "auto" && choice.mode !== "required") {
    throw new RuleBroken('tool_choice.mode: "auto" or "required"');
  }
  if (!Array.isArray(choice.tools)) {
    throw new RuleBroken("tool_choice.tools: a list");
  }
  let search = false;
  const functions = new Set<string>();
  choice.tools.forEach((tool, index) => {
    const where = `tool_choice.tools[${index}]`;
    if (record(tool) && tool.type === "tool_search") {
      if (set.search === undefined) {
        throw new RuleBroken(
          `${where}: allows tool_search, which is not listed`,
        );
      }
      search = true;
      return;
    }
    if (
      !record(tool) || tool.type !== "function" ||
      typeof tool.name !== "string" ||
      (tool.namespace !== undefined && typeof tool.namespace !== "string")
    ) {
      throw new RuleBroken(
        `${where}: { type: "tool_search" } or { type: "function", name, ` +
          `namespace? }`,
      );
    }
    const key = keyOf(tool.namespace as string | undefined, tool.name);
    if (!set.functions.has(key)) {
      throw new RuleBroken(
        `${where}: allows ${key}, which the request does not define`,
      );
    }
    functions.add(key);
  });
  return { search, functions };
}

/** The deferred functions a search finds, at most 5, in the tools' order. */
function search(set: ToolSet, query: string): string[] {
  const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== "");
  const scored = set.deferred.map((key, index) => {
    const fn = set.functions.get(key)!;
    const namespace = key.includes(".")
      ? set.namespaces.get(key.slice(0, key.indexOf(".")))
      : undefined;
    const text = `${key} ${String(fn.description ?? "")} ${
      String(namespace?.description ?? "")
    }`.toLowerCase().replaceAll("_", " ");
    return { key, index, score: words.filter((w) => text.includes(w)).length };
  }).filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, MAX_LOADED).map((entry) => entry.key);
}

/** The loaded functions as `tool_search_output` tools, by namespace. */
function outputTools(set: ToolSet, keys: readonly string[]): unknown[] {
  const tools: Record<string, unknown>[] = [];
  const groups = new Map<string, unknown[]>();
  for (const key of keys) {
    const fn = set.functions.get(key)!;
    const dot = key.indexOf(".");
    if (dot === -1) {
      tools.push(fn);
      continue;
    }
    const name = key.slice(0, dot);
    let group = groups.get(name);
    if (group === undefined) {
      group = [];
      groups.set(name, group);
      const namespace = set.namespaces.get(name)!;
      tools.push({
        type: "namespace",
        name,
        description: namespace.description,
        tools: group,
      });
    }
    group.push(fn);
  }
  return tools;
}

/**
 * The server: `script(body, n)` plays the model's answer to request `n`
 * (0-based, accepted requests only).
 */
export function responsesToolSearchServer(
  script: (body: Record<string, unknown>, n: number) => ResponsesTurn,
): ResponsesToolSearchServer {
  const bodies: Record<string, unknown>[] = [];
  const rejections: string[] = [];
  const usages: ResponsesUsage[] = [];
  const sent: string[][] = [];
  return {
    bodies,
    rejections,
    usages,
    answer(request) {
      if (!request.path.endsWith("/responses")) {
        return { status: 404, body: { error: { message: request.path } } };
      }
      const body = JSON.parse(request.body) as Record<string, unknown>;
      let set: ToolSet;
      let read: { parts: string[]; loaded: Set<string> };
      let allowed: Allowed | undefined;
      try {
        set = toolSetOf(body);
        read = readInput(body, set);
        allowed = allowedBy(body, set);
      } catch (error) {
        if (!(error instanceof RuleBroken)) throw error;
        rejections.push(error.message);
        return {
          status: 400,
          body: {
            error: {
              message: error.message,
              type: "invalid_request_error",
              param: null,
              code: null,
            },
          },
        };
      }
      const n = bodies.length;
      bodies.push(body);
      const usage = usageOf(read.parts, sent);
      usages.push(usage);
      const turn = script(body, n);
      const output: Record<string, unknown>[] = [];
      const visible = new Set(read.loaded);
      if (turn.search !== undefined) {
        if (allowed !== undefined && !allowed.search) {
          throw new Error("the model cannot search: tool_choice forbids it");
        }
        const client = set.search?.execution === "client";
        output.push({
          type: "tool_search_call",
          id: `tsc_${n}`,
          call_id: client ? `call_search_${n}` : null,
          execution: client ? "client" : "server",
          status: "completed",
          arguments: { query: turn.search },
        });
        if (!client) {
          const found = search(set, turn.search);
          for (const key of found) visible.add(key);
          output.push({
            type: "tool_search_output",
            id: `tso_${n}`,
            call_id: null,
            execution: "server",
            status: "completed",
            tools: outputTools(set, found),
          });
        }
      }
      if (turn.call !== undefined) {
        const key = keyOf(turn.call.namespace, turn.call.name);
        const listed = set.functions.has(key) && !set.deferred.includes(key);
        if (!listed && !visible.has(key)) {
          throw new Error(`the model cannot call ${key}: it is not loaded`);
        }
        if (allowed !== undefined && !allowed.functions.has(key)) {
          throw new Error(
            `the model cannot call ${key}: tool_choice forbids it`,
          );
        }
        output.push({
          type: "function_call",
          id: `fc_${n}`,
          call_id: `call_${n}`,
          name: turn.call.name,
          ...(turn.call.namespace === undefined
            ? {}
            : { namespace: turn.call.namespace }),
          arguments: JSON.stringify(turn.call.arguments),
          status: "completed",
        });
      }
      if (turn.text !== undefined) {
        output.push({
          type: "message",
          id: `msg_${n}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: turn.text, annotations: [] }],
        });
      }
      return {
        status: 200,
        body: {
          id: `resp_${n}`,
          object: "response",
          created_at: 0,
          status: "completed",
          model: String(body.model),
          output,
          parallel_tool_calls: true,
          tool_choice: "auto",
          tools: [],
          error: null,
          incomplete_details: null,
          instructions: null,
          metadata: {},
          temperature: 1,
          top_p: 1,
          usage: {
            input_tokens: usage.input_tokens,
            input_tokens_details: { cached_tokens: usage.cached_tokens },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input_tokens + 10,
          },
        },
      };
    },
  };
}

/** Automatic prefix caching: the longest run of leading parts sent before. */
function usageOf(parts: readonly string[], sent: string[][]): ResponsesUsage {
  const tokens = parts.map(tokensOf);
  let best = 0;
  for (const earlier of sent) {
    let at = 0;
    while (
      at < parts.length && at < earlier.length && parts[at] === earlier[at]
    ) {
      at++;
    }
    best = Math.max(best, at);
  }
  sent.push([...parts]);
  const sum = (list: number[]) => list.reduce((total, t) => total + t, 0);
  return {
    input_tokens: sum(tokens),
    cached_tokens: sum(tokens.slice(0, best)),
  };
}
