/**
 * Seeded random sessions of a coding agent, sent to the tests' servers that
 * enforce the providers' rules (`thinking_server.ts`, `compaction_server.ts`,
 * answered in process): plugins change a section, add, drop and gate tools,
 * an MCP server's deferred tools come and go, the runtime context and a
 * turn's reminder change, the effort and `awaiting` vary, sub-agents fork,
 * compactions run (`compactAt`, `compact()` in the background, the
 * provider's own, a summarizing request given up). Two conversations step
 * in lockstep: one lives the whole session, its twin is saved and resumed
 * at random points (right after a `record()`). Every body the twins build
 * must be the same, byte for byte, and every request the live one sends
 * must be accepted.
 */
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  anthropicServer,
  type ScriptBlock,
  type ServerTurn,
} from "../adapters/thinking_server.ts";
import {
  type OpenAIScriptItem,
  openaiServer,
} from "../adapters/compaction_server.ts";
import { StatusReply } from "../adapters/loopback.ts";
import { randomOf } from "./long_recording.ts";

/** What the session drives of a conversation (every form has it). */
interface Conv {
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(context?: object, options?: object): Promise<unknown>;
  record(answer: never): readonly { readonly id: string; name: string }[];
  compact(): Promise<{ body: unknown; record(answer: never): void }>;
  cancelCompaction(): void;
  fork(): Conv;
  save(): string;
  report(options: { countTokens(text: string): number }): unknown;
  readonly summarizing: boolean;
  readonly continues: boolean;
}

/** The forms and option sets a session may run on. */
export const RANDOM_FORMS: readonly string[] = [
  "anthropic",
  "anthropic-rebuild",
  "anthropic-server",
  "anthropic-inline",
  "responses",
  "responses-inline",
  "responses-server",
  "responses-cache",
  "chat",
  "chat-cache",
];

/** What a session did. */
export interface SessionFigures {
  readonly requests: number;
  readonly resumes: number;
  readonly compactions: number;
  readonly forks: number;
}

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool. `.repeat(4),
    parameters: { type: "object", properties: { path: { type: "string" } } },
  };
}

const POOL = ["read_file", "grep", "edit", "run_tests", "browse", "lint"];
const CRM = ["crm_get", "crm_log", "crm_find"];

/** The plugins' world: what the registry's sections and tools read. */
interface World {
  branch: string;
  review: boolean;
  tools: ToolSchema[];
  reminder: string;
  minutes: number;
  cwd: string;
  planMode: boolean;
  crm: boolean;
}

/** A coding agent's registry over `world`. */
function registry(world: World): SystemPrompt {
  const prompt = new SystemPrompt({
    persona: "You are a careful coding agent. Small steps. ".repeat(20),
  });
  prompt.section({
    name: "git",
    order: 10,
    text: () => `On branch ${world.branch}.`,
  });
  prompt.section({
    name: "review",
    order: 20,
    text: () => world.review ? "Comment on every changed line." : "",
  });
  prompt.tools(() => ({ schemas: world.tools }));
  // An MCP server's tools, deferred: the server comes and goes.
  prompt.fork({ label: "crm" }).tools(() => ({
    schemas: world.crm ? CRM.map(tool) : [],
  }), { defer: true });
  // Plan mode gates the editing tool off.
  prompt.toolGate(() =>
    world.planMode
      ? world.tools.map((t) => t.name).filter((name) => name !== "edit")
      : undefined
  );
  const reviewer = prompt.scope("reviewer");
  reviewer.section({
    name: "review-rules",
    order: 30,
    text: "You review; you never edit.",
  });
  reviewer.tools(() => ({ schemas: [tool("comment")] }));
  prompt.runtimeContext({
    name: "clock",
    order: 0,
    text: () => `It is ${world.minutes} minutes past nine in ${world.cwd}.`,
  });
  prompt.runtimeContext({
    name: "reminder",
    order: 1,
    text: () => world.reminder,
    holds: "turn",
  });
  return prompt;
}

/**
 * One seeded session of `steps` turns on `form` (one of
 * {@linkcode RANDOM_FORMS}).
 *
 * @throws an `AssertionError` naming the seed and the request where the
 * twins' bodies or calls differ, or where a server refused a request
 */
export async function randomSession(
  form: string,
  { seed, steps }: { seed: number; steps: number },
): Promise<SessionFigures> {
  const below = randomOf(seed);
  function random(): number {
    return below(1_000_000) / 1_000_000;
  }
  function pick<T>(list: readonly T[]): T {
    return list[Math.floor(random() * list.length)];
  }
  const world: World = {
    branch: "main",
    review: false,
    tools: [tool("read_file"), tool("grep")],
    reminder: "",
    minutes: 0,
    cwd: "/repo",
    planMode: false,
    crm: seed % 3 !== 0,
  };
  const prompt = registry(world);
  function change(): void {
    const r = random();
    if (r < 0.12) world.branch = pick(["main", "fix/a", "fix/b", "feat/c"]);
    else if (r < 0.2) world.review = !world.review;
    else if (r < 0.28) {
      const missing = POOL.filter((name) =>
        !world.tools.some((t) => t.name === name)
      );
      if (missing.length > 0) {
        world.tools = [...world.tools, tool(pick(missing))];
      }
    } else if (r < 0.34 && world.tools.length > 1) {
      const gone = pick(world.tools).name;
      world.tools = world.tools.filter((t) => t.name !== gone);
    } else if (r < 0.4) world.cwd = pick(["/repo", "/repo/src", "/repo/tests"]);
    else if (r < 0.46) world.reminder = pick(["Plan mode.", "Tests are red."]);
    else if (r < 0.5 && pairs) world.crm = !world.crm;
    else if (r < 0.55) world.planMode = !world.planMode;
  }

  // The model's side: calls of the tools offered, or a text; a
  // summarizing request is answered with a summary.
  let callId = 0;
  let summarizing = false;
  function chosen(offered: readonly string[]): string[] {
    const r = random();
    if (summarizing || offered.length === 0 || r >= 0.45) return [];
    return Array.from({ length: r < 0.1 ? 2 : 1 }, () => pick(offered));
  }
  function inputOf(name: string): Record<string, unknown> {
    if (name === "find_tools") return { query: pick(["crm", "log", "call"]) };
    if (name === "call_tool") {
      return { name: pick(CRM), arguments: { path: "a.ts" } };
    }
    return { path: "a.ts" };
  }
  function anthropicScript(turn: ServerTurn): ScriptBlock[] {
    const thinks = (turn.body.thinking as { type?: string } | undefined)
      ?.type === "enabled";
    const thinking: ScriptBlock[] = thinks
      ? [{ type: "thinking", thinking: `Step ${turn.index}.` }]
      : [];
    const names = chosen(turn.tools);
    if (names.length === 0) {
      return [...thinking, { type: "text", text: `Done ${turn.index}.` }];
    }
    return [
      ...thinking,
      ...names.map((name): ScriptBlock => ({
        type: "tool_use",
        id: `toolu_${++callId}`,
        name,
        input: inputOf(name),
      })),
    ];
  }
  function openaiScript(
    index: number,
    body: Record<string, unknown>,
  ): OpenAIScriptItem[] {
    const tools = (Array.isArray(body.tools) ? body.tools : []) as {
      type?: string;
      name?: string;
      function?: { name: string };
    }[];
    const names = chosen(
      tools.flatMap((entry) =>
        entry.type === "function" ? [entry.name ?? entry.function!.name] : []
      ),
    );
    const reasoning: OpenAIScriptItem[] = "input" in body
      ? [{ type: "reasoning", summary: `Step ${index}.` }]
      : [];
    if (names.length === 0) {
      return [...reasoning, { type: "message", text: `Done ${index}.` }];
    }
    return [
      ...reasoning,
      ...names.map((name): OpenAIScriptItem => ({
        type: "function_call",
        call_id: `call_${++callId}`,
        name,
        arguments: JSON.stringify(inputOf(name)),
      })),
    ];
  }
  const anthropic = anthropicServer({
    minimumCacheTokens: 64,
    script: anthropicScript,
  });
  const openai = openaiServer({ minimumCacheTokens: 64, script: openaiScript });
  let requests = 0;
  function accepted(reply: unknown): unknown {
    if (reply instanceof StatusReply) {
      assert.fail(
        `seed ${seed} ${form}: request ${requests + 1} refused: ${
          JSON.stringify(reply.body)
        }`,
      );
    }
    return reply;
  }
  function sendAnthropic(body: unknown): unknown {
    const { betas, ...rest } = body as { betas?: string[] };
    return accepted(anthropic.answer({
      method: "POST",
      path: "/v1/messages?beta=true",
      headers: betas === undefined || betas.length === 0
        ? {}
        : { "anthropic-beta": betas.join(",") },
      body: JSON.stringify(rest),
    }));
  }
  function sendOpenAI(path: string): (body: unknown) => unknown {
    return (body) =>
      accepted(openai.answer({
        method: "POST",
        path,
        headers: {},
        body: JSON.stringify(body),
      }));
  }

  // With the provider's tool search (no pair), the deferred tools are
  // registered before the first request and kept (DEFERRED_TOOLS_CHANGED
  // otherwise, by design).
  const pairs = form !== "responses-cache";
  if (!pairs) world.crm = true;
  const compactAt = seed % 2 === 0
    ? undefined
    : { inputTokens: form.startsWith("chat") ? 3000 : 6000 };
  const session = `session-${seed}`;
  const anthropicOptions = {
    model: "claude-fable-5-1",
    max_tokens: 8192,
    toolSearch: "pair" as const,
    session,
  };
  const thinking = { type: "enabled" as const, budget_tokens: 2048 };
  const forms: Record<
    string,
    {
      start(): unknown;
      resume(saved: string): unknown;
      send(body: unknown): unknown;
    }
  > = {
    anthropic: {
      start: () =>
        anthropicConversation(prompt, {
          ...anthropicOptions,
          thinking,
          compactAt,
        }),
      resume: (saved) => resumeAnthropicConversation(prompt, saved),
      send: sendAnthropic,
    },
    "anthropic-rebuild": {
      start: () =>
        anthropicConversation(prompt, {
          ...anthropicOptions,
          changes: "rebuild",
          compactAt,
        }),
      resume: (saved) => resumeAnthropicConversation(prompt, saved),
      send: sendAnthropic,
    },
    "anthropic-server": {
      start: () =>
        anthropicConversation(prompt, {
          ...anthropicOptions,
          thinking,
          serverCompaction: { trigger: 5000, pauseAfter: seed % 2 === 0 },
        }),
      resume: (saved) => resumeAnthropicConversation(prompt, saved),
      send: sendAnthropic,
    },
    "anthropic-inline": {
      start: () =>
        anthropicConversation(prompt, {
          ...anthropicOptions,
          changes: "inline",
          compactAt,
        }),
      resume: (saved) =>
        resumeAnthropicConversation(prompt, saved, { toolChanges: "inline" }),
      send: sendAnthropic,
    },
    "responses-inline": {
      start: () =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          changes: "inline",
          toolSearch: "pair",
          compactAt,
          session,
        }),
      resume: (saved) =>
        resumeResponsesConversation(prompt, saved, { toolChanges: "inline" }),
      send: sendOpenAI("/responses"),
    },
    responses: {
      start: () =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          toolSearch: "pair",
          compactAt,
          session,
        }),
      resume: (saved) => resumeResponsesConversation(prompt, saved),
      send: sendOpenAI("/responses"),
    },
    "responses-server": {
      start: () =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          toolSearch: "pair",
          serverCompaction: { threshold: 5000 },
          session,
        }),
      resume: (saved) => resumeResponsesConversation(prompt, saved),
      send: sendOpenAI("/responses"),
    },
    "responses-cache": {
      start: () =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          cache: true,
          compactAt,
          session,
        }),
      resume: (saved) => resumeResponsesConversation(prompt, saved),
      send: sendOpenAI("/responses"),
    },
    chat: {
      start: () =>
        chatConversation(prompt, { model: "gpt-5.6", compactAt, session }),
      resume: (saved) => resumeChatConversation(prompt, saved),
      send: sendOpenAI("/chat/completions"),
    },
    "chat-cache": {
      start: () =>
        chatConversation(prompt, {
          model: "gpt-5.6",
          cache: true,
          compactAt,
          session,
        }),
      resume: (saved) => resumeChatConversation(prompt, saved),
      send: sendOpenAI("/chat/completions"),
    },
  };
  const driver = forms[form];
  const resume = (saved: string) => driver.resume(saved) as Conv;

  function same(live: unknown, twin: unknown, where: string): void {
    const a = JSON.stringify(live), b = JSON.stringify(twin);
    if (a === b) return;
    let at = 0;
    while (a[at] === b[at]) at++;
    assert.fail(
      `seed ${seed} ${form} ${where}: the resumed twin's body differs at ` +
        `${at}:\n  live: ${a.slice(Math.max(0, at - 100), at + 300)}\n` +
        `  twin: ${b.slice(Math.max(0, at - 100), at + 300)}`,
    );
  }

  let resumes = 0, compactions = 0, forks = 0;
  /** A compaction run in the background: both twins', recorded later. */
  let background:
    | {
      live: { record(answer: never): void };
      twin: { record(answer: never): void };
      answer: unknown;
      due: number;
    }
    | undefined;
  const twins = { live: driver.start() as Conv, twin: driver.start() as Conv };

  /** One turn of a pair of twins (the root's, or a fork's). */
  async function turn(
    pair: { live: Conv; twin: Conv },
    { context, where }: { context: object; where: string },
  ): Promise<void> {
    const root = pair === twins;
    let calls: readonly { id: string; name: string }[] = [];
    let rounds = 0;
    do {
      if (random() < 0.1) change();
      const ask = {
        ...(random() < 0.2 ? { awaiting: "person" } : {}),
        ...(random() < 0.08
          ? { output: { effort: pick(["low", "high"]) } }
          : {}),
      };
      let live = await pair.live.request(context, ask);
      same(
        live,
        await pair.twin.request(context, ask),
        `${where} request ${requests + 1}`,
      );
      if (pair.live.summarizing && random() < 0.15) {
        // The provider refused the summarizing request: given up, the
        // step goes on the whole history.
        pair.live.cancelCompaction();
        pair.twin.cancelCompaction();
        live = await pair.live.request(context, ask);
        same(
          live,
          await pair.twin.request(context, ask),
          `${where} after a cancel`,
        );
      }
      if (pair.live.summarizing) compactions++;
      summarizing = pair.live.summarizing;
      const answer = driver.send(live);
      summarizing = false;
      requests++;
      calls = pair.live.record(structuredClone(answer) as never);
      assert.deepEqual(
        pair.twin.record(structuredClone(answer) as never),
        calls,
        `seed ${seed} ${form} ${where}: the twins' calls`,
      );
      if (root && background !== undefined && requests >= background.due) {
        background.live.record(structuredClone(background.answer) as never);
        background.twin.record(structuredClone(background.answer) as never);
        background = undefined;
        compactions++;
      }
      // Right after a record(): nothing given is pending.
      if (random() < 0.15 && !(root && background !== undefined)) {
        pair.twin = resume(pair.twin.save());
        resumes++;
      }
      for (const call of calls) {
        const content = random() < 0.1
          ? `error: ${call.name} failed`
          : `${call.name} output ${requests}`;
        pair.live.toolResult(call.id, content);
        pair.twin.toolResult(call.id, content);
      }
    } while ((calls.length > 0 || pair.live.continues) && ++rounds < 12);
  }

  const manual = seed % 2 === 0 && !form.endsWith("-server") &&
    form !== "anthropic-rebuild";
  try {
    for (let step = 1; step <= steps; step++) {
      world.minutes++;
      change();
      if (manual && step > 1 && background === undefined && random() < 0.08) {
        const live = await compactOrPending(twins.live);
        if (live !== undefined) {
          const twin = await twins.twin.compact();
          same(live.body, twin.body, `step ${step} compact()`);
          summarizing = true;
          const answer = driver.send(live.body);
          summarizing = false;
          requests++;
          const due = requests + Math.floor(random() * 3);
          background = { live, twin, answer, due };
        }
      }
      if (step > 1 && random() < 0.08) {
        // A sub-agent: the twins' forks take a turn or two in its scope.
        forks++;
        const child = { live: twins.live.fork(), twin: twins.twin.fork() };
        for (let round = 0; round < 1 + Math.floor(random() * 2); round++) {
          child.live.user(`Review ${step}.${round}.`);
          child.twin.user(`Review ${step}.${round}.`);
          await turn(child, {
            context: { scope: "reviewer" },
            where: `step ${step} fork`,
          });
        }
      }
      twins.live.user(`Step ${step}: do the next thing.`);
      twins.twin.user(`Step ${step}: do the next thing.`);
      await turn(twins, { context: {}, where: `step ${step}` });
      if (world.reminder !== "" && random() < 0.5) world.reminder = "";
    }
    assert.deepEqual([...anthropic.rejections, ...openai.rejections], []);
    twins.live.report({ countTokens: (text) => text.length >> 2 });
    return { requests, resumes, compactions, forks };
  } finally {
    await prompt.dispose();
  }
}

/** `compact()`, or nothing while an earlier compaction waits to be swapped in. */
async function compactOrPending(
  conv: Conv,
): Promise<{ body: unknown; record(answer: never): void } | undefined> {
  try {
    return await conv.compact();
  } catch (error) {
    if ((error as { code?: string }).code === "COMPACTION_PENDING") {
      return undefined;
    }
    throw error;
  }
}
