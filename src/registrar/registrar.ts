/**
 * Registrars: handles that write to one layer and own what they register.
 * The state every registrar of one registry shares, and the layer registrar
 * that implements the `Registrar` interface (src/registrar/registrar_api.ts).
 *
 * @module
 */

import {
  describeScope,
  functionName,
  quote,
  readGuarded,
  SystemPromptError,
} from "../errors.ts";
import type { Kind, Provenance, RecordBase } from "../kinds/kind.ts";
import type { InputOf, KindName } from "../kinds/table.ts";
import { KINDS } from "../kinds/table.ts";
import { Layers, type Registration } from "../store/layers.ts";
import { LiveFirsts, liveIn, registerLive } from "../kinds/live.ts";
import { ScopeBindings } from "../store/scopes.ts";
import {
  type Disposer,
  type EffectBody,
  Lifetime,
} from "../lifetime/lifetime.ts";
import type { ToolOrderPlan } from "../kinds/tool_order.ts";
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
import type { Registrar, RegistrarOptions } from "./registrar_api.ts";

export type { Registrar, RegistrarOptions } from "./registrar_api.ts";

/** What every registrar of one registry shares. */
export class Registry {
  readonly layers: Layers = new Layers();
  readonly scopes: ScopeBindings = new ScopeBindings();
  readonly toolOrder: ToolOrderPlan | undefined;
  /** False when the config turns runtime context off. */
  readonly includeRuntimeContext: boolean;
  /** Live values waiting for their first delivery (`SystemPrompt.ready()`). */
  readonly liveFirsts: LiveFirsts = new LiveFirsts();
  #sequence = 0;

  constructor(
    toolOrder: ToolOrderPlan | undefined,
    options: { includeRuntimeContext?: boolean } = {},
  ) {
    this.toolOrder = toolOrder;
    this.includeRuntimeContext = options.includeRuntimeContext !== false;
  }

  /** The next registry-wide registration number. */
  nextSequence(): number {
    return ++this.#sequence;
  }
}

/** Throws `INVALID_SCOPE_KEY` for a nullish key. */
export function assertScopeKey(key: unknown): asserts key is ScopeKey {
  if (key === null || key === undefined) {
    throw new SystemPromptError(
      "INVALID_SCOPE_KEY",
      `A scope key must not be ${key}; use any other value (usually the ` +
        `agent object or its id), compared by identity.`,
    );
  }
}

function childLabel(
  parent: string,
  options: RegistrarOptions | undefined,
  fallback: string,
): string {
  if (options === undefined) return `${parent}/${fallback}`;
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `Registrar options must be an object { label? }; got ${quote(options)}.`,
    );
  }
  const label = readGuarded(
    () => {
      const { label = fallback } = options;
      return label;
    },
    "INVALID_CONFIG",
    () => `Reading the registrar options threw; they are an object { label? }.`,
  );
  if (typeof label !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `A registrar label must be a string (for people; it need not be ` +
        `unique); got ${quote(label)}.`,
    );
  }
  return `${parent}/${label}`;
}

/** One registrar: a lifetime bound to one layer of one registry. */
export class LayerRegistrar<C extends AssembleContext> implements Registrar<C> {
  readonly #registry: Registry;
  readonly #lifetime: Lifetime;
  readonly scopeKey: ScopeKey | undefined;
  readonly label: string;
  readonly dispose: Disposer;
  /** One remover per kind, shared by this registrar's registrations. */
  #removers: { [K in KindName]?: (record: RecordBase) => void } | undefined;

  constructor(
    registry: Registry,
    lifetime: Lifetime,
    where: { scopeKey: ScopeKey | undefined; label: string },
  ) {
    this.#registry = registry;
    this.#lifetime = lifetime;
    this.scopeKey = where.scopeKey;
    this.label = where.label;
    this.dispose = lifetime.dispose;
  }

  get disposed(): boolean {
    return this.#lifetime.disposed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /**
   * Validates `input` through its kind, then adds the record to this
   * registrar's layer, owned by this registrar's lifetime.
   */
  #register<K extends KindName>(
    kind: K,
    input: InputOf<K>,
    action: string | (() => string),
  ): Disposer {
    this.#assertOpen(action);
    const provenance: Provenance = this.scopeKey === undefined
      ? { label: this.label, sequence: this.#registry.nextSequence() }
      : {
        label: this.label,
        sequence: this.#registry.nextSequence(),
        scoped: true,
      };
    const record = (KINDS[kind] as Kind<RecordBase, InputOf<K>>).record(
      input,
      provenance,
    );
    const registration = { kind, record } as Registration;
    const { layers } = this.#registry;
    const scope = this.scopeKey;
    const live = liveIn(record);
    if (live !== undefined) {
      const disposer = registerLive(live, {
        check: () => layers.assertCanAdd(scope, registration),
        add: (stop) =>
          layers.add(scope, registration, () => this.#lifetime.own(stop)),
        remove: () => layers.remove(scope, registration),
        update: () => layers.update(scope, registration),
      });
      this.#registry.liveFirsts.track(live);
      return disposer;
    }
    return layers.add(
      scope,
      registration,
      () => this.#lifetime.own(this.#removerOf(kind), record),
    );
  }

  /**
   * Removes a record of `kind` from this registrar's layer. Shared: a
   * registration keeps its record as the teardown's argument, not a
   * closure of its own.
   */
  #removerOf(kind: KindName): (record: RecordBase) => void {
    const removers = this.#removers ??= {};
    const { layers } = this.#registry;
    const scope = this.scopeKey;
    return removers[kind] ??= (record) =>
      layers.remove(scope, { kind, record } as Registration);
  }

  /** `action` is built only when it is needed: on failure. */
  #assertOpen(action: string | (() => string)): void {
    if (!this.#lifetime.disposed) return;
    this.#lifetime.assertOpen(
      typeof action === "string" ? action : action(),
      `this registrar (${describeScope(this.scopeKey)})`,
    );
  }

  section(section: PromptSection<C>): Disposer {
    return this.#register("section", section, () => {
      const name = functionName(section);
      return `register ${
        name !== undefined ? `section ${quote(name)}` : "a section"
      }`;
    });
  }

  tools(
    provider: ToolProvider<C> | Observable<ToolProviderResult>,
    options?: ToolsOptions,
  ): Disposer {
    return this.#register(
      "tools",
      { provider, options },
      "register a tool provider",
    );
  }

  toolGate(
    gate: ToolGate<C> | Observable<Iterable<string> | undefined>,
  ): Disposer {
    return this.#register("toolGate", gate, "register a tool gate");
  }

  variable(
    name: string,
    provider: VariableProvider<C> | Observable<string | undefined>,
    options?: StabilityOptions,
  ): Disposer {
    return this.#register(
      "variable",
      { name, provider, options },
      () => `register variable ${quote(name)}`,
    );
  }

  onAssemble(listener: AssembleListener<C>): Disposer {
    return this.#register(
      "listener",
      listener,
      "register an assembly listener",
    );
  }

  invalidate(): void {
    this.#assertOpen("invalidate");
    const { layers } = this.#registry;
    if (this.scopeKey === undefined) layers.invalidate();
    else layers.invalidateScope(this.scopeKey);
  }

  runtimeContext(entry: PromptRuntimeContext<C>): Disposer {
    return this.#register("runtimeContext", entry, () => {
      const name = functionName(entry);
      return `register ${
        name !== undefined
          ? `runtime context ${quote(name)}`
          : "a runtime context"
      }`;
    });
  }

  suppressRuntimeContext(): Disposer {
    return this.#register(
      "suppressor",
      undefined,
      "suppress runtime context",
    );
  }

  bindScope(child: ScopeKey, parent: ScopeKey): Disposer {
    assertScopeKey(child);
    assertScopeKey(parent);
    this.#assertOpen(() =>
      `bind ${describeScope(child)} to ${describeScope(parent)}`
    );
    const { layers, scopes } = this.#registry;
    const unbind = scopes.bind(child, parent);
    const disposer = this.#lifetime.own(() => {
      if (unbind()) layers.announce({ type: "unbind", scope: child, parent });
    });
    layers.announce({ type: "bind", scope: child, parent });
    return disposer;
  }

  effect(body: EffectBody): Disposer {
    this.#assertOpen("start an effect");
    return this.#lifetime.effect(body);
  }

  fork(options?: RegistrarOptions): Registrar<C> {
    this.#assertOpen("fork");
    const label = childLabel(this.label, options, "fork");
    return new LayerRegistrar(this.#registry, new Lifetime(this.#lifetime), {
      scopeKey: this.scopeKey,
      label,
    });
  }

  scope(key: ScopeKey, options?: RegistrarOptions): Registrar<C> {
    assertScopeKey(key);
    this.#assertOpen(() => `open ${describeScope(key)}`);
    const label = childLabel(this.label, options, "scope");
    return new LayerRegistrar(this.#registry, new Lifetime(this.#lifetime), {
      scopeKey: key,
      label,
    });
  }
}
