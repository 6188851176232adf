/**
 * What every registration kind provides: how a registration becomes a
 * record, how a layer stores it, and what it adds to an assembly.
 *
 * A kind knows nothing of registrars, lifetimes or `BehaviorSubject`s: the
 * registrar validates through it, the layers store through it, and the
 * assembly builder asks it for its contribution.
 *
 * @module
 */

import { isRevokedProxy, mergeSorted } from "../shared/util.ts";
import { revokedFunction } from "./live.ts";
import {
  quote,
  SystemPromptError,
  type SystemPromptErrorCode,
} from "../errors.ts";
import type { ToolOrderPlan } from "./tool_order.ts";
import type { BudgetPlan, Pruning, SectionTerms } from "../budget/prune.ts";
import type { BuiltTexts, VariableStabilities } from "./stability.ts";
import type {
  AssembledSection,
  PromptAssembly,
  ScopeKey,
  ToolSchema,
} from "../types.ts";
import type { PromptChange } from "../change_types.ts";

/** What the registrar knows about a registration beyond its input. */
export interface Provenance {
  /** The label of the registrar that made it (for messages and `explain`). */
  readonly label: string;
  /** Registry-wide registration number: one fixed order across layers. */
  readonly sequence: number;
  /** Set when the registrar writes to a scope layer (stability's default). */
  readonly scoped?: boolean;
}

/** The fields every stored record has. */
export interface RecordBase extends Provenance {
  /** Set for kinds whose names are unique per layer. */
  readonly name?: string;
}

/** One layer's records of one kind, with the layer's scope. */
export interface KindLayer<R> {
  readonly records: readonly R[];
  /** The layer's scope key; `undefined` is the global layer. */
  readonly scope: ScopeKey | undefined;
}

/** Registry-wide inputs of an assembly. */
export interface BuildOptions {
  /** The compiled `toolOrder`, if one is configured. */
  readonly toolOrder?: ToolOrderPlan;
  /**
   * No runtime context provider is called and `runtimeContext` is `[]`
   * (config `includeRuntimeContext: false`, or a suppressor in a layer).
   */
  readonly suppressRuntimeContext?: boolean;
  /**
   * Set by `explain` only: the kinds whose origins cannot be read from the
   * snapshot alone record them here. An assembly without it does no such
   * work.
   */
  readonly trace?: BuildTrace;
  /**
   * A token budget: after the waterfall and the complete-section
   * replacement, sections are pruned until the prompt fits.
   */
  readonly budget?: BudgetPlan;
}

/**
 * What one build's kinds leave for the kinds after them and for the stages
 * after the build: one object per build, so a build a provider starts
 * inside another one keeps its own, and no assembly needs a side table.
 */
export interface BuildNotes {
  /** The visible variables that are not stable (variable kind). */
  variables?: VariableStabilities;
  /** The static section texts and the ranks they reference (section kind). */
  builtTexts?: BuiltTexts;
  /** The budget terms of the registered sections, by name (section kind). */
  terms?: ReadonlyMap<string, SectionTerms>;
  /** The one effective complete section, before the waterfall. */
  complete?: AssembledSection;
  /** The names the tool providers listed in `knownNames` (tools kind). */
  knownToolNames?: ReadonlySet<string>;
  /** What the answering tool gates allowed (tool gate kind). */
  gateAnswers?: readonly GateAnswer[];
}

/** What one answering gate allowed, for `explain`. */
export interface GateAnswer {
  readonly record: RecordBase & { readonly gate: unknown };
  /** The layer's scope key; `undefined` is the global layer. */
  readonly scope: ScopeKey | undefined;
  /** 1-based position among the gates of this assembly. */
  readonly index: number;
  readonly allowed: ReadonlySet<string>;
}

/** A kind's build options: the registry's, and this build's notes. */
export interface KindBuildOptions extends BuildOptions {
  readonly notes: BuildNotes;
}

/** What a build records for `explain`. */
export interface BuildTrace {
  /**
   * Every tool the providers returned (shadowed ones included), in
   * collection order (layers farthest first), with the provider's record and
   * layer. The assembly's tools are among these objects.
   */
  tools?: readonly TracedTool[];
  /**
   * Called with the registry's contribution before any listener runs
   * (listeners may mutate it in place).
   */
  readonly built?: (initial: PromptAssembly, notes: BuildNotes) => void;
  /** Called with why each section went, when the budget pruned any. */
  readonly pruned?: (pruning: Pruning) => void;
}

/** One collected tool and where it came from. */
export interface TracedTool {
  readonly tool: ToolSchema;
  readonly record: RecordBase;
  /** The layer's scope key; `undefined` is the global layer. */
  readonly scope: ScopeKey | undefined;
}

/** A registration kind. `I` is what its `Registrar` method receives. */
export interface Kind<R extends RecordBase, I = unknown> {
  /** The `kind` of this kind's change events. */
  readonly change: NonNullable<PromptChange["kind"]>;
  /**
   * Set when names are unique per layer: the error code and the noun of
   * the message for a second registration of one name in one layer.
   */
  readonly unique?: {
    readonly code: SystemPromptErrorCode;
    readonly noun: string;
  };
  /** Validates `input` into a record, or throws before any state changes. */
  record(input: I, provenance: Provenance): R;
  /**
   * The order a layer stores this kind's records in (a total order within
   * one layer); absent, registration order.
   */
  compare?(a: R, b: R): number;
  /**
   * Writes this kind's part of the initial assembly into `draft`, from the
   * snapshot's layers farthest-first.
   */
  build?(
    layers: readonly KindLayer<R>[],
    context: unknown,
    draft: PromptAssembly,
    options: KindBuildOptions,
  ): void;
}

/** The records of `layers`, farthest-first. */
export function recordsOf<R>(
  layers: readonly KindLayer<R>[],
): (readonly R[])[] {
  return layers.map((layer) => layer.records);
}

/**
 * The records of `layers` in `compare` order, a nearer layer's record
 * shadowing a farther one's of the same name.
 */
export function visibleByName<R extends { readonly name: string }>(
  layers: readonly KindLayer<R>[],
  compare: (a: R, b: R) => number,
): readonly R[] {
  return mergeSorted(recordsOf(layers), compare, { shadowByName: true });
}

/**
 * Throws `INVALID_PROVIDER` unless `value` is a function that can be called
 * (a revoked Proxy of a function cannot).
 */
export function assertFunction(
  value: unknown,
  what: string,
): asserts value is (...args: never[]) => unknown {
  if (isRevokedProxy(value)) throw revokedFunction(what);
  if (typeof value !== "function") {
    throw new SystemPromptError(
      "INVALID_PROVIDER",
      `${what} must be a function; got ${quote(value)}.`,
    );
  }
}
