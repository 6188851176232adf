/**
 * `bench:cache`'s deferred-tools session (SPEC §10.3, issue 48): three MCP
 * servers' 300 tools (tests/adapters/deferred/mcp_servers.ts, real servers
 * over the in-memory transport), of which the model finds and calls 8,
 * through each conversation form that sends deferred tools: deferred, and
 * every tool listed. Each form's bodies are simulated under its rules;
 * per form, the mean input tokens per request and the cached share of the
 * input, deferred against listed.
 *
 * The model is scripted: the answers are the SDK shapes each form reads
 * (Anthropic's server-run search blocks, Responses' server-run
 * `tool_search_call` / `tool_search_output` items; on the forms with the
 * search-and-call pair, Chat, Bedrock Converse and Gemini, `find_tools`
 * then `call_tool` calls), so no network is used. A deferred definition a
 * search loads counts where the simulator sees it: in the search result's
 * JSON (Responses, the pair), not at all for Anthropic's references.
 *
 * @module
 */

import { type CacheProvider, simulateCache } from "../adapters/cache/mod.ts";
import { SystemPrompt, type ToolSchema } from "../mod.ts";
import { anthropicConversation } from "../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
} from "../adapters/openai/mod.ts";
import { converseConversation } from "../adapters/bedrock/mod.ts";
import { geminiConversation } from "../adapters/gemini/mod.ts";
import { mcpTools, type McpToolSource } from "../adapters/mcp/mod.ts";
import {
  connectServers,
  FOUND,
} from "../tests/adapters/deferred/mcp_servers.ts";

/** One form's figures, deferred and listed. */
export interface DeferredBenchRow {
  form: string;
  provider: CacheProvider;
  deferred: { requests: number; inputPerRequest: number; cachedShare: number };
  listed: { requests: number; inputPerRequest: number; cachedShare: number };
}

const READ_FILE: ToolSchema = {
  name: "read_file",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};

/** A conversation as this bench drives it. */
interface Driven {
  request(): Promise<unknown>;
  record(answer: never): unknown[];
  toolResult(id: string, content: string): void;
}

type Script = (body: Record<string, unknown>, n: number) => unknown;

/** The form's conversation, its rules, and its scripts (deferred, listed). */
interface FormPlan {
  readonly form: string;
  readonly provider: CacheProvider;
  start(prompt: SystemPrompt): Driven;
  readonly deferred: Script;
  readonly listed: Script;
  /** How many requests a session makes, deferred. */
  readonly deferredSteps: number;
}

const FORMS: readonly FormPlan[] = [
  {
    form: "anthropic-messages",
    provider: "anthropic",
    start: (prompt) =>
      anthropicConversation(prompt, {
        model: "claude-bench",
        max_tokens: 256,
      }) as unknown as Driven,
    deferred: (_, n) =>
      anthropicAnswer(
        n,
        n >= FOUND.length ? [] : [
          {
            type: "server_tool_use",
            id: `srvtoolu_${n}`,
            name: "tool_search_tool_bm25",
            input: { query: FOUND[n].query },
          },
          {
            type: "tool_search_tool_result",
            tool_use_id: `srvtoolu_${n}`,
            content: {
              type: "tool_search_tool_search_result",
              tool_references: [{
                type: "tool_reference",
                tool_name: FOUND[n].name,
              }],
            },
          },
        ],
      ),
    listed: (_, n) => anthropicAnswer(n, []),
    deferredSteps: FOUND.length + 1,
  },
  {
    form: "openai-responses",
    provider: "openai",
    start: (prompt) =>
      responsesConversation(prompt, {
        model: "gpt-bench",
      }) as unknown as Driven,
    deferred: (body, n) => {
      if (n >= FOUND.length) return responsesAnswer([]);
      const namespace = (body.tools as Record<string, unknown>[]).find((
        tool,
      ) =>
        tool.type === "namespace" &&
        (tool.tools as { name: string }[]).some((fn) =>
          fn.name === FOUND[n].name
        )
      )!;
      const fn = (namespace.tools as { name: string }[]).find((one) =>
        one.name === FOUND[n].name
      );
      return responsesAnswer([
        {
          type: "tool_search_call",
          id: `tsc_${n}`,
          call_id: null,
          execution: "server",
          status: "completed",
          arguments: { query: FOUND[n].query },
        },
        {
          type: "tool_search_output",
          id: `tso_${n}`,
          call_id: null,
          execution: "server",
          status: "completed",
          tools: [{ ...namespace, tools: [fn] }],
        },
        responsesCall(n, String(namespace.name)),
      ]);
    },
    listed: (_, n) =>
      responsesAnswer(n >= FOUND.length ? [] : [responsesCall(n)]),
    deferredSteps: FOUND.length + 1,
  },
  pairPlan(
    "openai-chat",
    "openai",
    (prompt) => chatConversation(prompt, { model: "gpt-bench" }),
    chatAnswer,
  ),
  pairPlan(
    "bedrock-converse",
    "bedrock",
    (prompt) =>
      converseConversation(prompt, {
        modelId: "anthropic.claude-bench",
        maxTokens: 256,
      }),
    converseAnswer,
  ),
  pairPlan(
    "gemini",
    "gemini",
    (prompt) => geminiConversation(prompt, { model: "gemini-3-flash" }),
    geminiAnswer,
  ),
];

/**
 * A form that sends deferred tools through the search-and-call pair:
 * deferred, each found tool searched (`find_tools`) then called
 * (`call_tool`); listed, each called straight away. `answer` is the
 * form's answer with the n-th call, or text without one.
 */
function pairPlan(
  form: string,
  provider: CacheProvider,
  start: (prompt: SystemPrompt) => unknown,
  answer: (
    n: number,
    call: { name: string; args: unknown } | undefined,
  ) => unknown,
): FormPlan {
  return {
    form,
    provider,
    start: (prompt) => start(prompt) as Driven,
    deferred: (_, n) => {
      const at = Math.floor(n / 2);
      if (at >= FOUND.length) return answer(n, undefined);
      return n % 2 === 0
        ? answer(n, { name: "find_tools", args: { query: FOUND[at].query } })
        : answer(n, {
          name: "call_tool",
          args: { name: FOUND[at].name, arguments: FOUND[at].args },
        });
    },
    listed: (_, n) =>
      answer(
        n,
        n >= FOUND.length
          ? undefined
          : { name: FOUND[n].name, args: FOUND[n].args },
      ),
    deferredSteps: 2 * FOUND.length + 1,
  };
}

/** Every form's session, deferred and listed, simulated. */
export async function deferredBenchRows(
  countTokens: (text: string) => number,
): Promise<DeferredBenchRow[]> {
  const rows: DeferredBenchRow[] = [];
  for (const plan of FORMS) {
    const deferred = await session(plan, true, countTokens);
    const listed = await session(plan, false, countTokens);
    rows.push({ form: plan.form, provider: plan.provider, deferred, listed });
  }
  return rows;
}

/** The lines `bench:cache` prints. */
export function deferredLines(rows: readonly DeferredBenchRow[]): string[] {
  const lines = [
    "Deferred tools (300 MCP tools, 8 found and called; input tokens per " +
    "request and cached share, deferred / all listed):",
  ];
  for (const { form, deferred, listed } of rows) {
    lines.push(
      `  ${form.padEnd(19)} ${deferred.inputPerRequest} / ` +
        `${listed.inputPerRequest} tokens (${deferred.requests} / ` +
        `${listed.requests} requests); cached ` +
        `${(deferred.cachedShare * 100).toFixed(1)}% / ` +
        `${(listed.cachedShare * 100).toFixed(1)}%`,
    );
  }
  return lines;
}

async function session(
  plan: FormPlan,
  defer: boolean,
  countTokens: (text: string) => number,
): Promise<DeferredBenchRow["deferred"]> {
  const connected = await connectServers();
  const prompt = new SystemPrompt({
    includeHarnessIdentity: false,
    persona: "You run operations for a software company.",
  });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Search for a tool before you say you cannot do something.",
  });
  prompt.tools(() => ({ schemas: [READ_FILE] }));
  const sources: McpToolSource[] = [];
  for (const { plan: server, client } of connected.servers) {
    const source = mcpTools(client, { prefix: server.prefix, defer });
    prompt.fork({ label: server.name }).tools(source.tools$, {
      stability: "stable",
    });
    sources.push(source);
  }
  try {
    for (const source of sources) await source.ready;
    const conv = plan.start(prompt);
    (conv as unknown as { user(text: string): void }).user(
      "Work through today's queue.",
    );
    const script = defer ? plan.deferred : plan.listed;
    const steps = defer ? plan.deferredSteps : FOUND.length + 1;
    const bodies: unknown[] = [];
    for (let n = 0; n < steps; n++) {
      const body = await conv.request();
      bodies.push(body);
      const calls = conv.record(
        script(body as Record<string, unknown>, n) as never,
      ) as { id: string; name: string; input: unknown }[];
      for (const call of calls) {
        const source = sources.find((one) => one.owns(call.name))!;
        const result = await source.call(call.name, call.input);
        const [first] = result.content as { text: string }[];
        conv.toolResult(call.id, first.text);
      }
    }
    const { totals } = simulateCache(bodies.map((body) => ({ body })), {
      provider: plan.provider,
      countTokens,
    });
    return {
      requests: bodies.length,
      inputPerRequest: Math.round(totals.inputTokens / bodies.length),
      cachedShare: totals.cachedTokens / totals.inputTokens,
    };
  } finally {
    await prompt.dispose();
    await connected.close();
  }
}

function anthropicAnswer(n: number, search: unknown[]): unknown {
  const calling = n < FOUND.length;
  return {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: "claude-bench",
    content: calling
      ? [...search, {
        type: "tool_use",
        id: `toolu_${n}`,
        name: FOUND[n].name,
        input: FOUND[n].args,
      }]
      : [{ type: "text", text: "All done." }],
    stop_reason: calling ? "tool_use" : "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

function responsesCall(n: number, namespace?: string): unknown {
  return {
    type: "function_call",
    id: `fc_${n}`,
    call_id: `call_${n}`,
    name: FOUND[n].name,
    ...(namespace === undefined ? {} : { namespace }),
    arguments: JSON.stringify(FOUND[n].args),
    status: "completed",
  };
}

function responsesAnswer(output: unknown[]): unknown {
  return {
    object: "response",
    output: output.length > 0 ? output : [{
      type: "message",
      id: "msg_end",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "All done.", annotations: [] }],
    }],
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

function converseAnswer(
  n: number,
  call: { name: string; args: unknown } | undefined,
): unknown {
  return {
    output: {
      message: {
        role: "assistant",
        content: call === undefined ? [{ text: "All done." }] : [{
          toolUse: {
            toolUseId: `tooluse_${n}`,
            name: call.name,
            input: call.args,
          },
        }],
      },
    },
    stopReason: call === undefined ? "end_turn" : "tool_use",
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  };
}

function geminiAnswer(
  _: number,
  call: { name: string; args: unknown } | undefined,
): unknown {
  return {
    candidates: [{
      content: {
        role: "model",
        parts: call === undefined
          ? [{ text: "All done." }]
          : [{ functionCall: { name: call.name, args: call.args } }],
      },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
  };
}

function chatAnswer(
  n: number,
  call: { name: string; args: unknown } | undefined,
): unknown {
  return {
    object: "chat.completion",
    choices: [{
      index: 0,
      finish_reason: call === undefined ? "stop" : "tool_calls",
      message: {
        role: "assistant",
        content: call === undefined ? "All done." : null,
        ...(call === undefined ? {} : {
          tool_calls: [{
            id: `call_${n}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          }],
        }),
      },
    }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
