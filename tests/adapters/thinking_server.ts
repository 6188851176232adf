/**
 * An Anthropic Messages server (`POST /v1/messages`, beta or not) that
 * enforces the rules of long sessions as the API documents them and as
 * `@anthropic-ai/sdk` 1.15–1.17 types them:
 *
 * - **Preserved thinking.** Every `thinking` / `redacted_thinking` block it
 *   answers with is signed with a hash of its prefix: the top-level
 *   `tools` and `system` and every message before the block (the blocks
 *   before it in its own message included), as sent, cache marks taken
 *   out, from the conversation's start (a compaction block drops what is
 *   before it). A later request whose copy of the block sits on another
 *   prefix is refused with the API's 400 ("bound to a different
 *   conversation"), or, with `thinking.block_binding.
 *   prefix_mismatch_behavior: "drop_block"`, the block (and the rest of
 *   its turn's consecutive thinking blocks) is left out and listed in
 *   `input_transformations` (`thinking_dropped`,
 *   `prefix_binding_mismatch`). An edited block is refused whatever the
 *   setting; a block made for another model is dropped
 *   (`model_binding_mismatch`).
 * - **Mid-conversation system messages**: `role: "system"` with text,
 *   `tool_addition` / `tool_removal` blocks (references resolved along the
 *   conversation: `tool_reference_unresolved`, `tool_name_conflict`),
 *   `clear_at` (a `"next_user_message"` message is no longer shown once a
 *   later `role: "user"` message exists: it leaves the rendered prompt,
 *   so a cache entry written through it is never read again) and
 *   `output_config` (only `effort`; a message with neither content nor
 *   output_config fields is refused). Each needs its beta.
 * - **Compaction** (through `compaction_server.ts`): on-demand
 *   (`compaction: { type: "summarize" }`: the answer is the block alone,
 *   `stop_reason: "compaction"`), or by the `compact_20260112` edit when
 *   the input reaches its trigger (the block first in the answer, then the
 *   model's reply; `pause_after_compaction`: the block alone), with
 *   `usage.iterations`.
 * - **Thinking's configuration**: one of the four types, an enabled
 *   budget of at least 1024 and below `max_tokens`.
 * - **Cache usage** from its own prefix cache at the request's marks
 *   (`server_kit.ts`).
 */

import { type RecordedRequest, StatusReply } from "./loopback.ts";
import {
  betasOf,
  isRecord,
  MarkedPrefixCache,
  type PromptUnit,
  Refusal,
  sha256,
  Signer,
  tokensOf,
  withoutKey,
} from "./server_kit.ts";
import {
  AnthropicCompaction,
  anthropicRefusal,
  type Rejection,
  rejectionOf,
  SUMMARY_PROMPT,
  type ToolState,
} from "./compaction_server.ts";

/** The beta each feature needs, as `@anthropic-ai/sdk`'s `AnthropicBeta` names it. */
export const BETAS = {
  clearAt: "mid-conversation-system-clear-at-2026-08-21",
  outputConfig: "mid-conversation-output-config-2026-07-01",
  toolChanges: "mid-conversation-tool-changes-2026-07-01",
  inlineTools: "inline-tools-2026-09-15",
  blockBinding: "thinking-binding-controls-2026-08-01",
  compaction: "compact-2026-09-04",
  thresholdCompaction: "compact-2026-01-12",
} as const;

/** One block the model answers with; the server signs thinking blocks. */
export type ScriptBlock =
  | { type: "thinking"; thinking: string }
  | { type: "redacted_thinking" }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** What the server read of an accepted request. */
export interface AcceptedMessage {
  readonly body: Record<string, unknown>;
  readonly betas: readonly string[];
  /** The usage it answered with. */
  readonly usage: AnthropicUsage;
  /** `input_transformations` (whether the beta asked for them or not). */
  readonly transformations: readonly Record<string, unknown>[];
  /** The effort of this answer: the last system message's `output_config.effort`, else the top-level one. */
  readonly effort: string | undefined;
  /** The tools offered to the model at the end of the messages. */
  readonly tools: readonly string[];
  /** The texts of the system messages the model was shown (cleared ones left out). */
  readonly shown: readonly string[];
  /** Index of the message the conversation started at (a compaction block's). */
  readonly start: number;
  /** `"compaction"` for a compaction, else how the reply stopped. */
  readonly stopReason: string;
}

/** The usage fields the server answers with. */
export interface AnthropicUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: {
    ephemeral_5m_input_tokens: number;
    ephemeral_1h_input_tokens: number;
  };
  output_tokens: number;
  iterations?: Record<string, unknown>[];
}

/** What the model's side of the session sees of a request. */
export interface ServerTurn {
  /** How many requests were accepted before this one. */
  readonly index: number;
  readonly body: Record<string, unknown>;
  /** The tools offered to the model. */
  readonly tools: readonly string[];
}

/** Options of {@linkcode anthropicServer}. */
export interface AnthropicServerOptions {
  /** The cache's minimum prefix, in tokens (default 1024). */
  readonly minimumCacheTokens?: number;
  /**
   * `"enforced"` (default, accounts created since 2026-08-31): a prefix
   * mismatch is refused unless `drop_block` is asked; `"lenient"`: the
   * block is shown all the same and listed as `thinking_mismatch_allowed`
   * unless `block_binding` asks otherwise.
   */
  readonly prefixCheck?: "enforced" | "lenient";
  /** The model's answer (default: a thinking block unless thinking is disabled, then "ok"). */
  readonly script?: (turn: ServerTurn) => ScriptBlock[];
  /** A compaction summary's length in characters (default 400). */
  readonly summaryLength?: number;
}

/** The server and what it saw. */
export interface AnthropicServer {
  readonly accepted: AcceptedMessage[];
  readonly rejections: Rejection[];
  answer(request: RecordedRequest): unknown;
}

const EFFORTS = new Set(["low", "medium", "high", "xhigh", "max"]);
const THINKING = new Set(["thinking", "redacted_thinking"]);

function defaultScript(turn: ServerTurn): ScriptBlock[] {
  const thinking = turn.body.thinking;
  return isRecord(thinking) && thinking.type === "disabled"
    ? [{ type: "text", text: "ok" }]
    : [{ type: "thinking", thinking: `Step ${turn.index}.` }, {
      type: "text",
      text: "ok",
    }];
}

/**
 * `thinking` as the API checks it: one of the four types, `"enabled"` with
 * a budget of at least 1024 and below `max_tokens`.
 */
function checkThinking(thinking: unknown, maxTokens: unknown): void {
  const types = ["enabled", "adaptive", "disabled", "between_tools"];
  if (!isRecord(thinking) || !types.includes(thinking.type as string)) {
    throw anthropicRefusal(
      `thinking.type: Input should be ${types.map((t) => `'${t}'`).join(", ")}`,
    );
  }
  if (thinking.type !== "enabled") return;
  const budget = thinking.budget_tokens;
  if (
    typeof budget !== "number" || !Number.isInteger(budget) || budget < 1024
  ) {
    throw anthropicRefusal(
      "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    );
  }
  if (typeof maxTokens === "number" && budget >= maxTokens) {
    throw anthropicRefusal(
      "`max_tokens` must be greater than `thinking.budget_tokens`.",
    );
  }
}

/** A message's blocks (a string content is one text block, as sent). */
function blocksOf(message: Record<string, unknown>): unknown[] {
  const content = message.content;
  if (typeof content === "string") return [content];
  return Array.isArray(content) ? content : [];
}

/** The hash chain of a prefix: a message boundary, then each block. */
class PrefixChain {
  hash: string;
  constructor(head: unknown) {
    this.hash = sha256(JSON.stringify(withoutKey(head, "cache_control")));
  }
  message(message: Record<string, unknown>): void {
    const { content: _content, ...fields } = message;
    this.hash = sha256(
      this.hash + "|" + JSON.stringify(withoutKey(fields, "cache_control")),
    );
  }
  block(block: unknown): void {
    this.hash = sha256(
      this.hash + "+" + JSON.stringify(withoutKey(block, "cache_control")),
    );
  }
}

/** Anthropic Messages, enforcing the rules in this module's documentation. */
export function anthropicServer(
  options: AnthropicServerOptions = {},
): AnthropicServer {
  const cache = new MarkedPrefixCache(options.minimumCacheTokens ?? 1024);
  const signer = new Signer();
  const compaction = new AnthropicCompaction(options.summaryLength);
  const prefixCheck = options.prefixCheck ?? "enforced";
  const script = options.script ?? defaultScript;
  const accepted: AcceptedMessage[] = [];
  const rejections: Rejection[] = [];

  function need(betas: Set<string>, where: string, ...names: string[]): void {
    if (!names.some((name) => betas.has(name))) {
      throw anthropicRefusal(
        `${where}: requires the beta header anthropic-beta: ${
          names.join(" or ")
        }.`,
      );
    }
  }

  function serve(body: Record<string, unknown>, betas: Set<string>): unknown {
    if (typeof body.model !== "string") {
      throw anthropicRefusal("model: Field required");
    }
    if (typeof body.max_tokens !== "number") {
      throw anthropicRefusal("max_tokens: Field required");
    }
    if (body.stream === true) {
      throw anthropicRefusal("stream: this server answers whole messages only");
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw anthropicRefusal("messages: at least one message is required");
    }
    const messages = body.messages as Record<string, unknown>[];
    const tools = Array.isArray(body.tools)
      ? body.tools as Record<string, unknown>[]
      : [];
    const system = typeof body.system === "string"
      ? [{ type: "text", text: body.system }]
      : Array.isArray(body.system)
      ? body.system as Record<string, unknown>[]
      : [];
    const declared = new Map<string, unknown>();
    for (const [index, tool] of tools.entries()) {
      if (typeof tool.name !== "string" || declared.has(tool.name)) {
        throw anthropicRefusal(
          `tools.${index}.name: Tool names must be unique.`,
        );
      }
      declared.set(tool.name, withoutKey(tool, "cache_control"));
    }
    const marks = JSON.stringify(body).split('"cache_control":{').length - 1 -
      (isRecord(body.cache_control) ? 1 : 0);
    if (marks > 4) {
      throw anthropicRefusal(
        `A maximum of 4 blocks with cache_control may be provided. Found ${marks}.`,
      );
    }
    const thinking = isRecord(body.thinking) ? body.thinking : undefined;
    if (body.thinking !== undefined) {
      checkThinking(body.thinking, body.max_tokens);
    }
    const binding = isRecord(thinking?.block_binding)
      ? thinking.block_binding
      : undefined;
    if (binding !== undefined) {
      need(betas, "thinking.block_binding", BETAS.blockBinding);
    }
    const onDemand = body.compaction !== undefined && body.compaction !== null;
    const edits = isRecord(body.context_management) &&
        Array.isArray(body.context_management.edits)
      ? body.context_management.edits as Record<string, unknown>[]
      : [];
    const compactEdit = edits.find((edit) => edit.type === "compact_20260112");
    if (onDemand) {
      need(betas, "compaction", BETAS.compaction);
      if (!isRecord(body.compaction) || body.compaction.type !== "summarize") {
        throw anthropicRefusal('compaction.type: Input should be "summarize"');
      }
      if (
        body.context_management !== undefined &&
        body.context_management !== null
      ) {
        throw anthropicRefusal(
          "compaction: cannot be combined with context_management.",
        );
      }
    }
    if (compactEdit !== undefined) {
      need(betas, "context_management.edits", BETAS.thresholdCompaction);
    }

    const start = compaction.start(messages, betas);
    const live = messages.slice(start);
    // Tools along the conversation, and the system messages' rules.
    const state: ToolState = {
      available: new Set(declared.keys()),
      defined: new Map(),
    };
    const opening = blocksOf(live[0])[0];
    if (
      isRecord(opening) && opening.type === "compaction" &&
      Array.isArray(opening.tool_changes)
    ) {
      for (const change of opening.tool_changes) {
        applyToolChange(
          change,
          state,
          declared,
          "compaction.tool_changes",
          false,
        );
      }
    }
    let effort = isRecord(body.output_config) &&
        typeof body.output_config.effort === "string"
      ? body.output_config.effort
      : undefined;
    const lastUser = live.findLastIndex((message) => message.role === "user");
    const cleared = new Set<number>();
    const shown: string[] = [];
    live.forEach((message, offset) => {
      const index = start + offset;
      const where = `messages.${index}`;
      if (message.role === "user" || message.role === "assistant") {
        for (const key of Object.keys(message)) {
          if (key !== "role" && key !== "content") {
            throw anthropicRefusal(
              `${where}.${key}: Extra inputs are not permitted`,
            );
          }
        }
        return;
      }
      if (message.role !== "system") {
        throw anthropicRefusal(
          `${where}.role: Input should be "user", "assistant" or "system"`,
        );
      }
      for (const key of Object.keys(message)) {
        if (!["role", "content", "clear_at", "output_config"].includes(key)) {
          throw anthropicRefusal(
            `${where}.${key}: Extra inputs are not permitted`,
          );
        }
      }
      if (message.clear_at !== undefined && message.clear_at !== null) {
        need(betas, `${where}.clear_at`, BETAS.clearAt);
        if (
          message.clear_at !== "next_user_message" &&
          message.clear_at !== "never"
        ) {
          throw anthropicRefusal(
            `${where}.clear_at: Input should be "next_user_message" or "never"`,
          );
        }
      }
      let configured = false;
      if (
        message.output_config !== undefined && message.output_config !== null
      ) {
        need(betas, `${where}.output_config`, BETAS.outputConfig);
        if (!isRecord(message.output_config)) {
          throw anthropicRefusal(
            `${where}.output_config: Input should be an object`,
          );
        }
        for (const [key, value] of Object.entries(message.output_config)) {
          if (key !== "effort") {
            throw anthropicRefusal(
              `${where}.output_config.${key}: only effort applies per message; ${key} remains top-level only`,
            );
          }
          if (value !== null && !EFFORTS.has(value as string)) {
            throw anthropicRefusal(
              `${where}.output_config.effort: Input should be low, medium, high, xhigh or max`,
            );
          }
          if (value !== null) {
            configured = true;
            effort = value as string;
          }
        }
      }
      const blocks = blocksOf(message);
      if (blocks.length === 0 || message.content === "") {
        if (!configured) {
          throw anthropicRefusal(
            `${where}: a system message with neither content nor output_config fields`,
          );
        }
      }
      const texts: string[] = [];
      blocks.forEach((block, at) => {
        if (typeof block === "string") return texts.push(block);
        if (!isRecord(block)) {
          throw anthropicRefusal(`${where}.content.${at}: not a block`);
        }
        if (block.type === "text" && typeof block.text === "string") {
          return texts.push(block.text);
        }
        if (block.type === "tool_addition" || block.type === "tool_removal") {
          return applyToolChange(
            block,
            state,
            declared,
            `${where}.content.${at}`,
            true,
            betas,
          );
        }
        throw anthropicRefusal(
          `${where}.content.${at}.type: a system message holds text, tool_addition and tool_removal blocks`,
        );
      });
      if (message.clear_at === "next_user_message" && offset < lastUser) {
        cleared.add(offset);
      } else shown.push(texts.join(""));
    });

    // Preserved thinking: each block against the prefix it was made on.
    const behavior = binding?.prefix_mismatch_behavior ??
      (prefixCheck === "enforced" ? "error" : "allow");
    const transformations: Record<string, unknown>[] = [];
    const dropped = new Set<string>();
    const chain = new PrefixChain([tools, system]);
    live.forEach((message, offset) => {
      const index = start + offset;
      chain.message(message);
      let droppingTurn = false;
      blocksOf(message).forEach((block, at) => {
        const path = `messages.${index}.content.${at}`;
        if (isRecord(block) && THINKING.has(block.type as string)) {
          const payload = signer.open(
            block.type === "thinking" ? block.signature : block.data,
          );
          if (
            payload === undefined ||
            (block.type === "thinking" &&
              payload.thinking !== sha256(String(block.thinking)))
          ) {
            throw anthropicRefusal(
              `${path}: Invalid \`signature\` in \`${block.type}\` block.`,
            );
          }
          if (droppingTurn) {
            dropped.add(path);
            transformations.push({
              type: "thinking_dropped",
              path,
              reason: "prefix_binding_mismatch",
            });
          } else if (payload.model !== body.model) {
            dropped.add(path);
            transformations.push({
              type: "thinking_dropped",
              path,
              reason: "model_binding_mismatch",
            });
          } else if (payload.prefix !== chain.hash) {
            if (behavior === "error") {
              throw anthropicRefusal(
                `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a ` +
                  `different conversation. Remove the block, or set ` +
                  '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block".',
              );
            }
            if (behavior === "drop_block") {
              dropped.add(path);
              droppingTurn = true;
              transformations.push({
                type: "thinking_dropped",
                path,
                reason: "prefix_binding_mismatch",
              });
            } else {
              transformations.push({
                type: "thinking_mismatch_allowed",
                path,
                reason: "prefix_binding_mismatch",
              });
            }
          }
        } else droppingTurn = false;
        chain.block(block);
      });
    });

    // The prompt as the model reads it: cleared messages and dropped blocks out.
    const units: PromptUnit[] = [
      ...tools.map((tool) => unitOf(tool)),
      ...system.map((block) => unitOf(block)),
    ];
    live.forEach((message, offset) => {
      if (cleared.has(offset)) return;
      blocksOf(message).forEach((block, at) => {
        if (!dropped.has(`messages.${start + offset}.content.${at}`)) {
          units.push(unitOf(block, `${message.role}:`));
        }
      });
    });
    if (isRecord(body.cache_control) && units.length > 0) {
      units[units.length - 1] = {
        ...units[units.length - 1],
        mark: body.cache_control.ttl === "1h" ? "1h" : "5m",
      };
    }
    for (let at = 1; at < units.length; at++) {
      if (
        units[at].mark === "1h" &&
        units.slice(0, at).some((item) => item.mark === "5m")
      ) {
        throw anthropicRefusal(
          "cache_control: a 1h entry may not come after a 5m entry.",
        );
      }
    }
    const usageOf = (extra: PromptUnit[]): AnthropicUsage => {
      const answer = cache.answer([...units, ...extra]);
      const written = answer.written["5m"] + answer.written["1h"];
      return {
        input_tokens: answer.total - answer.read - written,
        cache_read_input_tokens: answer.read,
        cache_creation_input_tokens: written,
        cache_creation: {
          ephemeral_5m_input_tokens: answer.written["5m"],
          ephemeral_1h_input_tokens: answer.written["1h"],
        },
        output_tokens: 12,
      };
    };
    const total = units.reduce((sum, item) => sum + item.tokens, 0);
    const trigger = isRecord(compactEdit?.trigger) &&
        typeof compactEdit.trigger.value === "number"
      ? compactEdit.trigger.value
      : 150_000;
    const compacting = onDemand ||
      (compactEdit !== undefined && total >= trigger);
    const asked = onDemand
      ? body.compaction as Record<string, unknown>
      : compactEdit;
    const instruction = typeof asked?.instructions === "string" &&
        asked.instructions.trim() !== ""
      ? asked.instructions
      : SUMMARY_PROMPT;
    if (onDemand) {
      if (
        !live.some((message) =>
          message.role !== "system" && blocksOf(message).length > 0
        )
      ) {
        throw anthropicRefusal(
          "messages holds no user or assistant content to summarize or adopt.",
          "compaction_nothing_to_summarize",
        );
      }
      const last = live.findLast((message) => message.role !== "system");
      if (
        last?.role === "assistant" &&
        blocksOf(last).some((block) =>
          isRecord(block) && block.type === "tool_use"
        )
      ) {
        throw anthropicRefusal(
          "The compaction request ends on an assistant turn that is not finished.",
          "compaction_incomplete_turn",
        );
      }
    }
    let content: Record<string, unknown>[] = [];
    let usage: AnthropicUsage;
    let stopReason: string;
    const turn: ServerTurn = {
      index: accepted.length,
      body,
      tools: [...state.available],
    };
    if (compacting) {
      const compactionUsage = usageOf([{
        key: `summarize:${instruction}`,
        tokens: tokensOf(instruction),
      }]);
      const block = compaction.summarize(live, declared, state);
      content = [{ ...block }];
      const iterations: Record<string, unknown>[] = [{
        type: "compaction",
        ...withoutIterations(compactionUsage),
      }];
      if (onDemand || compactEdit?.pause_after_compaction === true) {
        usage = { ...compactionUsage, iterations };
        stopReason = "compaction";
      } else {
        // The model continues on the compacted context: tools, system, the block.
        const chainAfter = new PrefixChain([tools, system]);
        chainAfter.message({ role: "assistant" });
        chainAfter.block(block);
        const after = cache.answer([
          ...units.slice(0, tools.length + system.length),
          unitOf(block, "assistant:"),
        ]);
        const reply = sign(script(turn), chainAfter, body.model as string);
        content.push(...reply);
        usage = {
          input_tokens: after.total - after.read - after.written["5m"] -
            after.written["1h"],
          cache_read_input_tokens: after.read,
          cache_creation_input_tokens: after.written["5m"] +
            after.written["1h"],
          cache_creation: {
            ephemeral_5m_input_tokens: after.written["5m"],
            ephemeral_1h_input_tokens: after.written["1h"],
          },
          output_tokens: 12,
        };
        iterations.push({
          type: "message",
          model: body.model,
          ...withoutIterations(usage),
        });
        usage.iterations = iterations;
        stopReason = reply.some((block) => block.type === "tool_use")
          ? "tool_use"
          : "end_turn";
      }
    } else {
      usage = usageOf([]);
      const replyChain = new PrefixChain([tools, system]);
      live.forEach((message) => {
        replyChain.message(message);
        blocksOf(message).forEach((block) => replyChain.block(block));
      });
      replyChain.message({ role: "assistant" });
      content = sign(script(turn), replyChain, body.model as string);
      stopReason = content.some((block) => block.type === "tool_use")
        ? "tool_use"
        : "end_turn";
    }
    accepted.push({
      body,
      betas: [...betas],
      usage,
      transformations,
      effort,
      tools: [...state.available].sort(),
      shown,
      start,
      stopReason,
    });
    return {
      id: `msg_${accepted.length}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
      context_management: null,
      ...(betas.has(BETAS.blockBinding)
        ? { input_transformations: transformations }
        : {}),
    };
  }

  /** The script's blocks, thinking signed on the prefix each is made on. */
  function sign(
    blocks: ScriptBlock[],
    chain: PrefixChain,
    model: string,
  ): Record<string, unknown>[] {
    return blocks.map((block) => {
      let made: Record<string, unknown>;
      if (block.type === "thinking") {
        made = {
          type: "thinking",
          thinking: block.thinking,
          signature: signer.sign({
            prefix: chain.hash,
            model,
            thinking: sha256(block.thinking),
          }),
        };
      } else if (block.type === "redacted_thinking") {
        made = {
          type: "redacted_thinking",
          data: signer.sign({ prefix: chain.hash, model }),
        };
      } else made = { ...block };
      chain.block(made);
      return made;
    });
  }

  return {
    accepted,
    rejections,
    answer(request: RecordedRequest): unknown {
      try {
        if (request.path.replace(/\?.*$/, "") !== "/v1/messages") {
          throw anthropicRefusal(`Unknown path ${request.path}`);
        }
        const body = JSON.parse(request.body);
        if (!isRecord(body)) {
          throw anthropicRefusal("The body must be a JSON object.");
        }
        return serve(body, betasOf(request.headers));
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        rejections.push(rejectionOf(error));
        return new StatusReply(error.status, error.body);
      }
    },
  };
}

/** One block of the rendered prompt (`prefix`: its message's role). */
function unitOf(value: unknown, prefix = ""): PromptUnit {
  const mark = isRecord(value) && isRecord(value.cache_control)
    ? (value.cache_control.ttl === "1h" ? "1h" : "5m")
    : undefined;
  const key = prefix +
    (typeof value === "string"
      ? value
      : JSON.stringify(withoutKey(value, "cache_control")));
  return {
    key,
    tokens: tokensOf(key),
    ...(mark === undefined ? {} : { mark }),
  };
}

function withoutIterations(
  usage: AnthropicUsage,
): Omit<AnthropicUsage, "iterations"> {
  const { iterations: _iterations, ...rest } = usage;
  return rest;
}

/**
 * One `tool_addition` / `tool_removal` applied to the tools in effect
 * (`check`: a request's own block, whose references must resolve).
 */
function applyToolChange(
  change: unknown,
  state: ToolState,
  declared: ReadonlyMap<string, unknown>,
  where: string,
  check: boolean,
  betas?: Set<string>,
): void {
  if (!isRecord(change) || !isRecord(change.tool)) {
    throw anthropicRefusal(`${where}: not a tool change`);
  }
  const tool = change.tool;
  if (
    check && betas !== undefined && !betas.has(BETAS.toolChanges) &&
    !betas.has(BETAS.inlineTools)
  ) {
    throw anthropicRefusal(
      `${where}: requires the beta header anthropic-beta: ${BETAS.toolChanges} or ${BETAS.inlineTools}.`,
    );
  }
  if (tool.type === "tool_definition") {
    if (check && !betas?.has(BETAS.inlineTools)) {
      throw anthropicRefusal(
        `${where}: a tool_definition requires the beta header anthropic-beta: ${BETAS.inlineTools}.`,
      );
    }
    const definition = withoutKey(tool.definition, "cache_control") as Record<
      string,
      unknown
    >;
    const name = definition?.name;
    if (typeof name !== "string" || change.type !== "tool_addition") {
      throw anthropicRefusal(`${where}: a tool_definition adds one named tool`);
    }
    if (check && state.available.has(name)) {
      throw anthropicRefusal(
        `${where}: the tool ${name} is already available.`,
        "tool_name_conflict",
      );
    }
    state.defined.set(name, definition);
    state.available.add(name);
    return;
  }
  const name = tool.name;
  if (tool.type !== "tool_reference" || typeof name !== "string") {
    throw anthropicRefusal(
      `${where}.tool: a tool_reference or tool_definition`,
    );
  }
  if (check && !declared.has(name) && !state.defined.has(name)) {
    throw anthropicRefusal(
      `${where}: no tool named ${name} is defined at this position.`,
      "tool_reference_unresolved",
    );
  }
  if (change.type === "tool_addition") state.available.add(name);
  else state.available.delete(name);
}
