/**
 * The types of the cache report (SPEC 8.8): what `simulateCache` and
 * `bestLayoutTokens` take and return, and the session modules that
 * `rxprompt simulate` drives.
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
 * The caching rules a simulation applies: Anthropic's `cache_control`
 * markers, OpenAI's automatic prefix cache, OpenAI's explicit
 * `prompt_cache_breakpoint` marks (gpt-5.6 and later), Amazon Bedrock's
 * `cachePoint` blocks (Converse), or Gemini's implicit prefix cache.
 *
 * @example
 * ```ts
 * import type { CacheProvider } from "@rxprompt/system-prompt/cache";
 *
 * const provider: CacheProvider = "openai-explicit";
 * ```
 */
export type CacheProvider =
  | "anthropic"
  | "openai"
  | "openai-explicit"
  | "bedrock"
  | "gemini";

/** The providers, in the order reports list them. */
export const CACHE_PROVIDERS: readonly CacheProvider[] = [
  "anthropic",
  "openai",
  "openai-explicit",
  "bedrock",
  "gemini",
];

/**
 * Counts the tokens of a text: a non-negative integer. Any tokenizer will
 * do; the figures are as good as it is.
 *
 * @example
 * ```ts
 * import type { CountTokens } from "@rxprompt/system-prompt/cache";
 *
 * const roughly: CountTokens = (text) => Math.ceil(text.length / 4);
 * ```
 */
export type CountTokens = (text: string) => number;

/**
 * One request of a simulated session.
 *
 * @example
 * ```ts
 * import type { CacheRequest } from "@rxprompt/system-prompt/cache";
 *
 * const request: CacheRequest = {
 *   body: { system: "You are terse.", messages: [{ role: "user", content: "Hi." }] },
 *   time: 60_000,
 *   thread: "main",
 * };
 * ```
 */
export interface CacheRequest {
  /**
   * The request body the harness sends: for `anthropic`, a Messages body
   * `{ tools?, system?, messages }`; for the OpenAI rules, a Chat
   * Completions body `{ tools?, messages, prompt_cache_options? }` or a
   * Responses body `{ tools?, instructions?, input, prompt_cache_options? }`.
   * Other fields (`model`, `max_tokens`, …) are ignored.
   */
  body: unknown;
  /**
   * When it is sent, in milliseconds (any origin); not before the previous
   * request's time. Default: one second after the previous request (0 for
   * the first).
   */
  time?: number;
  /**
   * The conversation it belongs to (default: one thread). Caches are shared
   * between threads; only `bestLayoutTokens` reads it.
   */
  thread?: string;
}

/**
 * Options of `simulateCache`.
 *
 * @example
 * ```ts
 * import type { SimulateCacheOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: SimulateCacheOptions = {
 *   provider: "anthropic",
 *   countTokens: (text) => Math.ceil(text.length / 4),
 *   minPrefixTokens: 2048, // Claude Haiku's minimum
 * };
 * ```
 */
export interface SimulateCacheOptions {
  /** Whose rules apply. */
  provider: CacheProvider;
  /** Counts a block's tokens; called once per distinct text. */
  countTokens: CountTokens;
  /**
   * The shortest prefix that is cached, in tokens (default 1024: Anthropic's
   * minimum for most models, OpenAI's for all).
   */
  minPrefixTokens?: number;
}

/**
 * The first block of a request that the cache did not serve, and why.
 *
 * @example
 * ```ts
 * import type { CacheMiss } from "@rxprompt/system-prompt/cache";
 *
 * const miss: CacheMiss = {
 *   block: "tool:read_file",
 *   reason: "tool:read_file differs from every earlier request after the same prefix",
 * };
 * ```
 */
export interface CacheMiss {
  /** `tool:NAME`, `system:I` or `message:I.J` (0-based indexes). */
  block: string;
  /** Why: a change, a lapsed lifetime, a prefix under the minimum, … */
  reason: string;
}

/**
 * The simulated outcome of one request, in tokens.
 *
 * @example
 * ```ts
 * import type { CacheRequestResult } from "@rxprompt/system-prompt/cache";
 *
 * const result: CacheRequestResult = {
 *   inputTokens: 3000,
 *   cachedTokens: 2048,
 *   writtenTokens: 952,
 *   promptTokens: 2000,
 *   cost: 1395.8,
 * };
 * ```
 */
export interface CacheRequestResult {
  /** Every block's tokens (framing tokens are not counted). */
  inputTokens: number;
  /** Tokens read from the cache. */
  cachedTokens: number;
  /** Tokens written to the cache (billed as writes; 0 for `openai`). */
  writtenTokens: number;
  /** The tokens of the tools and the system prompt (the request's head). */
  promptTokens: number;
  /**
   * The price in uncached input tokens: uncached input 1, cache reads 0.1,
   * writes 1.25 (Anthropic 5-minute and OpenAI explicit entries) or 2
   * (Anthropic 1-hour entries).
   */
  cost: number;
  /** The first block not served from cache; absent when all was. */
  firstMiss?: CacheMiss;
}

/**
 * Sums over the requests.
 *
 * @example
 * ```ts
 * import type { CacheTotals } from "@rxprompt/system-prompt/cache";
 *
 * const totals: CacheTotals = {
 *   inputTokens: 6000,
 *   cachedTokens: 4000,
 *   writtenTokens: 1900,
 *   promptTokens: 4000,
 *   cost: 2775,
 * };
 * ```
 */
export interface CacheTotals {
  /** The requests' input tokens. */
  inputTokens: number;
  /** The requests' cached tokens. */
  cachedTokens: number;
  /** The requests' written tokens. */
  writtenTokens: number;
  /** The requests' tools and system prompt tokens. */
  promptTokens: number;
  /** The requests' cost (see {@linkcode CacheRequestResult.cost}). */
  cost: number;
}

/**
 * What `simulateCache` returns: one result per request, in order, and the
 * totals.
 *
 * @example
 * ```ts
 * import type { CacheSimulation } from "@rxprompt/system-prompt/cache";
 *
 * function efficiency(simulation: CacheSimulation): number {
 *   const { cachedTokens, inputTokens } = simulation.totals;
 *   return inputTokens === 0 ? 0 : cachedTokens / inputTokens;
 * }
 * ```
 */
export interface CacheSimulation {
  /** Per request, in the order given. */
  requests: CacheRequestResult[];
  /** The sums. */
  totals: CacheTotals;
}

/**
 * The best-layout bound of one request, in tokens.
 *
 * @example
 * ```ts
 * import type { BestLayoutRequest } from "@rxprompt/system-prompt/cache";
 *
 * const bound: BestLayoutRequest = {
 *   inputTokens: 3000,
 *   boundTokens: 2700,
 *   promptTokens: 2000,
 *   promptBoundTokens: 2000,
 * };
 * ```
 */
export interface BestLayoutRequest {
  /** Every unit's tokens. */
  inputTokens: number;
  /** The tokens of the units unchanged since the thread's last request. */
  boundTokens: number;
  /** The tokens of the tools and system prompt units. */
  promptTokens: number;
  /** Of those, the tokens unchanged since the thread's last request. */
  promptBoundTokens: number;
}

/**
 * What `bestLayoutTokens` returns: one bound per request and the sums.
 *
 * @example
 * ```ts
 * import type { BestLayout } from "@rxprompt/system-prompt/cache";
 *
 * function bound(layout: BestLayout): number {
 *   return layout.totals.boundTokens;
 * }
 * ```
 */
export interface BestLayout {
  /** Per request, in the order given. */
  requests: BestLayoutRequest[];
  /** The sums. */
  totals: BestLayoutRequest;
}

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
