/**
 * What a step tells the model besides its inputs (SPEC 10.1): the sections
 * changed since the model last read them (the head keeps the first ones),
 * the effort (top-level first, then inline), and the runtime context that
 * holds for one turn. Pure; the shell commits what they return.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { PromptAssembly, ToolSchema } from "../types.ts";
import { renderRuntimeContext } from "../render/prompt.ts";
import type { ChangeMode, FormBuilder } from "./form.ts";
import type { Built, Committed } from "./state.ts";
import type { BuildInput } from "./build.ts";
import { toolMode, type ToolStep, toolStep } from "./replay.ts";
import { rewriteIsShorter } from "./compaction_head.ts";
import { holdsSameData } from "./same_data.ts";
import {
  keepJson,
  type KeptJson,
  writesSameJsonList,
} from "../shared/same_json.ts";
import {
  heldAssembly,
  type HeldSection,
  heldSections,
  type SectionChange,
  sectionChanges,
  type Told,
  toldAfter,
  toldOf,
} from "./system_changes.ts";

/** A step's sections: the head's assembly and what goes in the tail. */
export interface StepSections {
  /** The assembly the head is built of. */
  readonly assembly: PromptAssembly;
  /** The changes the tail tells. */
  readonly changes: SectionChange[];
  /** What the model knows once the step is sent (sections inline). */
  readonly told?: Told;
  /** The sections the head is first built of (recorded). */
  readonly head?: HeldSection[];
  /** Whether the head's system prompt must equal the previous one. */
  readonly kept: boolean;
}

/**
 * The step's sections: with sections inline after the first request, the
 * head keeps the sections the model was first given and the changes since
 * go in the tail; else the assembly's own. Right after a compaction the
 * head is built again of the assembly's when that sends fewer bytes than
 * restating the changes (`compaction_head.ts`), unless the compaction's start
 * holds a block bound to the head (the provider's, answered in a step that
 * then thought).
 */
export function stepSections(
  assembly: PromptAssembly,
  mode: ChangeMode,
  { told, compacted, boundStart, parentHead }: Pick<
    Committed<unknown>,
    "told" | "compacted" | "boundStart" | "parentHead"
  >,
): StepSections {
  if (mode !== "inline") return { assembly, changes: [], kept: false };
  const now = heldSections(assembly);
  if (told === undefined && parentHead !== undefined) {
    return forkSections(assembly, now, parentHead);
  }
  if (
    told === undefined ||
    (compacted === true && boundStart !== true &&
      rewriteIsShorter(
        told.head,
        now,
        sectionChanges(told, now),
      ))
  ) {
    // The first request (or the first after a 0.4 recording, or after a
    // compaction whose restatement would cost more): the head is built of
    // these.
    return {
      assembly,
      changes: [],
      told: toldOf(now),
      head: now,
      kept: false,
    };
  }
  const changes = sectionChanges(told, now);
  return {
    assembly: heldAssembly(assembly, told.head),
    changes,
    told: toldAfter(told, changes),
    kept: true,
  };
}

/**
 * A fork's first request: the sections it shares with its parent's head as
 * that head has them, so its system prompt starts as the parent's does,
 * byte for byte, and reads the parent's cache; the changes since are told
 * as the parent tells them. As after a compaction, the head is built of
 * the assembly's own sections instead when restating the changes would
 * send at least as many characters as rewriting from the first changed
 * section.
 */
function forkSections(
  assembly: PromptAssembly,
  now: HeldSection[],
  parentHead: readonly HeldSection[],
): StepSections {
  const parent = new Map(parentHead.map((section) => [section.name, section]));
  const head = now.map((section) => parent.get(section.name) ?? section);
  const changes = sectionChanges(toldOf(head), now);
  if (
    changes.length === 0 || rewriteIsShorter(head, now, changes)
  ) {
    return { assembly, changes: [], told: toldOf(now), head: now, kept: false };
  }
  return {
    assembly: heldAssembly(assembly, head),
    changes,
    told: toldAfter(toldOf(head), changes),
    head,
    kept: false,
  };
}

/**
 * The runtime-context update's text and the turn's reminder: with
 * `reminders`, the entries that hold for a turn are left out of the update
 * and rendered on their own.
 */
export function turnReminder(
  assembly: PromptAssembly,
  reminders: boolean,
): { runtimeText: string; reminderText: string } {
  const entries = assembly.runtimeContext ?? [];
  const turn = reminders
    ? entries.filter((entry) => entry.holds === "turn")
    : [];
  if (turn.length === 0) {
    return { runtimeText: renderRuntimeContext(assembly), reminderText: "" };
  }
  return {
    runtimeText: renderRuntimeContext({
      ...assembly,
      runtimeContext: entries.filter((entry) => entry.holds !== "turn"),
    }),
    reminderText: renderRuntimeContext({ ...assembly, runtimeContext: turn }),
  };
}

/**
 * The effort of the next request: what the head states and what the model
 * was told last. The first request, and a rebuild, state it top-level;
 * inline, a change goes in the tail and the head keeps its own. A request
 * that gives none keeps the last.
 */
export function nextEffort(
  committed: Pick<Committed<unknown>, "effort" | "steps" | "compacted">,
  given: string | undefined,
  mode: ChangeMode,
): { head?: string; told: string; change?: string } | undefined {
  const before = committed.effort;
  const told = given ?? before?.told;
  if (told === undefined) return undefined;
  if (committed.steps === 0 || mode === "rebuild") return { head: told, told };
  // After a compaction the model knows the head's effort only: a change
  // told inline went with the summarized messages.
  const known = committed.compacted === true ? before?.head : before?.told;
  return {
    ...(before?.head === undefined ? {} : { head: before.head }),
    told,
    ...(told === known ? {} : { change: told }),
  };
}

const EFFORTS = ["low", "medium", "high", "xhigh", "max"];

/**
 * `request()`'s `output` option, checked: its effort.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for another shape, or on a
 * form that takes none
 */
export function readEffort(
  output: unknown,
  form: string,
  { takes }: { readonly takes: boolean },
): string | undefined {
  if (output === undefined) return undefined;
  if (!takes) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `request()'s output is not taken by ${form}'s conversations yet; ` +
        `set the effort on the call itself.`,
    );
  }
  const effort = typeof output === "object" && output !== null
    ? (output as { effort?: unknown }).effort
    : undefined;
  if (
    typeof output !== "object" || output === null ||
    (effort !== undefined && !EFFORTS.includes(effort as string))
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `request()'s output is ${JSON.stringify(output) ?? String(output)}; ` +
        `it must be { effort?: ${
          EFFORTS.map((name) => `"${name}"`).join(" | ")
        } }.`,
    );
  }
  return effort as string | undefined;
}

/** What a step sends besides its inputs, planned from the committed state. */
export interface StepPlan {
  /** How this step's tool changes go. */
  readonly mode: ChangeMode;
  /** The step's tools and the assembly with them. */
  readonly step: ToolStep;
  readonly sections: StepSections;
  readonly effort: { head?: string; told: string; change?: string } | undefined;
  /** The runtime-context update's text (a turn's reminder left out). */
  readonly runtimeText: string;
  /** The turn's reminder, `""` for none. */
  readonly reminderText: string;
  /**
   * Whether the request is checked against the previous one: a form that
   * rebuilds every kind (no inline form yet) is not.
   */
  readonly checked: boolean;
  /** What the plan was made from: the next step's is made again if other. */
  readonly from: PlanInputs;
  /**
   * The JSON of the assembly's tools it was made from (see
   * `PlanInputs.assembly`).
   */
  readonly tools: readonly KeptJson[];
}

/** What a step's plan is made from (its effort aside). */
interface PlanInputs {
  readonly first: boolean;
  /**
   * What changes most often, compared first (a step's runtime context or a
   * volatile variable changed: the rest is not walked for nothing).
   */
  readonly volatile: readonly unknown[];
  /**
   * The assembly, its tools aside: the plan reads them as the JSON they
   * send (`StepPlan.tools`), and the registry copies them afresh for each
   * assembly, so they are compared with their kept JSON, the comparison
   * compiled (half the in-place comparison's time), before the rest.
   */
  readonly assembly: Omit<PromptAssembly, "tools">;
  readonly committed: Pick<
    Committed<unknown>,
    | "listed"
    | "effective"
    | "declared"
    | "told"
    | "bound"
    | "compacted"
    | "boundStart"
    | "parentHead"
  >;
}

/** The step's tools, sections, effort and reminder (SPEC 10.1). */
export function stepPlan(
  committed: Committed<unknown>,
  assembly: PromptAssembly,
  builder: Pick<
    FormBuilder<unknown, unknown>,
    "changes" | "redefine" | "turnReminders"
  >,
  given: string | undefined,
): StepPlan {
  const { changes } = builder;
  const { tools: assembledTools, ...assemblyRest } = assembly;
  const from: PlanInputs = {
    first: committed.steps === 0,
    volatile: [assembly.runtimeContext, assembly.variables],
    assembly: assemblyRest,
    committed: {
      listed: committed.listed,
      effective: committed.effective,
      declared: committed.declared,
      told: committed.told,
      bound: committed.bound,
      compacted: committed.compacted,
      boundStart: committed.boundStart,
      parentHead: committed.parentHead,
    },
  };
  const effort = nextEffort(
    committed,
    given,
    toolMode(changes.output, committed.bound),
  );
  // Only stepPlan makes the plans a state keeps.
  const last = committed.lastPlan as StepPlan | undefined;
  // The tools first: a step whose runtime context changes (a clock) keeps
  // their JSON rather than writing it again.
  const sameTools = last !== undefined &&
    sameToolJson(assembledTools, last.tools);
  // The same assembly and committed tools and sections: the same plan.
  if (sameTools && holdsSameData(from, last.from)) {
    return { ...last, effort, from };
  }
  // Before the tool set compares them: its error names the tool.
  const tools = sameTools ? last.tools : toolJson(assembledTools);
  const mode = toolMode(changes.tools, committed.bound);
  const step = toolStep(committed, assembly, {
    toolChanges: mode,
    redefine: builder.redefine,
  });
  // A turn's reminder needs a beta: never with a tools block typed as
  // generally available.
  const { runtimeText, reminderText } = turnReminder(
    assembly,
    builder.turnReminders === true && changes.tools !== "rebuild",
  );
  return {
    mode,
    step,
    sections: stepSections(step.listed, changes.sections, committed),
    effort,
    runtimeText,
    reminderText,
    checked: changes.sections === "inline" || changes.tools !== "rebuild" ||
      changes.output !== "rebuild",
    from,
    tools,
  };
}

/**
 * Each tool's JSON kept, or `INVALID_ASSEMBLY` naming the first tool JSON
 * cannot write (a listener's `BigInt`, a cycle): its body could not be sent.
 */
function toolJson(tools: readonly ToolSchema[]): KeptJson[] {
  return tools.map((tool) => {
    try {
      return keepJson(tool);
    } catch (error) {
      throw new SystemPromptError(
        "INVALID_ASSEMBLY",
        `The conversation's prompt gave tool ${
          JSON.stringify(String(tool?.name))
        }, which JSON cannot write (${
          error instanceof Error ? error.message : String(error)
        }); a tool definition is JSON data: plain objects, arrays, strings, ` +
          `finite numbers, booleans and null.`,
        { cause: error },
      );
    }
  });
}

/** Whether `tools` write `kept`; `INVALID_ASSEMBLY` as `toolJson` throws. */
function sameToolJson(
  tools: readonly ToolSchema[],
  kept: readonly KeptJson[],
): boolean {
  try {
    return writesSameJsonList(tools, kept);
  } catch (error) {
    toolJson(tools);
    throw error;
  }
}

/**
 * The request's fields of a plan (`BuildInput`): the changes told, the
 * effort, the reminder (sent with every new user message: a tool result
 * clears it too) and the request it must extend.
 */
export function buildFields<M>(
  plan: StepPlan,
  committed: Committed<M>,
  newUserMessage: boolean,
): Pick<
  BuildInput<M>,
  | "sectionChanges"
  | "effort"
  | "effortChange"
  | "reminder"
  | "previous"
  | "kept"
  | "keptOf"
  | "lastHead"
> {
  const { sections, effort } = plan;
  const { kept, keptOf, lastHead } = committed;
  return {
    ...(kept !== undefined && kept.json === committed.head
      ? { kept, ...(keptOf === undefined ? {} : { keptOf }) }
      : {}),
    ...(lastHead === undefined ? {} : { lastHead }),
    sectionChanges: sections.changes,
    ...(effort?.head === undefined ? {} : { effort: effort.head }),
    ...(effort?.change === undefined ? {} : { effortChange: effort.change }),
    ...(plan.reminderText !== "" && newUserMessage
      ? { reminder: plan.reminderText }
      : {}),
    ...(!plan.checked || committed.steps === 0 ||
        committed.head === undefined
      ? {}
      : {
        previous: {
          head: committed.head,
          history: committed.history,
          deferred: (committed.lastPlan as StepPlan | undefined)?.from.assembly
            .deferredTools ?? [],
          ...(committed.checked === undefined
            ? {}
            : { checked: committed.checked }),
          keys: committed.resumed === true ? [] : [
            ...(sections.kept ? ["system"] : []),
            ...(plan.mode === "inline" && !plan.step.tools.changed
              ? ["tools"]
              : []),
          ],
        },
      }),
  };
}

/** What a built request keeps of a plan until it is recorded. */
export function builtFields(
  plan: StepPlan,
): Pick<
  Built<unknown, unknown>,
  "told" | "effort" | "headSections" | "sectionChanges" | "plan"
> {
  const { sections, effort } = plan;
  return {
    plan,
    ...(sections.told === undefined ? {} : { told: sections.told }),
    ...(effort === undefined ? {} : {
      effort: {
        ...(effort.head === undefined ? {} : { head: effort.head }),
        told: effort.told,
      },
    }),
    ...(sections.head === undefined ? {} : { headSections: sections.head }),
    ...(sections.changes.length === 0
      ? {}
      : { sectionChanges: sections.changes }),
  };
}
