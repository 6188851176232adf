/**
 * The request layout the README advises ("readme"), as `rxprompt simulate`
 * and `deno task bench:cache` build each step's request: through the
 * conversation object (SPEC 9.1, 9.8), one per thread and form, started
 * with the options of the form's `simulation` (Anthropic Messages; OpenAI
 * Chat Completions with `cache: true` and `promptCacheRetention: "24h"`,
 * so the same bodies serve both OpenAI rules; Bedrock Converse; Gemini
 * with implicit caching); a form without a conversation object the
 * stateless adapters' way (`readme_way_stateless.ts`). The conversation applies
 * every rule of the request loop itself (runtime context after the last
 * item only when it changed, the conversation's marks, lifetimes from
 * `awaiting`, gates with the tools block kept, `prompt_cache_key`, tool
 * changes); this module only feeds it the session's turns:
 *
 * - the thread's new messages since the previous step, in order: an
 *   assistant turn is the answer to the pending request (`record()`, the
 *   form's SDK answer with its tool calls), a user turn's tool results go
 *   to `toolResult()` and its text to `user()`;
 * - then `request(context, { awaiting })` builds the step's body.
 *
 * A conversation the session rewrote (compacted) starts a new conversation.
 * On the first step after a restart (`resumed`), each conversation is saved
 * and resumed from its recording, as a harness that restarts would.
 *
 * `examples/sessions/ways.ts` keeps 0.2's advice frozen ("readme-0.2").
 *
 * @module
 */

import { type PromptAssembly, SystemPromptError } from "../mod.ts";
import type {
  ConversationForm,
  FormSimulation,
} from "../src/conversation/form.ts";
import {
  resumeConversation,
  startConversation,
} from "../src/conversation/start.ts";
import {
  conversationFormNamed,
  FORM_CONTEXT,
  FORMS,
  RULES,
  rulesNamed,
} from "../adapters/forms.ts";
import { CliError } from "./cli_error.ts";
import type { ProviderRules } from "../src/cache/simulator/rules.ts";
import type { FormId, SessionMessage } from "../adapters/cache/mod.ts";
import { STATELESS_FORMS, statelessWay } from "./readme_way_stateless.ts";
import type { Way, WayInput } from "./way_types.ts";

export type { Way, WayInput } from "./way_types.ts";

/**
 * The form whose bodies a way builds for `rules`: the first form of the
 * table under these rules that has a `simulation` (or, until its
 * conversation exists, a stateless way).
 */
export function wayFormOf(rules: ProviderRules): FormId | undefined {
  return FORMS.find((form) =>
    form.cache.rules.includes(rules) &&
    (simulationOf(form.id) !== undefined || STATELESS_FORMS.includes(form.id))
  )?.id as FormId | undefined;
}

/**
 * The form whose bodies a way builds for the rules with id `provider`.
 *
 * @throws {CliError} for rules no form of the table is built for
 */
export function wayFormFor(provider: string): FormId {
  const rules = rulesNamed(provider);
  const form = rules === undefined ? undefined : wayFormOf(rules);
  if (form === undefined) {
    throw new CliError(`no way builds request bodies for ${provider}`);
  }
  return form;
}

/** Every form a way builds, in the order of the rules (the runner's). */
export const WAY_FORMS: readonly FormId[] = [
  ...new Set(
    RULES.map(wayFormOf).filter((form): form is FormId => form !== undefined),
  ),
];

/** The form with id `id` if it has a simulation. */
function simulationOf(
  id: string,
): { form: ConversationForm; simulation: FormSimulation } | undefined {
  const form = conversationFormNamed(id);
  return form?.simulation === undefined
    ? undefined
    : { form, simulation: form.simulation };
}

/** The part of a conversation the way drives (every provider form has it). */
interface Driven {
  user(input: string): void;
  toolResult(
    id: string,
    content: string,
    options?: { isError?: boolean },
  ): void;
  request(
    context?: unknown,
    options?: { awaiting?: "person" | "agent" },
  ): Promise<unknown>;
  record(answer: unknown): unknown;
  save(): string;
}

/** What the README's way remembers per thread and form. */
interface LoopState {
  conversation?: Driven;
  /** The messages the conversation has been given. */
  seen?: readonly SessionMessage[];
  /** A request was built and waits for its answer. */
  pending?: boolean;
  /** Who answers next, as the pending request said. */
  awaiting?: "person" | "agent";
  /** Of `seen`, the messages the conversation has committed. */
  committed?: number;
  /** The conversation's recording, when resumed in another process. */
  recording?: string;
  /** The assembly the conversation's next request() reads. */
  assembly?: PromptAssembly;
  toolChanges?: "rebuild" | "inline";
  /** Answers synthesised so far (their ids). */
  answers?: number;
}

/** Options of {@linkcode readmeWayWith}. */
export interface ReadmeWayOptions {
  /** Anthropic tool changes when a step does not say (default `"rebuild"`). */
  toolChanges?: "rebuild" | "inline";
}

/** The README's way with `options` (see the module documentation). */
export function readmeWayWith(options: ReadmeWayOptions = {}): Way {
  return async (input) => {
    const driven = simulationOf(input.form);
    if (driven === undefined) {
      // No conversation object yet: the adapters, the loop by hand.
      return statelessWay(input.form, input);
    }
    const memory = input.state as LoopState;
    const toolChanges = input.request.toolChanges ?? memory.toolChanges ??
      options.toolChanges ?? "rebuild";
    const messages = input.request.messages;
    const before = memory.seen ?? [];
    const grew = before.length <= messages.length &&
      before.every((message, index) => same(message, messages[index]));
    const saved = memory.recording !== undefined && input.resumed === true;
    if (!grew || (memory.conversation === undefined && !saved)) {
      // The first step, or the harness rewrote the conversation (compacted
      // it): a new conversation, which sends the whole runtime context.
      memory.conversation = start(driven, input, memory, toolChanges);
      memory.seen = [];
      memory.committed = 0;
      memory.pending = false;
      memory.toolChanges = toolChanges;
    } else if (toolChanges !== memory.toolChanges) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `The step asks for toolChanges "${toolChanges}", but thread ` +
          `"${input.thread}" started with "${memory.toolChanges}"; a ` +
          `conversation's tool changes are fixed by its first step.`,
      );
    } else if (input.resumed === true) {
      // The harness restarted while its last request was in flight: the
      // conversation resumes from what it recorded, is given that
      // request's inputs again and rebuilds it (a retry: the same body).
      memory.conversation = resume(driven, input, memory, toolChanges);
      const inputs = memory.seen!.slice(memory.committed ?? 0);
      memory.assembly = input.previous ?? input.assembly;
      if (memory.pending === true) {
        for (const message of inputs) give(memory.conversation, message);
        await memory.conversation.request(undefined, {
          awaiting: memory.awaiting,
        });
      }
    }
    memory.assembly = input.assembly;
    const conversation = memory.conversation!;
    const seen = memory.seen!.length;
    for (const [at, message] of messages.slice(seen).entries()) {
      if (message.role === "assistant") {
        // An answer needs a request: a history the session starts with is
        // replayed through requests that are not sent.
        if (memory.pending !== true) await conversation.request();
        const n = memory.answers = (memory.answers ?? 0) + 1;
        conversation.record(driven.simulation.answer(message, n));
        memory.pending = false;
        memory.committed = seen + at + 1;
        continue;
      }
      give(conversation, message);
    }
    memory.seen = [...messages];
    const awaiting = input.request.awaiting ?? "agent";
    const body = await conversation.request(undefined, { awaiting });
    memory.pending = true;
    memory.awaiting = awaiting;
    return body as Record<string, unknown>;
  };
}

/**
 * A way's memory (`WayInput.state`) as plain JSON, its conversation as the
 * recording `save()` returns: what a harness keeps to resume in another
 * process (`runSession`'s `resumeAt` and `states`).
 */
export function savedState(
  state: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const { conversation, assembly: _assembly, ...rest } = state as LoopState;
  return JSON.parse(JSON.stringify({
    ...rest,
    ...(conversation === undefined ? {} : { recording: conversation.save() }),
  }));
}

/** A user turn's tool results and text, as inputs of the next request. */
function give(conversation: Driven, message: SessionMessage): void {
  for (const result of message.toolResults ?? []) {
    conversation.toolResult(result.id, result.content, {
      isError: result.isError ?? false,
    });
  }
  if (message.content !== "" || message.toolResults === undefined) {
    conversation.user(message.content);
  }
}

/** The README's way (see the module documentation). */
export const readmeWay: Way = readmeWayWith();

/** A prompt whose assembly is the step's, assembled once by the runner. */
function promptOf(memory: LoopState): {
  assemble(): Promise<PromptAssembly>;
} {
  return { assemble: () => Promise.resolve(memory.assembly!) };
}

/** A form's conversation and how the way drives it. */
type Driving = { form: ConversationForm; simulation: FormSimulation };

function start(
  { form, simulation }: Driving,
  { thread }: WayInput,
  memory: LoopState,
  toolChanges: "rebuild" | "inline",
): Driven {
  // A session id of the thread's own: runs of a session build the same
  // bytes (OpenAI's prompt_cache_key included).
  const options = simulation.options(`simulate-${thread}`, toolChanges);
  return startConversation(
    form,
    promptOf(memory),
    options,
    FORM_CONTEXT,
  ) as unknown as Driven;
}

/**
 * The conversation saved to its recording and resumed from it (given its
 * tool changes again, as a resume must be).
 */
function resume(
  { form, simulation }: Driving,
  { thread }: WayInput,
  memory: LoopState,
  toolChanges: "rebuild" | "inline",
): Driven {
  const saved = memory.recording ?? memory.conversation!.save();
  memory.recording = undefined;
  const started = simulation.options(`simulate-${thread}`, toolChanges);
  return resumeConversation(
    form,
    promptOf(memory),
    saved,
    started.toolChanges === undefined
      ? undefined
      : { toolChanges: started.toolChanges },
    FORM_CONTEXT,
  ) as unknown as Driven;
}

function same(a: SessionMessage, b: SessionMessage | undefined): boolean {
  return b !== undefined && a.role === b.role && a.content === b.content &&
    JSON.stringify(a.toolCalls) === JSON.stringify(b.toolCalls) &&
    JSON.stringify(a.toolResults) === JSON.stringify(b.toolResults);
}

/**
 * The thread's messages as plain text, for the ways that send text only:
 * an assistant turn's tool calls and a user turn's tool results written
 * into its content.
 */
export function plainMessages(
  messages: readonly SessionMessage[],
): SessionMessage[] {
  return messages.map((message) => {
    const calls = (message.toolCalls ?? []).map((call) =>
      `[call ${call.id} ${call.name} ${JSON.stringify(call.input)}]`
    );
    const results = (message.toolResults ?? []).map((result) =>
      `[result ${result.id}${result.isError === true ? " (error)" : ""}]\n` +
      result.content
    );
    if (calls.length === 0 && results.length === 0) {
      return { role: message.role, content: message.content };
    }
    const parts = message.role === "assistant"
      ? [message.content, ...calls]
      : [...results, message.content];
    return {
      role: message.role,
      content: parts.filter((part) => part !== "").join("\n"),
    };
  });
}

/**
 * Anthropic messages with a `cache_control` marker on the last one (the
 * conversation's breakpoint, the fourth marker).
 */
export function markLast(
  messages: readonly SessionMessage[],
): Record<string, unknown>[] {
  return messages.map((message, index) =>
    index === messages.length - 1
      ? {
        role: message.role,
        content: [{
          type: "text",
          text: message.content,
          cache_control: { type: "ephemeral" },
        }],
      }
      : { role: message.role, content: message.content }
  );
}
