/**
 * The conversation's public types (SPEC 9.1): the interface every provider
 * form returns and its options.
 *
 * @module
 */

import type { AssembleContext, PromptAssembly } from "../types.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import type { PromptCacheReport } from "../cache/report/types.ts";
import type { Compaction, CompactOptions } from "./compaction_types.ts";
import type {
  ConversationObserver,
  ConversationReportOptions,
  ConversationRequest,
} from "./observer_types.ts";

/**
 * Who answers the request after this one (SPEC 9.1, 9.8): `"person"`
 * gives the request's cache marks a long lifetime.
 *
 * @example
 * ```ts
 * import type { Awaiting } from "@rxprompt/system-prompt";
 *
 * const awaiting: Awaiting = "person";
 * ```
 */
export type Awaiting = "person" | "agent";

/**
 * One tool call of the model: run it and give its result with
 * `conversation.toolResult(id, ...)`.
 *
 * @example
 * ```ts
 * import type { ToolCall } from "@rxprompt/system-prompt";
 *
 * const call: ToolCall = { id: "toolu_1", name: "read_file", input: { path: "a.ts" } };
 * ```
 */
export interface ToolCall {
  /** The call's id, as the provider gave it. */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, parsed (the provider's JSON). */
  readonly input: unknown;
  /**
   * The tool the model called when it is not `name`: `"call_tool"`, the
   * search-and-call pair's call of a deferred tool (SPEC §10.3), whose
   * result goes back as that call's.
   */
  readonly via?: string;
  /**
   * The group of the tools block the call named (OpenAI Responses: the
   * `namespace` of a deferred function); a call whose group does not hold
   * its tool is refused by the conversation.
   */
  readonly namespace?: string;
}

/**
 * What a conversation assembles its system prompt and tools from: a
 * `SystemPrompt` (or anything with its `assemble`).
 *
 * @example
 * ```ts
 * import { type ConversationPrompt, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt: ConversationPrompt = new SystemPrompt();
 * await prompt.assemble();
 * ```
 */
export interface ConversationPrompt<
  C extends AssembleContext = AssembleContext,
> {
  /** Assembles one step (`SystemPrompt.assemble`). */
  assemble(context?: C): Promise<PromptAssembly>;
  /**
   * Assembles one step and says who registered each part
   * (`SystemPrompt.explain`): used instead of `assemble` when the
   * conversation's `diagnostics` option is on.
   */
  explain?(context?: C): Promise<PromptExplanation>;
}

/**
 * How a conversation sends what changed after its first request (SPEC
 * 10.1): `"inline"` tells the model in the conversation (a system or
 * developer message after the last item; tool additions and removals),
 * so every request extends the one before byte for byte; `"rebuild"`
 * rebuilds the system prompt and tools as 0.4 did; `"auto"` (the default)
 * sends section changes inline and rebuilds the tools until the history
 * holds a block bound to its prefix (Anthropic thinking, a Responses
 * reasoning item with encrypted content), then sends them inline too.
 * Per kind: `{ sections, tools }`.
 *
 * @example
 * ```ts
 * import type { ChangesOption } from "@rxprompt/system-prompt";
 *
 * const zeroFour: ChangesOption = "rebuild";
 * const mixed: ChangesOption = { sections: "inline", tools: "rebuild" };
 * ```
 */
export type ChangesOption =
  | "auto"
  | "inline"
  | "rebuild"
  | {
    /** A section's new, added or removed text (`"auto"`: inline). */
    readonly sections?: "auto" | "inline" | "rebuild";
    /**
     * An added, removed or redefined tool (`"auto"`: inline once the history
     * holds a bound block; the form's `toolChanges` names the same).
     */
    readonly tools?: "auto" | "inline" | "rebuild";
    /**
     * A request's new output settings (`RequestOptions.output`; `"auto"`:
     * inline once the history holds a bound block).
     */
    readonly output?: "auto" | "inline" | "rebuild";
  };

/**
 * The options every form of the conversation takes.
 *
 * @example
 * ```ts
 * import type { ConversationOptions } from "@rxprompt/system-prompt";
 *
 * const lines: string[] = [];
 * const options: ConversationOptions = {
 *   awaiting: "person",
 *   onRecord: (line) => lines.push(line),
 * };
 * ```
 */
export interface ConversationOptions {
  /**
   * Who answers next, when `request()` does not say (default `"agent"`):
   * `"person"` gives every cache mark of the request a long lifetime.
   */
  awaiting?: Awaiting;
  /** The session id (default: a random UUID); OpenAI's cache-key session. */
  session?: string;
  /**
   * The first line of a runtime-context update (default
   * `"Runtime context (replaces any earlier runtime context):"`).
   */
  header?: string;
  /**
   * Called with each line of the recording as it is committed (the header
   * first), each ending with a newline: append them to a file or a row.
   */
  onRecord?: (line: string) => void;
  /**
   * Ask the provider why a request read less from the cache than the one
   * before (Anthropic `diagnostics.previous_message_id`, OpenAI Responses
   * `prompt_cache_options.comparison_response_id`; Chat Completions and
   * the AI SDK have no diagnosis: there it only records the provenance),
   * and record the provenance of every system block and tool and the
   * registration behind each change (`prompt.explain()` instead of
   * `assemble()`, which costs more per request). Default `false`; saved
   * and resumed with the conversation.
   */
  diagnostics?: boolean;
  /**
   * Called by `record()` with each committed request: its body, what the
   * provider reported and the request before it (e.g. `conversationSpans`
   * of `./otel` records an OpenTelemetry span per request). What it throws
   * goes to `onObserverError`: recording goes on.
   */
  onRequest?: (request: ConversationRequest) => void;
  /**
   * Called with what `onRecord` or `onRequest` threw, and which of them:
   * the step is committed all the same, the other observers are called and
   * `record()` returns the calls to run. A line `onRecord` did not take is
   * still in `save()` (write it back). Default: `console.error`; what this
   * callback throws is logged with `console.error`.
   */
  onObserverError?: (error: unknown, observer: ConversationObserver) => void;
  /** The clock of the recording's times, in ms (default `Date.now`). */
  clock?: () => number;
  /**
   * How changes after the first request are sent (default `"auto"`; see
   * {@linkcode ChangesOption}). Saved and resumed with the conversation; a
   * fork keeps its parent's.
   */
  changes?: ChangesOption;
  /**
   * Compact for the harness (SPEC 10.2): once an answer reports at least
   * `inputTokens` of input (its whole input: reads and writes included),
   * the next `request()` that has no tool call open returns the
   * summarizing request (`compact()`'s body) instead of a step, its
   * `record()` swaps the summary in and sets `continues`, and the inputs
   * given meanwhile go in the step after. A summarizing request the
   * provider refuses is given up with `cancelCompaction()`. Saved and
   * resumed with the conversation.
   */
  compactAt?: { inputTokens: number };
}

/**
 * Options of {@linkcode Conversation.request}.
 *
 * @example
 * ```ts
 * import type { RequestOptions } from "@rxprompt/system-prompt";
 *
 * const options: RequestOptions = { awaiting: "person" };
 * ```
 */
export interface RequestOptions {
  /** Who answers the request after this one (default: the option's). */
  awaiting?: Awaiting;
  /**
   * The output settings of this request and the next ones, until another
   * request changes them (SPEC 10.1): the first request sends them
   * top-level (Anthropic `output_config.effort`, OpenAI Responses
   * `reasoning.effort`, Chat Completions `reasoning_effort`); a later
   * change goes inline where the API has a per-message form (Anthropic a
   * system message's `output_config`, Responses a `configuration_update`
   * item) and `changes` says so, else the top-level field changes. The AI
   * SDK conversation takes none.
   */
  output?: OutputSettings;
}

/**
 * A request's output settings (`RequestOptions.output`).
 *
 * @example
 * ```ts
 * import type { OutputSettings } from "@rxprompt/system-prompt";
 *
 * const thorough: OutputSettings = { effort: "high" };
 * ```
 */
export interface OutputSettings {
  /** How much the model thinks and writes. */
  effort?: "low" | "medium" | "high" | "xhigh" | "max";
}

/**
 * How a resumed conversation was read.
 *
 * @example
 * ```ts
 * import type { ResumeInfo } from "@rxprompt/system-prompt";
 *
 * const info: ResumeInfo = { steps: 3, truncated: false };
 * ```
 */
export interface ResumeInfo {
  /** The committed steps read. */
  readonly steps: number;
  /** The recording's last line was cut mid-way and left out. */
  readonly truncated: boolean;
}

/**
 * One agent conversation: keeps the history as sent and builds each
 * step's whole request body (system, tools, messages, cache marks), cache
 * optimal, for one provider. Made by the provider forms:
 * `anthropicConversation` (`./anthropic`), `chatConversation` (`./openai`),
 * and resumed from a recording by `resumeAnthropicConversation` /
 * `resumeChatConversation`.
 *
 * `request()` builds the next body without committing it (a retry builds
 * it again from the same state); `record(answer)` commits it with the
 * answer and returns the tool calls to run. Person messages (`user()`) and
 * tool results (`toolResult()`) are inputs of the next request.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { anthropicConversation } from "@rxprompt/system-prompt/anthropic";
 *
 * const prompt = new SystemPrompt({ persona: "You are terse." });
 * const conv = anthropicConversation(prompt, { model: "claude-sonnet-4-5", max_tokens: 256 });
 * conv.user("Hello.");
 * const body = await conv.request();
 * console.log(body.messages.length); // 1
 * await prompt.dispose();
 * ```
 */
export interface Conversation<
  Body,
  Answer,
  Input,
  Result,
  Message,
  C extends AssembleContext = AssembleContext,
> {
  /** The conversation's session id (kept across save and resume). */
  readonly session: string;
  /** Set on a resumed conversation: how its recording was read. */
  readonly resumed: ResumeInfo | undefined;
  /** The committed history, as sent (cache marks removed); frozen. */
  readonly messages: readonly Message[];
  /** The calls of the last answer still waiting for a result. */
  readonly openCalls: readonly ToolCall[];
  /**
   * Request again, the turn goes on, though `record()` returned no call:
   * the last `record()` committed a compaction (`compactAt`, a provider's
   * compaction that paused the turn), or the answer called what the
   * conversation answers itself (the pair's `find_tools` search, a tool
   * not active this step), whose answers the next request sends.
   */
  readonly continues: boolean;
  /**
   * The last `request()` returned the summarizing request `compactAt`
   * asked for, not a step: its answer is still to be recorded (`record()`
   * swaps the summary in) or given up (`cancelCompaction()`).
   */
  readonly summarizing: boolean;
  /** A person's message (text or content blocks): an input of the next request. */
  user(input: Input): void;
  /**
   * The result of one tool call of the last answer: an input of the next
   * request. Results go in the order of the calls, whatever order they are
   * given in; `isError` marks a failure.
   */
  toolResult(id: string, content: Result, options?: ToolResultOptions): void;
  /**
   * Builds the next request's whole body from the committed state, the
   * inputs given since, and this step's assembly. Nothing is committed
   * until `record()`: calling it again (a retry) builds from the same
   * state.
   */
  request(context?: C, options?: RequestOptions): Promise<Body>;
  /**
   * Commits the last body `request()` built with the model's answer (the
   * SDK's own response object) and returns the tool calls to run. Calls of
   * tools the gates left inactive are answered by the conversation itself
   * with a refusal and are not returned.
   */
  record(answer: Answer): ToolCall[];
  /**
   * The whole recording so far (JSON lines: the header, then one line per
   * committed step): what the resume functions read back. Cheap to call
   * after every step: each call writes the lines of the steps committed
   * since the last, appends them to the text it returned then and returns
   * that text, nothing joined or copied again (writing the whole text to a
   * file still costs its bytes; `onRecord` hands over each line alone, to
   * append as you go). A conversation never saved keeps no text: the lines
   * are written from the steps it keeps for `report()`.
   */
  save(): string;
  /**
   * The cache report of the committed requests (`cacheReport` over the
   * recording, SPEC 9.3): per request the reported input, cache reads and
   * writes, the simulator's estimate for the same body, and for a request
   * that read less than it could the verdict, the provider's diagnosis
   * and (with `diagnostics`) the registration behind it; totals with the
   * hit ratio, writes, re-write factor and cost. With deferred tools sent
   * unloaded (SPEC §10.3), `deferred`: how many, how many the model found,
   * and the tokens (by `countTokens`) of the definitions not sent, per
   * request, summed. `rxprompt report FILE` prints the same from the
   * recording.
   */
  report(options: ConversationReportOptions): PromptCacheReport;
  /**
   * The summarizing request of the committed history (SPEC 10.2): the last
   * request's exact prefix (model, tools, system, cache key), marked only
   * where that request ended (a read, no write), then the provider's
   * compaction (Anthropic `compaction: { type: "summarize" }`, OpenAI
   * Responses a `compaction_trigger` item) or one instruction (Chat
   * Completions, the AI SDK: the answer's text is the summary). Refused
   * with a tool call open (`COMPACTION_OPEN_CALLS`) or a compaction not
   * yet swapped in (`COMPACTION_PENDING`).
   */
  compact(options?: CompactOptions): Promise<Compaction<Body, Answer>>;
  /**
   * Gives up the summarizing request asked for and not yet recorded: the
   * one `request()` returned for `compactAt` (the provider refused it: the
   * summary too long, a 400, a policy refusal), or a `compact()` waiting
   * for its answer (its `cancel()` does the same). Nothing is recorded; the
   * next `request()` sends the step on the whole history, with the
   * person's message or the results given meanwhile. The trigger does not
   * fire again at once: it fires after a later answer reaches `compactAt`
   * (the recording keeps no trace of the request: a conversation resumed
   * before that answer finds it due again, and asks again). Without it,
   * `request()` returns the same summarizing request, a retry, until its
   * answer is recorded. `NOTHING_PENDING` with nothing asked for, or with
   * an answer recorded and waiting to be swapped in;
   * `CONVERSATION_BUSY` while `request()` or `compact()` builds a body.
   *
   * @example
   * ```ts
   * import type { Conversation } from "@rxprompt/system-prompt";
   *
   * // A step of a harness with compactAt whose summary the provider may
   * // refuse.
   * async function step(
   *   conv: Conversation<object, unknown, string, string, unknown>,
   *   send: (body: object) => Promise<unknown>,
   * ): Promise<void> {
   *   const body = await conv.request();
   *   const answer = await send(body).catch(async (refused) => {
   *     if (!conv.summarizing) throw refused;
   *     conv.cancelCompaction(); // the history goes on whole
   *     return await send(await conv.request());
   *   });
   *   conv.record(answer);
   * }
   * ```
   */
  cancelCompaction(): void;
  /**
   * A child conversation (a sub-agent) that starts from this one's committed
   * state: the same listed tools (its own differences go through the tool
   * change rules), the same `prompt_cache_key`, an empty history and a
   * session of its own. Its first request marks the end of the prefix it
   * shares with this conversation's last request (Anthropic), so sibling
   * forks read it. Pass the child's scope in its `request({ scope })`.
   */
  fork(options?: ConversationOptions): Conversation<
    Body,
    Answer,
    Input,
    Result,
    Message,
    C
  >;
}

/**
 * Options of {@linkcode Conversation.toolResult}.
 *
 * @example
 * ```ts
 * import type { ToolResultOptions } from "@rxprompt/system-prompt";
 *
 * const options: ToolResultOptions = { isError: true };
 * ```
 */
export interface ToolResultOptions {
  /** The call failed: the content says why. Default `false`. */
  isError?: boolean;
}
