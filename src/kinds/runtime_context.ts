/**
 * The runtime context kind: ordered volatile facts (date, git status) that
 * the model receives as a user-role message, outside the system prompt.
 * Unique by name per layer, shadowed by name and sorted like sections.
 *
 * @module
 */

import { mergeSorted } from "../_util.ts";
import { callProvider, typeName } from "../assemble/provider.ts";
import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import {
  type BuildOptions,
  insertSorted,
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  recordsOf,
} from "./kind.ts";
import { compareSections } from "./section.ts";

/** A registered runtime context entry, as stored in a layer. */
export interface RuntimeContextRecord extends RecordBase {
  readonly name: string;
  readonly order: number;
  readonly text: string | ((context: unknown) => string);
}

/** The runtime context kind; a layer keeps its entries in render order. */
export const runtimeContextKind: Kind<RuntimeContextRecord> = {
  change: "runtimeContext",
  unique: { code: "DUPLICATE_RUNTIME_CONTEXT", noun: "Runtime context" },
  record: toRuntimeContextRecord,
  insert: (records, record) => insertSorted(records, record, compareSections),
  build: buildRuntimeContext,
};

function toRuntimeContextRecord(
  input: unknown,
  { label, sequence }: Provenance,
): RuntimeContextRecord {
  if (typeof input !== "object" || input === null) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A runtime context must be an object { name, order, text }; got ${
        quote(input)
      }.`,
    );
  }
  const { name, order, text } = readGuarded(
    () => {
      const { name, order, text } = input as Record<string, unknown>;
      return { name, order, text };
    },
    "INVALID_SECTION",
    () =>
      `Reading a runtime context entry's fields threw; an entry is an ` +
      `object { name, order, text } whose fields can be read.`,
  );
  if (typeof name !== "string" || name === "") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A runtime context's name must be a non-empty string; got ${
        quote(name)
      }.`,
    );
  }
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Runtime context ${quote(name)} has order ${quote(order)}; the order ` +
        `must be a finite number.`,
    );
  }
  if (typeof text !== "string" && typeof text !== "function") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Runtime context ${quote(name)} has text of type ${typeof text}; the ` +
        `text must be a string or a function of the assembly context ` +
        `returning one.`,
    );
  }
  return {
    name,
    order,
    text: text as RuntimeContextRecord["text"],
    label,
    sequence,
  };
}

/**
 * Merges the layers' entries, nearer names shadowing farther ones; when
 * runtime context is off for this assembly, no provider is called.
 */
function buildRuntimeContext(
  layers: readonly KindLayer<RuntimeContextRecord>[],
  context: unknown,
  draft: PromptAssembly,
  options: BuildOptions,
): void {
  if (options.suppressRuntimeContext === true) {
    draft.runtimeContext = [];
    return;
  }
  const records = mergeSorted(recordsOf(layers), compareSections, {
    shadowByName: true,
  });
  const entries: AssembledSection[] = new Array(records.length);
  for (let index = 0; index < records.length; index++) {
    entries[index] = resolveEntry(records[index], context);
  }
  draft.runtimeContext = entries;
}

function resolveEntry(
  record: RuntimeContextRecord,
  context: unknown,
): AssembledSection {
  const { name, order, text } = record;
  if (typeof text === "string") return { name, order, text };
  const value: unknown = callProvider(
    text,
    context,
    () => `text function of runtime context ${quote(name)}`,
  );
  if (typeof value !== "string") {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The text function of runtime context ${quote(name)} returned ` +
        `${typeName(value)}; it must return a string ("" to leave it out).`,
    );
  }
  return { name, order, text: value };
}
