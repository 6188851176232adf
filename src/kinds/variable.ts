/**
 * The variable kind: a `{{name}}` and its provider, unique by name per
 * layer; a nearer layer's variable shadows a farther one's. An assembly
 * lists its variables in code-unit order of the name, whatever the layer
 * or registration order.
 *
 * @module
 */

import { compareCodeUnits } from "../shared/util.ts";
import { typeName } from "../shared/user_code.ts";
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
  type KindBuildOptions,
  type KindLayer,
  type Provenance,
  type RecordBase,
  visibleByName,
} from "./kind.ts";
import {
  type OwnStability,
  ownStability,
  rankOf,
  readStabilityOption,
  type StabilityRank,
  type VariableStabilities,
  variableStabilities,
} from "./stability.ts";

/** A registered variable, as stored in a layer. */
export interface VariableRecord extends RecordBase {
  readonly name: string;
  readonly provider: VariableProvider<unknown> | LiveValue<undefined>;
  /** Its own stability (explicit or default) and why. */
  readonly stability: OwnStability;
}

/** What `Registrar#variable` receives. */
export interface VariableInput {
  readonly name: unknown;
  readonly provider: unknown;
  /** The optional `{ stability }` argument. */
  readonly options?: unknown;
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
  { name, provider, options }: VariableInput,
  { label, sequence, scoped }: Provenance,
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
  const what = () => `variable ${quote(name)} of registrar ${quote(label)}`;
  return {
    name,
    provider: live as VariableProvider<unknown>,
    label,
    sequence,
    stability: ownStability(readStabilityOption(options, what), {
      live: isLive(live),
      scoped,
      code: "INVALID_CONFIG",
      what,
    }),
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
  { notes }: KindBuildOptions,
): void {
  const records = visibleByName(layers, compareNames);
  const variables: Record<string, string | undefined> = {};
  for (const record of records) {
    variables[record.name] = resolveVariable(record, context);
  }
  draft.variables = variables;
  notes.variables = unstableOf(records);
}

const unstable = new WeakMap<
  readonly VariableRecord[],
  VariableStabilities | null
>();

/**
 * The variables of `records` that are not stable: computed once per list,
 * which is shared while its layers do not change.
 */
function unstableOf(
  records: readonly VariableRecord[],
): VariableStabilities | undefined {
  const found = unstable.get(records);
  if (found !== undefined) return found ?? undefined;
  const ranks = new Map<string, StabilityRank>();
  for (const { name, stability } of records) {
    const rank = rankOf(stability.stability) as StabilityRank;
    if (rank !== 0) ranks.set(name, rank);
  }
  const stabilities = variableStabilities(ranks);
  unstable.set(records, stabilities ?? null);
  return stabilities;
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
