/**
 * What `Conversation.compact()` takes and returns (SPEC 10.2), apart from
 * the conversation's other public types in `types.ts`.
 *
 * @module
 */

/**
 * Options of `Conversation.compact()`.
 *
 * @example
 * ```ts
 * import type { CompactOptions } from "@rxprompt/system-prompt";
 *
 * const options: CompactOptions = { instructions: "Keep every file name." };
 * ```
 */
export interface CompactOptions {
  /**
   * What the summary must keep: replaces the provider's summarizing prompt
   * (Anthropic `compaction.instructions`) or the client-side instruction
   * (Chat Completions, the AI SDK). OpenAI Responses' compaction takes
   * none.
   */
  instructions?: string;
  /**
   * OpenAI Responses: `"compact"` builds the body of
   * `client.responses.compact` (which takes no tools, so with tools it
   * reads nothing from the cache) instead of the default, a
   * `compaction_trigger` item on `client.responses.create`'s body.
   * Anthropic: `"summary"` asks for a client-side summary (one user
   * message, as Chat Completions does) instead of the API's compaction:
   * for a conversation the API will not compact (past the tools a
   * compaction block can record, `compaction_too_many_tool_references`).
   */
  via?: "compact" | "summary";
}

/**
 * A summarizing request (SPEC 10.2): send `body` as a step's body is sent
 * (Anthropic: `client.beta.messages.create`), then give its answer to
 * `record()`. Steps may go on meanwhile on the whole history (a
 * background compaction): the summary is swapped in at the first
 * `request()` with no tool call open, and the steps recorded since follow
 * it.
 *
 * @example
 * ```ts
 * import type { Compaction } from "@rxprompt/system-prompt";
 *
 * async function compactNow(
 *   compaction: Compaction<object, unknown>,
 *   send: (body: object) => Promise<unknown>,
 * ): Promise<void> {
 *   compaction.record(await send(compaction.body));
 * }
 * ```
 */
export interface Compaction<Body, Answer> {
  /** The summarizing request's whole body. */
  readonly body: Body;
  /** Records the answer; the summary is swapped in at the next turn boundary. */
  record(answer: Answer): void;
  /**
   * Gives the request up before its answer is recorded (the provider
   * refused it): nothing is recorded, the history goes on whole, and
   * `compact()` may be called again; as `cancelCompaction()` does, it
   * leaves `compactAt` due only after a later answer. `NOTHING_PENDING`
   * once recorded or given up.
   */
  cancel(): void;
}
