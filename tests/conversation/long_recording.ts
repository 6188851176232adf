/**
 * Long recordings of a coding agent, for the scale tests and the benches
 * (issue 49, SPEC 10.4): a real conversation of each form driven for
 * thousands of steps. Each step is a person's question or the results of
 * the last answer's tool calls; the model answers with text or with one
 * or two tool calls, in the SDK's shape, with cache usage that reads the
 * previous prefix and writes the new part. A few registry changes happen
 * on the way: the git branch (the runtime context) at a quarter, a new
 * tool at half, a section's text at three quarters; and the person is
 * away ten minutes every 1,500 steps (the cache lapses). Deterministic:
 * the same form and steps give the same bytes.
 */
import {
  type ConversationReportOptions,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";
import type { PromptCacheReport } from "../../adapters/cache/mod.ts";
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
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";

/** The four conversation forms. */
export type LongForm = "anthropic" | "chat" | "responses" | "ai-sdk";

/**
 * A form the generator can drive: the four, and Anthropic's with
 * `toolChanges: "inline"` (the step bench's fifth).
 */
export type LongStartForm = LongForm | "anthropic-inline";

/** Every form, in a fixed order. */
export const LONG_FORMS: readonly LongForm[] = [
  "anthropic",
  "chat",
  "responses",
  "ai-sdk",
];

/** A generated recording and what it holds. */
export interface LongRecording {
  readonly form: LongStartForm;
  /** The recording's JSON lines, as `onRecord` wrote them. */
  readonly text: string;
  /** Its steps (lines after the header). */
  readonly steps: number;
}

/** The start of the conversation's clock. */
const START = Date.parse("2026-12-06T09:00:00.000Z");
const WORDS = (
  "the function returns a promise that resolves once the file is read " +
  "and parsed into records each record holds a name a path and the " +
  "lines that changed since the last commit so the agent can decide " +
  "which test to run next before it writes the patch"
).split(" ");

/** A seeded pseudo-random source (a linear congruential generator). */
export function randomOf(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % below;
  };
}

/** Prose of about `length` characters. */
export function prose(
  random: (below: number) => number,
  length: number,
): string {
  const words: string[] = [];
  let size = 0;
  while (size < length) {
    const word = WORDS[random(WORDS.length)];
    words.push(word);
    size += word.length + 1;
  }
  return words.join(" ");
}

/** Source code of about `length` characters, as a file read returns it. */
export function code(
  random: (below: number) => number,
  length: number,
): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 1; size < length; line++) {
    const text = `${line}\tconst ${WORDS[random(WORDS.length)]}_${line} = ` +
      `await ${WORDS[random(WORDS.length)]}(${random(1000)});`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join("\n");
}

const TOOL_NAMES = ["read_file", "write_file", "shell", "grep", "list_dir"];

function toolSchema(name: string): ToolSchema {
  return {
    name,
    description:
      `The ${name} tool: ${
        name.replace("_", " ")
      } in the workspace. Paths are relative to the repository root; ` +
      `output longer than 20,000 characters is cut.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "A path in the workspace." },
        text: { type: "string", description: "Text, when the tool takes it." },
      },
      required: ["path"],
    },
  };
}

/** The agent's registry and the state the generator changes. */
function registry(): {
  prompt: SystemPrompt;
  state: { branch: string; tools: string[]; style: string };
} {
  const prompt = new SystemPrompt({
    persona: "You are a careful coding agent working in a git repository.",
  });
  const state = {
    branch: "main",
    tools: [...TOOL_NAMES],
    style: "Write plain code; explain each change in one sentence.",
  };
  prompt.section({
    name: "rules",
    order: 100,
    text: "Run the tests before you commit. Never force-push. " +
      "Keep each commit to one change. ".repeat(40),
    cacheBreakpoint: true,
  });
  prompt.section({ name: "style", order: 200, text: () => state.style });
  prompt.tools(() => ({ schemas: state.tools.map(toolSchema) }));
  prompt.runtimeContext({
    name: "git",
    order: 0,
    text: () => `On branch ${state.branch}.`,
  });
  return { prompt, state };
}

/**
 * The agent's registry as every recording of 4 steps or more leaves it
 * (the branch, the new tool and the section's text changed): what a
 * resume of one continues with, no change at its next step.
 */
export function longPrompt(): SystemPrompt {
  const { prompt, state } = registry();
  state.branch = "fix/cache-marks";
  state.tools = [...state.tools, "web_search"];
  state.style = "Write plain code; keep explanations short.";
  return prompt;
}

/** One model answer, before it is put in a form's SDK shape. */
export interface Answer {
  readonly text: string;
  readonly calls: readonly { id: string; name: string; path: string }[];
  readonly usage: { input: number; read: number; written: number };
}

function anthropicAnswer(step: number, answer: Answer): unknown {
  const { input, read, written } = answer.usage;
  return {
    id: `msg_${step}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: answer.text },
      ...answer.calls.map((call) => ({
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: { path: call.path },
      })),
    ],
    stop_reason: answer.calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: input - read - written,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: written,
      output_tokens: 40,
    },
  };
}

function chatAnswer(step: number, answer: Answer): unknown {
  const { input, read } = answer.usage;
  return {
    id: `chatcmpl-${step}`,
    object: "chat.completion",
    created: 1_765_000_000 + step,
    model: "gpt-5.6",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: answer.text,
        refusal: null,
        ...(answer.calls.length === 0 ? {} : {
          tool_calls: answer.calls.map((call) => ({
            id: call.id,
            type: "function",
            function: {
              name: call.name,
              arguments: JSON.stringify({ path: call.path }),
            },
          })),
        }),
      },
      finish_reason: answer.calls.length > 0 ? "tool_calls" : "stop",
    }],
    usage: {
      prompt_tokens: input,
      completion_tokens: 40,
      total_tokens: input + 40,
      prompt_tokens_details: { cached_tokens: read },
    },
  };
}

function responsesAnswer(step: number, answer: Answer): unknown {
  const { input, read } = answer.usage;
  return {
    id: `resp_${step}`,
    object: "response",
    model: "gpt-5.6",
    status: "completed",
    output: [
      {
        type: "message",
        id: `msg_${step}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: answer.text, annotations: [] }],
      },
      ...answer.calls.map((call) => ({
        type: "function_call",
        id: `fc_${call.id}`,
        call_id: call.id,
        name: call.name,
        arguments: JSON.stringify({ path: call.path }),
        status: "completed",
      })),
    ],
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: read },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 40,
    },
  };
}

function aiSdkAnswer(step: number, answer: Answer): unknown {
  const { input, read, written } = answer.usage;
  return {
    response: {
      id: `msg_${step}`,
      modelId: "claude-sonnet-4-5",
      messages: [{
        role: "assistant",
        content: [
          { type: "text", text: answer.text },
          ...answer.calls.map((call) => ({
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.name,
            input: { path: call.path },
          })),
        ],
      }],
    },
    usage: {
      inputTokens: input,
      outputTokens: 40,
      inputTokenDetails: {
        noCacheTokens: input - read - written,
        cacheReadTokens: read,
        cacheWriteTokens: written,
      },
    },
  };
}

/** An answer in each form's SDK shape (`step` numbers its ids). */
export const LONG_ANSWERS: Readonly<
  Record<LongStartForm, (step: number, answer: Answer) => unknown>
> = {
  anthropic: anthropicAnswer,
  "anthropic-inline": anthropicAnswer,
  chat: chatAnswer,
  responses: responsesAnswer,
  "ai-sdk": aiSdkAnswer,
};

/** What the generator needs of a conversation of any form. */
interface Driven {
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): unknown;
}

function start(
  form: LongStartForm,
  prompt: SystemPrompt,
  options: { clock: () => number; onRecord: (line: string) => void },
): { conv: Driven; answer: (step: number, answer: Answer) => unknown } {
  const common = { session: `long-${form}`, ...options };
  switch (form) {
    case "anthropic":
      return {
        conv: anthropicConversation(prompt, {
          model: "claude-sonnet-4-5",
          max_tokens: 4096,
          ...common,
        }) as unknown as Driven,
        answer: anthropicAnswer,
      };
    case "anthropic-inline":
      return {
        conv: anthropicConversation(prompt, {
          model: "claude-sonnet-4-5",
          max_tokens: 4096,
          toolChanges: "inline",
          ...common,
        }) as unknown as Driven,
        answer: anthropicAnswer,
      };
    case "chat":
      return {
        conv: chatConversation(prompt, {
          model: "gpt-5.6",
          ...common,
        }) as unknown as Driven,
        answer: chatAnswer,
      };
    case "responses":
      return {
        conv: responsesConversation(prompt, {
          model: "gpt-5.6",
          cache: true,
          ...common,
        }) as unknown as Driven,
        answer: responsesAnswer,
      };
    case "ai-sdk":
      return {
        conv: aiSdkConversation(prompt, common) as unknown as Driven,
        answer: aiSdkAnswer,
      };
  }
}

/** Options of {@linkcode longRecording}. */
export interface LongRecordingOptions {
  /** The person is away ten minutes every this many steps (1,500). */
  readonly lapseEvery?: number;
  /**
   * Texts of a few words and tool results of a line, a tenth of the
   * usual: the cost of a step's messages is then small beside what a
   * step costs whatever its messages.
   */
  readonly short?: boolean;
}

/**
 * A recording of `steps` steps of the coding agent in `form` (see the
 * module documentation).
 */
export async function longRecording(
  form: LongStartForm,
  steps: number,
  options: LongRecordingOptions = {},
): Promise<LongRecording> {
  const lapseEvery = options.lapseEvery ?? 1500;
  const scale = options.short === true ? 0.1 : 1;
  const size = (base: number, spread: number) =>
    Math.ceil(scale * (base + random(spread)));
  const random = randomOf(
    steps * 31 + [...LONG_FORMS, "anthropic-inline"].indexOf(form),
  );
  const { prompt, state } = registry();
  let now = START;
  const lines: string[] = [];
  const { conv, answer } = start(form, prompt, {
    clock: () => now,
    onRecord: (line) => lines.push(line),
  });
  let calls: Answer["calls"] = [];
  // The tokens of the last request, for the usage of the next.
  let prefix = 0;
  try {
    for (let step = 1; step <= steps; step++) {
      let added = 0;
      let lapsed = false;
      let changed = false;
      if (step === Math.floor(steps / 4)) state.branch = "fix/cache-marks";
      if (step === Math.floor(steps / 2)) {
        state.tools = [...state.tools, "web_search"];
        changed = true;
      }
      if (step === Math.floor((steps * 3) / 4)) {
        state.style = "Write plain code; keep explanations short.";
        changed = true;
      }
      now += 3_000 + random(27_000);
      if (step % lapseEvery === 0) {
        now += 10 * 60_000;
        lapsed = true;
      }
      if (calls.length === 0) {
        const question = prose(random, size(40, 200));
        conv.user(question);
        added += question.length;
      } else {
        for (const call of calls) {
          const result = code(random, size(200, 1300));
          conv.toolResult(call.id, result);
          added += result.length;
        }
      }
      await conv.request();
      const text = prose(random, size(30, 300));
      calls = random(10) < 6
        ? Array.from({ length: 1 + random(2) }, (_, index) => ({
          id: `call_${step}_${index}`,
          name: state.tools[random(state.tools.length)],
          path: `src/${WORDS[random(WORDS.length)]}.ts`,
        }))
        : [];
      added += text.length + 60 * calls.length;
      const input = Math.max(prefix, 3_000) + Math.ceil(added / 4);
      const read = lapsed ? 0 : changed ? 900 : prefix;
      now += 1_000 + random(9_000);
      conv.record(answer(step, {
        text,
        calls,
        usage: { input, read, written: Math.max(0, input - read - 20) },
      }));
      prefix = input;
    }
  } finally {
    prompt.dispose();
  }
  return { form, text: lines.join(""), steps };
}

/**
 * A recording of `steps` steps made of `recording`'s own: its header and
 * first step, then its later steps over and over, renumbered and each
 * starting where the history before it ends. For resume, which replays
 * the steps without checking the calls and results they carry, a long
 * recording costs only its bytes to make.
 */
export function repeatedRecording(recording: string, steps: number): string {
  const [header, first, ...later] = recording.trimEnd().split("\n").map(
    (line) => JSON.parse(line) as { step: number; at: number; tail: unknown[] },
  );
  // What each later step's answer added: where the next one starts.
  const pattern = later.slice(0, -1).map((step, index) => ({
    step,
    answered: later[index + 1].at - step.at - step.tail.length,
  }));
  const firstAnswered = later[0].at - first.at - first.tail.length;
  const lines = [JSON.stringify(header), JSON.stringify(first)];
  let at = first.at + first.tail.length + firstAnswered;
  for (let step = 2; step <= steps; step++) {
    const { step: line, answered } = pattern[(step - 2) % pattern.length];
    lines.push(JSON.stringify({ ...line, step, at }));
    at += line.tail.length + answered;
  }
  return lines.join("\n") + "\n";
}

/** A recording resumed for its report and its own recording. */
export interface ResumedLong {
  readonly resumed: { readonly steps: number } | undefined;
  save(): string;
  report(options: ConversationReportOptions): PromptCacheReport;
}

/** A prompt that is never assembled: a report reads the recording only. */
const NO_PROMPT = {
  assemble: () => Promise.reject(new Error("not assembled")),
};

/** A recording of `form` resumed as its conversation, without a prompt. */
export function resumedLong(form: LongForm, text: string): ResumedLong {
  switch (form) {
    case "anthropic":
      return resumeAnthropicConversation(NO_PROMPT, text);
    case "chat":
      return resumeChatConversation(NO_PROMPT, text);
    case "responses":
      return resumeResponsesConversation(NO_PROMPT, text);
    case "ai-sdk":
      return resumeAiSdkConversation(NO_PROMPT, text);
  }
}
