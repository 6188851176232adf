/**
 * The section kind: ordered text, unique by name per layer; a nearer layer's
 * section shadows a farther one's of the same name.
 *
 * @module
 */

import { compareCodeUnits, mergeSorted } from "../_util.ts";
import { callProvider } from "../assemble/provider.ts";
import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import {
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  recordsOf,
} from "./kind.ts";

/** A registered section, as stored in a layer. */
export interface SectionRecord extends RecordBase {
  readonly name: string;
  readonly order: number;
  readonly text: string | ((context: unknown) => string);
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

function toSectionRecord(
  section: unknown,
  { label, sequence }: Provenance,
): SectionRecord {
  if (typeof section !== "object" || section === null) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A section must be an object { name, order, text }; got ${
        quote(section)
      }.`,
    );
  }
  const { name, order, text } = section as Record<string, unknown>;
  if (typeof name !== "string" || name === "") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A section's name must be a non-empty string; got ${quote(name)}.`,
    );
  }
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Section ${quote(name)} has order ${quote(order)}; the order must be ` +
        `a finite number (bands: -100 identity, 0 persona, 100–199 tool ` +
        `guidance).`,
    );
  }
  if (typeof text !== "string" && typeof text !== "function") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Section ${quote(name)} has text of type ${typeof text}; the text must ` +
        `be a string or a function of the assembly context returning one.`,
    );
  }
  const record = { name, order, text, label, sequence };
  return record as SectionRecord;
}

/** Merges the layers' sorted sections, nearer names shadowing farther ones. */
function buildSections(
  layers: readonly KindLayer<SectionRecord>[],
  context: unknown,
  draft: PromptAssembly,
): void {
  const records = mergeSorted(recordsOf(layers), compareSections, {
    shadowByName: true,
  });
  const sections: AssembledSection[] = new Array(records.length);
  for (let index = 0; index < records.length; index++) {
    sections[index] = resolveSection(records[index], context);
  }
  draft.sections = sections;
}

function resolveSection(
  record: SectionRecord,
  context: unknown,
): AssembledSection {
  const { name, order, text } = record;
  if (typeof text === "string") return { name, order, text };
  const value: unknown = callProvider(
    text,
    context,
    () => `text function of section ${quote(name)}`,
  );
  if (typeof value !== "string") {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The text function of section ${quote(name)} returned ${typeof value}; ` +
        `it must return a string ("" to leave the section out).`,
    );
  }
  return { name, order, text: value };
}
