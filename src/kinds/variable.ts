/**
 * The variable kind: a `{{name}}` and its provider, unique by name per
 * layer; a nearer layer's variable shadows a farther one's. An assembly
 * lists its variables in code-unit order of the name, whatever the layer
 * or registration order.
 *
 * @module
 */

import { compareCodeUnits } from "../shared/util.ts";
import { typeName } from "../shared/provider.ts";
import { quote, SystemPromptError } from "../errors.ts";
import {
  assertSource,
  callSource,
  isLive,
  liveOr,
  type LiveValue,
} from "./live.ts";
import { VARIABLE_NAME_PATTERN } from "../render/prompt.ts";
import type { PromptAssembly, VariableProvider } from "../types.ts";
import {
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  visibleByName,
} from "./kind.ts";

/** A registered variable, as stored in a layer. */
export interface VariableRecord extends RecordBase {
  readonly name: string;
  readonly provider: VariableProvider<unknown> | LiveValue<undefined>;
}

/** What `Registrar#variable` receives. */
export interface VariableInput {
  readonly name: unknown;
  readonly provider: unknown;
}

function compareNames(a: VariableRecord, b: VariableRecord): number {
  return compareCodeUnits(a.name, b.name);
}

/** The variable kind; a layer keeps its variables in code-unit name order. */
export const variableKind: Kind<VariableRecord, VariableInput> = {
  change: "variable",
  unique: { code: "DUPLICATE_VARIABLE", noun: "Variable" },
  record: toVariableRecord,
  compare: compareNames,
  build: buildVariables,
};

function toVariableRecord(
  { name, provider }: VariableInput,
  { label, sequence }: Provenance,
): VariableRecord {
  if (typeof name !== "string" || !VARIABLE_NAME_PATTERN.test(name)) {
    throw new SystemPromptError(
      "INVALID_VARIABLE_NAME",
      `Variable name ${quote(name)} is invalid: it must match ` +
        `${VARIABLE_NAME_PATTERN.source} (lower case letters, digits and ` +
        `"_", starting with a letter), or no {{reference}} could name it.`,
    );
  }
  const live = liveOr(provider, undefined);
  assertSource(live, `The provider of variable ${quote(name)}`);
  return {
    name,
    provider: live as VariableProvider<unknown>,
    label,
    sequence,
  };
}

/**
 * Calls each visible provider once, in code-unit name order, so the keys
 * come out in that order. A shadowed provider is not called.
 */
function buildVariables(
  layers: readonly KindLayer<VariableRecord>[],
  context: unknown,
  draft: PromptAssembly,
): void {
  const records = visibleByName(layers, compareNames);
  const variables: Record<string, string | undefined> = {};
  for (const record of records) {
    variables[record.name] = resolveVariable(record, context);
  }
  draft.variables = variables;
}

function resolveVariable(
  { name, provider }: VariableRecord,
  context: unknown,
): string | undefined {
  const what = isLive(provider) ? "source" : "provider";
  const value: unknown = callSource(
    provider,
    context,
    () => `${what} of variable ${quote(name)}`,
  );
  if (value === undefined || typeof value === "string") return value;
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `The ${what} of variable ${quote(name)} returned ${typeName(value)}; a ` +
      `variable provider must return a string, or undefined for "no value ` +
      `here".`,
  );
}
