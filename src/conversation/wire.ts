/**
 * What a provider's form of the conversation supplies (adapters/): the
 * whole request body of one step from the provider-neutral state, and
 * the reading of that provider's answers. Pure functions; the shell
 * (`conversation.ts`) holds the state.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";
import type { InlineToolChanges } from "./tool_set.ts";

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
}

/** One tool result given for a call, in the order of the calls. */
export interface WireResult {
  readonly id: string;
  readonly name: string;
  /** The result's content, as the wire checked it. */
  readonly content: unknown;
  readonly isError: boolean;
}

/**
 * A cache mark the conversation placed on one request's messages (in a
 * recording's step).
 *
 * @example
 * ```ts
 * import type { WireMark } from "@rxprompt/system-prompt";
 *
 * const mark: WireMark = { message: 2, block: 0, mark: { type: "ephemeral" } };
 * ```
 */
export interface WireMark {
  /** The index of the message in the body's message list. */
  readonly message: number;
  /** The index of the block (content part) in that message. */
  readonly block: number;
  /** The mark itself, as sent. */
  readonly mark: unknown;
}

/** What a wire builds one request from. */
export interface WireBuild<M> {
  /** The step's assembly with the listed tools and the active names. */
  readonly assembly: PromptAssembly;
  /** The committed history, marks removed. */
  readonly history: readonly M[];
  /** How many messages the previous request had (0 before the first). */
  readonly previousLength: number;
  /** The results of the last answer's calls, in the order of the calls. */
  readonly results: readonly WireResult[];
  /** The person's inputs given since the last request, in order. */
  readonly person: readonly unknown[];
  /** The runtime-context update to send after the last item, if any. */
  readonly update: string | undefined;
  readonly awaiting: Awaiting;
  /** The conversation's session id. */
  readonly session: string;
  /** The wire's own state, as committed (`{}` before the first request). */
  readonly state: Readonly<Record<string, unknown>>;
  /** With inline tool changes: what this request tells the model. */
  readonly toolChanges?: InlineToolChanges;
  /**
   * A fork's first request: its parent's last head, whose shared prefix
   * the request marks.
   */
  readonly sharedWith?: Readonly<Record<string, unknown>>;
  /**
   * Every request of a fork: the texts of its parent's last system parts,
   * which `assembly`'s sections are laid out on (`forkLayout`). The wire
   * ends each shared part where the parent's ended, the separator after
   * it included or not.
   */
  readonly parentSystem?: readonly string[];
  /**
   * With the `diagnostics` option: ask the provider to compare this
   * request with the response `previous` names (`null` on the first
   * request: opt in without one). A wire whose API has no diagnosis
   * ignores it; it goes in the body only, never in the head.
   */
  readonly diagnostics?: { readonly previous: string | null };
}

/** One request as a wire built it. */
export interface WireBuilt<M, Body> {
  /** The whole body to send. */
  readonly body: Body;
  /** The messages this request adds to the history, marks removed. */
  readonly tail: M[];
  /** The marks placed on the request's messages. */
  readonly marks: WireMark[];
  /** The body without its history (what the recording keeps on change). */
  readonly head: Record<string, unknown>;
  /** The wire's state after this request (saved with it). */
  readonly state: Record<string, unknown>;
}

/** An answer as a wire read it. */
export interface WireAnswer<M> {
  /** The messages the answer adds to the history (kept verbatim). */
  readonly messages: M[];
  /** The tool calls it asks for, in order. */
  readonly calls: ToolCall[];
  /** The usage the provider reported, as given (or `null`). */
  readonly usage: unknown;
}

/** A provider's form of the conversation. */
export interface ConversationWire<M, Body> {
  /** The provider's name in recordings, e.g. `"anthropic-messages"`. */
  readonly provider: string;
  /** Tool-set changes go into the conversation (`toolChanges: "inline"`). */
  readonly inlineToolChanges?: boolean;
  /**
   * With inline changes, how a changed definition goes: `"inline"` (the
   * default: a removal and an addition) or `"rebuild"` (the tools block).
   */
  readonly inlineRedefine?: "inline" | "rebuild";
  /** The options saved in a recording's header (plain JSON). */
  readonly options: Record<string, unknown>;
  /** Builds one request's body. */
  build(input: WireBuild<M>): WireBuilt<M, Body>;
  /** Reads an answer; a `SystemPromptError` for anything else. */
  read(response: unknown): WireAnswer<M>;
  /**
   * The texts of a head's system parts, in order (`[]` for a head of
   * another shape): what a fork lays its system prompt out on.
   */
  systemTexts(head: Readonly<Record<string, unknown>>): string[];
  /** Checks and copies a person's input (string or blocks). */
  personInput(input: unknown): unknown[];
  /** Checks and copies a tool result's content. */
  resultContent(content: unknown, id: string): unknown;
  /**
   * What a recording keeps of an answer (plain JSON that `read` reads back);
   * default: the answer copied through JSON.
   */
  recordOf?(answer: unknown): unknown;
}
