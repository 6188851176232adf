/**
 * The shapes `explain()` resolves to: an assembly with the provenance of
 * each of its entries.
 *
 * @module
 */

import type { PromptAssembly, ScopeKey, Stability } from "../types.ts";

/**
 * Options of `explain()`.
 *
 * @example
 * ```ts
 * import type { ExplainOptions } from "@rxprompt/system-prompt";
 *
 * // Any tokenizer fits; the module depends on none. A rough count:
 * const options: ExplainOptions = { countTokens: (text) => Math.ceil(text.length / 4) };
 * ```
 */
export interface ExplainOptions {
  /**
   * Counts the tokens of a text (a section's rendered text, or a tool's
   * `JSON.stringify`). Must return a finite number, 0 or more.
   */
  countTokens?: (text: string) => number;
}

/**
 * Where an entry of an assembly came from. A registered entry names the
 * label of its registrar and its layer (`"global"`, or `"scope"` with the
 * layer's scope key). An entry that a listener added or changed (its name
 * was absent before the listeners ran, or its JSON differs from what the
 * registry contributed) has `layer: "listener"` and no registrar.
 *
 * @example
 * ```ts
 * import type { Origin } from "@rxprompt/system-prompt";
 *
 * function describe(origin: Origin): string {
 *   if (origin.layer === "listener") return "made by a listener";
 *   const where = origin.layer === "scope" ? `scope ${String(origin.scope)}` : "global";
 *   return `${origin.registrar} (${where})`;
 * }
 * console.log(describe({ registrar: "registry/shell", layer: "global" })); // "registry/shell (global)"
 * ```
 */
export interface Origin {
  /** The label of the registrar that registered it; absent for a listener's. */
  registrar?: string;
  /** The layer it came from, or `"listener"`. */
  layer: "global" | "scope" | "listener";
  /** The scope key of its layer, for `layer: "scope"`. */
  scope?: ScopeKey;
}

/**
 * Why an entry of an explanation has its stability (SPEC 8.1): its own
 * (`stability` given at registration), its layer's default (`"stable"`
 * global, `"agent"` scope), its Observable source's (`"volatile"`), a more
 * volatile variable its text references (`"variable NAME"`), or a listener
 * made or changed it.
 *
 * @example
 * ```ts
 * import type { StabilityReason } from "@rxprompt/system-prompt";
 *
 * const reason: StabilityReason = "variable branch";
 * ```
 */
export type StabilityReason =
  | "own"
  | "layer default"
  | "Observable source"
  | "listener"
  | `variable ${string}`;

/**
 * The origin of one section (or runtime context entry) and where its
 * rendered text sits in the rendered prompt.
 *
 * @example
 * ```ts
 * import type { SectionOrigin } from "@rxprompt/system-prompt";
 *
 * const prompt = "You are a coding agent.\n\nPrefer short commands.";
 * const origin: SectionOrigin = {
 *   name: "tools:shell",
 *   registrar: "registry/shell",
 *   layer: "global",
 *   start: 25,
 *   end: 47,
 * };
 * console.log(prompt.slice(origin.start, origin.end)); // "Prefer short commands."
 * ```
 */
export interface SectionOrigin extends Origin {
  /** The section's name. */
  name: string;
  /**
   * UTF-16 offset of its rendered text in the prompt. A section that
   * rendered empty has `start === end`.
   */
  start: number;
  /** UTF-16 offset just past its rendered text. */
  end: number;
  /** `countTokens` of its rendered text, when a counter was given. */
  tokens?: number;
  /** A section's effective stability (absent for runtime context). */
  stability?: Stability;
  /** Why it has that stability (absent for runtime context). */
  stabilityReason?: StabilityReason;
}

/**
 * The origin of one tool.
 *
 * @example
 * ```ts
 * import type { ToolOrigin } from "@rxprompt/system-prompt";
 *
 * const origin: ToolOrigin = { name: "shell", registrar: "registry/shell", layer: "global", tokens: 31 };
 * ```
 */
export interface ToolOrigin extends Origin {
  /** The tool's name. */
  name: string;
  /** `countTokens(JSON.stringify(tool))`, when a counter was given. */
  tokens?: number;
  /**
   * Present when the tool is not in the assembly's `activeTools`: the tool
   * gate that left it out (for example `tool gate #1 of registrar
   * "registry/review" (scope "agent")`), or `"an assembly listener"`.
   */
  inactiveBy?: string;
  /** The tool's stability (the assembly's `toolStability`, else stable). */
  stability?: Stability;
  /** Why it has that stability. */
  stabilityReason?: StabilityReason;
}

/**
 * The origin of one variable.
 *
 * @example
 * ```ts
 * import type { VariableOrigin } from "@rxprompt/system-prompt";
 *
 * const origin: VariableOrigin = { name: "cwd", registrar: "registry", layer: "global", defined: true };
 * ```
 */
export interface VariableOrigin extends Origin {
  /** The variable's name. */
  name: string;
  /** False when its value is `undefined` (registered, no value here). */
  defined: boolean;
  /** Its stability (what a section referencing it takes on). */
  stability?: Stability;
  /** Why it has that stability. */
  stabilityReason?: StabilityReason;
}

/**
 * A registration that a nearer layer's registration of the same name hid
 * from the assembly (a scope's section over a global one, say).
 *
 * @example
 * ```ts
 * import type { ShadowedOrigin } from "@rxprompt/system-prompt";
 *
 * const hidden: ShadowedOrigin = {
 *   kind: "section",
 *   name: "deployment:persona",
 *   registrar: "registry",
 *   layer: "global",
 *   by: "registry/reviewer",
 * };
 * ```
 */
export interface ShadowedOrigin extends Origin {
  /** What kind of registration it is. */
  kind: "section" | "variable" | "tool" | "runtimeContext";
  /** Its name. */
  name: string;
  /** The registrar label of the registration that won. */
  by: string;
}

/**
 * What `explain()` resolves to: the assembly `assemble()` would give for the
 * same registrations, its rendered prompt, and the provenance of every
 * entry.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt({ includeHarnessIdentity: false, persona: "You help." });
 * prompt.fork({ label: "style" }).section({ name: "style", order: 10, text: "Be brief." });
 * const { prompt: text, sections } = await prompt.explain();
 * for (const section of sections) {
 *   console.log(section.name, section.registrar, JSON.stringify(text.slice(section.start, section.end)));
 * }
 * // deployment:persona registry "You help."
 * // style registry/style "Be brief."
 * await prompt.dispose();
 * ```
 */
export interface PromptExplanation {
  /** What `assemble(context)` resolves to. */
  assembly: PromptAssembly;
  /** `renderPrompt(assembly)`. */
  prompt: string;
  /** One per `assembly.sections` entry, in the same order. */
  sections: SectionOrigin[];
  /** One per `assembly.tools` entry, in the same order. */
  tools: ToolOrigin[];
  /**
   * One per `assembly.deferredTools` entry, in the same order (a deferred
   * tool's registrar is the label its group takes on the wire); absent when
   * the assembly has no deferred tools.
   */
  deferredTools?: ToolOrigin[];
  /** One per key of `assembly.variables`, in the same order. */
  variables: VariableOrigin[];
  /**
   * Registrations hidden by a nearer layer: sections, variables, tools,
   * then runtime context entries; each kind farthest layer first.
   */
  shadowed: ShadowedOrigin[];
  /**
   * One per `assembly.runtimeContext` entry, with offsets into
   * `renderRuntimeContext(assembly)` (`[]` when there is none).
   */
  runtimeContext: SectionOrigin[];
  /**
   * The sections a token budget pruned, in pruning order, and why; absent
   * when nothing was pruned.
   */
  pruned?: PrunedOrigin[];
}

/**
 * A section a token budget pruned, and why (SPEC 8.9).
 *
 * @example
 * ```ts
 * import type { PrunedOrigin } from "@rxprompt/system-prompt";
 *
 * const pruned: PrunedOrigin = {
 *   name: "memory",
 *   tokens: 120,
 *   stability: "volatile",
 *   priority: 0,
 *   reason: "1st pruned to fit maxTokens 1000 (the prompt took 1100): a " +
 *     "volatile section of priority 0",
 * };
 * ```
 */
export interface PrunedOrigin {
  /** The section's name. */
  name: string;
  /** What it would have cost. */
  tokens: number;
  /** Its effective stability (the tier it was pruned in). */
  stability: "stable" | "agent" | "volatile";
  /** Its priority (0 unless registered with one). */
  priority: number;
  /** Why, in words. */
  reason: string;
}
