/**
 * The conversation's pure steps outside its shell: the tools of the next
 * request (rebuilt or inline, SPEC 9.8 "Tool changes") and the committed
 * state a recording describes (SPEC 9.1 resume).
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { PromptAssembly } from "../types.ts";
import { checkDistinctCalls, deepFreeze } from "./checks.ts";
import { allowedWithDeferred } from "./deferred.ts";
import { pairCalls, pairWasActive } from "./tool_pair.ts";
import type { ParsedRecording, RecordingStep } from "./recording.ts";
import {
  compactedHistory,
  type PendingCompaction,
  swapCompaction,
  swappedCommitted,
} from "./compaction.ts";
import { type Committed, startOf } from "./state.ts";
import {
  declaredTools,
  type InlineToolStep,
  listedAssembly,
  type ListedTool,
  nextInlineToolSet,
  nextToolSet,
  type ToolSetStep,
} from "./tool_set.ts";
import type {
  ChangeMode,
  ConversationForm,
  FormAnswer,
  FormBuilder,
} from "./form.ts";
import { toldAfter, toldOf } from "./system_changes.ts";
import { declaredAfter } from "./build.ts";

/** The tools of the next request, and the assembly the form reads. */
export interface ToolStep {
  readonly tools: {
    readonly listed: readonly ListedTool[];
    readonly changed: boolean;
    readonly rebuild?: ToolSetStep;
    readonly inline?: InlineToolStep;
  };
  /** The step's assembly with the listed tools (and, rebuilt, the gates). */
  readonly listed: PromptAssembly;
  /** The names the model may call, when not every tool. */
  readonly allowed: string[] | undefined;
}

/**
 * How this request's tool changes go: `"auto"` is inline once the history
 * holds a bound block.
 */
export function toolMode(
  tools: ChangeMode | "auto",
  bound: boolean | undefined,
): ChangeMode {
  return tools === "auto" ? (bound === true ? "inline" : "rebuild") : tools;
}

/**
 * The next request's tools: rebuilt (the default) or, when the form takes
 * them inline, the first request's block with the changes beside it (a
 * conversation that goes inline after its first request starts from the
 * tools it listed last).
 */
export function toolStep(
  committed: Committed<unknown>,
  assembly: PromptAssembly,
  builder: {
    readonly toolChanges: ChangeMode;
    readonly redefine: "inline" | "rebuild";
  },
): ToolStep {
  if (builder.toolChanges !== "inline") {
    // Before the first step, only a fork has listed tools: its parent's.
    const rebuild = nextToolSet(committed.listed, assembly, {
      append: committed.steps === 0,
    });
    const listed = listedAssembly(assembly, rebuild);
    const allowed = allowedWithDeferred(listed.activeTools, assembly);
    // The active deferred names follow the listed ones, as in the
    // assembly: a form with a tool search of its own allows them.
    if (allowed !== undefined) listed.activeTools = allowed;
    return {
      tools: { listed: rebuild.listed, changed: rebuild.changed, rebuild },
      listed,
      allowed,
    };
  }
  const inline = nextInlineToolSet(
    committed.listed,
    committed.effective ??
      (committed.steps > 0 ? committed.listed : undefined),
    assembly,
    { redefine: builder.redefine, declared: committed.declared },
  );
  // A rest, not `delete`: an object a key was deleted from is read slowly.
  const { activeTools: _, toolStability: __, ...rest } = assembly;
  const listed: PromptAssembly = {
    ...rest,
    tools: inline.listed.map((tool) => tool.schema),
  };
  return {
    tools: { listed: inline.listed, changed: inline.listedChanged, inline },
    listed,
    // A found deferred tool is called as a listed one: allowed alike.
    allowed: allowedWithDeferred(inline.allowed, assembly),
  };
}

/**
 * The committed state a recording describes, checked as it is read, and
 * the tools its last step allowed.
 *
 * @throws {SystemPromptError} `RECORDING_DISCONTINUOUS`, `RECORDING_UNPARSABLE`
 */
export function replay<M>(
  parsed: ParsedRecording,
  form: {
    /** Reads an answer as the form does. */
    readonly read: (answer: unknown) => FormAnswer<M>;
    /** How tool changes go. */
    readonly tools: ChangeMode | "auto";
    /** The form lists the search-and-call pair (`tool_pair.ts`). */
    readonly pair?: boolean;
    /** The form and its builder, for the history a compaction starts. */
    readonly form: ConversationForm<M, unknown>;
    readonly builder: FormBuilder<M, unknown>;
  },
): {
  state: Committed<M>;
  allowed: string[] | undefined;
  compaction: PendingCompaction<M> | undefined;
} {
  let state: Committed<M> = startOf(parsed.header.fork, form.tools);
  // One store grows through the replay (each step appends its items): a
  // copy per step would make resume quadratic (a compaction starts
  // another).
  let history = state.history;
  let allowed: string[] | undefined;
  let compaction: PendingCompaction<M> | undefined;
  const swapped = (
    at: number,
    compacted: readonly M[],
    { summary, bound }: { summary?: boolean; bound?: boolean } = {},
  ): void => {
    state = swappedCommitted(
      { ...state, history },
      swapCompaction(form.form, summary),
      { at, history: compacted, bound },
      form.form,
    );
    history = state.history;
  };
  for (const step of parsed.steps) {
    if (step.swap !== undefined) {
      if (
        compaction?.history === undefined ||
        step.swap.at !== compaction.at ||
        step.swap.carried !== history.length - compaction.at
      ) {
        throw new SystemPromptError(
          "RECORDING_DISCONTINUOUS",
          `Step ${step.step} of the recording swaps in a compaction that ` +
            `the steps before it do not hold.`,
        );
      }
      swapped(compaction.at, compaction.history, {
        summary: compaction.request.summary,
      });
      compaction = undefined;
    }
    if (step.kind === "compaction") {
      compaction = replayedCompaction(step, history.length, form);
      state = {
        ...state,
        history,
        steps: step.step,
        head: JSON.stringify(step.head ?? {}),
      };
      continue;
    }
    if (step.at !== history.length) {
      throw new SystemPromptError(
        "RECORDING_DISCONTINUOUS",
        `Step ${step.step} of the recording starts at message ${step.at}, ` +
          `but the steps before it hold ${history.length} messages: ` +
          `its history does not continue its own earlier requests.`,
      );
    }
    let read;
    const head = step.head === undefined
      ? state.head
      : JSON.stringify(step.head);
    try {
      read = form.read(step.response);
      const told = step.inlineTools ?? state.effective;
      if (
        form.pair === true &&
        pairWasActive({ head, effective: told }, step.allowedTools)
      ) {
        read = { ...read, calls: pairCalls(read.calls) };
      }
      checkDistinctCalls(read.calls);
    } catch (error) {
      throw new SystemPromptError(
        "RECORDING_UNPARSABLE",
        `Step ${step.step} of the recording holds a response this ` +
          `conversation cannot read.`,
        { cause: error },
      );
    }
    const tail = (step.tail as M[]).map(deepFreeze);
    history = history.append(tail);
    const previousLength = history.length;
    history = history.append(read.messages.map(deepFreeze));
    const inline = toolMode(form.tools, state.bound) === "inline";
    const effective = step.inlineTools ??
      (inline
        ? state.effective ?? (state.steps === 0 ? step.tools : state.listed)
        : undefined);
    const told = step.headSections === undefined
      ? state.told
      : toldOf(step.headSections);
    state = {
      history,
      previousLength,
      runtimeText: step.runtimeContext ?? state.runtimeText,
      listed: step.tools ?? state.listed,
      effective,
      declared: declaredTools(state.declared, effective),
      declaredJson: declaredAfter(state.declaredJson, tail, form.form),
      calls: read.calls,
      steps: step.step,
      head,
      state: step.state ?? state.state,
      ...(told === undefined
        ? {}
        : { told: toldAfter(told, step.sectionChanges ?? []) }),
      bound: state.bound === true || read.bound === true,
      ...(step.effort ?? state.effort) === undefined
        ? {}
        : { effort: step.effort ?? state.effort },
    };
    if (read.compactedFrom !== undefined) {
      swapped(history.length, read.messages.slice(read.compactedFrom), {
        bound: read.bound,
      });
    }
    allowed = step.allowedTools;
  }
  return { state: { ...state, resumed: true }, allowed, compaction };
}

/** A recorded compaction, as replay holds it until its swap. */
function replayedCompaction<M>(
  step: RecordingStep,
  length: number,
  form: {
    readonly read: (answer: unknown) => FormAnswer<M>;
    readonly form: ConversationForm<M, unknown>;
    readonly builder: FormBuilder<M, unknown>;
  },
): PendingCompaction<M> {
  if (step.at > length) {
    throw new SystemPromptError(
      "RECORDING_DISCONTINUOUS",
      `Step ${step.step} of the recording compacts ${step.at} messages, ` +
        `but the steps before it hold ${length}.`,
    );
  }
  let compacted: M[];
  try {
    const derived = compactedHistory(form.form, form.builder, {
      read: form.read(step.response),
      instruction: step.tail as M[],
      summary: step.summary === true,
    });
    // The start as recorded: a form's start may have changed since (the AI
    // SDK's summary was one user message), and the recording's bytes stay.
    compacted = Array.isArray(step.start) ? step.start as M[] : derived;
  } catch (error) {
    throw new SystemPromptError(
      "RECORDING_UNPARSABLE",
      `Step ${step.step} of the recording holds a compaction this ` +
        `conversation cannot read.`,
      { cause: error },
    );
  }
  return {
    at: step.at,
    sentAt: 0,
    request: {
      body: undefined,
      tail: step.tail as M[],
      marks: step.marks,
      head: step.head ?? {},
      ...(step.summary === true ? { summary: true as const } : {}),
    },
    history: compacted.map(deepFreeze),
  };
}
