/**
 * The section kind: ordered text, unique by name per layer; a nearer layer's
 * section shadows a farther one's of the same name.
 *
 * @module
 */

import { compareCodeUnits } from "../_util.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import {
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  visibleByName,
} from "./kind.ts";
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
}

/** Render order of sections: ascending `order`, then code-unit `name`. */
export function compareSections(a: SectionRecord, b: SectionRecord): number {
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
  { label, sequence }: Provenance,
): SectionRecord {
  const { name, order, text, cacheBreakpoint, complete } = readTextEntry(
    section,
    SECTION_WORDS,
    ["cacheBreakpoint", "complete"],
  );
  const record: Record<string, unknown> = {
    name,
    order,
    text,
    label,
    sequence,
  };
  if (optionalFlag(name, "cacheBreakpoint", cacheBreakpoint)) {
    record.cacheBreakpoint = true;
  }
  if (optionalFlag(name, "complete", complete)) record.complete = true;
  return record as unknown as SectionRecord;
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
): void {
  const records = visibleByName(layers, compareSections);
  const sections: AssembledSection[] = new Array(records.length);
  for (let index = 0; index < records.length; index++) {
    sections[index] = resolveSection(records[index], context);
  }
  draft.sections = sections;
  const complete = records.filter((record) => record.complete === true);
  if (complete.length > 1) {
    throw new SystemPromptError(
      "MULTIPLE_COMPLETE_SECTIONS",
      `Sections ${complete.map((record) => quote(record.name)).join(", ")} ` +
        `are all complete; at most one effective section of an assembly may ` +
        `own the whole prompt. Dispose all but one, or shadow the others ` +
        `in the agent's scope.`,
    );
  }
  if (complete.length === 1) {
    const index = records.indexOf(complete[0]);
    completeSections.set(draft, { ...sections[index] });
  }
}

const completeSections = new WeakMap<PromptAssembly, AssembledSection>();

/**
 * The one effective complete section of the assembly `build` wrote, as
 * resolved before the waterfall (a fresh copy), or `undefined`.
 */
export function completeSectionOf(
  draft: PromptAssembly,
): AssembledSection | undefined {
  const section = completeSections.get(draft);
  return section === undefined ? undefined : { ...section };
}

function resolveSection(
  record: SectionRecord,
  context: unknown,
): AssembledSection {
  return withFlags(resolveTextEntry(record, context, SECTION_WORDS), record);
}

function withFlags(
  section: AssembledSection,
  record: SectionRecord,
): AssembledSection {
  if (record.cacheBreakpoint === true) section.cacheBreakpoint = true;
  return section;
}
