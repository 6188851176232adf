/**
 * The data shapes shared by the pure core and the registry.
 *
 * @module
 */

import type { Observable } from "rxjs";

/**
 * How long an entry's bytes stay the same (SPEC §8.1): `"stable"` for every
 * agent and step of a deployment, `"agent"` for every step of one agent,
 * `"volatile"` may change any step. It orders tools and cuts prompt blocks
 * so that what changes comes after what does not.
 *
 * @example
 * ```ts
 * import type { Stability } from "@rxprompt/system-prompt";
 *
 * const memory: Stability = "volatile";
 * ```
 */
export type Stability = "stable" | "agent" | "volatile";

/**
 * The last, optional argument of `variable()` and `tools()`.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * prompt.variable("branch", () => "main", { stability: "volatile" });
 * ```
 */
export interface StabilityOptions {
  /**
   * Overrides the default: `"stable"` in the global layer, `"agent"` in a
   * scope layer, `"volatile"` for an Observable source.
   */
  stability?: Stability;
}

/**
 * Whether a tool source's tools are deferred (SPEC §10.3): `true`, all of
 * them; `{ above: n }`, all of them when the source offers more than `n`
 * tools in an assembly (a whole number, 0 or more); `false`, none. A
 * deferred tool is known to the registry (validation, `toolOrder`, gates,
 * `explain()`) but goes in the assembly's `deferredTools`, never in `tools`:
 * it is listed only when the model finds it.
 *
 * @example
 * ```ts
 * import type { ToolDeferral } from "@rxprompt/system-prompt";
 *
 * // Defer a large server's tools, list a small one's.
 * const deferral: ToolDeferral = { above: 20 };
 * ```
 */
export type ToolDeferral = boolean | { above: number };

/**
 * The last, optional argument of `tools()`: its tools' stability, and
 * whether they are deferred.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * const schema = { type: "object", properties: {} };
 * prompt.tools(() => ({
 *   schemas: [{ name: "crm_find_contact", description: "Find a contact.", parameters: schema }],
 * }), { defer: true });
 * const { tools, deferredTools } = await prompt.assemble();
 * console.log(tools.length, deferredTools?.map((tool) => tool.name)); // 0 ["crm_find_contact"]
 * await prompt.dispose();
 * ```
 */
export interface ToolsOptions extends StabilityOptions {
  /**
   * Defers the source's tools (see {@linkcode ToolDeferral}). When given, it
   * wins over the `defer` the source's result carries.
   */
  defer?: ToolDeferral;
}

/**
 * One section of an assembly: resolved text, not yet interpolated.
 *
 * @example
 * ```ts
 * import type { AssembledSection } from "@rxprompt/system-prompt";
 *
 * const section: AssembledSection = { name: "tools:shell", order: 110, text: "Use {{cwd}}." };
 * ```
 */
export interface AssembledSection {
  /** Unique name within one assembly, for example `"tools:shell"`. */
  name: string;
  /** Ascending render position; ties are broken by code-unit order of `name`. */
  order: number;
  /** The section's template text; `{{name}}` references are resolved at render. */
  text: string;
  /**
   * Present (and `true`) only when the section is a cache breakpoint: a
   * provider may cache the prompt up to and including this section.
   */
  cacheBreakpoint?: true;
  /**
   * The section's effective stability when it is not `stable` (absent):
   * `agent`, the same bytes for every step of one agent; `volatile`, may
   * change any step. The most volatile of its own stability and that of the
   * variables its text references. Never reaches the wire.
   * A token budget prunes volatile sections first, then agent ones.
   */
  stability?: "agent" | "volatile";
  /**
   * On a runtime context entry only: present (and `"turn"`) when it holds
   * for one turn (`PromptRuntimeContext.holds`). Never reaches the wire.
   */
  holds?: "turn";
}

/**
 * A tool as the model sees it.
 *
 * @example
 * ```ts
 * import type { ToolSchema } from "@rxprompt/system-prompt";
 *
 * const shell: ToolSchema = {
 *   name: "shell",
 *   description: "Run a shell command.",
 *   parameters: { type: "object", properties: { command: { type: "string" } } },
 * };
 * ```
 */
export interface ToolSchema {
  /** The tool's name, the key of `toolOrder`. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of the tool's input. */
  parameters: Record<string, unknown>;
}

/**
 * The result of one `assemble()`: sections in render order (not yet
 * interpolated), tools in canonical order, and resolved variables.
 *
 * @example
 * ```ts
 * import { type PromptAssembly, renderPrompt } from "@rxprompt/system-prompt";
 *
 * const assembly: PromptAssembly = {
 *   sections: [{ name: "persona", order: 0, text: "You run on {{model}}." }],
 *   tools: [],
 *   variables: { model: "example-model" },
 * };
 * console.log(renderPrompt(assembly)); // "You run on example-model."
 * ```
 */
export interface PromptAssembly {
  /** Sections in render order. */
  sections: AssembledSection[];
  /** Tools in canonical order. */
  tools: ToolSchema[];
  /**
   * The deferred tools (SPEC §10.3), in canonical order: tools the registry
   * knows (validated, ordered by `toolOrder`, gated, explained) that are
   * listed only when the model finds them, so `tools` and the system prompt
   * stay the same whatever the deferred set is. Absent when no tool is
   * deferred. The stateless adapters list none of them.
   */
  deferredTools?: ToolSchema[];
  /**
   * The label of the registrar whose tool source deferred each of
   * `deferredTools`, by tool name (keys in code-unit order): the group a
   * provider form lists it in (one OpenAI `namespace` per label). A deferred
   * tool a listener added has no entry. Absent with `deferredTools`.
   */
  deferredSources?: Record<string, string>;
  /**
   * Resolved variables. A key whose value is `undefined` is registered but
   * has no value for this assembly; referencing it fails at render.
   */
  variables: Record<string, string | undefined>;
  /**
   * Runtime context entries in render order: volatile facts (date, git
   * status) sent as a user-role message, rendered by `renderRuntimeContext`
   * with the same rules as the sections. An absent key reads as `[]`.
   */
  runtimeContext?: AssembledSection[];
  /**
   * The stability of each tool (listed or deferred) that is not `stable`,
   * by tool name (keys in code-unit order; absent, or a missing key, is
   * `stable`): its provider's.
   * Tool objects carry no stability key, so the wire is unchanged.
   */
  toolStability?: Record<string, "agent" | "volatile">;
  /**
   * The names of the tools the model may call this step, in the order of
   * `tools`, then of `deferredTools`: those every answering tool gate of
   * the layers read allows (`registrar.toolGate`). Absent when no gate
   * answered (every tool is active). `tools` still lists every tool, so the
   * tools block stays byte-identical while gates change; the adapters turn
   * this into OpenAI's `allowed_tools` or leave inactive tools out (they
   * read the names of `tools` only). Listeners may set or change it; after
   * the waterfall it keeps only the names of `tools` and `deferredTools`,
   * in their order, and a name no provider knows rejects the assembly with
   * `UNKNOWN_TOOL_IN_GATE`.
   */
  activeTools?: string[];
  /**
   * The sections a token budget pruned, in pruning order, with the tokens
   * each would have cost; absent when the budget pruned nothing.
   */
  pruned?: { name: string; tokens: number }[];
}

/**
 * A token budget (SPEC 8.9): sections are pruned until the system prompt's
 * sections and the tools' JSON fit in `maxTokens`, as counted by
 * `countTokens`.
 *
 * @example
 * ```ts
 * import type { TokenBudget } from "@rxprompt/system-prompt";
 *
 * const budget: TokenBudget = {
 *   maxTokens: 8_000,
 *   countTokens: (text) => Math.ceil(text.length / 4),
 * };
 * ```
 */
export interface TokenBudget {
  /** The most tokens the prompt may take: a finite number above 0. */
  maxTokens: number;
  /**
   * Counts the tokens of one text (a rendered section, or a tool's JSON):
   * a non-negative integer. Called once per distinct text per registry.
   */
  countTokens: (text: string) => number;
}

/**
 * Options of one `assemble()` call.
 *
 * @example
 * ```ts
 * import type { AssembleOptions } from "@rxprompt/system-prompt";
 *
 * const options: AssembleOptions = {
 *   budget: { maxTokens: 8_000, countTokens: (text) => text.length },
 * };
 * ```
 */
export interface AssembleOptions {
  /** A token budget for this assembly, instead of the config's `budget`. */
  budget?: TokenBudget;
}

/**
 * Selects a scope layer: any non-nullish value, compared by identity (`Map`
 * semantics). Usually the agent object or an agent id.
 *
 * @example
 * ```ts
 * import type { ScopeKey } from "@rxprompt/system-prompt";
 *
 * const agent = { id: "reviewer" };
 * const keys: ScopeKey[] = [agent, "reviewer", 7, Symbol("reviewer")];
 * ```
 */
export type ScopeKey = string | number | bigint | boolean | symbol | object;

/**
 * What `assemble(context)` receives. A harness extends it with its own
 * fields (`SystemPrompt<{ agent?: Agent }>`); providers must tolerate absent
 * fields, because a bare `assemble()` carries an empty context.
 *
 * @example
 * ```ts
 * import type { AssembleContext } from "@rxprompt/system-prompt";
 *
 * interface StepContext extends AssembleContext {
 *   model?: string;
 * }
 * const context: StepContext = { scope: "reviewer", model: "example-model" };
 * ```
 */
export interface AssembleContext {
  /** The scope whose layer shadows the global layer for this assembly. */
  scope?: ScopeKey;
  /** Cancels the assembly: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * An ordered text section. `text` is a template (`{{name}}` references are
 * resolved at render) or a function of the assembly context.
 *
 * @example
 * ```ts
 * import type { PromptSection } from "@rxprompt/system-prompt";
 *
 * const guidance: PromptSection<{ cwd?: string }> = {
 *   name: "tools:shell",
 *   order: 110,
 *   text: (context) => context.cwd ? "Commands run in {{cwd}}." : "",
 * };
 * ```
 */
export interface PromptSection<C = AssembleContext> {
  /** Unique within its layer; a scope section shadows a global one of the same name. */
  name: string;
  /** Finite number; ascending render position (ties: code-unit order of names). */
  order: number;
  /**
   * The template text, a function returning it for one assembly, or an
   * Observable of it (live: its latest value; `""` before the first).
   */
  text: string | ((context: C) => string) | Observable<string>;
  /**
   * A provider may cache the prompt up to and including this section
   * (`renderPromptBlocks` cuts after it; the Anthropic adapters mark it).
   */
  cacheBreakpoint?: boolean;
  /**
   * When this is the one effective complete section of an assembly, the
   * assembly's `sections` become this section alone after the waterfall:
   * a compatibility deployment owns the whole system prompt.
   */
  complete?: boolean;
  /**
   * How long the section's text stays the same. Default: `"stable"` in the
   * global layer, `"agent"` in a scope layer, `"volatile"` for an
   * Observable `text`. A section referencing a more volatile variable is
   * that volatile.
   */
  stability?: Stability;
  /**
   * Under a token budget, sections of higher priority are kept longer
   * (default 0; a finite number).
   */
  priority?: number;
  /** Never pruned by a token budget (default `false`). */
  required?: boolean;
}

/**
 * An ordered runtime context entry: a volatile fact (date, git status) sent
 * to the model as a user-role message, outside the system prompt, so the
 * system prompt stays byte-stable and cacheable. `text` is a template or a
 * function of the assembly context.
 *
 * @example
 * ```ts
 * import type { PromptRuntimeContext } from "@rxprompt/system-prompt";
 *
 * const today: PromptRuntimeContext = {
 *   name: "date",
 *   order: 0,
 *   text: () => `Today is ${new Date().toISOString().slice(0, 10)}.`,
 * };
 * ```
 */
export interface PromptRuntimeContext<C = AssembleContext> {
  /** Unique within its layer; a nearer layer's entry shadows a farther one's. */
  name: string;
  /** Finite number; ascending render position (ties: code-unit order of names). */
  order: number;
  /**
   * The template text, a function returning it for one assembly, or an
   * Observable of it (live: its latest value; `""` before the first).
   */
  text: string | ((context: C) => string) | Observable<string>;
  /**
   * How long the model should read it (SPEC 10.1): `"change"` (default)
   * until the runtime context changes (0.4's update rule); `"turn"` for the
   * turn it is sent in only, a reminder: a conversation on Anthropic sends
   * it as a system message with `clear_at: "next_user_message"`, again
   * after each tool round while it is registered; elsewhere (and with
   * `changes: { tools: "rebuild" }` on Anthropic) it is part of the
   * runtime-context update. The stateless renderers render it with the
   * rest.
   */
  holds?: "change" | "turn";
}

/**
 * What a tool provider returns for one assembly.
 *
 * @example
 * ```ts
 * import type { ToolProviderResult } from "@rxprompt/system-prompt";
 *
 * // This agent may not use `shell`, but it is a known tool, so a
 * // `toolOrder` naming it stays valid.
 * const result: ToolProviderResult = { schemas: [], knownNames: ["shell"] };
 * ```
 */
export interface ToolProviderResult {
  /** The tools offered for this assembly. */
  schemas: readonly ToolSchema[];
  /**
   * Every tool this provider could offer (default: the names of `schemas`);
   * `toolOrder` is checked against the union of these.
   */
  knownNames?: readonly string[];
  /**
   * Whether these tools are deferred (see {@linkcode ToolDeferral}; default
   * `false`): a source that knows its own size says so here (`mcpTools(client,
   * { defer })` does). The registration's `defer` option, when given, wins.
   */
  defer?: ToolDeferral;
}

/**
 * Contributes tool schemas to an assembly.
 *
 * @example
 * ```ts
 * import type { ToolProvider } from "@rxprompt/system-prompt";
 *
 * const shellTools: ToolProvider = () => ({
 *   schemas: [{
 *     name: "shell",
 *     description: "Run a command.",
 *     parameters: { type: "object", properties: { command: { type: "string" } } },
 *   }],
 * });
 * ```
 */
export type ToolProvider<C = AssembleContext> = (
  context: C,
) => ToolProviderResult;

/**
 * Says which tools are active for one assembly: an iterable of tool names,
 * or `undefined` to leave the choice to the other gates. A name may be a
 * tool absent this step if a provider lists it in `knownNames`; any other
 * unknown name rejects the assembly with `UNKNOWN_TOOL_IN_GATE`.
 *
 * @example
 * ```ts
 * import type { ToolGate } from "@rxprompt/system-prompt";
 *
 * const readOnly: ToolGate<{ mode?: string }> = (context) =>
 *   context.mode === "review" ? ["read_file", "search"] : undefined;
 * ```
 */
export type ToolGate<C = AssembleContext> = (
  context: C,
) => Iterable<string> | undefined;

/**
 * Resolves one prompt variable for an assembly; `undefined` means
 * "registered, no value here" (referencing it then fails at render).
 *
 * @example
 * ```ts
 * import type { VariableProvider } from "@rxprompt/system-prompt";
 *
 * const model: VariableProvider<{ model?: string }> = (context) => context.model;
 * ```
 */
export type VariableProvider<C = AssembleContext> = (
  context: C,
) => string | undefined;

/**
 * One stage of the assembly waterfall. Receives the assembly, the caller's
 * context object itself, and `next()`, which runs the rest of the pipeline
 * (memoized). May mutate and call `next()`, wrap `next()`'s result, or
 * return its own assembly without calling `next()`.
 *
 * @example
 * ```ts
 * import type { AssembleListener } from "@rxprompt/system-prompt";
 *
 * const footer: AssembleListener = async (assembly, _context, next) => {
 *   const result = await next();
 *   result.sections.push({ name: "footer", order: 1000, text: "End of instructions." });
 *   return result;
 * };
 * ```
 */
export type AssembleListener<C = AssembleContext> = (
  assembly: PromptAssembly,
  context: C,
  next: () => Promise<PromptAssembly>,
) =>
  | PromptAssembly
  | PromiseLike<PromptAssembly>
  | Observable<PromptAssembly>;
