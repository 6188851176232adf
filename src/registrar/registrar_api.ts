/**
 * The registrar's public shape: the `Registrar` interface and the options of
 * `fork()` and `scope()`.
 *
 * @module
 */

import type { Disposer, EffectBody } from "../lifetime/lifetime.ts";
import type { Observable } from "rxjs";
import type {
  AssembleContext,
  AssembleListener,
  PromptRuntimeContext,
  PromptSection,
  ScopeKey,
  StabilityOptions,
  ToolGate,
  ToolProvider,
  ToolProviderResult,
  ToolsOptions,
  VariableProvider,
} from "../types.ts";

/**
 * Options of `fork()` and `scope()`.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * const shell = prompt.fork({ label: "shell" });
 * console.log(shell.label); // "registry/shell"
 * ```
 */
export interface RegistrarOptions {
  /**
   * Names the child for people (error messages, diagnostics); need not be
   * unique and never reaches the prompt. Default `"fork"` or `"scope"`.
   */
  label?: string;
}

/**
 * A handle that writes to one layer (the global layer, or one scope's) and
 * owns what it registers. The registry is the root registrar; `fork()` and
 * `scope(key)` make child registrars that the parent owns.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * const plugin = prompt.fork({ label: "search" });
 * plugin.section({ name: "tools:search", order: 120, text: "Search before you guess." });
 * await plugin.dispose(); // removes everything the plugin registered
 * ```
 */
export interface Registrar<C extends AssembleContext = AssembleContext>
  extends AsyncDisposable {
  /** The layer this registrar writes to; `undefined` is the global layer. */
  readonly scopeKey: ScopeKey | undefined;
  /** `"registry"` for the registry; a child's is `parent/label`. */
  readonly label: string;
  /** True once this registrar, or one of its owners, started disposing. */
  readonly disposed: boolean;
  /**
   * Registers a section in this registrar's layer. An Observable `text` is
   * live: subscribed now, its latest value read by each assembly.
   */
  section(section: PromptSection<C>): Disposer;
  /**
   * Registers a tool-schema provider in this registrar's layer: a function,
   * or a live Observable source. Its tools' stability is `options.stability`,
   * by default the layer's (`"stable"` global, `"agent"` scope) or
   * `"volatile"` for an Observable source. `options.defer` (or the `defer`
   * of the source's result) defers its tools: they go in the assembly's
   * `deferredTools`, listed only when the model finds them (SPEC §10.3).
   *
   * @example
   * ```ts
   * import { SystemPrompt } from "@rxprompt/system-prompt";
   *
   * const prompt = new SystemPrompt();
   * const schema = { type: "object", properties: {} };
   * prompt.tools(() => ({
   *   schemas: [{ name: "read_file", description: "Read a file.", parameters: schema }],
   * }));
   * prompt.fork({ label: "crm" }).tools(() => ({
   *   schemas: [
   *     { name: "crm_find_contact", description: "Find a contact.", parameters: schema },
   *     { name: "crm_log_call", description: "Log a call.", parameters: schema },
   *   ],
   * }), { defer: { above: 1 } });
   * const assembly = await prompt.assemble();
   * console.log(assembly.tools.map((tool) => tool.name)); // ["read_file"]
   * console.log(assembly.deferredTools?.map((tool) => tool.name)); // ["crm_find_contact", "crm_log_call"]
   * console.log(assembly.deferredSources?.crm_log_call); // "registry/crm"
   * await prompt.dispose();
   * ```
   */
  tools(
    provider: ToolProvider<C> | Observable<ToolProviderResult>,
    options?: ToolsOptions,
  ): Disposer;
  /**
   * Registers a tool gate in this registrar's layer: a function of the
   * context, or a live Observable, answering the names of the tools the
   * model may call (or `undefined`: no opinion). The assembly's
   * `activeTools` holds the tools every answering gate of the layers read
   * allows; `tools` still lists every tool.
   *
   * @example
   * ```ts
   * import { type AssembleContext, SystemPrompt } from "@rxprompt/system-prompt";
   *
   * const prompt = new SystemPrompt<AssembleContext & { readOnly?: boolean }>();
   * const schema = { type: "object", properties: {} };
   * prompt.tools(() => ({
   *   schemas: [
   *     { name: "read_file", description: "Read a file.", parameters: schema },
   *     { name: "write_file", description: "Write a file.", parameters: schema },
   *   ],
   * }));
   * prompt.toolGate((context) => context.readOnly ? ["read_file"] : undefined);
   * const assembly = await prompt.assemble({ readOnly: true });
   * console.log(assembly.activeTools); // ["read_file"]
   * console.log(assembly.tools.length); // 2
   * await prompt.dispose();
   * ```
   */
  toolGate(
    gate: ToolGate<C> | Observable<Iterable<string> | undefined>,
  ): Disposer;
  /**
   * Registers a `{{name}}` variable in this registrar's layer: a function,
   * or a live Observable source. Its stability (which a section referencing
   * it takes on when it is more volatile) defaults like a tool provider's.
   */
  variable(
    name: string,
    provider: VariableProvider<C> | Observable<string | undefined>,
    options?: StabilityOptions,
  ): Disposer;
  /**
   * Says that a provider's underlying value changed: `{ type: "invalidate" }`
   * for this registrar's layer (the global layer re-renders every watcher; a
   * scope's, only that scope's watchers).
   */
  invalidate(): void;
  /** Registers an assembly listener (scope listeners run for that scope only). */
  onAssemble(listener: AssembleListener<C>): Disposer;
  /** Registers a runtime context entry in this registrar's layer. */
  runtimeContext(entry: PromptRuntimeContext<C>): Disposer;
  /**
   * Turns runtime context off for every assembly that reads this
   * registrar's layer, until the returned disposer runs.
   */
  suppressRuntimeContext(): Disposer;
  /**
   * Binds scope `child` to scope `parent` registry-wide: an assembly for
   * `child` also reads `parent`'s chain, nearer layers winning. Owned by this
   * registrar; the disposer unbinds.
   */
  bindScope(child: ScopeKey, parent: ScopeKey): Disposer;
  /** Builds a composite registration from a generator of teardowns. */
  effect(body: EffectBody): Disposer;
  /** A child owner that writes to the same layer. */
  fork(options?: RegistrarOptions): Registrar<C>;
  /** A child owner that writes to `key`'s scope layer. */
  scope(key: ScopeKey, options?: RegistrarOptions): Registrar<C>;
  /** Pre-bound, idempotent exact disposer of everything this registrar owns. */
  readonly dispose: Disposer;
}
