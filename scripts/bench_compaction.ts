/**
 * `deno task bench:cache`'s long session with compactions (issue 47): 300
 * steps of a coding agent whose context crosses a compaction threshold,
 * compacted two ways and simulated under the providers' rules:
 *
 * - **rxprompt**: the conversation's own compaction (`compactAt`): the
 *   summarizing request is the last request's prefix plus the provider's
 *   compaction (Anthropic) or one instruction (Chat Completions), and the
 *   history goes on from the summary with the head kept;
 * - **common**: what most clients do: a fresh request holding the history
 *   as one text message, with the system prompt and tools and no marks,
 *   then a new conversation that starts with the summary.
 *
 * Each way's cached share of all input (the compaction requests included)
 * and its cost (÷ the cost without a cache), side by side.
 *
 * @module
 */

import { SystemPrompt } from "../mod.ts";
import { type CacheProvider, simulateCache } from "../adapters/cache/mod.ts";
import { anthropicConversation } from "../adapters/anthropic/mod.ts";
import { chatConversation } from "../adapters/openai/mod.ts";

/** One way's figures on one provider. */
export interface CompactionRow {
  provider: CacheProvider;
  way: "rxprompt" | "common";
  /** Cached ÷ input, every request counted. */
  efficiency: number;
  /** Price ÷ price without a cache. */
  cost: number;
  /** How many compactions the session made. */
  compactions: number;
  /** Cached ÷ input of the summarizing requests alone. */
  compactionEfficiency: number;
}

const STEPS = 300;
const COMPACT_AT = 40_000;
const SUMMARY = "The work so far: the failing tests were found and fixed one " +
  "by one; the next test is the one named in the last message. ";

/** The session's registry: a long system prompt and a dozen tools. */
function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({
    name: "rules",
    order: 100,
    text: "Keep every change small; run the tests after each one. ".repeat(
      150,
    ),
  });
  const parameters = {
    type: "object",
    properties: { path: { type: "string" } },
  };
  prompt.tools(() => ({
    schemas: Array.from({ length: 12 }, (_, index) => ({
      name: `tool_${index}`,
      description: `Tool ${index} of the workspace. `.repeat(10),
      parameters,
    })),
  }));
  return prompt;
}

/** What the session needs of a conversation of either form. */
interface Conv {
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): { id: string }[];
  readonly continues: boolean;
}

/** A form as the session drives it: its conversation, and the model's side. */
interface Form {
  provider: CacheProvider;
  start(prompt: SystemPrompt, compactAt?: number): Conv;
  /** The answer to `body` (`input` tokens reported), a call unless `text`. */
  answer(body: unknown, input: number, call: string | undefined): unknown;
  /** The common way's summarizing request from a body of the conversation. */
  common(body: Record<string, unknown>, history: string): unknown;
}

const RESULT = "a line of the file under test; ".repeat(40);

/**
 * The session: a person's message per turn, tool calls until the fourth
 * step of the turn, answered text; the requests as sent, in order.
 */
async function session(
  form: Form,
  way: "rxprompt" | "common",
): Promise<{ bodies: unknown[]; compactions: number[] }> {
  const prompt = registry();
  const bodies: unknown[] = [];
  const compactions: number[] = [];
  let conv = form.start(prompt, way === "rxprompt" ? COMPACT_AT : undefined);
  let transcript: string[] = [];
  let last = 0;
  let summary: string | undefined;
  for (let turn = 0; bodies.length < STEPS; turn++) {
    if (way === "common" && last >= COMPACT_AT) {
      const body = bodies.at(-1) as Record<string, unknown>;
      compactions.push(bodies.length);
      bodies.push(form.common(body, transcript.join("\n")));
      conv = form.start(prompt);
      transcript = [];
      summary = `Summary of the conversation so far:\n\n${SUMMARY}`;
    }
    const message = `Task ${turn}: fix the next failing test.`;
    conv.user(summary === undefined ? message : `${summary}\n\n${message}`);
    summary = undefined;
    transcript.push(`user: ${message}`);
    let step = 0;
    let again = true;
    while (again && bodies.length < STEPS) {
      const body = await conv.request() as Record<string, unknown>;
      bodies.push(body);
      const compacting = JSON.stringify(body).includes('"compaction":{') ||
        JSON.stringify(body).includes("Summarize the conversation so far");
      if (compacting) compactions.push(bodies.length - 1);
      // The input the provider would report (a quarter of the characters:
      // the trigger only needs the same measure for both ways).
      last = Math.ceil(JSON.stringify(body).length / 4);
      const call = compacting || step++ === 3
        ? undefined
        : `call_${bodies.length}`;
      const calls = conv.record(form.answer(body, last, call));
      for (const { id } of calls) {
        conv.toolResult(id, RESULT);
        transcript.push(`assistant: tool_0 ${id}`, `tool: ${RESULT}`);
      }
      if (calls.length === 0 && !compacting) {
        transcript.push("assistant: Fixed.");
      }
      again = calls.length > 0 || conv.continues;
    }
  }
  await prompt.dispose();
  return { bodies, compactions };
}

/** A body without its cache marks. */
function unmarked<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value),
    (key, inner) =>
      key === "cache_control" || key === "prompt_cache_breakpoint"
        ? undefined
        : inner,
  );
}

const ANTHROPIC: Form = {
  provider: "anthropic",
  start: (prompt, compactAt) =>
    anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      ...(compactAt === undefined
        ? {}
        : { compactAt: { inputTokens: compactAt } }),
    }) as unknown as Conv,
  answer: (body, input, call) => {
    const compacting =
      (body as { compaction?: unknown }).compaction !== undefined;
    return {
      type: "message",
      role: "assistant",
      stop_reason: compacting
        ? "compaction"
        : call === undefined
        ? "end_turn"
        : "tool_use",
      content: compacting
        ? [{ type: "compaction", content: SUMMARY, encrypted_content: "e" }]
        : call === undefined
        ? [{ type: "text", text: "Fixed." }]
        : [{
          type: "tool_use",
          id: call,
          name: "tool_0",
          input: { path: "a.ts" },
        }],
      usage: {
        input_tokens: input,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens: 10,
      },
    };
  },
  common: (body, history) => ({
    model: body.model,
    max_tokens: body.max_tokens,
    system: unmarked(body.system),
    tools: unmarked(body.tools),
    messages: [{
      role: "user",
      content: [{
        type: "text",
        text: `Summarize this conversation:\n\n${history}`,
      }],
    }],
  }),
};

const CHAT: Form = {
  provider: "openai",
  start: (prompt, compactAt) =>
    chatConversation(prompt, {
      model: "gpt-5.6",
      ...(compactAt === undefined
        ? {}
        : { compactAt: { inputTokens: compactAt } }),
    }) as unknown as Conv,
  answer: (body, input, call) => {
    const compacting = JSON.stringify(body).includes(
      "Summarize the conversation so far",
    );
    return {
      object: "chat.completion",
      choices: [{
        index: 0,
        finish_reason: call === undefined ? "stop" : "tool_calls",
        message: {
          role: "assistant",
          content: compacting ? SUMMARY : call === undefined ? "Fixed." : null,
          ...(call === undefined || compacting ? {} : {
            tool_calls: [{
              id: call,
              type: "function",
              function: { name: "tool_0", arguments: '{"path":"a.ts"}' },
            }],
          }),
        },
      }],
      usage: {
        prompt_tokens: input,
        completion_tokens: 10,
        total_tokens: input + 10,
      },
    };
  },
  common: (body, history) => ({
    model: body.model,
    ...(body.tools === undefined ? {} : { tools: unmarked(body.tools) }),
    messages: [
      unmarked((body.messages as unknown[])[0]),
      { role: "user", content: `Summarize this conversation:\n\n${history}` },
    ],
  }),
};

/** The long session compacted both ways, on Anthropic and OpenAI. */
export async function compactionRows(
  count: (text: string) => number,
): Promise<CompactionRow[]> {
  const rows: CompactionRow[] = [];
  for (const form of [ANTHROPIC, CHAT]) {
    for (const way of ["rxprompt", "common"] as const) {
      const { bodies, compactions } = await session(form, way);
      const { totals, requests } = simulateCache(
        bodies.map((body) => ({ body })),
        { provider: form.provider, countTokens: count },
      );
      const summarizing = compactions.map((index) => requests[index]);
      rows.push({
        provider: form.provider,
        way,
        efficiency: totals.cachedTokens / totals.inputTokens,
        cost: totals.cost / totals.inputTokens,
        compactions: compactions.length,
        compactionEfficiency: summarizing.reduce((sum, request) =>
          sum + request.cachedTokens, 0) /
          summarizing.reduce((sum, request) => sum + request.inputTokens, 0),
      });
    }
  }
  return rows;
}

/** The rows as the bench prints them. */
export function compactionLines(rows: readonly CompactionRow[]): string[] {
  const lines = [
    `Long session with compactions (${STEPS} steps, compactAt ${COMPACT_AT} ` +
    `input tokens; cached ÷ input of every request, compaction requests ` +
    `included / cost / cached ÷ input of the compaction requests alone):`,
  ];
  const cell = (row: CompactionRow) =>
    `${(row.efficiency * 100).toFixed(1)}% / ${row.cost.toFixed(3)} / ` +
    `${(row.compactionEfficiency * 100).toFixed(1)}% (${row.compactions} ` +
    `compactions)`;
  for (const provider of new Set(rows.map((row) => row.provider))) {
    const of = (way: string) =>
      rows.find((row) => row.provider === provider && row.way === way)!;
    lines.push(
      `  ${provider.padEnd(15)} rxprompt ${cell(of("rxprompt"))}; a fresh ` +
        `request with the history as text ${cell(of("common"))}`,
    );
  }
  return lines;
}
