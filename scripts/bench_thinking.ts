/**
 * `deno task bench:cache`'s thinking session (SPEC 10.1, issue 46): a
 * coding agent on a preserved-thinking model, every answer holding a
 * thinking block, whose plugins change the git section at steps 8, 16 and
 * 24, add an MCP tool at 12 and drop it at 28. Run through the Anthropic
 * conversation with `changes: "inline"` and with `"rebuild"` (0.4's
 * bytes), each simulated under Anthropic's rules: the cached share of the
 * input, the cost, and how many requests the preserved-thinking check
 * would refuse (a thinking block whose prefix, marks aside, differs from
 * the one it was produced on).
 *
 * @module
 */

import { simulateCache } from "../adapters/cache/mod.ts";
import { SystemPrompt, type ToolSchema } from "../mod.ts";
import { anthropicConversation } from "../adapters/anthropic/mod.ts";
import {
  assistantTurn,
  CODING,
  instructions,
  seeded,
  userTurn,
} from "../examples/sessions/_text.ts";

/** One way's figures. */
export interface ThinkingRun {
  readonly changes: "inline" | "rebuild";
  /** Cached ÷ input tokens. */
  readonly cachedShare: number;
  /** Price ÷ price without a cache. */
  readonly cost: number;
  /** Requests the preserved-thinking check would refuse. */
  readonly refused: number;
}

const STEPS = 40;

function tool(name: string, description: string): ToolSchema {
  return {
    name,
    description,
    parameters: {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    },
  };
}

/** The session's request bodies, one way. */
async function bodies(
  changes: "inline" | "rebuild",
): Promise<Record<string, unknown>[]> {
  const random = seeded(46);
  const prompt = new SystemPrompt({
    persona: instructions(random, "Coding agent", [
      "Keep every change small.",
      "Run the tests before you commit.",
    ], 2500),
  });
  const stage = {
    branch: "main",
    tools: [
      tool("read_file", "Read a file of the repository."),
      tool("grep", "Search the repository."),
      tool("shell", "Run a short command."),
    ],
  };
  prompt.section({
    name: "git",
    order: 50,
    text: () => `## git\nOn branch ${stage.branch}; the working tree is clean.`,
  });
  prompt.tools(() => ({ schemas: stage.tools }));
  const plugins: Record<number, () => void> = {
    8: () => stage.branch = "fix/cache",
    12: () =>
      stage.tools = [...stage.tools, tool("browse", "Open a web page.")],
    16: () => stage.branch = "fix/parser",
    24: () => stage.branch = "main",
    28: () => stage.tools = stage.tools.filter((t) => t.name !== "browse"),
  };
  const conv = anthropicConversation(prompt, {
    model: "claude-fable-5-1",
    max_tokens: 4096,
    changes,
  });
  const sent: Record<string, unknown>[] = [];
  for (let step = 1; step <= STEPS; step++) {
    plugins[step]?.();
    if (conv.openCalls.length > 0) {
      for (const call of conv.openCalls) {
        conv.toolResult(call.id, assistantTurn(random, CODING, 400));
      }
    } else conv.user(userTurn(random, CODING, 120));
    const body = await conv.request() as unknown as Record<string, unknown>;
    sent.push(body);
    const thinking = {
      type: "thinking",
      thinking: assistantTurn(random, CODING, 150),
      signature: `sig-${step}`,
    };
    conv.record({
      type: "message",
      role: "assistant",
      content: step % 4 === 0
        ? [thinking, { type: "text", text: assistantTurn(random, CODING, 200) }]
        : [thinking, {
          type: "tool_use",
          id: `toolu_${step}`,
          name: "read_file",
          input: { path: `src/file_${step}.ts` },
        }],
    });
  }
  await prompt.dispose();
  return sent;
}

/** JSON without cache marks. */
function unmarked(value: unknown): string {
  return JSON.stringify(
    value,
    (key, inner) => key === "cache_control" ? undefined : inner,
  );
}

/**
 * The requests the preserved-thinking check refuses: one holding a
 * thinking block whose prefix (tools, system, the messages before it,
 * marks aside) is not the one of the request that produced it.
 */
export function thinkingRefusals(
  requests: readonly Record<string, unknown>[],
): number {
  // The answer of request r sits at index messages.length of r.
  const produced = new Map<number, string>();
  let refused = 0;
  for (const body of requests) {
    const messages = body.messages as { role: string; content: unknown }[];
    const prefix = (end: number) =>
      unmarked([body.tools, body.system, messages.slice(0, end)]);
    let refuses = false;
    for (const [at, kept] of produced) {
      if (at < messages.length && prefix(at) !== kept) refuses = true;
    }
    if (refuses) refused++;
    produced.set(messages.length, prefix(messages.length));
  }
  return refused;
}

/** The session run both ways. */
export async function thinkingChanges(
  count: (text: string) => number,
): Promise<ThinkingRun[]> {
  const runs: ThinkingRun[] = [];
  for (const changes of ["inline", "rebuild"] as const) {
    const sent = await bodies(changes);
    const { totals } = simulateCache(sent.map((body) => ({ body })), {
      provider: "anthropic",
      countTokens: count,
    });
    runs.push({
      changes,
      cachedShare: totals.cachedTokens / totals.inputTokens,
      cost: totals.cost / totals.inputTokens,
      refused: thinkingRefusals(sent),
    });
  }
  return runs;
}
