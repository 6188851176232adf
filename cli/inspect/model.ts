/**
 * What the inspector page shows of one view of a config, as plain JSON:
 * the system prompt's blocks as the Anthropic adapter sends them (with its
 * cache markers), their sections, the tools, the runtime context, the
 * variables, and what was shadowed or pruned, each with its stability,
 * tokens and contributor (from `explain()`). Pure apart from the one
 * `explain()` call; `serve.ts` sends it to the page.
 *
 * @module
 */

import { toMessages } from "../../adapters/anthropic/mod.ts";
import {
  type AssembleContext,
  type PromptExplanation,
  renderRuntimeContext,
  type ScopeKey,
  type SectionOrigin,
  type Stability,
  type SystemPrompt,
  type ToolOrigin,
} from "../../mod.ts";
import { describeTarget, targetJson } from "../assembly.ts";
import { describeError } from "../cli_error.ts";
import type { Target } from "../config.ts";
import type { CountTokens } from "../tokens.ts";

/** The config's scope names by scope key, for contributors' labels. */
export type ScopeNames = ReadonlyMap<ScopeKey, string>;

/** Who put an entry in the prompt, in words and parts. */
export interface ContributorView {
  /** `registry/shell (global)`, `registry/review (scope "agent")`, `a listener`. */
  label: string;
  /** The registrar's label; `null` for a listener's entry. */
  registrar: string | null;
  layer: "global" | "scope" | "listener";
}

/** One section of the system prompt. */
export interface SectionView {
  name: string;
  order: number;
  stability: Stability;
  /** Why it has that stability (`own`, `layer default`, `variable NAME`...). */
  stabilityReason: string;
  contributor: ContributorView;
  tokens: number;
  characters: number;
  /** Registered with `cacheBreakpoint: true`. */
  breakpoint: boolean;
  /** Its rendered text. */
  text: string;
}

/** One system block on the wire (the Anthropic adapter's, `cache: true`). */
export interface BlockView {
  /** 1-based, in wire order. */
  index: number;
  /** The most volatile stability of its sections. */
  stability: Stability;
  /** Whether the adapter puts a `cache_control` marker on it. */
  marker: boolean;
  tokens: number;
  sections: SectionView[];
}

/** One tool. */
export interface ToolView {
  name: string;
  stability: Stability;
  stabilityReason: string;
  contributor: ContributorView;
  /** Tokens of its JSON. */
  tokens: number;
  /** False when a gate (or a listener) made it inactive. */
  active: boolean;
  /** The gate that made it inactive, in words. */
  inactiveBy?: string;
  /** Whether the adapter puts a `cache_control` marker on it. */
  marker: boolean;
}

/** One runtime context entry (sent after the cached prefix). */
export interface RuntimeContextView {
  name: string;
  order: number;
  contributor: ContributorView;
  tokens: number;
  text: string;
}

/** One variable. */
export interface VariableView {
  name: string;
  stability: Stability;
  stabilityReason: string;
  contributor: ContributorView;
  defined: boolean;
}

/** A registration a nearer layer hid. */
export interface ShadowedView {
  kind: string;
  name: string;
  contributor: ContributorView;
  /** The registrar label of the registration that won. */
  by: string;
}

/** A section a token budget pruned. */
export interface PrunedView {
  name: string;
  tokens: number;
  stability: Stability;
  priority: number;
  reason: string;
}

/** One view of the config (the global view or a named scope). */
export interface ScopeView {
  /** An HTML id: `view-global` or `view-N` (N: the scope's position). */
  id: string;
  /** The scope's name; `null` for the global view. */
  name: string | null;
  /** `the global view`, `scope "reviewer"`. */
  title: string;
  /** Set when the assembly failed (one line); the lists are then empty. */
  error?: string;
  blocks: BlockView[];
  tools: ToolView[];
  /**
   * The deferred tools (SPEC §10.3), listed only when the model finds
   * them, so outside the totals; absent when there are none.
   */
  deferredTools?: ToolView[];
  runtimeContext: RuntimeContextView[];
  variables: VariableView[];
  shadowed: ShadowedView[];
  pruned: PrunedView[];
  totals: {
    promptTokens: number;
    toolTokens: number;
    runtimeContextTokens: number;
  };
}

/**
 * The view of `target`: one `explain()` of its context, laid out. A failed
 * assembly is a view with `error` (the page shows it), never a rejection.
 */
export async function scopeView(
  prompt: SystemPrompt,
  target: Target & { context: () => AssembleContext; position: number },
  options: { count: CountTokens; names: ScopeNames },
): Promise<ScopeView> {
  const base = viewBase(target);
  let explanation: PromptExplanation;
  try {
    explanation = await prompt.explain(target.context(), {
      countTokens: options.count,
    });
    return { ...base, ...layout(explanation, options) };
  } catch (error) {
    return failedView(target, describeError(error).split("\n", 1)[0]);
  }
}

/** The view of `target` whose assembly failed: `error`, the lists empty. */
export function failedView(
  target: Target & { position: number },
  error: string,
): ScopeView {
  return {
    ...viewBase(target),
    error,
    blocks: [],
    tools: [],
    runtimeContext: [],
    variables: [],
    shadowed: [],
    pruned: [],
    totals: { promptTokens: 0, toolTokens: 0, runtimeContextTokens: 0 },
  };
}

function viewBase(
  target: Target & { position: number },
): Pick<ScopeView, "id" | "name" | "title"> {
  return {
    id: target.position === 0 ? "view-global" : `view-${target.position}`,
    name: targetJson(target),
    title: describeTarget(target),
  };
}

/** The explanation laid out as the page shows it. */
export function layout(
  explanation: PromptExplanation,
  { count, names }: { count: CountTokens; names: ScopeNames },
): Omit<ScopeView, "id" | "name" | "title" | "error"> {
  const { assembly, prompt } = explanation;
  const wire = toMessages(assembly, { cache: true });
  const sections = explanation.sections.map((origin, index) =>
    sectionView(origin, assembly.sections[index], { prompt, names })
  );
  // A section belongs to the wire block its text starts in; an empty one
  // (start === end) to the block it would have started.
  const blocks: BlockView[] = [];
  let end = 0;
  let next = 0;
  for (const [index, block] of wire.system.entries()) {
    end += block.text.length;
    const own: SectionView[] = [];
    while (
      next < sections.length &&
      (explanation.sections[next].start < end ||
        index === wire.system.length - 1)
    ) {
      own.push(sections[next++]);
    }
    blocks.push({
      index: index + 1,
      stability: mostVolatile(own.map((section) => section.stability)),
      marker: block.cache_control !== undefined,
      tokens: block.text === "" ? 0 : count(block.text),
      sections: own,
    });
  }
  if (next < sections.length) {
    // Only empty sections are left (an all-empty prompt has no block).
    blocks.push({
      index: blocks.length + 1,
      stability: mostVolatile(sections.slice(next).map((s) => s.stability)),
      marker: false,
      tokens: 0,
      sections: sections.slice(next),
    });
  }
  const marked = new Set(
    (wire.tools ?? []).flatMap((tool) =>
      tool.cache_control === undefined ? [] : [tool.name]
    ),
  );
  const toolView = (origin: ToolOrigin): ToolView => ({
    name: origin.name,
    stability: origin.stability ?? "stable",
    stabilityReason: origin.stabilityReason ?? "layer default",
    contributor: contributor(origin, names),
    tokens: origin.tokens ?? 0,
    active: origin.inactiveBy === undefined,
    ...(origin.inactiveBy === undefined
      ? {}
      : { inactiveBy: origin.inactiveBy }),
    marker: marked.has(origin.name),
  });
  const tools = explanation.tools.map(toolView);
  const deferredTools = explanation.deferredTools?.map(toolView);
  const runtime = explanation.runtimeContext.length === 0
    ? ""
    : renderRuntimeContext(assembly);
  const runtimeContext = explanation.runtimeContext.map((origin, index) => ({
    name: origin.name,
    order: assembly.runtimeContext?.[index]?.order ?? 0,
    contributor: contributor(origin, names),
    tokens: origin.tokens ?? 0,
    text: runtime.slice(origin.start, origin.end),
  }));
  return {
    blocks,
    tools,
    ...(deferredTools === undefined ? {} : { deferredTools }),
    runtimeContext,
    variables: explanation.variables.map((origin) => ({
      name: origin.name,
      stability: origin.stability ?? "stable",
      stabilityReason: origin.stabilityReason ?? "layer default",
      contributor: contributor(origin, names),
      defined: origin.defined,
    })),
    shadowed: explanation.shadowed.map((origin) => ({
      kind: origin.kind,
      name: origin.name,
      contributor: contributor(origin, names),
      by: origin.by,
    })),
    pruned: (explanation.pruned ?? []).map((origin) => ({ ...origin })),
    totals: {
      promptTokens: sum(sections.map((section) => section.tokens)),
      toolTokens: sum(tools.map((tool) => tool.tokens)),
      runtimeContextTokens: sum(runtimeContext.map((entry) => entry.tokens)),
    },
  };
}

function sectionView(
  origin: SectionOrigin,
  section: { order: number; cacheBreakpoint?: boolean },
  { prompt, names }: { prompt: string; names: ScopeNames },
): SectionView {
  const text = prompt.slice(origin.start, origin.end);
  return {
    name: origin.name,
    order: section.order,
    stability: origin.stability ?? "stable",
    stabilityReason: origin.stabilityReason ?? "layer default",
    contributor: contributor(origin, names),
    tokens: origin.tokens ?? 0,
    characters: text.length,
    breakpoint: section.cacheBreakpoint === true,
    text,
  };
}

function contributor(
  origin: { registrar?: string; layer: string; scope?: ScopeKey },
  names: ScopeNames,
): ContributorView {
  const layer = origin.layer as ContributorView["layer"];
  if (layer === "listener" || origin.registrar === undefined) {
    return { label: "a listener", registrar: null, layer: "listener" };
  }
  const where = layer === "scope"
    ? `scope ${scopeName(origin.scope, names)}`
    : "global";
  return {
    label: `${origin.registrar} (${where})`,
    registrar: origin.registrar,
    layer,
  };
}

function scopeName(scope: ScopeKey | undefined, names: ScopeNames): string {
  const named = scope === undefined ? undefined : names.get(scope);
  if (named !== undefined) return JSON.stringify(named);
  if (typeof scope === "string") return JSON.stringify(scope);
  if (typeof scope === "object" && scope !== null) {
    const id = (scope as { id?: unknown }).id;
    if (typeof id === "string") return JSON.stringify(id);
  }
  return typeof scope === "symbol" ? scope.toString() : String(scope);
}

const RANK: Record<Stability, number> = { stable: 0, agent: 1, volatile: 2 };

function mostVolatile(stabilities: readonly Stability[]): Stability {
  return stabilities.reduce<Stability>(
    (most, stability) => RANK[stability] > RANK[most] ? stability : most,
    "stable",
  );
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
