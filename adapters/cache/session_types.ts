/**
 * The session modules `rxprompt simulate` and `bench:cache` drive (SPEC
 * 8.8): a registry and its steps, each saying what to send.
 *
 * @module
 */

import type {
  AssembleContext,
  PromptAssembly,
  ScopeKey,
  SystemPrompt,
} from "../../mod.ts";

/**
 * A provider-neutral conversation message of a session. `rxprompt
 * simulate` turns it into each wire format.
 *
 * @example
 * ```ts
 * import type { SessionMessage } from "@rxprompt/system-prompt/cache";
 *
 * const turn: SessionMessage = { role: "user", content: "Fix the test." };
 * ```
 */
export interface SessionMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** What they say. */
  content: string;
  /** An assistant turn's tool calls, in the order the model made them. */
  toolCalls?: readonly SessionToolCall[];
  /**
   * A user turn's tool results: one per call of the assistant turn before
   * it (in any order), sent before the turn's `content` (if any).
   */
  toolResults?: readonly SessionToolResult[];
}

/**
 * One tool call of an assistant turn of a session (a tool round).
 *
 * @example
 * ```ts
 * import type { SessionMessage, SessionToolCall } from "@rxprompt/system-prompt/cache";
 *
 * const call: SessionToolCall = { id: "c1", name: "read_file", input: { path: "a.ts" } };
 * const answer: SessionMessage = { role: "assistant", content: "Reading.", toolCalls: [call] };
 * ```
 */
export interface SessionToolCall {
  /** The call's id, unique in the thread. */
  id: string;
  /** The tool called. */
  name: string;
  /** Its arguments (a JSON object). */
  input: Record<string, unknown>;
}

/**
 * The result of one tool call of a session, in the user turn after it.
 *
 * @example
 * ```ts
 * import type { SessionMessage, SessionToolResult } from "@rxprompt/system-prompt/cache";
 *
 * const result: SessionToolResult = { id: "c1", content: "export const a = 1;" };
 * const turn: SessionMessage = { role: "user", content: "", toolResults: [result] };
 * ```
 */
export interface SessionToolResult {
  /** The id of the call it answers. */
  id: string;
  /** What the tool returned. */
  content: string;
  /** The call failed (default `false`). */
  isError?: boolean;
}

/**
 * What one step of a session sends.
 *
 * @example
 * ```ts
 * import type { SessionRequest } from "@rxprompt/system-prompt/cache";
 *
 * const request: SessionRequest = {
 *   messages: [{ role: "user", content: "Fix the test." }],
 *   thread: "main",
 *   time: 6 * 60_000,
 * };
 * ```
 */
export interface SessionRequest {
  /** The thread's whole conversation so far, oldest first. */
  messages: readonly SessionMessage[];
  /** The conversation id (default `"main"`); one per agent. */
  thread?: string;
  /** The agent's scope key, assembled with `{ scope }` (default global). */
  scope?: ScopeKey;
  /** Extra assembly context (its `scope` is overridden by `scope`). */
  context?: AssembleContext;
  /** When it is sent, in ms since the session's start (default: 10 s after the previous step). */
  time?: number;
  /**
   * Who answers the model's answer to this request (default `"agent"`):
   * `"person"` before a pause, for the conversation's long cache lifetimes.
   */
  awaiting?: "person" | "agent";
  /**
   * How the thread's conversation tells the model of a changed tool set
   * (Anthropic; default `"rebuild"`): fixed by the thread's first step.
   */
  toolChanges?: "rebuild" | "inline";
  /**
   * The thread's conversation's `changes` option (default theirs,
   * `"auto"`): fixed by the thread's first step.
   */
  changes?: "auto" | "inline" | "rebuild";
}

/**
 * One step of a session: changes registrations, variables or the
 * conversation, and says what to send: a {@linkcode SessionRequest}, or the
 * messages array itself. `rxprompt simulate` rejects anything else (an
 * unknown key included) with `INVALID_CONFIG` naming the step.
 *
 * @example
 * ```ts
 * import type { SessionStep } from "@rxprompt/system-prompt/cache";
 *
 * const conversation = [{ role: "user" as const, content: "Hello." }];
 * const step: SessionStep = () => ({ messages: [...conversation] });
 * ```
 */
export type SessionStep = (
  index: number,
) =>
  | SessionRequest
  | readonly SessionMessage[]
  | Promise<SessionRequest | readonly SessionMessage[]>;

/**
 * A session module's default export for `rxprompt simulate` (or a
 * possibly async function returning it): a registry and the steps that
 * drive it. The command assembles the step's scope after each step, builds
 * the request the README's way, and disposes `prompt` (and calls `dispose`)
 * at the end.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import type { CacheSession, SessionMessage } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt({ persona: "You are terse." });
 * const messages: SessionMessage[] = [];
 * const session: CacheSession = {
 *   prompt,
 *   steps: [1, 2, 3].map((n) => () => {
 *     messages.push({ role: "user", content: `Question ${n}?` });
 *     messages.push({ role: "assistant", content: `Answer ${n}.` });
 *     return { messages: [...messages] };
 *   }),
 * };
 * export default session;
 * ```
 */
export interface CacheSession {
  /** The registry the steps change. */
  prompt: SystemPrompt;
  /** The steps, in order: one request each. */
  steps: readonly SessionStep[];
  /** Releases what the session holds besides `prompt` (servers, clients). */
  dispose?: () => void | Promise<void>;
}

/**
 * What a step of a session produced: its assembly and what it sends.
 *
 * @example
 * ```ts
 * import type { SessionStepState } from "@rxprompt/system-prompt/cache";
 *
 * function turns(state: SessionStepState): number {
 *   return state.messages.length;
 * }
 * ```
 */
export interface SessionStepState {
  /** The step's assembly. */
  assembly: PromptAssembly;
  /** The previous assembly of the same thread, if any. */
  previous?: PromptAssembly;
  /** The thread's conversation. */
  messages: readonly SessionMessage[];
  /** The thread. */
  thread: string;
  /** When it is sent (ms). */
  time: number;
}
