/**
 * The tools kind: anonymous tool-schema providers (the same function twice
 * is two registrations). A nearer layer's tool shadows a farther layer's tool
 * of the same name; two tools of one name from one layer reject the
 * assembly with `DUPLICATE_TOOL`.
 *
 * @module
 */

import { userCodeFailed } from "../shared/user_code.ts";
import {
  describeScope,
  functionName,
  isSystemPromptError,
  quote,
  SystemPromptError,
} from "../errors.ts";
import {
  assertSource,
  callSource,
  isLive,
  liveOr,
  type LiveValue,
} from "./live.ts";
import {
  restByStability,
  type ToolOrderPlan,
  toolPositions,
} from "./tool_order.ts";
import {
  type OwnStability,
  ownStability,
  rankOf,
  STABILITIES,
  toolStabilityOf,
} from "./stability.ts";
import {
  defers,
  readDeferral,
  readToolsOptions,
  splitDeferred,
} from "./tool_deferral.ts";
import { compareCodeUnits } from "../shared/util.ts";
import type {
  PromptAssembly,
  ScopeKey,
  ToolDeferral,
  ToolProvider,
  ToolProviderResult,
  ToolSchema,
} from "../types.ts";
import type {
  Kind,
  KindBuildOptions,
  KindLayer,
  Provenance,
  RecordBase,
  TracedTool,
} from "./kind.ts";
import { SeenObjects } from "./json_copy.ts";
import { copyToolSchema } from "./tool_schema.ts";

/** A registered tool provider, as stored in a layer. */
export interface ToolsRecord extends RecordBase {
  readonly provider: ToolProvider<unknown> | LiveValue<ToolProviderResult>;
  /** The objects of the provider's last schemas, for a cheaper copy. */
  readonly seen: SeenObjects;
  /** Its tools' stability (explicit or default) and why. */
  readonly stability: OwnStability;
  /** The registration's `defer` option; absent, the result's `defer` rules. */
  readonly defer?: ToolDeferral;
}

/** What `Registrar#tools` receives. */
export interface ToolsInput {
  readonly provider: unknown;
  /** The optional `{ stability, defer }` argument. */
  readonly options?: unknown;
}

/** The tools kind; a layer keeps its providers in registration order. */
export const toolsKind: Kind<ToolsRecord, ToolsInput> = {
  change: "tools",
  record: toToolsRecord,
  build: buildTools,
};

function toToolsRecord(
  { provider, options }: ToolsInput,
  { label, sequence, scoped }: Provenance,
): ToolsRecord {
  // Before its first value, a tool source contributes nothing.
  const live = liveOr(provider, { schemas: [] });
  assertSource(live, "A tool provider");
  const what = () => `tool provider of registrar ${quote(label)}`;
  const read = readToolsOptions(options, what);
  return {
    provider: live as ToolProvider<unknown>,
    label,
    sequence,
    seen: new SeenObjects(),
    stability: ownStability(read.stability, {
      live: isLive(live),
      scoped,
      code: "INVALID_CONFIG",
      what,
    }),
    ...(read.defer === undefined ? {} : { defer: read.defer }),
  };
}

/** Where tools come from: a provider, its position, and its layer. */
interface ToolSource {
  readonly record: ToolsRecord;
  /** 1-based position among the providers of this assembly. */
  readonly index: number;
  readonly scope: ScopeKey | undefined;
  /** The layer's position in the snapshot, farthest first. */
  readonly layer: number;
}

/** Names a tool provider in an error message (built on failure only). */
function describeSource(source: ToolSource): string {
  return `${nameSource(source)} (${describeScope(source.scope)})`;
}

/** The provider's function name, position and registrar. */
function nameSource({ record, index }: ToolSource): string {
  const name = isLive(record.provider)
    ? undefined
    : functionName(record.provider);
  const which = name !== undefined ? `${name} (#${index})` : `#${index}`;
  const noun = isLive(record.provider) ? "tool source" : "tool provider";
  return `${noun} ${which} of registrar ${quote(record.label)}`;
}

/** What the providers of one assembly add to. */
interface Collection {
  readonly context: unknown;
  /** In collection order (layers farthest first), with each one's source. */
  readonly tools: ToolSchema[];
  readonly sources: ToolSource[];
  /** The providers' `knownNames` (the tools' own names are known anyway). */
  knownNames: Set<string> | undefined;
  /** Set when a provider that contributed a tool is not stable. */
  unstable: boolean;
  /**
   * The tools of the sources that deferred theirs, each with its source's
   * registrar label; absent while none did.
   */
  deferred: Map<ToolSchema, string> | undefined;
}

function buildTools(
  layers: readonly KindLayer<ToolsRecord>[],
  context: unknown,
  draft: PromptAssembly,
  { toolOrder, trace, notes }: KindBuildOptions,
): void {
  const collection: Collection = {
    context,
    tools: [],
    sources: [],
    knownNames: undefined,
    unstable: false,
    deferred: undefined,
  };
  let index = 0;
  for (let layer = 0; layer < layers.length; layer++) {
    const { records, scope } = layers[layer];
    for (const record of records) {
      collectTools({ record, index: ++index, scope, layer }, collection);
    }
  }
  if (trace !== undefined) trace.tools = traced(collection);
  if (collection.knownNames !== undefined) {
    notes.knownToolNames = collection.knownNames;
  }
  const ordered = orderedTools(collection, toolOrder);
  const tools = hasRepeatedName(ordered)
    ? resolveRepeats(ordered, collection)
    : ordered;
  const placed = collection.unstable
    ? byStability(tools, collection, { draft, plan: toolOrder })
    : tools;
  if (collection.deferred === undefined) draft.tools = placed;
  else splitDeferred(placed, collection.deferred, draft);
}

/**
 * `tools` with the unlisted ones placed by stability, then name (SPEC
 * §8.2), and the draft's `toolStability` for the tools that are not stable.
 * Only when some provider is not stable: a registry that never says
 * otherwise pays nothing.
 */
function byStability(
  tools: ToolSchema[],
  { tools: collected, sources }: Collection,
  { draft, plan }: { draft: PromptAssembly; plan: ToolOrderPlan | undefined },
): ToolSchema[] {
  const rankByTool = new Map<ToolSchema, number>();
  for (let index = 0; index < collected.length; index++) {
    const rank = rankOf(sources[index].record.stability.stability);
    if (rank > 0) rankByTool.set(collected[index], rank);
  }
  const ranks = tools.map((tool) => rankByTool.get(tool) ?? 0);
  const placed = restByStability(tools, { ranks, plan });
  const unstable: [name: string, rank: number][] = [];
  for (const tool of placed) {
    const rank = rankByTool.get(tool);
    if (rank !== undefined) unstable.push([tool.name, rank]);
  }
  if (unstable.length !== 0) {
    unstable.sort(([a], [b]) => compareCodeUnits(a, b));
    draft.toolStability = toolStabilityOf(
      unstable.map(([name, rank]) => [
        name,
        STABILITIES[rank] as "agent" | "volatile",
      ]),
    );
  }
  return placed;
}

/** The last canonical order computed for a `toolOrder`, by tool names. */
interface OrderMemo {
  readonly names: readonly string[];
  readonly positions: readonly number[];
}

/**
 * By plan (or {@linkcode NO_PLAN}): providers usually offer the same names
 * in the same order step after step, and then the order is the same too.
 */
const orderMemos = new WeakMap<object, OrderMemo>();
const NO_PLAN: object = {};

/**
 * The tools in canonical order. An order is remembered only when every name
 * the plan lists is among the tools: then the same names prove it known
 * again, whatever the providers' `knownNames` say this time.
 */
function orderedTools(
  { tools, knownNames }: Collection,
  plan: ToolOrderPlan | undefined,
): ToolSchema[] {
  const key = plan ?? NO_PLAN;
  const memo = orderMemos.get(key);
  const positions = memo !== undefined && sameNames(memo.names, tools)
    ? memo.positions
    : toolPositions(tools, { plan, knownNames });
  if (positions !== memo?.positions) {
    const names = tools.map((tool) => tool.name);
    const listed = plan === undefined ? [] : [...plan.ranks.keys()];
    if (listed.every((name) => names.includes(name))) {
      orderMemos.set(key, { names, positions });
    }
  }
  return positions.map((position) => tools[position]);
}

function sameNames(
  names: readonly string[],
  tools: readonly ToolSchema[],
): boolean {
  if (names.length !== tools.length) return false;
  for (let index = 0; index < names.length; index++) {
    if (names[index] !== tools[index].name) return false;
  }
  return true;
}

function traced({ tools, sources }: Collection): TracedTool[] {
  return tools.map((tool, index) => {
    const { record, scope } = sources[index];
    return { tool, record, scope };
  });
}

function collectTools(source: ToolSource, collection: Collection): void {
  const { context, tools, sources } = collection;
  const describe = () => describeSource(source);
  const result: unknown = callSource(
    source.record.provider,
    context,
    describe,
  );
  try {
    const { schemas, knownNames: known, defer } = checkResult(
      result,
      source,
    );
    const seen = source.record.seen;
    seen.restart();
    const deferred = defers(source.record.defer ?? defer, schemas.length)
      ? collection.deferred ??= new Map()
      : undefined;
    for (const schema of schemas) {
      const tool = copyToolSchema(schema, describe, { seen });
      tools.push(tool);
      sources.push(source);
      deferred?.set(tool, source.record.label);
    }
    if (
      schemas.length !== 0 && source.record.stability.stability !== "stable"
    ) collection.unstable = true;
    if (known !== undefined && known.length !== 0) {
      const knownNames = collection.knownNames ??= new Set();
      for (const name of known) knownNames.add(name);
    }
  } catch (error) {
    // A getter, an iterator or a Proxy of the result threw while it was read.
    if (isSystemPromptError(error)) throw error;
    throw userCodeFailed(
      `Reading the result of the ${describe()} threw`,
      error,
    );
  }
}

/** Ordering puts tools of one name side by side: one pass finds them. */
function hasRepeatedName(ordered: readonly ToolSchema[]): boolean {
  for (let index = 1; index < ordered.length; index++) {
    if (ordered[index].name === ordered[index - 1].name) return true;
  }
  return false;
}

/**
 * Tools of one name, side by side in collection order (farther layers
 * first): a nearer layer's tool replaces a farther one's; two from one layer
 * are `DUPLICATE_TOOL`.
 */
function resolveRepeats(
  ordered: readonly ToolSchema[],
  { tools, sources }: Collection,
): ToolSchema[] {
  const sourceOf = new Map<ToolSchema, ToolSource>();
  tools.forEach((tool, index) => sourceOf.set(tool, sources[index]));
  const kept: ToolSchema[] = [];
  for (const tool of ordered) {
    const previous = kept[kept.length - 1];
    if (previous === undefined || previous.name !== tool.name) {
      kept.push(tool);
      continue;
    }
    const farther = sourceOf.get(previous)!;
    const nearer = sourceOf.get(tool)!;
    if (farther.layer === nearer.layer) {
      throw duplicateTool(tool.name, farther, nearer);
    }
    kept[kept.length - 1] = tool;
  }
  return kept;
}

function checkResult(
  result: unknown,
  source: ToolSource,
): {
  schemas: readonly unknown[];
  knownNames?: readonly string[];
  defer?: ToolDeferral;
} {
  if (
    typeof result !== "object" || result === null ||
    !Array.isArray((result as { schemas?: unknown }).schemas)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${describeSource(source)} returned ${quote(result)}; a tool ` +
        `provider must return { schemas: ToolSchema[], knownNames?: ` +
        `string[], defer?: ToolDeferral }.`,
    );
  }
  const { knownNames } = result as { knownNames?: unknown };
  if (
    knownNames !== undefined &&
    !(Array.isArray(knownNames) &&
      knownNames.every((name) => typeof name === "string"))
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${describeSource(source)} returned knownNames that is not an ` +
        `array of strings; list the names of every tool it can offer, or ` +
        `leave it out.`,
    );
  }
  // The registration's option wins: the result's is not even read then.
  const defer = source.record.defer === undefined
    ? (result as { defer?: unknown }).defer
    : undefined;
  return {
    schemas: (result as { schemas: readonly unknown[] }).schemas,
    knownNames: knownNames as readonly string[] | undefined,
    defer: defer === undefined ? undefined : readDeferral(defer, {
      code: "INVALID_TOOL_SCHEMA",
      where: () => `The defer of what the ${describeSource(source)} returned`,
    }),
  };
}

function duplicateTool(
  name: string,
  first: ToolSource,
  second: ToolSource,
): SystemPromptError {
  const by = first.record === second.record
    ? `the ${nameSource(first)} lists it twice`
    : `the ${nameSource(first)} and the ${nameSource(second)} both offer it`;
  return new SystemPromptError(
    "DUPLICATE_TOOL",
    `Tool ${quote(name)} is offered twice in ${describeScope(first.scope)}: ` +
      `${by}. A tool name has one provider per layer; rename one tool, or ` +
      `override it for one agent through a scope registrar.`,
  );
}
