/**
 * Compaction as the providers define it, for the loopback servers.
 *
 * - Anthropic ({@linkcode AnthropicCompaction}, used by
 *   `thinking_server.ts`'s Messages server): a signed `compaction` block
 *   (`content`, `encrypted_content`, `signature`, `tool_changes`) made by
 *   an on-demand request (`compaction: { type: "summarize" }`, beta
 *   `compact-2026-09-04`) or inside a normal step by the
 *   `compact_20260112` edit (beta `compact-2026-01-12`); on a later
 *   request at most one block with content (`compaction_block_ambiguous`),
 *   the first block of a user or assistant message, never in a system
 *   message (`compaction_block_misplaced`), the messages before it
 *   dropped, its signature checked (`compaction_signature_invalid`,
 *   `compaction_content_mismatch`, `compaction_tool_changes_mismatch`).
 * - OpenAI ({@linkcode openaiServer}): Responses (`POST /responses`:
 *   `context_management` compaction past `compact_threshold`, a
 *   `compaction_trigger` last item, the items before the latest
 *   `compaction` item dropped, reasoning items bound to their prefix and
 *   withheld on a mismatch, `developer` messages, `additional_tools`,
 *   `configuration_update`), `POST /responses/compact` (the user messages,
 *   then one compaction item; no `tools` parameter) and Chat Completions
 *   (`developer` messages; no compaction: `context_management` is an
 *   unknown argument), each answering with OpenAI's automatic prefix
 *   cache.
 *
 * A refused body is answered with the API's error shape (HTTP 400) and its
 * reason kept in `rejections`.
 */

import { type RecordedRequest, StatusReply } from "./loopback.ts";
import {
  AutomaticPrefixCache,
  isRecord,
  type PromptUnit,
  Refusal,
  sha256,
  Signer,
  tokensOf,
  withoutKey,
} from "./server_kit.ts";

/** One refused request: what the API would have said. */
export interface Rejection {
  readonly status: number;
  /** `invalid_request_error`, ... */
  readonly type: string;
  /** `details.error_code` (Anthropic) or `code` (OpenAI), when the API sets one. */
  readonly code?: string;
  readonly message: string;
}

/** An Anthropic `invalid_request_error`, with `details.error_code` when given. */
export function anthropicRefusal(message: string, code?: string): Refusal {
  return new Refusal(400, {
    type: "error",
    error: {
      type: "invalid_request_error",
      message,
      ...(code === undefined ? {} : { details: { error_code: code } }),
    },
    request_id: "req_loopback",
  }, message);
}

/** The rejection a refusal records. */
export function rejectionOf(refusal: Refusal): Rejection {
  const body = refusal.body as {
    error: {
      type: string;
      message: string;
      code?: unknown;
      details?: { error_code?: string };
    };
  };
  const code = body.error.details?.error_code ??
    (typeof body.error.code === "string" ? body.error.code : undefined);
  return {
    status: refusal.status,
    type: body.error.type,
    message: body.error.message,
    ...(code === undefined ? {} : { code }),
  };
}

/** The tools in effect along a Messages conversation. */
export interface ToolState {
  /** Names offered to the model now. */
  readonly available: Set<string>;
  /** Every name the conversation defined by value, with its definition. */
  readonly defined: Map<string, unknown>;
}

/** The compaction block as the API returns it. */
export interface CompactionBlock {
  type: "compaction";
  content: string;
  encrypted_content: string;
  signature: string;
  tool_changes: Record<string, unknown>[];
}

/** The summarizing instruction the server adds to a compaction's input. */
export const SUMMARY_PROMPT =
  "Summarize the conversation above so that it can continue from the summary.";

/**
 * Anthropic's compaction blocks: made, signed and checked by one server.
 */
export class AnthropicCompaction {
  readonly #signer = new Signer();
  /** How long a summary is, in characters (its tokens: a quarter). */
  readonly #summaryLength: number;

  constructor(summaryLength = 400) {
    this.#summaryLength = summaryLength;
  }

  /**
   * Where the conversation starts: the message holding the one compaction
   * block with content (the messages before it are dropped), or 0. Throws
   * the API's refusal for a misplaced, ambiguous or tampered block.
   */
  start(
    messages: readonly Record<string, unknown>[],
    betas: Set<string>,
  ): number {
    let start = 0;
    let found = 0;
    messages.forEach((message, index) => {
      const content = Array.isArray(message.content) ? message.content : [];
      content.forEach((block: unknown, at: number) => {
        if (!isRecord(block) || block.type !== "compaction") return;
        if (
          !betas.has("compact-2026-09-04") && !betas.has("compact-2026-01-12")
        ) {
          throw anthropicRefusal(
            `messages.${index}.content.${at}: compaction blocks need the beta ` +
              `compact-2026-09-04 or compact-2026-01-12.`,
          );
        }
        if (message.role === "system" || at !== 0) {
          throw anthropicRefusal(
            `messages.${index}.content.${at}: The \`compaction\` block is not ` +
              `the first block of the conversation, or is in a \`system\` message.`,
            "compaction_block_misplaced",
          );
        }
        if (block.content === null || block.content === undefined) return;
        found++;
        if (found > 1) {
          throw anthropicRefusal(
            `messages holds more than one \`compaction\` block with content. ` +
              `Send only the block the conversation returned last.`,
            "compaction_block_ambiguous",
          );
        }
        this.#verify(block, `messages.${index}.content.${at}`);
        start = index;
      });
    });
    return start;
  }

  /**
   * The compaction block summarizing `messages` (the conversation from its
   * start), the tool changes of the range taking `declared` to `tools`.
   */
  summarize(
    messages: readonly Record<string, unknown>[],
    declared: ReadonlyMap<string, unknown>,
    tools: ToolState,
  ): CompactionBlock {
    const digest = sha256(
      JSON.stringify(withoutKey(messages, "cache_control")),
    );
    const head = `Summary of ${messages.length} messages (${
      digest.slice(0, 12)
    }). `;
    const content = head.padEnd(this.#summaryLength, "The work so far. ");
    const encrypted_content = btoa(
      JSON.stringify({ messages: messages.length, digest }),
    );
    const tool_changes: Record<string, unknown>[] = [];
    for (const name of [...declared.keys()].sort()) {
      if (!tools.available.has(name)) {
        tool_changes.push({
          type: "tool_removal",
          tool: { type: "tool_reference", name },
        });
      }
    }
    for (const name of [...tools.available].sort()) {
      // A declared tool still offered is no change; one defined by value is.
      if (!tools.defined.has(name)) continue;
      tool_changes.push({
        type: "tool_addition",
        tool: { type: "tool_definition", definition: tools.defined.get(name) },
      });
    }
    const signature = this.#signer.sign({
      content: sha256(content),
      encrypted: sha256(encrypted_content),
      tools: sha256(JSON.stringify(tool_changes)),
    });
    return {
      type: "compaction",
      content,
      encrypted_content,
      signature,
      tool_changes,
    };
  }

  #verify(block: Record<string, unknown>, path: string): void {
    const payload = this.#signer.open(block.signature);
    if (
      payload === undefined ||
      payload.encrypted !== sha256(String(block.encrypted_content))
    ) {
      throw anthropicRefusal(
        `${path}: The \`compaction\` block's \`signature\` does not verify.`,
        "compaction_signature_invalid",
      );
    }
    if (payload.content !== sha256(String(block.content))) {
      throw anthropicRefusal(
        `${path}: The \`compaction\` block's \`content\` differs from the text ` +
          `its \`signature\` recorded.`,
        "compaction_content_mismatch",
      );
    }
    if (payload.tools !== sha256(JSON.stringify(block.tool_changes ?? null))) {
      throw anthropicRefusal(
        `${path}: The \`compaction\` block's \`tool_changes\` differs from what ` +
          `was returned with the block.`,
        "compaction_tool_changes_mismatch",
      );
    }
  }
}

// ---------------------------------------------------------------- OpenAI

/** An OpenAI `invalid_request_error`. */
function openaiRefusal(
  message: string,
  param: string | null,
  code: string | null,
): Refusal {
  return new Refusal(400, {
    error: { message, type: "invalid_request_error", param, code },
  }, message);
}

/** One item the model answers with (the server signs reasoning). */
export type OpenAIScriptItem =
  | { type: "message"; text: string }
  | { type: "reasoning"; summary: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string };

/** What an accepted OpenAI request was and what the server answered. */
export interface AcceptedOpenAI {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** Input tokens, read from the cache, of this request (the compaction pass's on /compact). */
  readonly usage: { readonly input: number; readonly cached: number };
  /** Reasoning items withheld, as `input_transformations` lists them. */
  readonly transformations: readonly Record<string, unknown>[];
  /** Whether the answer holds a compaction item. */
  readonly compacted: boolean;
  /** Index of the first input item the model read (after the latest compaction item). */
  readonly start: number;
  /** The reasoning effort in force (`configuration_update` over `reasoning.effort`). */
  readonly effort: string | undefined;
}

/** Options of {@linkcode openaiServer}. */
export interface OpenAIServerOptions {
  /** The automatic cache's minimum, in tokens (default 1024). */
  readonly minimumCacheTokens?: number;
  /** The model's side: the items of the answer to request `index` (default: "ok"). */
  readonly script?: (
    index: number,
    body: Record<string, unknown>,
  ) => OpenAIScriptItem[];
  /** A summary's length in characters (default 400). */
  readonly summaryLength?: number;
}

/** The OpenAI server and what it saw. */
export interface OpenAIServer {
  readonly accepted: AcceptedOpenAI[];
  readonly rejections: Rejection[];
  answer(request: RecordedRequest): unknown;
}

const ROLES = new Set(["user", "assistant", "system", "developer"]);

/** `ResponseCompactParams`' body fields (openai 7.59): no `tools`, no `reasoning`. */
const COMPACT_PARAMETERS = new Set([
  "model",
  "input",
  "instructions",
  "previous_response_id",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "service_tier",
  "image",
]);

/** One input item as the automatic cache reads it. */
function unitOf(item: unknown): PromptUnit {
  const key = JSON.stringify(withoutKey(item, "prompt_cache_breakpoint"));
  return { key, tokens: tokensOf(key) };
}

/**
 * An OpenAI server for Responses (`/responses`, `/responses/compact`) and
 * Chat Completions (`/chat/completions`), enforcing the rules named in
 * this module's documentation.
 */
export function openaiServer(options: OpenAIServerOptions = {}): OpenAIServer {
  const cache = new AutomaticPrefixCache(options.minimumCacheTokens ?? 1024);
  const signer = new Signer();
  const summaryLength = options.summaryLength ?? 400;
  const accepted: AcceptedOpenAI[] = [];
  const rejections: Rejection[] = [];
  let served = 0;

  const compactionItem = (
    items: readonly unknown[],
  ): Record<string, unknown> => {
    const digest = sha256(
      JSON.stringify(withoutKey(items, "prompt_cache_breakpoint")),
    );
    const summary = `Summary of ${items.length} items (${
      digest.slice(0, 12)
    }). `
      .padEnd(summaryLength, "The work so far. ");
    return {
      id: `cmp_${served}`,
      type: "compaction",
      encrypted_content: signer.sign({ summary }),
    };
  };

  /** The reasoning signature's prefix: instructions, tools, items before. */
  const prefixHash = (
    body: Record<string, unknown>,
    items: readonly unknown[],
  ): string =>
    sha256(
      JSON.stringify(withoutKey(
        [body.instructions ?? null, body.tools ?? [], items],
        "prompt_cache_breakpoint",
      )),
    );

  function responses(body: Record<string, unknown>, path: string): unknown {
    if (path === "/responses/compact") {
      for (const key of Object.keys(body)) {
        if (!COMPACT_PARAMETERS.has(key)) {
          throw openaiRefusal(
            `Unknown parameter: '${key}'.`,
            key,
            "unknown_parameter",
          );
        }
      }
      if (body.previous_response_id !== undefined) {
        throw openaiRefusal(
          "previous_response_id: this server holds no responses.",
          "previous_response_id",
          null,
        );
      }
    }
    if (typeof body.model !== "string") {
      throw openaiRefusal(
        "Missing required parameter: 'model'.",
        "model",
        "missing_required_parameter",
      );
    }
    const input = typeof body.input === "string"
      ? [{ role: "user", content: body.input }]
      : body.input;
    if (!Array.isArray(input)) {
      throw openaiRefusal(
        "'input' must be a string or an array of items.",
        "input",
        null,
      );
    }
    const tools = new Set<string>();
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      if (
        isRecord(tool) && tool.type === "function" &&
        typeof tool.name === "string"
      ) {
        if (tools.has(tool.name)) {
          throw openaiRefusal(
            `Duplicate tool name: '${tool.name}'.`,
            "tools",
            null,
          );
        }
        tools.add(tool.name);
      }
    }
    const management = body.context_management;
    let threshold: number | undefined;
    if (management !== undefined && management !== null) {
      if (
        !Array.isArray(management) ||
        management.some((entry) =>
          !isRecord(entry) || entry.type !== "compaction"
        )
      ) {
        throw openaiRefusal(
          "context_management: only entries of type 'compaction' are supported.",
          "context_management",
          "invalid_value",
        );
      }
      const entry = management[0] as Record<string, unknown> | undefined;
      threshold = typeof entry?.compact_threshold === "number"
        ? entry.compact_threshold
        : undefined;
    }
    let start = 0;
    let effort =
      isRecord(body.reasoning) && typeof body.reasoning.effort === "string"
        ? body.reasoning.effort
        : undefined;
    let trigger = false;
    input.forEach((item: unknown, index: number) => {
      const where = `input[${index}]`;
      if (!isRecord(item)) {
        throw openaiRefusal(`${where}: not an item.`, where, null);
      }
      const type = item.type ?? "message";
      switch (type) {
        case "message":
          if (!ROLES.has(item.role as string)) {
            throw openaiRefusal(
              `${where}.role: must be one of user, assistant, system, developer.`,
              `${where}.role`,
              "invalid_value",
            );
          }
          break;
        case "compaction": {
          const payload = signer.open(item.encrypted_content);
          if (payload === undefined) {
            throw openaiRefusal(
              `${where}: the compaction item's encrypted_content could not be verified.`,
              `${where}.encrypted_content`,
              "invalid_encrypted_content",
            );
          }
          start = index;
          break;
        }
        case "compaction_trigger":
          if (index !== input.length - 1) {
            throw openaiRefusal(
              `${where}: a compaction_trigger must be the final input item.`,
              where,
              "invalid_value",
            );
          }
          trigger = true;
          break;
        case "additional_tools":
          if (item.role !== "developer" || !Array.isArray(item.tools)) {
            throw openaiRefusal(
              `${where}: additional_tools needs role 'developer' and tools.`,
              where,
              null,
            );
          }
          for (const tool of item.tools) {
            if (isRecord(tool) && typeof tool.name === "string") {
              tools.add(tool.name);
            }
          }
          break;
        case "configuration_update":
          if (
            isRecord(item.reasoning) &&
            typeof item.reasoning.effort === "string"
          ) {
            effort = item.reasoning.effort;
          }
          break;
        case "function_call":
          // responses.compact takes no tools: a call in the history it
          // summarizes is checked for its name only.
          if (
            typeof item.name !== "string" ||
            (path !== "/responses/compact" && !tools.has(item.name))
          ) {
            throw openaiRefusal(
              `${where}: no tool named '${String(item.name)}' is available.`,
              where,
              null,
            );
          }
          break;
        case "function_call_output":
        case "reasoning":
          break;
        default:
          throw openaiRefusal(
            `${where}: unknown item type '${String(type)}'.`,
            `${where}.type`,
            "invalid_value",
          );
      }
    });
    // The reasoning each item was produced under; a mismatch is withheld.
    const transformations: Record<string, unknown>[] = [];
    const read = input.slice(start).filter(
      (item: Record<string, unknown>, offset: number) => {
        if (item.type !== "reasoning") return true;
        const payload = signer.open(item.encrypted_content);
        const prefix = prefixHash(body, input.slice(start, start + offset));
        if (payload !== undefined && payload.prefix === prefix) return true;
        transformations.push({
          id: item.id,
          action: "removed",
          reason: "prefix_mismatch",
          type: "reasoning",
        });
        return false;
      },
    );
    const units = [
      ...(Array.isArray(body.tools) ? body.tools : []).map(unitOf),
      ...(typeof body.instructions === "string"
        ? [unitOf(body.instructions)]
        : []),
      ...read.map(unitOf),
    ];
    const partition = typeof body.prompt_cache_key === "string"
      ? body.prompt_cache_key
      : "";
    const compact = path === "/responses/compact";
    const { total, read: cached } = cache.answer(
      compact || trigger ? [...units, unitOf(SUMMARY_PROMPT)] : units,
      partition,
    );
    const usage = {
      input_tokens: total,
      input_tokens_details: { cached_tokens: cached, cache_write_tokens: 0 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: total + 12,
    };
    const compacted = compact || trigger ||
      (threshold !== undefined && total >= threshold);
    accepted.push({
      path,
      body,
      usage: { input: total, cached },
      transformations,
      compacted,
      start,
      effort,
    });
    served++;
    if (compact) {
      return {
        id: `cmpresp_${served}`,
        object: "response.compaction",
        created_at: 0,
        // The user messages, as message items, then the one compaction item.
        output: [
          ...read.filter((item: Record<string, unknown>) =>
            (item.type ?? "message") === "message" && item.role === "user"
          ).map((item: Record<string, unknown>, index: number) => ({
            id: `msg_${served}_${index}`,
            type: "message",
            status: "completed",
            role: "user",
            content: typeof item.content === "string"
              ? [{ type: "input_text", text: item.content }]
              : item.content,
          })),
          compactionItem(read),
        ],
        usage,
      };
    }
    const output: Record<string, unknown>[] = compacted
      ? [compactionItem(read)]
      : [];
    if (!trigger) {
      const script = options.script?.(accepted.length - 1, body) ??
        [{ type: "message", text: "ok" }];
      for (const item of script) {
        const before = [...input.slice(start), ...output];
        if (item.type === "reasoning") {
          output.push({
            id: `rs_${served}_${output.length}`,
            type: "reasoning",
            summary: [{ type: "summary_text", text: item.summary }],
            encrypted_content: signer.sign({
              prefix: prefixHash(body, compacted ? output : before),
            }),
          });
        } else if (item.type === "function_call") {
          output.push({
            id: `fc_${served}_${output.length}`,
            status: "completed",
            ...item,
          });
        } else {
          output.push({
            id: `msg_${served}_${output.length}`,
            type: "message",
            status: "completed",
            role: "assistant",
            content: [{
              type: "output_text",
              text: item.text,
              annotations: [],
            }],
          });
        }
      }
    }
    return {
      id: `resp_${served}`,
      object: "response",
      created_at: 0,
      status: "completed",
      model: body.model,
      output,
      parallel_tool_calls: true,
      tool_choice: body.tool_choice ?? "auto",
      tools: body.tools ?? [],
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      metadata: {},
      temperature: 1,
      top_p: 1,
      usage,
      ...(transformations.length === 0
        ? {}
        : { input_transformations: transformations }),
    };
  }

  function chat(body: Record<string, unknown>): unknown {
    for (const key of ["context_management", "compaction"]) {
      if (key in body) {
        throw openaiRefusal(
          `Unrecognized request argument supplied: ${key}`,
          key,
          "unknown_parameter",
        );
      }
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw openaiRefusal(
        "'messages' must be a non-empty array.",
        "messages",
        null,
      );
    }
    const calls = new Set<string>();
    body.messages.forEach((message: unknown, index: number) => {
      const where = `messages[${index}]`;
      if (!isRecord(message)) {
        throw openaiRefusal(`${where}: not a message.`, where, null);
      }
      if (message.role === "tool") {
        if (!calls.has(message.tool_call_id as string)) {
          throw openaiRefusal(
            `${where}: tool_call_id answers no earlier tool call.`,
            where,
            null,
          );
        }
        return;
      }
      if (!ROLES.has(message.role as string)) {
        throw openaiRefusal(
          `${where}.role: must be one of system, developer, user, assistant, tool.`,
          `${where}.role`,
          "invalid_value",
        );
      }
      for (
        const call of Array.isArray(message.tool_calls)
          ? message.tool_calls
          : []
      ) {
        if (isRecord(call) && typeof call.id === "string") calls.add(call.id);
      }
    });
    const units = [
      ...(Array.isArray(body.tools) ? body.tools : []).map(unitOf),
      ...body.messages.map(unitOf),
    ];
    const partition = typeof body.prompt_cache_key === "string"
      ? body.prompt_cache_key
      : "";
    const { total, read } = cache.answer(units, partition);
    accepted.push({
      path: "/chat/completions",
      body,
      usage: { input: total, cached: read },
      transformations: [],
      compacted: false,
      start: 0,
      effort: typeof body.reasoning_effort === "string"
        ? body.reasoning_effort
        : undefined,
    });
    served++;
    const script = options.script?.(accepted.length - 1, body) ??
      [{ type: "message", text: "ok" }];
    const toolCalls = script.flatMap((item) =>
      item.type === "function_call"
        ? [{
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: item.arguments },
        }]
        : []
    );
    const text = script.flatMap((item) =>
      item.type === "message" ? [item.text] : []
    ).join("");
    return {
      id: `chatcmpl-${served}`,
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: text === "" ? null : text,
          refusal: null,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        finish_reason: toolCalls.length === 0 ? "stop" : "tool_calls",
        logprobs: null,
      }],
      usage: {
        prompt_tokens: total,
        completion_tokens: 12,
        total_tokens: total + 12,
        prompt_tokens_details: { cached_tokens: read },
      },
    };
  }

  return {
    accepted,
    rejections,
    answer(request: RecordedRequest): unknown {
      const path = request.path.replace(/^\/v1/, "").replace(/\?.*$/, "");
      try {
        const body = JSON.parse(request.body);
        if (!isRecord(body)) {
          throw openaiRefusal("The body must be a JSON object.", null, null);
        }
        if (path === "/responses" || path === "/responses/compact") {
          return responses(body, path);
        }
        if (path === "/chat/completions") return chat(body);
        throw new Refusal(404, {
          error: {
            message: `Unknown path ${path}`,
            type: "invalid_request_error",
            param: null,
            code: null,
          },
        }, path);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        rejections.push(rejectionOf(error));
        return new StatusReply(error.status, error.body);
      }
    },
  };
}
