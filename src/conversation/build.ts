/**
 * One request built (SPEC 9.1, 9.8): the form's tail joins the committed
 * history, the conversation's marks go on it (`marks.ts`), the form builds
 * the head within the marks left, a fork's first request marks the prefix
 * it shares with its parent, and the form puts the body together. Pure;
 * nothing is committed here.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { PromptAssembly } from "../types.ts";
import type {
  BodyExtras,
  ConversationForm,
  FormBuilder,
  FormHead,
  HeadInput,
  ToolResultInput,
} from "./form.ts";
import { type BuiltHead, headFrom } from "./head_memo.ts";
import type { History } from "./history.ts";
import { markBudget, markSharedPrefix, planHistoryMarks } from "./marks.ts";
import type { RecordingMark } from "./recording.ts";
import type { InlineToolChanges } from "./tool_set.ts";
import type { SectionChange } from "./system_changes.ts";
import { checkAppendOnly, type Previous } from "./append_only.ts";
import { sendsPair } from "./deferred.ts";
import { type KeptJson, writesSameJson } from "../shared/same_json.ts";
import type { Awaiting } from "./types.ts";

/** What one request is built from. */
export interface BuildInput<M> {
  /** The step's assembly with the listed tools and the active names. */
  readonly assembly: PromptAssembly;
  /** The committed history, marks removed (read, never copied but once). */
  readonly history: History<M>;
  /** The JSON of every tool the history's items declared. */
  readonly declared: ReadonlySet<string>;
  /** How many items the previous request had (0 before the first). */
  readonly previousLength: number;
  readonly results: readonly ToolResultInput[];
  readonly person: readonly unknown[];
  readonly update: string | undefined;
  readonly awaiting: Awaiting;
  readonly session: string;
  /** The form's own state, as committed (`{}` before the first request). */
  readonly state: Readonly<Record<string, unknown>>;
  readonly toolChanges?: InlineToolChanges;
  /** The sections changed since the model last read them, told inline. */
  readonly sectionChanges?: readonly SectionChange[];
  /** The turn's reminder to send after everything else. */
  readonly reminder?: string;
  /** The effort the head states (top-level). */
  readonly effort?: string;
  /** A new effort, set inline this request. */
  readonly effortChange?: string;
  /**
   * The request before this one, which this one must extend (SPEC 10.1);
   * absent on a conversation's first request.
   */
  readonly previous?: Previous<M>;
  /**
   * The previous request's head as recorded, its JSON kept: a head that
   * writes the same is neither written again nor compared key by key.
   */
  readonly kept?: KeptJson;
  /**
   * The previous request's head as the form built it, and what from: the
   * form builds it again only from other inputs (`head_memo.ts`).
   */
  readonly lastHead?: BuiltHead;
  /** The head `kept` is of, when it is a form's frozen head itself. */
  readonly keptOf?: object;
  /** A fork's first request: its parent's last head, whose prefix it marks. */
  readonly sharedWith?: Readonly<Record<string, unknown>>;
  /** A fork's: the texts of its parent's last system parts. */
  readonly parentSystem?: readonly string[];
  readonly diagnostics?: BodyExtras["diagnostics"];
}

/** One request as built. */
export interface BuiltRequest<M, Body> {
  /** The whole body to send. */
  readonly body: Body;
  /** The items this request adds to the history, marks removed. */
  readonly tail: M[];
  /** The marks placed on the request's items. */
  readonly marks: RecordingMark[];
  /** The body without its history (what the recording keeps on change). */
  readonly head: Record<string, unknown>;
  /** The form's state after this request. */
  readonly state: Record<string, unknown>;
  /** The JSON of every tool declared once the tail is committed. */
  readonly declared: ReadonlySet<string>;
  /** The head as the form built it (what a compaction sends again). */
  readonly formHead: FormHead;
  /**
   * The head's keys the append-only check compared, their JSON without
   * marks (the next check's `checked`); not after a `settle`, which may
   * change the head.
   */
  readonly checked?: ReadonlyMap<string, string>;
  /**
   * The previous head's JSON kept, when this head writes the same (the
   * step's usual case); not after a `settle`, which may change the head.
   */
  readonly kept?: KeptJson;
  /** The head as the form built it, and what from (the next `lastHead`). */
  readonly builtHead: BuiltHead;
  /** What the body was put together from (for `settleRequest`). */
  readonly parts: {
    readonly head: FormHead;
    readonly items: M[];
    readonly extras: BodyExtras<M>;
  };
}

/**
 * Builds one request of `form`'s conversation with `builder`'s options.
 *
 * @throws {SystemPromptError} `NOTHING_TO_SEND` before the person's first
 * message; what the form's adapter throws for the assembly
 */
export function buildRequest<M, Body>(
  form: ConversationForm<M, Body>,
  builder: FormBuilder<M, Body>,
  input: BuildInput<M>,
): BuiltRequest<M, Body> {
  const tail = builder.tail({
    results: input.results,
    person: input.person,
    update: input.update,
    declared: input.declared,
    history: input.history,
    assembly: input.assembly,
    ...(input.toolChanges === undefined
      ? {}
      : { toolChanges: input.toolChanges }),
    ...(input.sectionChanges === undefined || input.sectionChanges.length === 0
      ? {}
      : { sectionChanges: input.sectionChanges }),
    ...(input.reminder === undefined ? {} : { reminder: input.reminder }),
    ...(input.effortChange === undefined ? {} : { effort: input.effortChange }),
  });
  const history = input.history;
  if (history.length + tail.length === 0) {
    throw new SystemPromptError(
      "NOTHING_TO_SEND",
      `The conversation has nothing to send yet: give the person's message ` +
        `with user(text) before the first request().`,
    );
  }
  const mark = builder.markFor(input.awaiting);
  const marks = builder.rules.marks;
  // The marks are planned on the history and the tail read in place: the
  // body's list below is the request's one copy of the history.
  const marked = planHistoryMarks(
    {
      length: history.length + tail.length,
      at: (index) =>
        index < history.length
          ? history.at(index)
          : tail[index - history.length],
    },
    input.previousLength,
    mark,
    marks?.lookbackBlocks ?? 0,
    form.marks,
  );
  const budget = markBudget(
    marks?.limit,
    marked.marks.length,
    builder.prefixLimit,
  );
  // The head never holds the runtime context (the tail tells it): a change
  // of it alone builds no head again.
  const { runtimeContext: _, ...headAssembly } = input.assembly;
  const headInput: HeadInput = {
    assembly: headAssembly,
    awaiting: input.awaiting,
    session: input.session,
    state: input.state,
    prefixBudget: budget.prefix,
    ...(input.toolChanges === undefined
      ? {}
      : { toolChanges: input.toolChanges }),
    ...(input.parentSystem === undefined
      ? {}
      : { parentSystem: input.parentSystem }),
    ...(input.reminder === undefined ? {} : { reminder: input.reminder }),
    ...(input.effort === undefined ? {} : { effort: input.effort }),
    ...(input.effortChange === undefined
      ? {}
      : { effortChange: input.effortChange }),
  };
  const builtHead = headFrom(builder, headInput, input.lastHead);
  let head = builtHead.head;
  if (
    input.sharedWith !== undefined && mark !== undefined &&
    form.prefix !== undefined
  ) {
    head = markSharedPrefix(head, head.recorded, input.sharedWith, {
      mark,
      limit: budget.fork,
    }, form.prefix);
  }
  // The last head itself (frozen) writes its kept JSON.
  const kept = input.kept !== undefined &&
      (head.recorded === input.keptOf ||
        writesSameJson(head.recorded, input.kept))
    ? input.kept
    : undefined;
  const checked = input.previous === undefined
    ? undefined
    : checkAppendOnly(input.previous, {
      head: head.recorded,
      history,
      placed: marked.placed,
      sameHead: kept !== undefined,
      ...(sendsPair(form, builder)
        ? {}
        : { deferred: input.assembly.deferredTools ?? [] }),
      ...(builder.rules.marks === undefined
        ? {}
        : { markName: builder.rules.marks.name }),
    });
  const leading = builder.leading?.(head) ?? [];
  const extras: BodyExtras<M> = {
    ...(input.diagnostics === undefined
      ? {}
      : { diagnostics: input.diagnostics }),
    holds: (test: (item: M) => boolean) =>
      history.holds(test) || leading.some(test) || tail.some(test),
  };
  const items = history.sendList(
    leading,
    tail,
    marked.placed,
  ) as M[];
  const body = builder.body(head, items, extras);
  return {
    body,
    tail,
    marks: marked.marks,
    head: head.recorded,
    state: head.state,
    declared: declaredAfter(input.declared, tail, form),
    formHead: head,
    ...(checked === undefined || checked.size === 0 ? {} : { checked }),
    ...(kept === undefined ? {} : { kept }),
    builtHead,
    parts: { head, items, extras },
  };
}

/**
 * A built request after the form's `settle` (at the conversation's clock
 * `now`): its head, state and body as settled; the request itself when
 * the form has none.
 */
export async function settleRequest<M, Body>(
  builder: FormBuilder<M, Body>,
  built: BuiltRequest<M, Body>,
  now: number,
): Promise<BuiltRequest<M, Body>> {
  if (builder.settle === undefined) return built;
  const head = await builder.settle(built.parts.head, now);
  const { checked: _, kept: __, ...unsettled } = built;
  return {
    ...unsettled,
    body: builder.body(head, built.parts.items, built.parts.extras),
    head: head.recorded,
    state: head.state,
    formHead: head,
    parts: { ...built.parts, head },
  };
}

/**
 * `declared` with the tools `items` declare (the form's `declares`): the
 * same set when they declare none, else a new one (older states keep
 * theirs). O(items), and the set's size when it grows.
 */
export function declaredAfter<M>(
  declared: ReadonlySet<string>,
  items: readonly M[],
  form: Pick<ConversationForm<M, unknown>, "declares">,
): ReadonlySet<string> {
  if (form.declares === undefined) return declared;
  let grown: Set<string> | undefined;
  for (const item of items) {
    for (const json of form.declares(item)) {
      if (declared.has(json) || grown?.has(json)) continue;
      grown ??= new Set(declared);
      grown.add(json);
    }
  }
  return grown ?? declared;
}
