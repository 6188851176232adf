/**
 * The conversation's state: what is committed (everything the next
 * request's bytes depend on) and what a built request holds until it is
 * recorded. Plain data.
 *
 * @module
 */

import type { PromptExplanation } from "../explain/explanation.ts";
import type { ListedTool } from "./tool_set.ts";
import type { RecordingFork } from "./recording.ts";
import type { Awaiting, ToolCall } from "./types.ts";
import type { BuiltRequest } from "./build.ts";

/** The committed state: everything the next request's bytes depend on. */
export interface Committed<M> {
  readonly history: readonly M[];
  readonly previousLength: number;
  readonly runtimeText: string;
  readonly listed: readonly ListedTool[] | undefined;
  /** With inline tool changes: the tools the model has. */
  readonly effective: readonly ListedTool[] | undefined;
  /**
   * With inline tool changes: every tool the model was given, its latest
   * definition (a dropped tool it may get back).
   */
  readonly declared?: readonly ListedTool[];
  /** The calls of the last answer, in order. */
  readonly calls: readonly ToolCall[];
  readonly steps: number;
  readonly head: string | undefined;
  readonly state: Readonly<Record<string, unknown>>;
}

/** A body built and not yet recorded. */
export interface Built<M, Body> {
  readonly request: BuiltRequest<M, Body>;
  readonly personCount: number;
  readonly listed: readonly ListedTool[];
  readonly toolsChanged: boolean;
  readonly effective: readonly ListedTool[] | undefined;
  readonly effectiveChanged: boolean;
  readonly runtimeText: string;
  readonly sentUpdate: boolean;
  readonly allowed: string[] | undefined;
  readonly awaiting: Awaiting;
  /** With `diagnostics`: `explain()` of the step's assembly. */
  readonly explanation: PromptExplanation | undefined;
  /** When the body was built (ms, the conversation's clock). */
  readonly sentAt: number;
}

export const EMPTY_STATE: Committed<never> = {
  history: [],
  previousLength: 0,
  runtimeText: "",
  listed: undefined,
  effective: undefined,
  calls: [],
  steps: 0,
  head: undefined,
  state: {},
};

/** A conversation's committed state before its first step (a fork's start). */
export function startOf<M>(
  fork: RecordingFork | undefined,
  builder: { readonly toolChanges: "rebuild" | "inline" },
): Committed<M> {
  if (fork === undefined) return EMPTY_STATE;
  return {
    ...EMPTY_STATE,
    listed: fork.listed,
    effective: builder.toolChanges === "inline" ? fork.listed : undefined,
    state: fork.state,
  };
}
