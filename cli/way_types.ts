/**
 * What a way is (`rxprompt simulate`, `bench:cache`): a function that
 * builds one step's request body in one provider form from the session's
 * step, with its own memory per thread and form.
 *
 * @module
 */

import type { PromptAssembly } from "../mod.ts";
import type {
  FormId,
  SessionMessage,
  SessionRequest,
} from "../adapters/cache/mod.ts";

/** What a way builds one step's request from. */
export interface WayInput {
  /** The form whose body to build (`"anthropic-messages"`, ...). */
  readonly form: FormId;
  /** The conversation the step belongs to. */
  readonly thread: string;
  readonly assembly: PromptAssembly;
  /** The same thread's previous assembly, if any. */
  readonly previous?: PromptAssembly;
  /**
   * The thread's conversation, oldest first, as plain text (tool calls and
   * results written into each turn's content).
   */
  readonly messages: readonly SessionMessage[];
  /** What the step returned (its messages with their tool rounds). */
  readonly request: SessionRequest;
  /** Sections the session's author knows to change during it. */
  readonly volatileSections: ReadonlySet<string>;
  /**
   * This way's own memory for this thread and form, kept across steps (for
   * example the conversation object).
   */
  readonly state: Record<string, unknown>;
  /** The harness restarted before this step (its saved state resumed). */
  readonly resumed?: boolean;
}

/**
 * Builds one step's request body; `undefined` for a form the way does not
 * build (the frozen ways predate Bedrock and Gemini).
 */
export type Way = (
  input: WayInput,
) =>
  | Record<string, unknown>
  | undefined
  | Promise<Record<string, unknown> | undefined>;
