/**
 * A conversation session for the report (SPEC 9.3): the coding agent of
 * tests/cache/report/agent_fixture.ts talks through a conversation with
 * `diagnostics` on, and between its steps a section changes (the git
 * branch), the tool list changes (an MCP tool appears), the user lapses
 * (10 minutes) and the provider evicts the prefix. Each answer reports the
 * usage the simulator estimates for the body sent (a read of 0 at the
 * eviction) and the diagnosis the provider would give.
 */

import assert from "node:assert/strict";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  type PromptCacheReport,
  simulateCache,
} from "../../adapters/cache/mod.ts";
import { agent } from "../cache/report/agent_fixture.ts";

export const countTokens = (text: string): number => Math.ceil(text.length / 4);
export const MINUTE = 60_000;

/** One step: what happens before it, its time, and the provider's say. */
export interface SessionStep {
  question: string;
  time: number;
  change?: (state: ReturnType<typeof agent>["state"]) => void;
  /** Anthropic's `cache_miss_reason`. */
  reason: { type: string; cache_missed_input_tokens?: number } | null;
  /** The provider evicted the prefix: nothing is read. */
  evicted?: boolean;
}

export const SESSION: readonly SessionStep[] = [
  { question: "Read the failing test.", time: 0, reason: null },
  { question: "Fix it.", time: 20_000, reason: null },
  {
    question: "Commit.",
    time: 40_000,
    change: (state) => state.branch = "fix/cache",
    reason: { type: "system_changed", cache_missed_input_tokens: 2800 },
  },
  {
    question: "Look it up.",
    time: 60_000,
    change: (state) => state.mcp = ["search", "browse"],
    reason: { type: "tools_changed", cache_missed_input_tokens: 4100 },
  },
  {
    question: "Continue.",
    time: 60_000 + 10 * MINUTE,
    reason: { type: "unavailable" },
  },
  {
    question: "The docs.",
    time: 60_000 + 10 * MINUTE + 30_000,
    reason: { type: "unavailable" },
    evicted: true,
  },
];

/** The verdicts the report gives the session's steps. */
export const VERDICTS = [
  undefined,
  undefined,
  "layout",
  "layout",
  "provider",
  "provider",
];

/**
 * The Anthropic usage of the last of `bodies` as the simulator estimates
 * it (`read` 0 on an eviction: the prefix is written again).
 */
export function anthropicUsageOf(
  bodies: readonly { body: unknown; time: number }[],
  evicted: boolean,
): {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: {
    ephemeral_5m_input_tokens: number;
    ephemeral_1h_input_tokens: number;
  };
  output_tokens: number;
} {
  const estimate = simulateCache(bodies, { provider: "anthropic", countTokens })
    .requests.at(-1)!;
  const prefix = estimate.cachedTokens + estimate.writtenTokens;
  const read = evicted ? 0 : estimate.cachedTokens;
  return {
    input_tokens: estimate.inputTokens - prefix,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: prefix - read,
    cache_creation: {
      ephemeral_5m_input_tokens: prefix - read,
      ephemeral_1h_input_tokens: 0,
    },
    output_tokens: 12,
  };
}

/**
 * Plays SESSION through an Anthropic conversation with `diagnostics` on
 * (its changes sent as `changes` says), its clock at `start` plus each
 * step's time; every answer is "Done." with
 * the simulated usage and the step's diagnosis. The caller disposes `prompt`.
 */
export async function playSession(
  start: number,
  changes: "rebuild" | "inline" = "rebuild",
): Promise<{
  prompt: ReturnType<typeof agent>["prompt"];
  conv: ReturnType<typeof anthropicConversation>;
}> {
  const { prompt, state } = agent();
  let now = start;
  // By default 0.4's bytes: the session's section change is the layout
  // miss the report explains ("inline" tells it and misses nothing).
  const conv = anthropicConversation(prompt, {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    changes,
    diagnostics: true,
    clock: () => now,
  });
  const sent: { body: unknown; time: number }[] = [];
  for (const [index, step] of SESSION.entries()) {
    step.change?.(state);
    now = start + step.time;
    conv.user(step.question);
    sent.push({ body: await conv.request(), time: step.time });
    conv.record({
      id: `msg_${index}`,
      type: "message",
      role: "assistant" as const,
      content: [{ type: "text", text: "Done." }],
      usage: anthropicUsageOf(sent, step.evicted === true),
      diagnostics: { cache_miss_reason: step.reason },
    });
  }
  return { prompt, conv };
}

/**
 * The misses every form of the session shows, whatever the provider says:
 * the branch (the git section's variable), the MCP tool, then the lapse
 * and the eviction that the observed usage and the estimate part at.
 */
export function assertSessionMisses(
  report: Pick<PromptCacheReport, "requests">,
): void {
  const judgements = report.requests.map((request) => request.judgement);
  assert.equal(judgements[2]?.contributor?.name, "git");
  assert.equal(judgements[2]?.contributor?.variable?.name, "branch");
  assert.equal(judgements[3]?.contributor?.name, "browse");
  assert.equal(judgements[3]?.contributor?.registrar, "registry/mcp");
  assert.equal(judgements[4]?.expired, true);
  assert.equal(judgements[5]?.expired, false);
  assert.equal(report.requests[5].differsFromEstimate, true);
}

export { agent };
