/**
 * The section kind: ordered text, unique by name per layer; a nearer layer's
 * section shadows a farther one's of the same name.
 *
 * @module
 */

import { compareCodeUnits } from "../shared/util.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import type { SectionTerms } from "../budget/prune.ts";
import {
  type Kind,
  type KindBuildOptions,
  type KindLayer,
  type Provenance,
  type RecordBase,
  visibleByName,
} from "./kind.ts";
import { isLive } from "./live.ts";
import {
  type BuiltStability,
  type OwnStability,
  ownStability,
  rankOf,
  referenceRank,
  STABILITIES,
  type StabilityRank,
  type VariableStabilities,
} from "./stability.ts";
import {
  type EntryText,
  type EntryWords,
  readTextEntry,
  resolveTextEntry,
} from "./text_entry.ts";

/** A registered section, as stored in a layer. */
export interface SectionRecord extends RecordBase {
  readonly name: string;
  readonly order: number;
  readonly text: EntryText;
  readonly cacheBreakpoint?: true;
  readonly complete?: true;
  /** Its own stability (explicit or default) and why. */
  readonly stability: OwnStability;
  /** Under a token budget: kept longer when higher (absent = 0). */
  readonly priority?: number;
  /** Under a token budget: never pruned. */
  readonly required?: true;
}

/** Render order of sections: ascending `order`, then code-unit `name`. */
export function compareSections(
  a: { readonly order: number; readonly name: string },
  b: { readonly order: number; readonly name: string },
): number {
  if (a.order !== b.order) return a.order - b.order;
  return compareCodeUnits(a.name, b.name);
}

/** The section kind; a layer keeps its sections in render order. */
export const sectionKind: Kind<SectionRecord> = {
  change: "section",
  unique: { code: "DUPLICATE_SECTION", noun: "Section" },
  record: toSectionRecord,
  compare: compareSections,
  build: buildSections,
};

const SECTION_WORDS: EntryWords = {
  noun: "section",
  unreadable: `Reading a section's fields threw; a section is an object ` +
    `{ name, order, text } whose fields can be read.`,
  orderHint: ` (bands: -100 identity, 0 persona, 100–199 tool guidance)`,
  leftOut: "the section",
};

function toSectionRecord(
  section: unknown,
  { label, sequence, scoped }: Provenance,
): SectionRecord {
  const {
    name,
    order,
    text,
    cacheBreakpoint,
    complete,
    stability,
    priority,
    required,
  } = readTextEntry(section, SECTION_WORDS, [
    "cacheBreakpoint",
    "complete",
    "stability",
    "priority",
    "required",
  ]);
  const record: Record<string, unknown> = {
    name,
    order,
    text,
    label,
    sequence,
    stability: ownStability(stability, {
      live: isLive(text),
      scoped,
      code: "INVALID_SECTION",
      what: () => `section ${quote(name)} of registrar ${quote(label)}`,
    }),
  };
  if (optionalFlag(name, "cacheBreakpoint", cacheBreakpoint)) {
    record.cacheBreakpoint = true;
  }
  if (optionalFlag(name, "complete", complete)) record.complete = true;
  if (optionalFlag(name, "required", required)) record.required = true;
  if (priority !== undefined && priority !== 0) {
    record.priority = checkPriority(name, priority);
  }
  return record as unknown as SectionRecord;
}

function raise(section: AssembledSection, rank: StabilityRank): void {
  const own = section.stability === undefined ? 0 : rankOf(section.stability);
  if (rank > own) {
    section.stability = STABILITIES[rank] as "agent" | "volatile";
  }
}

/** Per plan: the variables last asked about and the static texts' ranks. */
const raisesByPlan = new WeakMap<
  SectionPlan,
  { variables: VariableStabilities } & StaticRaises
>();

/**
 * The static texts' ranks by index (0: none), and each section's stability
 * (its own, raised by its static text's variables; `undefined` when stable),
 * or `undefined` when every section is stable.
 */
interface StaticRaises {
  readonly ranks: Uint8Array;
  readonly stabilities:
    | readonly ("agent" | "volatile" | undefined)[]
    | undefined;
}

/** The static texts' ranks and the sections' stabilities, per plan. */
function staticRaises(
  plan: SectionPlan,
  records: readonly SectionRecord[],
  variables: VariableStabilities,
): StaticRaises {
  const memo = raisesByPlan.get(plan);
  if (memo !== undefined && memo.variables === variables) return memo;
  const ranks = new Uint8Array(plan.texts.length);
  let stabilities: ("agent" | "volatile" | undefined)[] | undefined;
  plan.texts.forEach((text, index) => {
    const own = rankOf(records[index].stability.stability) as StabilityRank;
    const referenced = typeof text === "string"
      ? referenceRank(text, variables)
      : 0;
    ranks[index] = referenced;
    const rank = Math.max(own, referenced);
    if (rank > 0) {
      stabilities ??= new Array(plan.texts.length).fill(undefined);
      stabilities[index] = STABILITIES[rank] as "agent" | "volatile";
    }
  });
  const computed = { variables, ranks, stabilities };
  raisesByPlan.set(plan, computed);
  return computed;
}

/** A section's `priority`: a finite number, else `INVALID_SECTION`. */
function checkPriority(name: string, priority: unknown): number {
  if (typeof priority === "number" && Number.isFinite(priority)) {
    return priority;
  }
  throw new SystemPromptError(
    "INVALID_SECTION",
    `Section ${quote(name)} has priority ${quote(priority)}; a priority is ` +
      `a finite number (higher is kept longer under a token budget; ` +
      `default 0), or left out.`,
  );
}

/** Whether an optional boolean flag is set; anything but a boolean throws. */
function optionalFlag(name: string, key: string, value: unknown): boolean {
  if (value === undefined || typeof value === "boolean") return value === true;
  throw new SystemPromptError(
    "INVALID_SECTION",
    `Section ${quote(name)} has ${key} ${quote(value)}; ${key} must be a ` +
      `boolean, or left out.`,
  );
}

/** Merges the layers' sorted sections, nearer names shadowing farther ones. */
function buildSections(
  layers: readonly KindLayer<SectionRecord>[],
  context: unknown,
  draft: PromptAssembly,
  { notes }: KindBuildOptions,
): void {
  const records = visibleByName(layers, compareSections);
  if (records.length === 0) {
    draft.sections = [];
    return;
  }
  const plan = planOf(records);
  const { names, orders, texts } = plan;
  const variables = notes.variables;
  const raised = variables === undefined
    ? undefined
    : staticRaises(plan, records, variables);
  // Built with their stability key: adding it later costs a store each.
  const stabilities = raised === undefined
    ? plan.ownStabilities
    : raised.stabilities;
  const sections: AssembledSection[] = new Array(records.length);
  for (let index = 0; index < sections.length; index++) {
    // A dynamic text is resolved below, in order.
    const stability = stabilities?.[index];
    sections[index] = stability === undefined
      ? {
        name: names[index],
        order: orders[index],
        text: texts[index] as string,
      }
      : {
        name: names[index],
        order: orders[index],
        text: texts[index] as string,
        stability,
      };
  }
  // What the build wrote, by index: the static stabilities, shared while
  // the plan and variables last, copied only to add the dynamic ones.
  let written = stabilities;
  for (const index of plan.dynamic) {
    const section = resolveTextEntry(records[index], context, SECTION_WORDS);
    const own = records[index].stability.stability;
    if (own !== "stable") section.stability = own;
    if (variables !== undefined) {
      raise(section, referenceRank(section.text, variables));
      if (section.stability !== written?.[index]) {
        if (written === stabilities) {
          written = stabilities?.slice() ??
            new Array<BuiltStability>(sections.length).fill(undefined);
        }
        (written as BuiltStability[])[index] = section.stability;
      }
    }
    sections[index] = section;
  }
  for (const index of plan.breakpoints) sections[index].cacheBreakpoint = true;
  if (raised !== undefined) {
    notes.builtTexts = {
      sections,
      texts: plan.texts,
      ranks: raised.ranks,
      names: plan.names,
      own: plan.ownStabilities,
      written,
    };
  }
  draft.sections = sections;
  if (plan.terms.size > 0) notes.terms = plan.terms;
  const complete = plan.complete;
  if (complete.length > 1) {
    const named = complete.map((index) => quote(names[index]));
    throw new SystemPromptError(
      "MULTIPLE_COMPLETE_SECTIONS",
      `Sections ${named.join(", ")} are all complete; at most one effective ` +
        `section of an assembly may own the whole prompt. Dispose all but ` +
        `one, or shadow the others in the agent's scope.`,
    );
  }
  if (complete.length === 1) {
    notes.complete = { ...sections[complete[0]] };
  }
}

/**
 * What every assembly of one list of visible records copies, read from the
 * records once. Lists are immutable and shared while their layers do not
 * change, so assemblies of an unchanged registry read these flat arrays in
 * order instead of the records themselves: at 100,000 sections the records
 * and their texts are scattered over more memory than the CPU caches hold,
 * and reading them cost about ten times the copy (measured).
 */
interface SectionPlan {
  readonly names: readonly string[];
  readonly orders: readonly number[];
  readonly texts: readonly EntryText[];
  /** Indexes of texts resolved per assembly (functions, live sources). */
  readonly dynamic: readonly number[];
  /** Indexes of sections with a cache breakpoint. */
  readonly breakpoints: readonly number[];
  /** Indexes of complete sections. */
  readonly complete: readonly number[];
  /** Indexes of sections whose own stability is not stable. */
  readonly unstable: readonly number[];
  /** Each section's own stability (`undefined`: stable), or none unstable. */
  readonly ownStabilities:
    | readonly ("agent" | "volatile" | undefined)[]
    | undefined;
  /** The budget terms of the sections that set any, by name. */
  readonly terms: ReadonlyMap<string, SectionTerms>;
}

const plans = new WeakMap<readonly SectionRecord[], SectionPlan>();

function planOf(records: readonly SectionRecord[]): SectionPlan {
  let plan = plans.get(records);
  if (plan !== undefined) return plan;
  const count = records.length;
  const names: string[] = new Array(count);
  const orders: number[] = new Array(count);
  const texts: EntryText[] = new Array(count);
  const dynamic: number[] = [];
  const breakpoints: number[] = [];
  const complete: number[] = [];
  const unstable: number[] = [];
  const terms = new Map<string, SectionTerms>();
  for (let index = 0; index < count; index++) {
    const record = records[index];
    names[index] = record.name;
    orders[index] = record.order;
    texts[index] = record.text;
    if (typeof record.text !== "string") dynamic.push(index);
    if (record.cacheBreakpoint === true) breakpoints.push(index);
    if (record.complete === true) complete.push(index);
    if (record.stability.stability !== "stable") unstable.push(index);
    if (record.priority !== undefined || record.required === true) {
      terms.set(record.name, {
        priority: record.priority ?? 0,
        required: record.required === true,
      });
    }
  }
  plan = {
    names,
    orders,
    texts,
    dynamic,
    breakpoints,
    complete,
    unstable,
    ownStabilities: ownStabilitiesOf(records, unstable),
    terms,
  };
  plans.set(records, plan);
  return plan;
}

/** Each record's own stability by index, from the unstable indexes. */
function ownStabilitiesOf(
  records: readonly SectionRecord[],
  unstable: readonly number[],
): ("agent" | "volatile" | undefined)[] | undefined {
  if (unstable.length === 0) return undefined;
  const stabilities = new Array<"agent" | "volatile" | undefined>(
    records.length,
  ).fill(undefined);
  for (const index of unstable) {
    stabilities[index] = records[index].stability.stability as
      | "agent"
      | "volatile";
  }
  return stabilities;
}
