/**
 * Issue 44, item 2: what a fork's first request reads of its parent's
 * cache. A lead agent with global tools, a scope tool and stable sections
 * (each part over 1,024 tokens) talks for two steps; a reviewer scope bound
 * to the lead's adds a tool, a section, or both; the fork's first request
 * goes to a provider that applies its prefix rules (the simulator's,
 * `src/cache/`) to every body it received and reports the usage in its own
 * shape. What the child should read is what the bytes it shares with its
 * parent's last request are worth, counted on the parent's body as the
 * simulator lays it out (the rules' `readBody`): the parent's tools (a fork that adds
 * a tool lists it after them) and, when the tools are the parent's, its
 * system parts (a fork's own sections follow them), rounded down to 128
 * tokens where only OpenAI's automatic rule serves it.
 */

import { aiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
} from "../../adapters/openai/mod.ts";
import { SystemPrompt } from "../../mod.ts";
import {
  type CacheProvider,
  type CacheRequestResult,
  simulateCache,
} from "../../adapters/cache/mod.ts";
import { rulesNamed } from "../../adapters/forms.ts";
import { schema } from "./helpers.ts";

/** What the reviewer's scope adds to the lead's. */
export type ChildAdds = "tool" | "section" | "both";

export const CHILD_ADDS: readonly ChildAdds[] = ["tool", "section", "both"];

export const countTokens = (text: string): number => Math.ceil(text.length / 4);

/** A text of about `tokens` tokens (`countTokens`). */
function prose(topic: string, tokens: number): string {
  const sentence = `Handle ${topic} with care and say what you did. `;
  return sentence.repeat(Math.ceil((tokens * 4) / sentence.length)).trim();
}

/**
 * The lead's registry: three global tools and a `plan` tool of the lead's
 * scope (the tools over 1,024 tokens); four stable sections (over 1,024
 * tokens), in one block or, with `cut`, three of them cut (more marks
 * than the budget holds); the reviewer's scope, bound to the lead's, adds
 * `annotate` (sorting before `plan`), a `review` section at order 200
 * (after every section of the lead), or both.
 */
export function shareRegistry(
  adds: ChildAdds,
  { cut }: { cut: boolean },
): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are the lead agent." });
  prompt.tools(() => ({
    schemas: ["read_file", "search", "shell"].map((name) =>
      schema(name, prose(name, 400))
    ),
  }));
  for (const [index, name] of ["rules", "style", "tests"].entries()) {
    prompt.section({
      name,
      order: 100 + 10 * index,
      text: prose(name, 300),
      ...(cut ? { cacheBreakpoint: true as const } : {}),
    });
  }
  prompt.section({ name: "house", order: 150, text: prose("the house", 300) });
  prompt.scope("lead").tools(() => ({
    schemas: [schema("plan", prose("plans", 100))],
  }));
  prompt.bindScope("reviewer", "lead");
  const reviewer = prompt.scope("reviewer");
  if (adds !== "section") {
    reviewer.tools(() => ({
      schemas: [schema("annotate", prose("annotations", 100))],
    }));
  }
  if (adds !== "tool") {
    reviewer.section({
      name: "review",
      order: 200,
      text: "You review the lead's plan; comment, never edit.",
    });
  }
  return prompt;
}

/** A conversation as the scenario drives it (every form has this). */
export interface Driven {
  user(text: string): void;
  request(context?: { scope: string }): Promise<unknown>;
  record(answer: never): unknown;
  fork(): Driven;
  report(options: { countTokens: (text: string) => number }): {
    requests: { cacheReadTokens?: number }[];
  };
}

/** One form of the conversation, and the provider rule it is served by. */
export interface ShareForm {
  readonly name: string;
  /** The simulator's rule for its bodies. */
  readonly provider: CacheProvider;
  /** With `toolChanges: "inline"` (the child's tool goes in as an addition). */
  readonly inline?: boolean;
  start(prompt: SystemPrompt): Driven;
}

export const ANTHROPIC: ShareForm = {
  name: "Anthropic",
  provider: "anthropic",
  start: (prompt) =>
    anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
    }) as unknown as Driven,
};

export const ANTHROPIC_INLINE: ShareForm = {
  name: 'Anthropic, toolChanges: "inline"',
  provider: "anthropic",
  inline: true,
  start: (prompt) =>
    anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      toolChanges: "inline",
    }) as unknown as Driven,
};

export const AI_SDK: ShareForm = {
  name: "AI SDK with @ai-sdk/anthropic",
  provider: "anthropic",
  start: (prompt) => aiSdkConversation(prompt, {}) as unknown as Driven,
};

/** Chat Completions and Responses, with explicit breakpoints and without. */
export const OPENAI_FORMS: readonly ShareForm[] = [true, false].flatMap((
  cache,
) =>
  [
    {
      name: `Chat Completions${cache ? ", cache: true" : ""}`,
      provider: cache ? "openai-explicit" : "openai",
      start: (prompt: SystemPrompt) =>
        chatConversation(prompt, {
          model: "gpt-5.6",
          ...(cache ? { cache: true } : {}),
        }) as unknown as Driven,
    },
    {
      name: `Responses${cache ? ", cache: true" : ""}`,
      provider: cache ? "openai-explicit" : "openai",
      start: (prompt: SystemPrompt) =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          ...(cache ? { cache: true } : {}),
        }) as unknown as Driven,
    },
  ] satisfies ShareForm[]
);

/**
 * The lead's two steps, the fork, and the fork's first request, each sent
 * with `send` (which returns the answer to record); the child's report.
 */
export async function playFork(
  form: ShareForm,
  prompt: SystemPrompt,
  send: (body: unknown) => Promise<unknown>,
): Promise<Driven> {
  const lead = form.start(prompt);
  for (const question of ["Plan the release.", "Go on."]) {
    lead.user(question);
    lead.record(await send(await lead.request({ scope: "lead" })) as never);
  }
  const child = lead.fork();
  child.user("Review the plan.");
  child.record(await send(await child.request({ scope: "reviewer" })) as never);
  return child;
}

/** The simulator's reading of the last of `bodies` (one second apart). */
export function served(
  bodies: readonly unknown[],
  provider: CacheProvider,
): CacheRequestResult {
  return simulateCache(
    bodies.map((body, index) => ({ body, time: index * 1000 })),
    { provider, countTokens },
  ).requests.at(-1)!;
}

/**
 * What the child's first read is worth: the tokens of the parent's last
 * body (as it reached the wire) through its tools, or through its system
 * parts when the child lists the parent's tools, as `provider` serves
 * them (OpenAI's automatic rule in steps of 128; OpenAI's explicit marks
 * only on the system parts, tools being unmarkable).
 */
export function sharedWorth(
  parentBody: unknown,
  form: ShareForm,
  adds: ChildAdds,
): number {
  const blocks = rulesNamed(
    form.provider === "anthropic" ? "anthropic" : "openai",
  )!.readBody(parentBody).blocks;
  const sameTools = adds === "section" || form.inline === true;
  const shared = blocks.filter((block) =>
    block.part === "tools" || (sameTools && block.part === "system")
  );
  const tokens = shared.reduce(
    (sum, block) => sum + countTokens(block.text),
    0,
  );
  const exact = form.provider === "anthropic" ||
    (form.provider === "openai-explicit" && sameTools);
  return exact ? tokens : Math.floor(tokens / 128) * 128;
}

/** An Anthropic `Message` ("Done.") with the usage of `estimate`. */
export function anthropicAnswer(
  estimate: CacheRequestResult,
  index: number,
): Record<string, unknown> {
  const { inputTokens, cachedTokens, writtenTokens } = estimate;
  return {
    id: `msg_0${index}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "Done." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens - cachedTokens - writtenTokens,
      cache_read_input_tokens: cachedTokens,
      cache_creation_input_tokens: writtenTokens,
      output_tokens: 5,
    },
  };
}

/** A `ChatCompletion` ("Done.") with the usage of `estimate`. */
export function chatAnswer(
  estimate: CacheRequestResult,
  index: number,
): Record<string, unknown> {
  return {
    id: `chatcmpl-0${index}`,
    object: "chat.completion",
    created: 0,
    model: "gpt-5.6",
    choices: [{
      index: 0,
      message: { role: "assistant", content: "Done.", refusal: null },
      finish_reason: "stop",
      logprobs: null,
    }],
    usage: {
      prompt_tokens: estimate.inputTokens,
      completion_tokens: 5,
      total_tokens: estimate.inputTokens + 5,
      prompt_tokens_details: { cached_tokens: estimate.cachedTokens },
    },
  };
}

/** A Responses `Response` ("Done.") with the usage of `estimate`. */
export function responsesAnswer(
  estimate: CacheRequestResult,
  index: number,
): Record<string, unknown> {
  return {
    id: `resp_0${index}`,
    object: "response",
    created_at: 0,
    status: "completed",
    model: "gpt-5.6",
    output: [{
      type: "message",
      id: `msg_0${index}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Done.", annotations: [] }],
    }],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
    usage: {
      input_tokens: estimate.inputTokens,
      input_tokens_details: { cached_tokens: estimate.cachedTokens },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: estimate.inputTokens + 5,
    },
  };
}

/** The answer of `form`'s API to the last of `bodies`. */
export function answerOf(
  form: ShareForm,
  bodies: readonly unknown[],
): Record<string, unknown> {
  const estimate = served(bodies, form.provider);
  const index = bodies.length - 1;
  if (form.provider === "anthropic") return anthropicAnswer(estimate, index);
  return form.name.startsWith("Chat")
    ? chatAnswer(estimate, index)
    : responsesAnswer(estimate, index);
}
