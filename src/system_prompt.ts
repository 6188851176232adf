/**
 * `SystemPrompt`: wires registrars, layers, `change$`, `assemble` and
 * `watch`.
 *
 * @module
 */

import {
  asapScheduler,
  catchError,
  debounceTime,
  defer,
  EMPTY,
  filter,
  finalize,
  firstValueFrom,
  map,
  type Observable,
  of,
  startWith,
  switchMap,
} from "rxjs";
import { assembly$, type Snapshot } from "./assemble.ts";
import { describeScope, quote, SystemPromptError } from "./errors.ts";
import {
  emptyLayer,
  Layers,
  type Registration,
  type SectionRecord,
} from "./layers.ts";
import { type Disposer, type EffectBody, Lifetime } from "./lifetime.ts";
import { renderPrompt, VARIABLE_NAME_PATTERN } from "./render/prompt.ts";
import { compileToolOrder, type ToolOrderPlan } from "./tool_order.ts";
import type {
  AssembleContext,
  AssembleListener,
  PromptAssembly,
  PromptChange,
  PromptSection,
  PromptView,
  ScopeKey,
  SystemPromptConfig,
  ToolProvider,
  VariableProvider,
} from "./types.ts";

/**
 * Name of the built-in section that states the harness's identity (order
 * {@linkcode HARNESS_IDENTITY_ORDER}, text {@linkcode HARNESS_IDENTITY}).
 * Reserved in the global layer; a scope may shadow it for one agent.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY_SECTION, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * prompt.scope("sub-agent").section({
 *   name: HARNESS_IDENTITY_SECTION,
 *   order: -100,
 *   text: "You are a sub-agent: answer your caller only.",
 * });
 * ```
 */
export const HARNESS_IDENTITY_SECTION = "harness:identity";

/**
 * Name of the built-in section that holds the deployment's persona (order
 * {@linkcode PERSONA_ORDER}, the `persona` template of the config, `""` by
 * default). Reserved in the global layer; a scope may shadow it: that is the
 * per-agent persona.
 *
 * @example
 * ```ts
 * import { PERSONA_ORDER, PERSONA_SECTION, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt({ persona: "You are a helpful assistant." });
 * prompt.scope("reviewer").section({
 *   name: PERSONA_SECTION,
 *   order: PERSONA_ORDER,
 *   text: "You review code. Comment; never edit.",
 * });
 * ```
 */
export const PERSONA_SECTION = "deployment:persona";

/**
 * Order of the harness identity section: it renders first.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY_ORDER } from "@rxprompt/system-prompt";
 *
 * const safety = { name: "harness:safety", order: HARNESS_IDENTITY_ORDER + 1, text: "Never run rm -rf." };
 * ```
 */
export const HARNESS_IDENTITY_ORDER: -100 = -100;

/**
 * Order of the persona section. Other negative orders render between the
 * identity and the persona; positive ones after it.
 *
 * @example
 * ```ts
 * import { PERSONA_ORDER } from "@rxprompt/system-prompt";
 *
 * const facts = { name: "facts", order: PERSONA_ORDER + 10, text: "Today is {{date}}." };
 * ```
 */
export const PERSONA_ORDER = 0;

/**
 * First order of the band for tool guidance sections (100–199): each tool
 * plugin places its guidance inside the band.
 *
 * @example
 * ```ts
 * import { SystemPrompt, TOOL_GUIDANCE_ORDER } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * prompt.section({ name: "tools:shell", order: TOOL_GUIDANCE_ORDER + 20, text: "One command at a time." });
 * ```
 */
export const TOOL_GUIDANCE_ORDER = 100;

/**
 * Last order of the tool guidance band.
 *
 * @example
 * ```ts
 * import { TOOL_GUIDANCE_ORDER, TOOL_GUIDANCE_ORDER_END } from "@rxprompt/system-prompt";
 *
 * function inToolBand(order: number): boolean {
 *   return order >= TOOL_GUIDANCE_ORDER && order <= TOOL_GUIDANCE_ORDER_END;
 * }
 * ```
 */
export const TOOL_GUIDANCE_ORDER_END = 199;

/**
 * The text of the built-in `harness:identity` section: a fixed literal, so
 * the start of every prompt is byte-identical and cacheable.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY, renderPrompt, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * console.log(renderPrompt(await prompt.assemble()) === HARNESS_IDENTITY); // true
 * ```
 */
export const HARNESS_IDENTITY: string =
  "You are an AI agent running inside an agent harness. Follow the " +
  "instructions in this system prompt, use the tools you are given when " +
  "they help, and report truthfully what you did and what you could not do.";

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
 * const plugin = prompt.fork();
 * plugin.section({ name: "tools:search", order: 120, text: "Search before you guess." });
 * await plugin.dispose(); // removes everything the plugin registered
 * ```
 */
export interface Registrar<C extends AssembleContext = AssembleContext>
  extends AsyncDisposable {
  /** The layer this registrar writes to; `undefined` is the global layer. */
  readonly scopeKey: ScopeKey | undefined;
  /** True once this registrar, or one of its owners, started disposing. */
  readonly disposed: boolean;
  /** Registers a section in this registrar's layer. */
  section(section: PromptSection<C>): Disposer;
  /** Registers a tool-schema provider in this registrar's layer. */
  tools(provider: ToolProvider<C>): Disposer;
  /** Registers a `{{name}}` variable in this registrar's layer. */
  variable(name: string, provider: VariableProvider<C>): Disposer;
  /** Registers an assembly listener (scope listeners run for that scope only). */
  onAssemble(listener: AssembleListener<C>): Disposer;
  /** Builds a composite registration from a generator of teardowns. */
  effect(body: EffectBody): Disposer;
  /** A child owner that writes to the same layer. */
  fork(): Registrar<C>;
  /** A child owner that writes to `key`'s scope layer. */
  scope(key: ScopeKey): Registrar<C>;
  /** Pre-bound, idempotent exact disposer of everything this registrar owns. */
  readonly dispose: Disposer;
}

/** What every registrar of one registry shares. */
class Registry<C extends AssembleContext> {
  readonly layers = new Layers<C>();
  readonly toolOrder: ToolOrderPlan | undefined;
  #sequence = 0;

  constructor(toolOrder: ToolOrderPlan | undefined) {
    this.toolOrder = toolOrder;
  }

  nextSequence(): number {
    return ++this.#sequence;
  }

  snapshot(scope: ScopeKey | undefined): Snapshot<C> {
    return {
      global: this.layers.state(),
      scoped: scope === undefined ? emptyLayer() : this.layers.state(scope),
      scope,
    };
  }
}

/** Key equality as a `Map` sees it (SameValueZero: `NaN` equals `NaN`). */
function sameScopeKey(
  a: ScopeKey | undefined,
  b: ScopeKey | undefined,
): boolean {
  return a === b || (a !== a && b !== b);
}

function assertScopeKey(key: unknown): asserts key is ScopeKey {
  if (key === null || key === undefined) {
    throw new SystemPromptError(
      "INVALID_SCOPE_KEY",
      `A scope key must not be ${key}; use any other value (usually the ` +
        `agent object or its id), compared by identity.`,
    );
  }
}

function assertFunction(
  value: unknown,
  what: string,
): asserts value is (...args: never[]) => unknown {
  if (typeof value !== "function") {
    throw new SystemPromptError(
      "INVALID_PROVIDER",
      `${what} must be a function; got ${quote(value)}.`,
    );
  }
}

/** One registrar: a lifetime bound to one layer of one registry. */
class LayerRegistrar<C extends AssembleContext> implements Registrar<C> {
  readonly #registry: Registry<C>;
  readonly #lifetime: Lifetime;
  readonly scopeKey: ScopeKey | undefined;
  readonly dispose: Disposer;

  constructor(
    registry: Registry<C>,
    lifetime: Lifetime,
    scopeKey: ScopeKey | undefined,
  ) {
    this.#registry = registry;
    this.#lifetime = lifetime;
    this.scopeKey = scopeKey;
    this.dispose = lifetime.dispose;
  }

  get disposed(): boolean {
    return this.#lifetime.disposed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /**
   * Gives the registration's removal to this registrar's lifetime, then adds
   * it to the layer. Owned first, so a change subscriber that disposes the
   * registrar cannot strand the registration.
   */
  #register(registration: Registration<C>): Disposer {
    const layers = this.#registry.layers;
    const scope = this.scopeKey;
    const disposer = this.#lifetime.own(() =>
      layers.remove(scope, registration)
    );
    layers.add(scope, registration);
    return disposer;
  }

  #assertOpen(action: string): void {
    this.#lifetime.assertOpen(
      action,
      `this registrar (${describeScope(this.scopeKey)})`,
    );
  }

  section(section: PromptSection<C>): Disposer {
    const label = typeof section?.name === "string"
      ? `section ${quote(section.name)}`
      : "a section";
    this.#assertOpen(`register ${label}`);
    const record = toSectionRecord(section);
    const scope = this.scopeKey;
    const state = this.#registry.layers.state(scope);
    if (state.sections.some((existing) => existing.name === record.name)) {
      throw new SystemPromptError(
        "DUPLICATE_SECTION",
        duplicateMessage("Section", record.name, scope),
      );
    }
    return this.#register({ kind: "section", record });
  }

  tools(provider: ToolProvider<C>): Disposer {
    this.#assertOpen("register a tool provider");
    assertFunction(provider, "A tool provider");
    return this.#register({ kind: "tools", record: { provider } });
  }

  variable(name: string, provider: VariableProvider<C>): Disposer {
    this.#assertOpen(`register variable ${quote(name)}`);
    if (typeof name !== "string" || !VARIABLE_NAME_PATTERN.test(name)) {
      throw new SystemPromptError(
        "INVALID_VARIABLE_NAME",
        `Variable name ${quote(name)} is invalid: it must match ` +
          `${VARIABLE_NAME_PATTERN.source} (lower case letters, digits and ` +
          `"_", starting with a letter), or no {{reference}} could name it.`,
      );
    }
    assertFunction(provider, `The provider of variable ${quote(name)}`);
    const scope = this.scopeKey;
    const state = this.#registry.layers.state(scope);
    if (state.variables.some((existing) => existing.name === name)) {
      throw new SystemPromptError(
        "DUPLICATE_VARIABLE",
        duplicateMessage("Variable", name, scope),
      );
    }
    return this.#register({ kind: "variable", record: { name, provider } });
  }

  onAssemble(listener: AssembleListener<C>): Disposer {
    this.#assertOpen("register an assembly listener");
    assertFunction(listener, "An assembly listener");
    const sequence = this.#registry.nextSequence();
    return this.#register({ kind: "listener", record: { listener, sequence } });
  }

  effect(body: EffectBody): Disposer {
    this.#assertOpen("start an effect");
    return this.#lifetime.effect(body);
  }

  fork(): Registrar<C> {
    this.#assertOpen("fork");
    return new LayerRegistrar(
      this.#registry,
      new Lifetime(this.#lifetime),
      this.scopeKey,
    );
  }

  scope(key: ScopeKey): Registrar<C> {
    assertScopeKey(key);
    this.#assertOpen(`open ${describeScope(key)}`);
    return new LayerRegistrar(
      this.#registry,
      new Lifetime(this.#lifetime),
      key,
    );
  }
}

function duplicateMessage(
  kind: "Section" | "Variable",
  name: string,
  scope: ScopeKey | undefined,
): string {
  return scope === undefined
    ? `${kind} ${quote(name)} is already registered in the global layer; a ` +
      `name has one owner per layer. Dispose the existing registration ` +
      `first, or override it for one agent through a scope registrar ` +
      `(prompt.scope(agent)).`
    : `${kind} ${quote(name)} is already registered in ` +
      `${describeScope(scope)}; a name has one owner per layer. Dispose the ` +
      `existing registration first.`;
}

function toSectionRecord<C>(section: PromptSection<C>): SectionRecord<C> {
  if (typeof section !== "object" || section === null) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A section must be an object { name, order, text }; got ${
        quote(section)
      }.`,
    );
  }
  const { name, order, text } = section;
  if (typeof name !== "string" || name === "") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A section's name must be a non-empty string; got ${quote(name)}.`,
    );
  }
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Section ${quote(name)} has order ${quote(order)}; the order must be ` +
        `a finite number (bands: -100 identity, 0 persona, 100–199 tool ` +
        `guidance).`,
    );
  }
  if (typeof text !== "string" && typeof text !== "function") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Section ${quote(name)} has text of type ${typeof text}; the text must ` +
        `be a string or a function of the assembly context returning one.`,
    );
  }
  return { name, order, text };
}

function validateConfig(config: unknown): SystemPromptConfig {
  if (config === undefined) return {};
  if (typeof config !== "object" || config === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The SystemPrompt config must be an object { persona?, toolOrder?, ` +
        `includeHarnessIdentity? }; got ${quote(config)}.`,
    );
  }
  const { persona, includeHarnessIdentity } = config as SystemPromptConfig;
  if (persona !== undefined && typeof persona !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `persona must be a string (a template, "" for none); got ` +
        `${quote(persona)}.`,
    );
  }
  if (
    includeHarnessIdentity !== undefined &&
    typeof includeHarnessIdentity !== "boolean"
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `includeHarnessIdentity must be a boolean; got ` +
        `${quote(includeHarnessIdentity)}.`,
    );
  }
  return config as SystemPromptConfig;
}

/**
 * `context` with `signal` in place of its own. Keeps the prototype, so a
 * class-instance context keeps its methods.
 */
function withSignal<C extends AssembleContext>(
  context: C,
  signal: AbortSignal,
): C {
  return Object.assign(Object.create(Object.getPrototypeOf(context)), context, {
    signal,
  });
}

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
  readonly #registry: Registry<C>;
  readonly #root: LayerRegistrar<C>;

  /**
   * Every registration, unregistration and invalidation, emitted
   * synchronously after the state is committed. Hot; not scope-filtered;
   * completes when the registry is disposed.
   */
  readonly change$: Observable<PromptChange>;

  /**
   * Creates a registry with the built-in identity and persona sections.
   *
   * @throws {SystemPromptError} `INVALID_TOOL_ORDER` or `INVALID_CONFIG`.
   */
  constructor(config?: SystemPromptConfig) {
    const { persona = "", toolOrder, includeHarnessIdentity = true } =
      validateConfig(config);
    const registry = new Registry<C>(
      toolOrder === undefined ? undefined : compileToolOrder(toolOrder),
    );
    this.#registry = registry;
    this.change$ = registry.layers.change$;
    const lifetime = new Lifetime();
    // The first entry is torn down last: the streams complete after every
    // registration is gone.
    lifetime.own(() => registry.layers.complete());
    this.#root = new LayerRegistrar(registry, lifetime, undefined);
    layersOf.set(this, registry.layers);
    if (includeHarnessIdentity) {
      this.#root.section({
        name: HARNESS_IDENTITY_SECTION,
        order: HARNESS_IDENTITY_ORDER,
        text: HARNESS_IDENTITY,
      });
    }
    this.#root.section({
      name: PERSONA_SECTION,
      order: PERSONA_ORDER,
      text: persona,
    });
  }

  /** Always `undefined`: the registry writes to the global layer. */
  get scopeKey(): undefined {
    return undefined;
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

  /** Registers a tool-schema provider in the global layer. */
  tools(provider: ToolProvider<C>): Disposer {
    return this.#root.tools(provider);
  }

  /** Registers a `{{name}}` variable in the global layer. */
  variable(name: string, provider: VariableProvider<C>): Disposer {
    return this.#root.variable(name, provider);
  }

  /** Registers a listener that runs for every assembly. */
  onAssemble(listener: AssembleListener<C>): Disposer {
    return this.#root.onAssemble(listener);
  }

  /** Builds a composite registration owned by the registry. */
  effect(body: EffectBody): Disposer {
    return this.#root.effect(body);
  }

  /** A child registrar of the global layer. */
  fork(): Registrar<C> {
    return this.#root.fork();
  }

  /** A child registrar of `key`'s scope layer. */
  scope(key: ScopeKey): Registrar<C> {
    return this.#root.scope(key);
  }

  /**
   * Assembles the prompt for one step: one snapshot of the global layer and
   * of `context.scope`'s layer, variables, sections by order, tools in
   * canonical order, then the listener waterfall. Never throws: every
   * failure is a rejection.
   */
  assemble(context?: C): Promise<PromptAssembly> {
    return firstValueFrom(this.#assembly$(context ?? {} as C));
  }

  #assembly$(context: C): Observable<PromptAssembly> {
    return defer(() => {
      if (typeof context !== "object" || context === null) {
        throw new SystemPromptError(
          "INVALID_CONTEXT",
          `The assembly context must be an object ({ scope?, signal?, ... }); ` +
            `got ${quote(context)}.`,
        );
      }
      if (this.#root.disposed) {
        throw new SystemPromptError(
          "DISPOSED",
          `Cannot assemble: the registry is disposed.`,
        );
      }
      const scope = context.scope;
      if (scope === null) assertScopeKey(scope);
      return assembly$(this.#registry.snapshot(scope), context, {
        toolOrder: this.#registry.toolOrder,
      });
    });
  }

  /**
   * A cold stream of rendered views for `context`: one on subscription, and
   * one after each burst of changes that can affect it (global changes and
   * changes to its own scope). A newer change cancels an assembly in flight
   * (its context's `signal` aborts). Failures arrive as `{ error }` and the
   * stream stays alive; it completes when the registry is disposed.
   *
   * Providers and listeners receive a copy of `context` whose `signal` also
   * aborts when the view is superseded or unsubscribed.
   */
  watch(context?: C): Observable<PromptView> {
    const given = context ?? {} as C;
    const scope = given.scope;
    return this.change$.pipe(
      filter((change) =>
        change.scope === undefined || sameScopeKey(change.scope, scope)
      ),
      startWith(undefined),
      debounceTime(0, asapScheduler),
      switchMap(() => this.disposed ? EMPTY : this.#view$(given)),
    );
  }

  #view$(context: C): Observable<PromptView> {
    return defer(() => {
      // Aborts when the view is superseded or unsubscribed, and follows the
      // caller's own signal (without AbortSignal.any, absent before Node 20.3).
      const controller = new AbortController();
      const callerSignal = context.signal;
      function follow(): void {
        controller.abort(callerSignal?.reason);
      }
      if (callerSignal?.aborted) follow();
      else callerSignal?.addEventListener("abort", follow, { once: true });
      return this.#assembly$(withSignal(context, controller.signal)).pipe(
        map((assembly): PromptView => ({
          assembly,
          prompt: renderPrompt(assembly),
        })),
        catchError((error: unknown) => of<PromptView>({ error })),
        finalize(() => {
          callerSignal?.removeEventListener("abort", follow);
          controller.abort();
        }),
      );
    });
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
    this.#registry.layers.emit({ type: "invalidate" });
  }
}
