/**
 * The conversation's step against its history (issue 49, SPEC 10.4): the
 * five forms as `conversation_step_bench.ts`, `conversation_memory.ts` and
 * `conversation_step_profile.ts` drive them. A form's conversation at a
 * history of about n messages is a resumed recording of
 * `tests/conversation/long_recording.ts` (the coding agent's tool round
 * trips, about 2 kB a step), continued with its registry as the
 * recording left it (`longPrompt()`), so the next step changes nothing
 * but the history. A step is the one a harness makes: the person's
 * question, or a result for each open call; `request()`; `record()` of
 * the model's answer. The stateless path is what a user of the adapters
 * does for the same step: `assemble()`, the form's adapter, the new
 * messages pushed onto their own array, the body around that array.
 */
import {
  resumeAnthropicConversation,
  toMessages,
} from "../../adapters/anthropic/mod.ts";
import {
  resumeChatConversation,
  resumeResponsesConversation,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import { resumeAiSdkConversation, toAISDK } from "../../adapters/ai_sdk/mod.ts";
import type { SystemPrompt, ToolCall } from "../../mod.ts";
import {
  code,
  LONG_ANSWERS,
  longPrompt,
  longRecording,
  type LongStartForm,
  prose,
  randomOf,
} from "../conversation/long_recording.ts";

/** The five forms: Anthropic, Anthropic with inline tool changes, Chat, Responses, the AI SDK. */
export const STEP_FORMS: readonly LongStartForm[] = [
  "anthropic",
  "anthropic-inline",
  "chat",
  "responses",
  "ai-sdk",
];

/** The history sizes measured, in messages. */
export const STEP_SIZES: readonly number[] = [20, 200, 2_000, 20_000];

/**
 * Messages a step of the generator adds, per form (measured on 2,000
 * steps): a user or tool-results message and the answer; Chat sends each
 * result as a message, Responses each call and output as an item.
 */
const MESSAGES_PER_STEP: Readonly<Record<LongStartForm, number>> = {
  anthropic: 2,
  "anthropic-inline": 2,
  chat: 2.29,
  responses: 3.18,
  "ai-sdk": 2,
};

/** What a step needs of a conversation of any form. */
export interface Stepped {
  readonly openCalls: readonly ToolCall[];
  readonly messages: readonly unknown[];
  user(text: string): void;
  toolResult(id: string, content: string): void;
  request(): Promise<unknown>;
  record(answer: unknown): unknown;
}

/** A form's recording with about `messages` messages of history. */
export async function recordingOf(
  form: LongStartForm,
  messages: number,
): Promise<string> {
  const steps = Math.max(4, Math.round(messages / MESSAGES_PER_STEP[form]));
  return (await longRecording(form, steps)).text;
}

/**
 * The recording resumed in its form, as `tests/conversation/forms.ts`
 * starts each form (Chat with `cache: true`, which the generator's Chat
 * leaves out).
 */
export function resumeStepped(
  form: LongStartForm,
  prompt: SystemPrompt,
  recording: string,
): Stepped {
  switch (form) {
    case "anthropic":
      return resumeAnthropicConversation(prompt, recording) as Stepped;
    case "anthropic-inline":
      return resumeAnthropicConversation(prompt, recording, {
        toolChanges: "inline",
      }) as unknown as Stepped;
    case "chat":
      return resumeChatConversation(prompt, recording, {
        cache: true,
      }) as unknown as Stepped;
    case "responses":
      return resumeResponsesConversation(prompt, recording) as Stepped;
    case "ai-sdk":
      return resumeAiSdkConversation(prompt, recording) as Stepped;
  }
}

/** One step's inputs, made before it is timed. */
export interface StepInput {
  /** The person's question, when no call is open. */
  readonly question: string;
  /** Each open call's result. */
  readonly result: string;
  /** The model's answer in the form's SDK shape. */
  readonly answer: unknown;
}

/**
 * `count` steps' inputs (the generator's sizes; `short`: a tenth), the
 * answer calling one or two tools six times in ten. Fresh strings and
 * objects on every call: what a step retains is its own.
 */
export function stepInputs(
  form: LongStartForm,
  count: number,
  { seed = 7, short = false }: { seed?: number; short?: boolean } = {},
): StepInput[] {
  const random = randomOf(seed);
  const scale = short ? 0.1 : 1;
  const size = (base: number, spread: number) =>
    Math.ceil(scale * (base + random(spread)));
  const inputs: StepInput[] = [];
  for (let index = 0; index < count; index++) {
    const question = prose(random, size(40, 200));
    const result = code(random, size(200, 1300));
    const text = prose(random, size(30, 300));
    const calls = random(10) < 6
      ? Array.from({ length: 1 + random(2) }, (_, call) => ({
        id: `bench_${seed}_${index}_${call}`,
        name: "read_file",
        path: `src/file_${random(100)}.ts`,
      }))
      : [];
    const answer = LONG_ANSWERS[form](index, {
      text,
      calls,
      usage: { input: 40_000, read: 39_000, written: 900 },
    });
    inputs.push({ question, result, answer });
  }
  return inputs;
}

/** One conversation step: the question or the results, `request()`, `record()`. */
export async function conversationStep(
  conv: Stepped,
  input: StepInput,
): Promise<void> {
  const open = conv.openCalls;
  if (open.length === 0) conv.user(input.question);
  else for (const call of open) conv.toolResult(call.id, input.result);
  await conv.request();
  conv.record(input.answer);
}

/**
 * The stateless path: the user's own array (the history, pushed onto it
 * when it is made) and its step, `assemble()` + the adapter + the new
 * messages pushed + the body around the array. Chat and Responses keep
 * the system message at the array's start and replace it each step (a
 * flat cost; spreading it before the history would copy the array).
 */
export interface StatelessUser {
  readonly messages: unknown[];
  step(input: StepInput): Promise<unknown>;
}

/** A stateless user holding `history` (copied) with `open` calls pending. */
export function statelessUser(
  form: LongStartForm,
  prompt: SystemPrompt,
  history: readonly unknown[],
  open: readonly ToolCall[],
): StatelessUser {
  // Pushed one by one, as the user's array grew: its spare capacity is
  // that of a grown array (a copy has none, and its first push would copy
  // the whole history again).
  const messages: unknown[] = [];
  for (const message of history) messages.push(message);
  let calls: { id: string; name: string }[] = open.map(({ id, name }) => ({
    id,
    name,
  }));
  switch (form) {
    case "anthropic":
    case "anthropic-inline":
      return {
        messages,
        async step(input) {
          const fields = toMessages(await prompt.assemble(), { cache: true });
          messages.push({
            role: "user",
            content: calls.length === 0
              ? [{ type: "text", text: input.question }]
              : calls.map((call) => ({
                type: "tool_result",
                tool_use_id: call.id,
                content: input.result,
              })),
          });
          const body = {
            model: "claude-sonnet-4-5",
            max_tokens: 4096,
            system: fields.system,
            ...(fields.tools === undefined ? {} : { tools: fields.tools }),
            messages,
          };
          const answer = input.answer as {
            content: { type: string; id?: string; name?: string }[];
          };
          messages.push({ role: "assistant", content: answer.content });
          calls = answer.content.flatMap((block) =>
            block.type === "tool_use"
              ? [{ id: block.id!, name: block.name! }]
              : []
          );
          return body;
        },
      };
    case "chat":
      messages.unshift(undefined);
      return {
        messages,
        async step(input) {
          const fields = toChatCompletions(await prompt.assemble(), {
            cache: true,
          });
          if (calls.length === 0) {
            messages.push({ role: "user", content: input.question });
          } else {
            for (const call of calls) {
              messages.push({
                role: "tool",
                tool_call_id: call.id,
                content: input.result,
              });
            }
          }
          messages[0] = fields.system;
          const body = {
            model: "gpt-5.6",
            ...(fields.tools === undefined ? {} : { tools: fields.tools }),
            prompt_cache_key: fields.prompt_cache_key,
            messages,
          };
          const message = (input.answer as {
            choices: {
              message: {
                tool_calls?: { id: string; function: { name: string } }[];
              };
            }[];
          }).choices[0].message;
          messages.push(message);
          calls = (message.tool_calls ?? []).map((call) => ({
            id: call.id,
            name: call.function.name,
          }));
          return body;
        },
      };
    case "responses":
      messages.unshift(undefined);
      return {
        messages,
        async step(input) {
          const fields = toResponses(await prompt.assemble(), { cache: true });
          if (calls.length === 0) {
            messages.push({ role: "user", content: input.question });
          } else {
            for (const call of calls) {
              messages.push({
                type: "function_call_output",
                call_id: call.id,
                output: input.result,
              });
            }
          }
          messages[0] = fields.system;
          const body = {
            model: "gpt-5.6",
            ...(fields.tools === undefined ? {} : { tools: fields.tools }),
            prompt_cache_key: fields.prompt_cache_key,
            input: messages,
          };
          const output = (input.answer as {
            output: { type: string; call_id?: string; name?: string }[];
          }).output;
          messages.push(...output);
          calls = output.flatMap((item) =>
            item.type === "function_call"
              ? [{ id: item.call_id!, name: item.name! }]
              : []
          );
          return body;
        },
      };
    case "ai-sdk":
      return {
        messages,
        async step(input) {
          const fields = toAISDK(await prompt.assemble(), { cache: true });
          messages.push(
            calls.length === 0 ? { role: "user", content: input.question } : {
              role: "tool",
              content: calls.map((call) => ({
                type: "tool-result",
                toolCallId: call.id,
                toolName: call.name,
                output: { type: "text", value: input.result },
              })),
            },
          );
          const body = { system: fields.system, tools: fields.tools, messages };
          const answered = (input.answer as {
            response: {
              messages: {
                content: {
                  type: string;
                  toolCallId?: string;
                  toolName?: string;
                }[];
              }[];
            };
          }).response.messages;
          messages.push(...answered);
          calls = answered.flatMap((message) =>
            message.content.flatMap((part) =>
              part.type === "tool-call"
                ? [{ id: part.toolCallId!, name: part.toolName! }]
                : []
            )
          );
          return body;
        },
      };
  }
}

export { longPrompt };
