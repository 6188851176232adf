/**
 * What the conversation tests share: a coding agent's registry with a
 * gate, a runtime context and a tool source that may change, model answers
 * in the SDKs' shapes, and readers of request bodies (marks removed,
 * marks counted).
 */
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";

const SCHEMA = { type: "object", properties: {} };

/** One tool of the test registry. */
export function schema(
  name: string,
  description = `The ${name} tool.`,
): ToolSchema {
  return { name, description, parameters: SCHEMA };
}

/**
 * A pull-request reviewer's registry (the Bedrock and Gemini sessions): a
 * long stable prefix ending at a breakpoint, two tools, a runtime context.
 */
export function reviewRegistry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  prompt.section({
    name: "house-rules",
    order: 10,
    text: "Follow the house rules, every one of them. ".repeat(40),
    cacheBreakpoint: true,
  });
  prompt.tools(() => ({
    schemas: ["read_file", "write_file"].map((name) => ({
      name,
      description: `The ${name} tool.`,
      parameters: { properties: { path: { type: "string" } } },
    })),
  }));
  prompt.runtimeContext({ name: "date", order: 0, text: "It is Monday." });
  return prompt;
}

/** A registry whose gate, runtime context and tools the test drives. */
export interface Agent {
  readonly prompt: SystemPrompt;
  /** The active tools (`undefined`: no gate answer). */
  active: string[] | undefined;
  /** The runtime context's text. */
  branch: string;
  /** The tools the live source lists. */
  tools: ToolSchema[];
}

/** A coding agent: read_file and shell, a gate, the git branch as runtime context. */
export function agent(): Agent {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  const state: Agent = {
    prompt,
    active: undefined,
    branch: "main",
    tools: [schema("read_file"), schema("shell")],
  };
  prompt.tools(() => ({ schemas: state.tools }));
  prompt.toolGate(() => state.active);
  prompt.runtimeContext({
    name: "git",
    order: 0,
    text: () => `On ${state.branch}.`,
  });
  return state;
}

/** An Anthropic SDK `Message` with these blocks. */
export function message(
  content: Record<string, unknown>[],
): {
  type: "message";
  role: "assistant";
  content: { type: string }[];
  usage: Record<string, number>;
} {
  return {
    type: "message",
    role: "assistant",
    content: content as { type: string }[],
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** A `tool_use` block. */
export function toolUse(id: string, name: string): Record<string, unknown> {
  return { type: "tool_use", id, name, input: { path: "a.ts" } };
}

/**
 * `value` without cache marks (`cache_control`, `prompt_cache_breakpoint`,
 * and the AI SDK's `providerOptions: { anthropic: { cacheControl } }`).
 */
export function unmarked(value: unknown): unknown {
  // A Bedrock cache point is a block of its own.
  if (Array.isArray(value)) {
    return value.filter((item) => !isCachePoint(item)).map(unmarked);
  }
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "cache_control" || key === "prompt_cache_breakpoint") continue;
    if (key === "providerOptions" && isCacheOnly(inner)) continue;
    out[key] = unmarked(inner);
  }
  return out;
}

function isCachePoint(item: unknown): boolean {
  return typeof item === "object" && item !== null &&
    Object.keys(item).join() === "cachePoint";
}

function isCacheOnly(options: unknown): boolean {
  if (typeof options !== "object" || options === null) return false;
  const anthropic = (options as { anthropic?: unknown }).anthropic;
  return Object.keys(options).length === 1 &&
    typeof anthropic === "object" && anthropic !== null &&
    Object.keys(anthropic).join() === "cacheControl";
}

/** How many cache marks the body carries. */
export function markCount(body: unknown): number {
  return (JSON.stringify(body).match(
    /"(cache_control|prompt_cache_breakpoint|cacheControl|cachePoint)"/g,
  ) ?? []).length;
}

/** Every mark of the body, as sent. */
export function marksOf(body: unknown): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (
          key === "cache_control" || key === "prompt_cache_breakpoint" ||
          key === "cacheControl" || key === "cachePoint"
        ) {
          found.push(inner);
        } else visit(inner);
      }
    }
  };
  visit(body);
  return found;
}

/** Whether the JSON of `before`'s items starts `after` (marks removed). */
export function continues(
  before: readonly unknown[],
  after: readonly unknown[],
): boolean {
  if (after.length < before.length) return false;
  return before.every((item, index) =>
    JSON.stringify(unmarked(item)) === JSON.stringify(unmarked(after[index]))
  );
}

/** An `openai` SDK `ChatCompletion` calling these tools (none: text). */
export function completion(
  calls: { id: string; name: string }[],
): {
  object: "chat.completion";
  choices: { message: { role: "assistant"; content: string | null } }[];
  usage: Record<string, number>;
} {
  const message = calls.length === 0
    ? { role: "assistant" as const, content: "Done." }
    : {
      role: "assistant" as const,
      content: null,
      tool_calls: calls.map(({ id, name }) => ({
        id,
        type: "function",
        function: { name, arguments: '{"path":"a.ts"}' },
      })),
    };
  return {
    object: "chat.completion",
    choices: [{ message }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** An `openai` SDK `Response` calling these tools (none: a text message). */
export function responsesAnswer(
  calls: { id: string; name: string }[],
): { object: "response"; output: { type: string }[]; usage: unknown } {
  return {
    object: "response",
    output: calls.length === 0
      ? [{
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Done.", annotations: [] }],
      } as { type: string }]
      : calls.map(({ id, name }) => ({
        type: "function_call",
        id: `fc_${id}`,
        call_id: id,
        name,
        arguments: '{"path":"a.ts"}',
        status: "completed",
      })),
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  };
}

/** The parent's side of a fork: one step, then the fork. */
interface ForkParent<Body, Answer, Child> {
  user(text: string): unknown;
  request(): Promise<Body>;
  record(answer: Answer): unknown;
  fork(): Child;
}

/**
 * The parent asks `question`, records `answer`, then forks: the parent's
 * body (the prefix the fork shares) and the fork.
 */
export async function forkAfter<Body, Answer, Child>(
  parent: ForkParent<Body, Answer, Child>,
  step: { question: string; answer: Answer },
): Promise<{ parentBody: Body; child: Child }> {
  parent.user(step.question);
  const parentBody = await parent.request();
  parent.record(step.answer);
  return { parentBody, child: parent.fork() };
}

/** A conversation asked for the reviewer scope's request. */
interface Reviewing {
  user(text: string): unknown;
  request(context: { scope: string }): Promise<unknown>;
}

/**
 * Both conversations ask `question`; the resumed one's request for the
 * reviewer scope is the original's, byte for byte. Returns the original's.
 */
export async function assertResumedBytes(
  original: Reviewing,
  resumed: Reviewing,
  question: string,
): Promise<unknown> {
  original.user(question);
  resumed.user(question);
  const body = await original.request({ scope: "reviewer" });
  assert.equal(
    JSON.stringify(await resumed.request({ scope: "reviewer" })),
    JSON.stringify(body),
  );
  return body;
}

/**
 * A parent prompt for the fork tests: read_file and shell listed, marked
 * sections "rules" (then "style" with `style`) and "notes", and a reviewer
 * scope with a marked section of its own for each of `reviewRules`.
 */
export function forkRegistry(
  options: { style: boolean; reviewRules: readonly string[] },
): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.tools(() => ({ schemas: [schema("read_file"), schema("shell")] }));
  const sections = [
    { name: "rules", order: 100, text: "Follow the house rules." },
    ...(options.style
      ? [{ name: "style", order: 150, text: "Write plainly." }]
      : []),
    { name: "notes", order: 900, text: "Be brief." },
  ];
  for (const section of sections) {
    prompt.section({ ...section, cacheBreakpoint: true });
  }
  const reviewer = prompt.scope("reviewer");
  for (const [index, name] of options.reviewRules.entries()) {
    reviewer.section({
      name: `review:${name}`,
      order: 200 + index,
      text: `Review rule ${name}.`,
      cacheBreakpoint: true,
    });
  }
  return prompt;
}
