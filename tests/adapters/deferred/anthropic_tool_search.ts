/**
 * A loopback Messages API that holds a request to Anthropic's deferred-tool
 * rules (tool search tool, `defer_loading`, `tool_reference`; the shapes of
 * `@anthropic-ai/sdk`'s messages.d.ts) and plays the model from a script:
 *
 * - A tool with `defer_loading: true` needs a tool search tool
 *   (`tool_search_tool_regex_20251119` or `tool_search_tool_bm25_20251119`,
 *   named `tool_search_tool_regex` / `tool_search_tool_bm25`), at most one,
 *   itself not deferred.
 * - A tool with both `defer_loading` and `cache_control` is a 400.
 * - Tool names are unique.
 * - A `tool_reference` (in a `tool_search_tool_result`, or in a user's
 *   `tool_result` from a search of the client's own) names a deferred tool
 *   of the request, else 400 `tool_reference_unresolved`.
 * - A `tool_use` of a deferred tool comes after a reference to it in the
 *   messages, else 400; a `tool_use` of a tool the request does not define
 *   is a 400.
 *
 * The model's turn searches (the server runs the search over the deferred
 * tools: a regex over names and descriptions, or words; at most 5
 * references, in the tools' order) and answers with `server_tool_use` +
 * `tool_search_tool_result` blocks, then may call a tool it can see: a
 * listed one, or a deferred one referenced before or in this very answer.
 *
 * - Compaction (`compaction: { type: "summarize" }` on demand): the answer
 *   is a `compaction` block alone (`stop_reason: "compaction"`) whose
 *   `tool_changes` record the deferred tools the compacted range
 *   referenced, a `tool_addition` of a `tool_reference` each; past
 *   `maxToolReferences` distinct ones, 400
 *   `compaction_too_many_tool_references` ("The conversation references
 *   more distinct tools than a `compaction` block can record.", the
 *   SDK's `CompactionTooManyToolReferencesError`). A later request's
 *   block is the first block of its first message; its `tool_changes`
 *   load those tools as a reference does (else
 *   `compaction_block_misplaced`).
 *
 * Usage: tokens are a quarter of each part's JSON. A deferred tool's
 * definition counts only where a reference loads it; the cache reads at
 * the request's `cache_control` marks what an earlier request wrote there.
 */

import {
  type Received,
  record,
  type Reply,
  RuleBroken,
  tokensOf,
} from "./rule_server.ts";

/** What the model does in one answer. */
export interface AnthropicTurn {
  /** A search: a regex pattern, or words for the BM25 variant. */
  readonly search?: string;
  /** A call of a tool it can see. */
  readonly call?: { readonly name: string; readonly input: unknown };
  /** Text after the rest. */
  readonly text?: string;
}

/** The usage the server reported for one request. */
export interface ReportedUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

/** A server's record of what it saw and said. */
export interface AnthropicToolSearchServer {
  /** Answers one request (for `serveRules`). */
  answer(request: Received): Reply;
  /** Each accepted body, parsed. */
  readonly bodies: Record<string, unknown>[];
  /** Each refusal's message. */
  readonly rejections: string[];
  /** The usage of each accepted request. */
  readonly usages: ReportedUsage[];
}

const SEARCH_TOOLS: Readonly<Record<string, string>> = {
  tool_search_tool_regex_20251119: "tool_search_tool_regex",
  tool_search_tool_regex: "tool_search_tool_regex",
  tool_search_tool_bm25_20251119: "tool_search_tool_bm25",
  tool_search_tool_bm25: "tool_search_tool_bm25",
};

/** The most references one search returns. */
const MAX_REFERENCES = 5;

/** What the rules read of a request's tools. */
interface ToolSet {
  /** Every tool definition by name (the search tool included). */
  readonly byName: Map<string, Record<string, unknown>>;
  readonly deferred: Set<string>;
  /** The search tool's name, when listed. */
  readonly search?: string;
}

function toolSetOf(body: Record<string, unknown>): ToolSet {
  const tools = body.tools ?? [];
  if (!Array.isArray(tools)) throw new RuleBroken("tools: must be a list");
  const byName = new Map<string, Record<string, unknown>>();
  const deferred = new Set<string>();
  let search: string | undefined;
  for (const [index, tool] of tools.entries()) {
    if (!record(tool) || typeof tool.name !== "string") {
      throw new RuleBroken(`tools.${index}: a tool has a name`);
    }
    const { name } = tool;
    if (byName.has(name)) {
      throw new RuleBroken(`tools: tool names must be unique (${name})`);
    }
    byName.set(name, tool);
    const searchName = typeof tool.type === "string"
      ? SEARCH_TOOLS[tool.type]
      : undefined;
    if (searchName !== undefined) {
      if (name !== searchName) {
        throw new RuleBroken(
          `tools.${index}: ${tool.type} is named ${searchName}`,
        );
      }
      if (search !== undefined) {
        throw new RuleBroken("tools: at most one tool search tool");
      }
      if (tool.defer_loading === true) {
        throw new RuleBroken(
          `tools.${index}: the tool search tool cannot be deferred`,
        );
      }
      search = name;
      continue;
    }
    if (tool.defer_loading === true) {
      if (tool.cache_control !== undefined && tool.cache_control !== null) {
        throw new RuleBroken(
          `tools.${index}: a tool with defer_loading cannot have ` +
            `cache_control (${name})`,
        );
      }
      deferred.add(name);
    }
  }
  if (deferred.size > 0 && search === undefined) {
    throw new RuleBroken(
      "tools: defer_loading requires a tool search tool " +
        "(tool_search_tool_regex_20251119 or tool_search_tool_bm25_20251119)",
    );
  }
  return { byName, deferred, search };
}

/** One part of the model's context, in order, for the usage. */
interface Part {
  readonly text: string;
  readonly marked: boolean;
}

/** A definition without its cache mark: what the model reads. */
function unmarked(value: Record<string, unknown>): string {
  const { cache_control: _, ...rest } = value;
  return JSON.stringify(rest);
}

/**
 * Checks the messages against the tools and returns the model's context
 * parts and the deferred tools referenced so far.
 */
function readMessages(
  body: Record<string, unknown>,
  tools: ToolSet,
): { parts: Part[]; referenced: Set<string> } {
  const parts: Part[] = [];
  for (const [name, tool] of tools.byName) {
    if (!tools.deferred.has(name)) {
      parts.push({ text: unmarked(tool), marked: tool.cache_control != null });
    }
  }
  const system = body.system;
  if (typeof system === "string") parts.push({ text: system, marked: false });
  else if (Array.isArray(system)) {
    for (const block of system) {
      parts.push({
        text: unmarked(block),
        marked: record(block) && block.cache_control != null,
      });
    }
  }
  const referenced = new Set<string>();
  const reference = (name: unknown, where: string) => {
    if (typeof name !== "string" || !tools.deferred.has(name)) {
      throw new RuleBroken(
        `${where}: tool_reference ${JSON.stringify(name)} names no deferred ` +
          `tool of this request`,
        "tool_reference_unresolved",
      );
    }
    referenced.add(name);
    // The reference loads the definition here, in the conversation.
    parts.push({ text: unmarked(tools.byName.get(name)!), marked: false });
  };
  const messages = body.messages;
  if (!Array.isArray(messages)) throw new RuleBroken("messages: required");
  for (const [at, message] of messages.entries()) {
    const content = record(message) ? message.content : undefined;
    const blocks = typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
      ? content
      : [];
    for (const [n, block] of blocks.entries()) {
      const where = `messages.${at}.content.${n}`;
      if (!record(block)) throw new RuleBroken(`${where}: a block`);
      parts.push({
        text: unmarked(block),
        marked: block.cache_control != null,
      });
      if (block.type === "server_tool_use" && block.name !== tools.search) {
        throw new RuleBroken(
          `${where}: server_tool_use of ${String(block.name)}, which the ` +
            `request does not list`,
        );
      }
      if (block.type === "compaction") {
        if (at !== 0 || n !== 0) {
          throw new RuleBroken(
            `${where}: a compaction block is the first block of the ` +
              `first message`,
            "compaction_block_misplaced",
          );
        }
        const changes = Array.isArray(block.tool_changes)
          ? block.tool_changes
          : [];
        for (const [c, change] of changes.entries()) {
          const tool = record(change) ? change.tool : undefined;
          if (record(tool) && tool.type === "tool_reference") {
            reference(tool.name, `${where}.tool_changes.${c}.tool`);
          }
        }
      }
      if (block.type === "tool_search_tool_result") {
        const result = block.content;
        if (
          record(result) && result.type === "tool_search_tool_search_result"
        ) {
          const references = result.tool_references;
          for (
            const [r, ref] of (Array.isArray(references) ? references : [])
              .entries()
          ) {
            reference(
              record(ref) ? ref.tool_name : undefined,
              `${where}.content.tool_references.${r}`,
            );
          }
        }
      }
      if (block.type === "tool_result" && Array.isArray(block.content)) {
        for (const [r, inner] of block.content.entries()) {
          if (record(inner) && inner.type === "tool_reference") {
            reference(inner.tool_name, `${where}.content.${r}`);
          }
        }
      }
      if (block.type === "tool_use") {
        const name = block.name;
        if (typeof name !== "string" || !tools.byName.has(name)) {
          throw new RuleBroken(
            `${where}: tool_use of ${JSON.stringify(name)}, which the ` +
              `request's tools do not define`,
          );
        }
        if (tools.deferred.has(name) && !referenced.has(name)) {
          throw new RuleBroken(
            `${where}: tool_use of the deferred tool ${name} before any ` +
              `tool_reference to it`,
          );
        }
      }
    }
  }
  return { parts, referenced };
}

/** The deferred tools a search finds: at most 5, in the tools' order. */
function search(
  tools: ToolSet,
  query: string,
): string[] {
  const texts = [...tools.deferred].map((name) => {
    const description = tools.byName.get(name)!.description;
    return [
      name,
      `${name}\n${typeof description === "string" ? description : ""}`,
    ];
  });
  if (tools.search === "tool_search_tool_regex") {
    if (query.length > 200) {
      throw new Error("a pattern is at most 200 characters");
    }
    const insensitive = query.startsWith("(?i)");
    const pattern = new RegExp(
      insensitive ? query.slice(4) : query,
      insensitive ? "i" : "",
    );
    return texts.filter(([, text]) => pattern.test(text)).map(([name]) => name)
      .slice(0, MAX_REFERENCES);
  }
  const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== "");
  const scored = texts.map(([name, text], index) => {
    const lower = text.toLowerCase();
    return {
      name,
      index,
      score: words.filter((w) => lower.includes(w)).length,
    };
  }).filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, MAX_REFERENCES).map((entry) => entry.name);
}

/**
 * The server: `script(body, n)` plays the model's answer to request `n`
 * (0-based, accepted requests only).
 */
export function anthropicToolSearchServer(
  script: (body: Record<string, unknown>, n: number) => AnthropicTurn,
  options: {
    /** The most distinct tools a compaction block records (default 100). */
    readonly maxToolReferences?: number;
  } = {},
): AnthropicToolSearchServer {
  const maxToolReferences = options.maxToolReferences ?? 100;
  const bodies: Record<string, unknown>[] = [];
  const rejections: string[] = [];
  const usages: ReportedUsage[] = [];
  const written = new Set<string>();
  return {
    bodies,
    rejections,
    usages,
    answer(request) {
      if (!request.path.endsWith("/messages")) {
        return {
          status: 404,
          body: {
            type: "error",
            error: { type: "not_found_error", message: request.path },
          },
        };
      }
      const body = JSON.parse(request.body) as Record<string, unknown>;
      let tools: ToolSet;
      let read: { parts: Part[]; referenced: Set<string> };
      try {
        tools = toolSetOf(body);
        read = readMessages(body, tools);
        if (
          record(body.compaction) &&
          read.referenced.size > maxToolReferences
        ) {
          throw new RuleBroken(
            "The conversation references more distinct tools than a " +
              "`compaction` block can record.",
            "compaction_too_many_tool_references",
          );
        }
      } catch (error) {
        if (!(error instanceof RuleBroken)) throw error;
        rejections.push(error.message);
        return {
          status: 400,
          body: {
            type: "error",
            error: {
              type: "invalid_request_error",
              message: error.message,
              ...(error.code === undefined
                ? {}
                : { details: { error_code: error.code } }),
            },
          },
        };
      }
      const n = bodies.length;
      bodies.push(body);
      const usage = usageOf(read.parts, written);
      usages.push(usage);
      if (record(body.compaction)) {
        const referenced = [...read.referenced].sort();
        return {
          status: 200,
          body: {
            id: `msg_${n}`,
            type: "message",
            role: "assistant",
            model: String(body.model),
            content: [{
              type: "compaction",
              content: `Summary of ${
                (body.messages as unknown[]).length
              } messages. The work so far.`,
              encrypted_content: `enc_${n}`,
              tool_changes: referenced.map((name) => ({
                type: "tool_addition",
                tool: { type: "tool_reference", name },
              })),
            }],
            stop_reason: "compaction",
            stop_sequence: null,
            usage: { ...usage, output_tokens: 10 },
          },
        };
      }
      const turn = script(body, n);
      const content: Record<string, unknown>[] = [];
      const visible = new Set(read.referenced);
      if (turn.search !== undefined) {
        const id = `srvtoolu_${n}`;
        const found = search(tools, turn.search);
        for (const name of found) visible.add(name);
        content.push({
          type: "server_tool_use",
          id,
          name: tools.search,
          input: tools.search === "tool_search_tool_regex"
            ? { pattern: turn.search }
            : { query: turn.search },
          caller: { type: "direct" },
        }, {
          type: "tool_search_tool_result",
          tool_use_id: id,
          content: {
            type: "tool_search_tool_search_result",
            tool_references: found.map((name) => ({
              type: "tool_reference",
              tool_name: name,
            })),
          },
        });
      }
      if (turn.call !== undefined) {
        const { name, input } = turn.call;
        const listed = tools.byName.has(name) && !tools.deferred.has(name);
        if (!listed && !visible.has(name)) {
          throw new Error(`the model cannot call ${name}: it is not loaded`);
        }
        content.push({
          type: "tool_use",
          id: `toolu_${n}`,
          name,
          input,
          caller: { type: "direct" },
        });
      }
      if (turn.text !== undefined) {
        content.push({ type: "text", text: turn.text, citations: null });
      }
      return {
        status: 200,
        body: {
          id: `msg_${n}`,
          type: "message",
          role: "assistant",
          model: String(body.model),
          content,
          stop_reason: turn.call !== undefined ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: { ...usage, output_tokens: 10 },
        },
      };
    },
  };
}

/**
 * The usage of a context: the longest prefix ending at a mark that an
 * earlier request wrote is read; the rest up to the last mark is written.
 */
function usageOf(parts: readonly Part[], written: Set<string>): ReportedUsage {
  const tokens = parts.map((part) => tokensOf(part.text));
  const total = tokens.reduce((sum, t) => sum + t, 0);
  const marks = parts.flatMap((part, index) => part.marked ? [index] : []);
  const keyAt = (index: number) =>
    parts.slice(0, index + 1).map((part) => part.text).join("\u0000");
  const upTo = (index: number) =>
    tokens.slice(0, index + 1).reduce((sum, t) => sum + t, 0);
  let read = 0;
  for (const mark of marks.toReversed()) {
    if (written.has(keyAt(mark))) {
      read = upTo(mark);
      break;
    }
  }
  const last = marks.at(-1);
  const creation = last === undefined ? 0 : Math.max(0, upTo(last) - read);
  for (const mark of marks) written.add(keyAt(mark));
  return {
    input_tokens: total - read - creation,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: creation,
  };
}
