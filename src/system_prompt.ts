/**
 * `SystemPrompt`: the thin facade. It wires the registry's registrars,
 * layers, `change$`, `assemble` and `watch`; the work happens in the rooms
 * below (`registrar.ts`, `layers.ts`, `kinds/`, `assemble/`).
 *
 * @module
 */

import { firstValueFrom, type Observable } from "rxjs";
import { assembly$ } from "./assemble/build.ts";
import {
  type PipelineSource,
  runPipeline$,
  watchViews$,
} from "./assemble/pipeline.ts";
import { registerBuiltIns, validateConfig } from "./registrar/built_ins.ts";
import { quote, readGuarded, SystemPromptError } from "./errors.ts";
import { budgetPlanOf, TokenMemos } from "./budget/budget.ts";
import type { BudgetPlan } from "./budget/prune.ts";
import { explanation$ } from "./explain/explain.ts";
import type {
  ExplainOptions,
  PromptExplanation,
} from "./explain/explanation.ts";
import type { Snapshot } from "./store/layers.ts";
import {
  type Disposer,
  type EffectBody,
  Lifetime,
} from "./lifetime/lifetime.ts";
import {
  LayerRegistrar,
  type Registrar,
  type RegistrarOptions,
  Registry,
} from "./registrar/registrar.ts";
import {
  ContainedObservable,
  inCommitOrder,
  reportToConsole,
} from "./store/change_stream.ts";
import { compileToolOrder } from "./kinds/tool_order.ts";
import type {
  AssembleContext,
  AssembleListener,
  AssembleOptions,
  PromptAssembly,
  PromptRuntimeContext,
  PromptSection,
  ScopeKey,
  StabilityOptions,
  ToolGate,
  ToolProvider,
  ToolProviderResult,
  ToolsOptions,
  VariableProvider,
} from "./types.ts";
import type { PromptChange, PromptView } from "./change_types.ts";
import type { SystemPromptConfig } from "./system_prompt_config.ts";

const layersOf = new WeakMap<object, { readonly scopeCount: number }>();

/**
 * How many scope layers a registry holds right now. For tests and
 * diagnostics: a disposed scope must leave none behind.
 */
export function scopeLayerCount(prompt: object): number {
  return layersOf.get(prompt)?.scopeCount ?? 0;
}

/**
 * The system prompt registry: plugins register sections, tool providers,
 * variables and listeners through registrars; the agent loop calls
 * {@linkcode SystemPrompt.assemble} once per step and renders the result
 * with `renderPrompt`.
 *
 * @typeParam C the assembly context a harness passes to providers
 *
 * @example
 * ```ts
 * import { renderPrompt, SystemPrompt, TOOL_ORDER_REST } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt<{ scope?: string; model?: string }>({
 *   persona: "You are a helpful assistant running on {{model}}.",
 *   toolOrder: ["read_file", TOOL_ORDER_REST],
 * });
 * prompt.variable("model", (context) => context.model ?? "example-model");
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
 * }));
 * prompt.scope("reviewer").section({
 *   name: "deployment:persona",
 *   order: 0,
 *   text: "You review code on {{model}}.",
 * });
 *
 * const assembly = await prompt.assemble({ scope: "reviewer" });
 * console.log(renderPrompt(assembly));
 * await prompt.dispose();
 * ```
 */
export class SystemPrompt<C extends AssembleContext = AssembleContext>
  implements Registrar<C> {
  readonly #registry: Registry;
  readonly #root: LayerRegistrar<C>;
  readonly #source: PipelineSource;
  readonly #memos = new TokenMemos();

  /**
   * Every registration, unregistration and invalidation, emitted
   * synchronously after the state is committed, in commit order to every
   * subscriber. Hot; not scope-filtered; completes when the registry is
   * disposed. What a subscriber throws goes to the config's
   * `onSubscriberError`.
   */
  readonly change$: Observable<PromptChange>;

  /**
   * Creates a registry with the built-in identity and persona sections.
   *
   * @throws {SystemPromptError} `INVALID_TOOL_ORDER` or `INVALID_CONFIG`.
   */
  constructor(config?: SystemPromptConfig) {
    const valid = validateConfig(config);
    const { toolOrder } = valid;
    const registry = new Registry(
      toolOrder === undefined ? undefined : readGuarded(
        () => compileToolOrder(toolOrder),
        "INVALID_TOOL_ORDER",
        () => `Reading toolOrder threw; it must be an array of tool names.`,
      ),
      { includeRuntimeContext: valid.includeRuntimeContext },
    );
    this.#registry = registry;
    const budget = budgetPlanOf(valid.budget, this.#memos, "config budget");
    this.#source = {
      layers: registry.layers,
      scopes: registry.scopes,
      toolOrder: registry.toolOrder,
      includeRuntimeContext: registry.includeRuntimeContext,
      budget,
      disposed: () => this.#root.disposed,
    };
    this.change$ = new ContainedObservable(
      inCommitOrder(registry.layers.change$),
      valid.onSubscriberError ?? reportToConsole,
    );
    const lifetime = new Lifetime();
    // The first entry is torn down last: the streams complete after every
    // registration is gone.
    lifetime.own(() => {
      registry.scopes.complete();
      registry.layers.complete();
    });
    this.#root = new LayerRegistrar(registry, lifetime, {
      scopeKey: undefined,
      label: "registry",
    });
    layersOf.set(this, registry.layers);
    registerBuiltIns(this.#root, valid);
  }

  /** Always `undefined`: the registry writes to the global layer. */
  get scopeKey(): undefined {
    return undefined;
  }

  /** Always `"registry"`: children's labels start with it. */
  get label(): string {
    return this.#root.label;
  }

  /** True once the registry started disposing. */
  get disposed(): boolean {
    return this.#root.disposed;
  }

  /**
   * Disposes every registrar and registration, then completes `change$`
   * and every `watch()` stream. Pre-bound and idempotent.
   */
  get dispose(): Disposer {
    return this.#root.dispose;
  }

  /** Same as {@linkcode SystemPrompt.dispose}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.#root.dispose();
  }

  /** Registers a section in the global layer. */
  section(section: PromptSection<C>): Disposer {
    return this.#root.section(section);
  }

  /** Registers a tool-schema provider (or a live source) in the global layer. */
  tools(
    provider: ToolProvider<C> | Observable<ToolProviderResult>,
    options?: ToolsOptions,
  ): Disposer {
    return this.#root.tools(provider, options);
  }

  /** Registers a tool gate (function or live source) in the global layer. */
  toolGate(
    gate: ToolGate<C> | Observable<Iterable<string> | undefined>,
  ): Disposer {
    return this.#root.toolGate(gate);
  }

  /** Registers a `{{name}}` variable (function or live source) globally. */
  variable(
    name: string,
    provider: VariableProvider<C> | Observable<string | undefined>,
    options?: StabilityOptions,
  ): Disposer {
    return this.#root.variable(name, provider, options);
  }

  /** Registers a listener that runs for every assembly. */
  onAssemble(listener: AssembleListener<C>): Disposer {
    return this.#root.onAssemble(listener);
  }

  /** Registers a runtime context entry in the global layer. */
  runtimeContext(entry: PromptRuntimeContext<C>): Disposer {
    return this.#root.runtimeContext(entry);
  }

  /** Turns runtime context off for every assembly until disposed. */
  suppressRuntimeContext(): Disposer {
    return this.#root.suppressRuntimeContext();
  }

  /** Binds scope `child` to scope `parent`, owned by the registry. */
  bindScope(child: ScopeKey, parent: ScopeKey): Disposer {
    return this.#root.bindScope(child, parent);
  }

  /** Builds a composite registration owned by the registry. */
  effect(body: EffectBody): Disposer {
    return this.#root.effect(body);
  }

  /** A child registrar of the global layer. */
  fork(options?: RegistrarOptions): Registrar<C> {
    return this.#root.fork(options);
  }

  /** A child registrar of `key`'s scope layer. */
  scope(key: ScopeKey, options?: RegistrarOptions): Registrar<C> {
    return this.#root.scope(key, options);
  }

  /**
   * Assembles the prompt for one step: one snapshot of the global layer and
   * of the layers of `context.scope`'s chain, variables, sections by order, tools in
   * canonical order, then the listener waterfall, then pruning to
   * `options.budget` (or the config's `budget`). The first value of
   * {@linkcode SystemPrompt.assemble$}. Never throws: every failure is a
   * rejection; aborting `context.signal` rejects with its reason.
   */
  assemble(context?: C, options?: AssembleOptions): Promise<PromptAssembly> {
    return firstValueFrom(this.assemble$(context, options));
  }

  /**
   * The assembly pipeline itself: a cold Observable that, on each
   * subscription, reads the latest state of the layers `context` reads (their
   * `BehaviorSubject`s), builds the initial assembly, runs the listener
   * waterfall as RxJS stages, prunes to the budget, then emits the assembly
   * and completes. Failures (those of {@linkcode SystemPrompt.assemble}) are
   * its error; aborting `context.signal` fails it with the signal's reason,
   * and unsubscribing stops the waterfall (no later listener starts).
   *
   * @param context the assembly context, as for `assemble()`
   * @param options this assembly's options (`budget`), as for `assemble()`
   *
   * @example
   * ```ts
   * import { renderPrompt, SystemPrompt } from "@rxprompt/system-prompt";
   * import { firstValueFrom, map } from "rxjs";
   *
   * const prompt = new SystemPrompt({ includeHarnessIdentity: false, persona: "You help." });
   * prompt.onAssemble((assembly, _context, next) => {
   *   assembly.sections.push({ name: "style", order: 10, text: "Be brief." });
   *   return next();
   * });
   * const text = await firstValueFrom(prompt.assemble$().pipe(map(renderPrompt)));
   * console.log(text); // "You help.\n\nBe brief."
   * await prompt.dispose();
   * ```
   */
  assemble$(
    context?: C,
    options?: AssembleOptions,
  ): Observable<PromptAssembly> {
    return runPipeline$(
      this.#source,
      context === undefined ? {} as C : context,
      {
        // The options are read on subscription, after the context is
        // validated: what they throw is the Observable's error.
        pipeline: options === undefined
          ? assembly$
          : (snapshot, given, build) =>
            assembly$(snapshot, given, {
              ...build,
              ...this.#budgetOf(options),
            }),
      },
    );
  }

  /**
   * What {@linkcode SystemPrompt.assemble} gives for `context` (same snapshot
   * and failures), its rendered prompt, and the origin of each entry (its
   * registrar's label and layer, or `"listener"`), section offsets in the
   * prompt, token counts with `countTokens`, and what nearer layers shadowed.
   * Also rejects when the prompt does not render or the counter fails.
   *
   * @example
   * ```ts
   * import { SystemPrompt } from "@rxprompt/system-prompt";
   *
   * const prompt = new SystemPrompt<{ scope?: string }>({ persona: "You help." });
   * const reviewer = prompt.scope("reviewer", { label: "reviewer" });
   * reviewer.section({ name: "deployment:persona", order: 0, text: "You review code." });
   * const explanation = await prompt.explain({ scope: "reviewer" }, {
   *   countTokens: (text) => text.split(/\s+/).length,
   * });
   * const { registrar, layer, tokens } = explanation.sections[1];
   * console.log(registrar, layer, tokens); // "registry/reviewer" "scope" 3
   * console.log(explanation.shadowed[0].by); // "registry/reviewer"
   * await prompt.dispose();
   * ```
   */
  explain(
    context?: C,
    options?: ExplainOptions,
  ): Promise<PromptExplanation> {
    return firstValueFrom(
      runPipeline$(this.#source, context === undefined ? {} as C : context, {
        pipeline: (layers, given, buildOptions) =>
          explanation$(layers, given, { ...buildOptions, explain: options }),
      }),
    );
  }

  /** The build options an `assemble()` call's own options set. */
  #budgetOf(options: unknown): { budget?: BudgetPlan } {
    if (typeof options !== "object" || options === null) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `assemble()'s options must be an object { budget? }; got ` +
          `${quote(options)}.`,
      );
    }
    const budget = readGuarded(
      () => (options as AssembleOptions).budget,
      "INVALID_CONFIG",
      () => `Reading assemble()'s options threw; pass an object { budget? }.`,
    );
    return budget === undefined
      ? {}
      : { budget: budgetPlanOf(budget, this.#memos, "assemble() budget") };
  }

  #assembly$(context: C, snapshot?: Snapshot): Observable<PromptAssembly> {
    return runPipeline$(this.#source, context, {
      pipeline: assembly$,
      snapshot,
    });
  }

  /**
   * A cold stream of rendered views for `context`: one on subscription, and
   * one after each burst of changes that can affect it (global changes and
   * changes to its own scope). A newer change cancels an assembly in flight
   * (its context's `signal` aborts). Failures arrive as `{ error }` and the
   * stream stays alive; it completes when the registry is disposed.
   *
   * Providers and listeners receive a context whose prototype is `context`
   * (its fields, getters included, read through) with its own `signal`,
   * which aborts when the view is superseded or unsubscribed, or when
   * `context.signal` aborts. A class instance's private fields are not
   * reachable through it. `context` is validated as by `assemble()`; a bad
   * one is reported as an `{ error }` view.
   */
  watch(context?: C): Observable<PromptView> {
    return watchViews$(
      this.#source,
      context === undefined ? {} as C : context,
      (derived, snapshot) => this.#assembly$(derived, snapshot),
    );
  }

  /**
   * Resolves once every Observable source registered so far (a live
   * section, variable, runtime context or tool source, on any registrar of
   * this registry) has delivered its first value, errored, completed, or
   * been disposed: await it before the first step, so that step does not go
   * out without, say, an MCP server's tools. A source that never delivers
   * keeps it pending; sources registered later are not waited for.
   *
   * @example Wait for a live tool source before the first step
   * ```ts
   * import { SystemPrompt } from "@rxprompt/system-prompt";
   * import { timer, map } from "rxjs";
   *
   * const prompt = new SystemPrompt({ includeHarnessIdentity: false });
   * prompt.tools(timer(10).pipe(map(() => ({
   *   schemas: [{ name: "search", description: "Search.", parameters: {} }],
   * }))));
   * await prompt.ready();
   * const { tools } = await prompt.assemble();
   * console.log(tools.map((tool) => tool.name)); // ["search"]
   * await prompt.dispose();
   * ```
   */
  ready(): Promise<void> {
    return this.#registry.liveFirsts.ready();
  }

  /**
   * Says that a provider's underlying value changed (the clock, the working
   * directory): emits `{ type: "invalidate" }` on `change$`, so every
   * watcher re-assembles.
   *
   * @throws {SystemPromptError} `DISPOSED` after the registry is disposed.
   */
  invalidate(): void {
    if (this.#root.disposed) {
      throw new SystemPromptError(
        "DISPOSED",
        `Cannot invalidate: the registry is disposed.`,
      );
    }
    this.#registry.layers.invalidate();
  }
}

// A config module may import another copy of this module (another version,
// or the npm build beside the JSR one), so tools that load configs, such as
// the rxprompt command, recognise a registry by this brand, not instanceof.
Object.defineProperty(
  SystemPrompt.prototype,
  Symbol.for("rxprompt.SystemPrompt"),
  { value: true },
);
