/**
 * The runtime context kind: ordered volatile facts (date, git status) that
 * the model receives as a user-role message, outside the system prompt.
 * Unique by name per layer, shadowed by name and sorted like sections.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import {
  type BuildOptions,
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  visibleByName,
} from "./kind.ts";
import { compareSections } from "./section.ts";
import {
  type EntryText,
  type EntryWords,
  readTextEntry,
  resolveTextEntry,
} from "./text_entry.ts";

/** A registered runtime context entry, as stored in a layer. */
export interface RuntimeContextRecord extends RecordBase {
  readonly name: string;
  readonly order: number;
  readonly text: EntryText;
  /** Present when the entry holds for one turn. */
  readonly holds?: "turn";
}

/** The runtime context kind; a layer keeps its entries in render order. */
export const runtimeContextKind: Kind<RuntimeContextRecord> = {
  change: "runtimeContext",
  unique: { code: "DUPLICATE_RUNTIME_CONTEXT", noun: "Runtime context" },
  record: toRuntimeContextRecord,
  compare: compareSections,
  build: buildRuntimeContext,
};

const RUNTIME_CONTEXT_WORDS: EntryWords = {
  noun: "runtime context",
  unreadable: `Reading a runtime context entry's fields threw; an entry is ` +
    `an object { name, order, text } whose fields can be read.`,
  orderHint: "",
  leftOut: "it",
};

function toRuntimeContextRecord(
  input: unknown,
  { label, sequence }: Provenance,
): RuntimeContextRecord {
  const { name, order, text, holds } = readTextEntry(
    input,
    RUNTIME_CONTEXT_WORDS,
    ["holds"],
  );
  if (holds !== undefined && holds !== "change" && holds !== "turn") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Runtime context ${quote(name)} holds ${
        quote(holds)
      }; it must be "change" (the default) or "turn".`,
    );
  }
  return {
    name,
    order,
    text,
    ...(holds === "turn" ? { holds } : {}),
    label,
    sequence,
  };
}

/**
 * Merges the layers' entries, nearer names shadowing farther ones; when
 * runtime context is off for this assembly, no provider is called and the
 * draft keeps the empty list it starts with.
 */
function buildRuntimeContext(
  layers: readonly KindLayer<RuntimeContextRecord>[],
  context: unknown,
  draft: PromptAssembly,
  options: BuildOptions,
): void {
  if (options.suppressRuntimeContext === true) return;
  const records = visibleByName(layers, compareSections);
  const entries: AssembledSection[] = new Array(records.length);
  for (let index = 0; index < records.length; index++) {
    const entry = resolveTextEntry(
      records[index],
      context,
      RUNTIME_CONTEXT_WORDS,
    );
    entries[index] = records[index].holds === "turn"
      ? { ...entry, holds: "turn" }
      : entry;
  }
  draft.runtimeContext = entries;
}
