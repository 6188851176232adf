/**
 * `explain`: an assembly with the provenance of every entry (the registrar
 * and layer it came from, where each section sits in the rendered prompt,
 * token counts on request) and what nearer layers shadowed. Runs the same
 * snapshot, build and waterfall as `assemble`, with a trace that only this
 * path records.
 *
 * @module
 */

import { defer, map, type Observable } from "rxjs";
import { assembly$ } from "../assemble/build.ts";
import {
  type Contribution,
  contributionOf,
  fingerprintOf,
  type Registered,
  type RegistryOrigin,
} from "./origins.ts";
import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import type { BuildOptions, BuildTrace } from "../kinds/kind.ts";
import type { Snapshot } from "../store/layers.ts";
import {
  renderSections,
  type RenderSectionsOptions,
} from "../render/interpolate.ts";
import { readingAssembly } from "../render/assembly_shape.ts";
import type {
  AssembleContext,
  AssembledSection,
  PromptAssembly,
  Stability,
} from "../types.ts";
import { countText } from "../budget/count_text.ts";
import type { Pruning } from "../budget/prune.ts";
import type {
  ExplainOptions,
  PromptExplanation,
  PrunedOrigin,
  SectionOrigin,
  StabilityReason,
  ToolOrigin,
  VariableOrigin,
} from "./explanation.ts";
import { markInactive } from "./gates.ts";
import type { GateAnswer } from "../kinds/tool_gate.ts";
import {
  mostVolatileReference,
  type OwnStability,
  rankOf,
  STABILITIES,
  type StabilityRank,
} from "../kinds/stability.ts";

/** What `explain` builds with: the registry's options and the caller's. */
export interface ExplanationOptions extends BuildOptions {
  /** The caller's options, validated here. */
  readonly explain: unknown;
}

type CountTokens = (text: string) => number;

/**
 * The explanation of one assembly of `snapshot` for `context`, as a
 * one-value observable failing exactly where `assembly$` fails, and also
 * when the prompt does not render or the token counter fails.
 */
export function explanation$<C extends AssembleContext>(
  snapshot: Snapshot,
  context: C,
  options: ExplanationOptions,
): Observable<PromptExplanation> {
  return defer(() => {
    const countTokens = checkOptions(options.explain);
    let contribution: Contribution | undefined;
    let gates: readonly GateAnswer[] = [];
    let pruning: Pruning | undefined;
    const trace: BuildTrace = {
      built: (initial, notes) => {
        contribution = contributionOf(snapshot, initial, trace);
        gates = notes.gateAnswers ?? [];
      },
      pruned: (why) => pruning = why,
    };
    return assembly$(snapshot, context, { ...options, trace }).pipe(
      map((assembly) =>
        explain(assembly, contribution!, { countTokens, gates, pruning })
      ),
    );
  });
}

function checkOptions(options: unknown): CountTokens | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `explain() options must be an object { countTokens? }; got ` +
        `${quote(options)}.`,
    );
  }
  const countTokens = readGuarded(
    () => (options as ExplainOptions).countTokens,
    "INVALID_CONFIG",
    () =>
      `Reading explain()'s options threw; pass a plain object ` +
      `{ countTokens? }.`,
  );
  if (countTokens !== undefined && typeof countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_PROVIDER",
      `explain()'s countTokens must be a function (text: string) => number; ` +
        `got ${quote(countTokens)}.`,
    );
  }
  return countTokens;
}

/**
 * Each section is rendered once, and the prompt is joined from those very
 * texts (renderPrompt's rule), so the offsets slice the prompt even when a
 * section's `text` is a getter that answers differently each time.
 */
function explain(
  assembly: PromptAssembly,
  contribution: Contribution,
  { countTokens, gates, pruning }: {
    countTokens: CountTokens | undefined;
    gates: readonly GateAnswer[];
    pruning: Pruning | undefined;
  },
): PromptExplanation {
  const { variables } = assembly;
  const rendered = renderedSections(assembly.sections, variables);
  const prompt = rendered.filter((text) => text !== "").join("\n\n");
  const tools = { countTokens, toolStability: assembly.toolStability };
  const deferred = deferredOf(assembly);
  return {
    assembly,
    prompt,
    sections: sectionOrigins(assembly.sections, contribution.sections, {
      rendered,
      countTokens,
      variables: variableRanksOf(contribution),
    }),
    tools: markInactive(
      toolOrigins(assembly.tools, contribution.tools, tools),
      assembly.activeTools,
      gates,
    ),
    ...(deferred === undefined ? {} : {
      deferredTools: markInactive(
        toolOrigins(deferred, contribution.tools, {
          ...tools,
          list: "deferredTools",
        }),
        assembly.activeTools,
        gates,
      ),
    }),
    variables: variableOrigins(variables, contribution.variables),
    shadowed: contribution.shadowed,
    runtimeContext: sectionOrigins(
      assembly.runtimeContext ?? [],
      contribution.runtimeContext,
      {
        rendered: renderedSections(assembly.runtimeContext ?? [], variables, {
          list: "runtimeContext",
        }),
        countTokens,
        list: "runtimeContext",
      },
    ),
    ...prunedOrigins(pruning),
  };
}

/** `renderSections`, where a getter's or a Proxy's error is typed. */
function renderedSections(
  sections: readonly AssembledSection[],
  variables: PromptAssembly["variables"],
  options?: RenderSectionsOptions,
): string[] {
  return readingAssembly(
    () => renderSections(sections, variables, options),
    "explain()",
  );
}

/**
 * The registry origin of a final entry named `name`, claimed once (it
 * matches when the registry contributed that name and the entry still
 * equals what it contributed; anything else came from a listener), with
 * the registration's own stability.
 */
function claimed(
  registered: Map<string, Registered>,
  name: string,
  entry: unknown,
): {
  origin: RegistryOrigin | { readonly layer: "listener" };
  own?: OwnStability;
} {
  const found = registered.get(name);
  if (found === undefined || !Object.is(found.fingerprint, entry)) {
    return { origin: { layer: "listener" } };
  }
  registered.delete(name);
  return { origin: found.origin, own: found.own };
}

/**
 * Sets an entry's stability and why on its `origin`: a listener's entry is
 * `"listener"`; a registered one has its own reason, unless it ended more
 * volatile than its own stability: then a variable it references made it
 * so (or a listener changed it).
 */
function setStability(
  origin: { stability?: Stability; stabilityReason?: StabilityReason },
  stability: unknown,
  { own, text, variables }: {
    own: OwnStability | undefined;
    text?: unknown;
    variables?: ReadonlyMap<string, StabilityRank>;
  },
): void {
  const rank = rankOf(stability ?? "stable");
  const final = rank === -1 ? "stable" : STABILITIES[rank];
  origin.stability = final;
  if (own === undefined) {
    origin.stabilityReason = "listener";
    return;
  }
  if (final === own.stability) {
    origin.stabilityReason = own.reason;
    return;
  }
  const variable = variables === undefined
    ? undefined
    : mostVolatileReference(text, variables, rankOf(own.stability));
  origin.stabilityReason = variable !== undefined &&
      variables!.get(variable) === rank
    ? `variable ${variable}`
    : "listener";
}

interface SectionOriginsOptions extends RenderSectionsOptions {
  /** Each entry's rendered text. */
  readonly rendered: readonly string[];
  readonly countTokens: CountTokens | undefined;
  /** For sections (not runtime context): the variables' stability ranks. */
  readonly variables?: ReadonlyMap<string, StabilityRank>;
}

/**
 * Each entry's origin and the UTF-16 range of its rendered text in the
 * joined rendering (renderPrompt's rule: non-empty entries joined with one
 * blank line). An entry that renders empty sits where the next one would.
 */
function sectionOrigins(
  sections: readonly AssembledSection[],
  registered: Map<string, Registered>,
  { rendered, countTokens, list, variables }: SectionOriginsOptions,
): SectionOrigin[] {
  const noun = list === "runtimeContext" ? "runtime context entry" : "section";
  let at = 0;
  return sections.map((section, index) => {
    const text = rendered[index];
    if (text !== "" && at > 0) at += 2;
    const start = at;
    at += text.length;
    const { name } = section;
    const { origin: from, own } = claimed(
      registered,
      name,
      fingerprintOf(section),
    );
    const origin: SectionOrigin = { name, ...from, start, end: at };
    if (variables !== undefined) {
      setStability(origin, section.stability, {
        own,
        text: section.text,
        variables,
      });
    }
    if (countTokens !== undefined) {
      origin.tokens = count(countTokens, text, `${noun} ${quote(name)}`);
    }
    return origin;
  });
}

/** The registered variables' stability ranks, for the sections' reasons. */
function variableRanksOf(
  contribution: Contribution,
): Map<string, StabilityRank> {
  const ranks = new Map<string, StabilityRank>();
  for (const [name, { own }] of contribution.variables) {
    const rank = rankOf(own?.stability);
    if (rank > 0) ranks.set(name, rank as StabilityRank);
  }
  return ranks;
}

/**
 * The assembly's deferred tools, when it has any; `INVALID_ASSEMBLY` for a
 * value that is not a list.
 */
function deferredOf(assembly: PromptAssembly): readonly unknown[] | undefined {
  const deferred: unknown = assembly.deferredTools;
  if (deferred === undefined) return undefined;
  if (!Array.isArray(deferred)) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's deferredTools is ${quote(deferred)}; it is a list of ` +
        `tools { name, description, parameters }, or left out.`,
    );
  }
  return deferred.length === 0 ? undefined : deferred;
}

function toolOrigins(
  tools: readonly unknown[],
  registered: Map<string, Registered>,
  { countTokens, toolStability, list = "tools" }: {
    countTokens: CountTokens | undefined;
    toolStability: PromptAssembly["toolStability"];
    list?: "tools" | "deferredTools";
  },
): ToolOrigin[] {
  return tools.map((tool, index) => {
    const name = (tool as { name?: unknown } | null)?.name;
    if (typeof tool !== "object" || tool === null || typeof name !== "string") {
      throw new SystemPromptError(
        "INVALID_ASSEMBLY",
        `The assembly's ${list}[${index}] is not a tool with a string name; ` +
          `every tool is an object { name, description, parameters }.`,
      );
    }
    const json = fingerprintOf(tool);
    const { origin: from, own } = claimed(registered, name, json);
    const stability = toolStability !== undefined &&
        Object.hasOwn(toolStability, name)
      ? toolStability[name]
      : undefined;
    const origin: ToolOrigin = { name, ...from };
    setStability(origin, stability, { own });
    if (countTokens !== undefined) {
      if (typeof json !== "string") {
        throw new SystemPromptError(
          "INVALID_ASSEMBLY",
          `Tool ${quote(name)} cannot be written as JSON, so its tokens ` +
            `cannot be counted; a tool holds JSON data only.`,
        );
      }
      origin.tokens = count(countTokens, json, `tool ${quote(name)}`);
    }
    return origin;
  });
}

function variableOrigins(
  variables: PromptAssembly["variables"],
  registered: Map<string, Registered>,
): VariableOrigin[] {
  return Object.keys(variables).map((name) => {
    const value = variables[name];
    const { origin: from, own } = claimed(registered, name, value);
    const origin: VariableOrigin = {
      name,
      ...from,
      defined: value !== undefined,
    };
    setStability(origin, own?.stability, { own });
    return origin;
  });
}

/**
 * The one token accounting (SPEC 8.9, `src/budget/count.ts`): an empty text
 * is 0 without a call; the counter answers a non-negative integer.
 */
function count(countTokens: CountTokens, text: string, what: string): number {
  return text === "" ? 0 : countText(countTokens, text, () => what);
}

/** What the budget pruned, and why (`explain().pruned`), when it did. */
function prunedOrigins(
  pruning: Pruning | undefined,
): { pruned?: PrunedOrigin[] } {
  if (pruning === undefined) return {};
  const { maxTokens, total } = pruning;
  return {
    pruned: pruning.sections.map((
      { name, tokens, stability, priority },
      at,
    ) => ({
      name,
      tokens,
      stability,
      priority,
      reason: `${ordinal(at + 1)} pruned to fit maxTokens ${maxTokens} (the ` +
        `prompt took ${total}): a ${stability} section of priority ` +
        `${priority}; volatile sections go first, then agent, then stable, ` +
        `lower priority first, then later order`,
    })),
  };
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13
    ? "th"
    : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}
