/**
 * Assembly: layer snapshots → the initial assembly (variables, sections,
 * tools in canonical order) → the listener waterfall, as one RxJS pipeline.
 *
 * Holds no state: the registry passes in the snapshots it read.
 *
 * @module
 */

import {
  defer,
  firstValueFrom,
  from,
  fromEvent,
  isObservable,
  map,
  type MonoTypeOperatorFunction,
  type Observable,
  of,
  race,
  take,
  throwError,
  throwIfEmpty,
} from "rxjs";
import { isPromiseLike } from "./_util.ts";
import { describeScope, quote, SystemPromptError } from "./errors.ts";
import {
  compareSections,
  type LayerState,
  type ListenerRecord,
  type SectionRecord,
} from "./layers.ts";
import { orderTools, type ToolOrderPlan } from "./tool_order.ts";
import type {
  AssembleContext,
  AssembledSection,
  AssembleListener,
  PromptAssembly,
  ScopeKey,
  ToolProvider,
  ToolSchema,
} from "./types.ts";

/** The two layers one assembly reads, captured when it starts. */
export interface Snapshot<C> {
  readonly global: LayerState<C>;
  /** The scope's layer (empty when there is no scope or no layer). */
  readonly scoped: LayerState<C>;
  /** The scope key, for error messages. */
  readonly scope: ScopeKey | undefined;
}

/** Registry-wide inputs of an assembly. */
export interface AssembleOptions {
  /** The compiled `toolOrder`, if one is configured. */
  toolOrder?: ToolOrderPlan;
}

/**
 * The assembly for `context` as a one-value observable: the initial assembly
 * is built on subscription, then flows through the listeners. Aborting
 * `context.signal` errors it with the signal's reason.
 */
export function assembly$<C extends AssembleContext>(
  snapshot: Snapshot<C>,
  context: C,
  options: AssembleOptions = {},
): Observable<PromptAssembly> {
  const signal = context.signal;
  if (signal?.aborted) return throwError(() => signal.reason);
  return defer(() => {
    const assembly = buildAssembly(snapshot, context, options);
    const listeners = mergeListeners(
      snapshot.global.listeners,
      snapshot.scoped.listeners,
    );
    return waterfall$(listeners, assembly, context);
  }).pipe(abortOn(signal));
}

/** Builds the registry's contribution: variables, sections, ordered tools. */
function buildAssembly<C>(
  snapshot: Snapshot<C>,
  context: C,
  options: AssembleOptions = {},
): PromptAssembly {
  // In the contract's order: variables, sections, tools.
  const variables = buildVariables(snapshot, context);
  const sections = buildSections(snapshot, context);
  const tools = buildTools(snapshot, context, options.toolOrder);
  return { sections, tools, variables };
}

function buildVariables<C>(
  { global, scoped }: Snapshot<C>,
  context: C,
): Record<string, string | undefined> {
  const variables: Record<string, string | undefined> = {};
  const shadowed = scoped.variables.length === 0
    ? undefined
    : new Set(scoped.variables.map((record) => record.name));
  for (const record of global.variables) {
    // A shadowed provider is not called: the scope replaces it entirely.
    // The key is still set here so that key order stays global-first.
    variables[record.name] = shadowed?.has(record.name)
      ? undefined
      : resolveVariable(record.name, record.provider, context);
  }
  for (const record of scoped.variables) {
    variables[record.name] = resolveVariable(
      record.name,
      record.provider,
      context,
    );
  }
  return variables;
}

function resolveVariable<C>(
  name: string,
  provider: (context: C) => string | undefined,
  context: C,
): string | undefined {
  let value: unknown;
  try {
    value = provider(context);
  } catch (error) {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The provider of variable ${quote(name)} threw: ${describe(error)}.`,
      { cause: error },
    );
  }
  if (value === undefined || typeof value === "string") return value;
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `The provider of variable ${quote(name)} returned ${typeof value}; a ` +
      `variable provider must return a string, or undefined for "no value ` +
      `here".`,
  );
}

function buildSections<C>(
  { global, scoped }: Snapshot<C>,
  context: C,
): AssembledSection[] {
  const outer = global.sections;
  const inner = scoped.sections;
  const sections: AssembledSection[] = [];
  if (inner.length === 0) {
    for (const record of outer) sections.push(resolveSection(record, context));
    return sections;
  }
  // Both lists are sorted: merge them, dropping global sections the scope
  // shadows by name.
  const shadowed = new Set(inner.map((record) => record.name));
  let i = 0;
  let j = 0;
  while (i < outer.length || j < inner.length) {
    if (i < outer.length && shadowed.has(outer[i].name)) {
      i++;
    } else if (
      j === inner.length ||
      (i < outer.length && compareSections(outer[i], inner[j]) <= 0)
    ) {
      sections.push(resolveSection(outer[i++], context));
    } else {
      sections.push(resolveSection(inner[j++], context));
    }
  }
  return sections;
}

function resolveSection<C>(
  record: SectionRecord<C>,
  context: C,
): AssembledSection {
  const { name, order, text } = record;
  if (typeof text === "string") return { name, order, text };
  let value: unknown;
  try {
    value = text(context);
  } catch (error) {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The text function of section ${quote(name)} threw: ${describe(error)}.`,
      { cause: error },
    );
  }
  if (typeof value !== "string") {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The text function of section ${quote(name)} returned ${typeof value}; ` +
        `it must return a string ("" to leave the section out).`,
    );
  }
  return { name, order, text: value };
}

function buildTools<C>(
  { global, scoped, scope }: Snapshot<C>,
  context: C,
  toolOrder: ToolOrderPlan | undefined,
): ToolSchema[] {
  const collection: ToolCollection<C> = {
    context,
    tools: [],
    knownNames: toolOrder === undefined ? undefined : new Set<string>(),
  };
  let index = 0;
  for (const record of global.tools) {
    collectTools({ provider: record.provider, index: ++index }, collection);
  }
  for (const record of scoped.tools) {
    const source = { provider: record.provider, index: ++index, scope };
    collectTools(source, collection);
  }
  return orderTools(collection.tools, {
    plan: toolOrder,
    knownNames: collection.knownNames,
  });
}

/** Where tools come from: a provider, its position, and its scope if any. */
interface ToolSource<C> {
  readonly provider: ToolProvider<C>;
  /** 1-based position among the providers of this assembly. */
  readonly index: number;
  readonly scope?: ScopeKey;
}

/** What the providers of one assembly add to. */
interface ToolCollection<C> {
  readonly context: C;
  readonly tools: ToolSchema[];
  /** Only collected when a `toolOrder` needs checking. */
  readonly knownNames: Set<string> | undefined;
}

/** Names a tool provider in an error message (built on failure only). */
function labelOf<C>({ provider, index, scope }: ToolSource<C>): string {
  const name = (provider as { name?: unknown }).name;
  const which = typeof name === "string" && name !== ""
    ? `${name} (#${index})`
    : `#${index}`;
  return `tool provider ${which} (${describeScope(scope)})`;
}

function collectTools<C>(
  source: ToolSource<C>,
  { context, tools, knownNames }: ToolCollection<C>,
): void {
  let result: unknown;
  try {
    result = source.provider(context);
  } catch (error) {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The ${labelOf(source)} threw: ${describe(error)}.`,
      { cause: error },
    );
  }
  if (
    typeof result !== "object" || result === null ||
    !Array.isArray((result as { schemas?: unknown }).schemas)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${labelOf(source)} returned ${quote(result)}; a tool provider ` +
        `must return { schemas: ToolSchema[], knownNames?: string[] }.`,
    );
  }
  const { schemas, knownNames: known } = result as {
    schemas: readonly unknown[];
    knownNames?: unknown;
  };
  if (
    known !== undefined &&
    !(Array.isArray(known) && known.every((name) => typeof name === "string"))
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${labelOf(source)} returned knownNames that is not an array of ` +
        `strings; list the names of every tool it can offer, or leave it out.`,
    );
  }
  for (const schema of schemas) {
    const tool = copyToolSchema(schema, source);
    tools.push(tool);
    knownNames?.add(tool.name);
  }
  if (known !== undefined && knownNames !== undefined) {
    for (const name of known as string[]) knownNames.add(name);
  }
}

function copyToolSchema<C>(schema: unknown, source: ToolSource<C>): ToolSchema {
  const candidate = schema as Partial<ToolSchema> | null;
  if (
    typeof candidate !== "object" || candidate === null ||
    typeof candidate.name !== "string" || candidate.name === ""
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `The ${labelOf(source)} returned a tool schema without a name (${
        quote(candidate)
      }); every schema needs a non-empty string name.`,
    );
  }
  const name = candidate.name;
  if (
    typeof candidate.description !== "string" ||
    !isPlainObject(candidate.parameters)
  ) {
    throw new SystemPromptError(
      "INVALID_TOOL_SCHEMA",
      `Tool ${quote(name)} from the ${
        labelOf(source)
      } needs a string description ` +
        `and an object of parameters (a JSON Schema).`,
    );
  }
  try {
    return copyJson(candidate, [], []) as ToolSchema;
  } catch (error) {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `Tool ${quote(name)} from the ${labelOf(source)} cannot be copied: ` +
        `${describe(error)}; a tool schema must be plain JSON data.`,
      { cause: error },
    );
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Deep-copies JSON-like data: plain objects, arrays and primitives. Anything
 * else (functions, symbols, bigints, class instances, cycles) throws, so an
 * assembly never shares a mutable object with a provider. `path` holds the
 * keys from the root to `value`; it is only read to describe a failure.
 */
function copyJson(
  value: unknown,
  path: (string | number)[],
  ancestors: object[],
): unknown {
  if (typeof value !== "object" || value === null) {
    if (
      typeof value === "function" || typeof value === "symbol" ||
      typeof value === "bigint"
    ) {
      throw new TypeError(`${describePath(path)} is a ${typeof value}`);
    }
    return value;
  }
  if (ancestors.includes(value)) {
    throw new TypeError(`${describePath(path)} contains itself (a cycle)`);
  }
  ancestors.push(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    const array: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      array[index] = copyJson(value[index], path, ancestors);
      path.pop();
    }
    copy = array;
  } else if (isPlainObject(value)) {
    // A spread copies the object's shape in one step; only nested values
    // need a look.
    const object: Record<string, unknown> = { ...value };
    for (const key in object) {
      const item = object[key];
      if (typeof item === "object" && item !== null) {
        path.push(key);
        object[key] = copyJson(item, path, ancestors);
        path.pop();
      } else if (
        typeof item === "function" || typeof item === "symbol" ||
        typeof item === "bigint"
      ) {
        path.push(key);
        copyJson(item, path, ancestors);
      }
    }
    copy = object;
  } else {
    const kind = value.constructor?.name ?? "exotic object";
    throw new TypeError(`${describePath(path)} is a ${kind}, not plain data`);
  }
  ancestors.pop();
  return copy;
}

function describePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "the schema";
  return path.map((key) => typeof key === "number" ? `[${key}]` : `.${key}`)
    .join("").replace(/^\./, "");
}

function describe(error: unknown): string {
  return error instanceof Error
    ? `${error.name}: ${error.message}`
    : String(error);
}

/** Global and scope listeners, in the order they were registered. */
function mergeListeners<C>(
  global: readonly ListenerRecord<C>[],
  scoped: readonly ListenerRecord<C>[],
): AssembleListener<C>[] {
  const listeners: AssembleListener<C>[] = [];
  let i = 0;
  let j = 0;
  while (i < global.length || j < scoped.length) {
    if (
      j === scoped.length ||
      (i < global.length && global[i].sequence < scoped[j].sequence)
    ) {
      listeners.push(global[i++].listener);
    } else {
      listeners.push(scoped[j++].listener);
    }
  }
  return listeners;
}

/**
 * The waterfall: each listener gets the assembly, the caller's context and a
 * memoized `next()` that runs the rest of the pipeline on the same assembly.
 * The first stage's result is the pipeline's result.
 */
function waterfall$<C>(
  listeners: readonly AssembleListener<C>[],
  assembly: PromptAssembly,
  context: C,
): Observable<PromptAssembly> {
  return listeners.reduceRight<Observable<PromptAssembly>>(
    (rest$, listener, index) =>
      defer(() => {
        let rest: Promise<PromptAssembly> | undefined;
        const next = (): Promise<PromptAssembly> =>
          rest ??= firstValueFrom(rest$);
        return stage$(listener(assembly, context, next), index);
      }),
    of(assembly),
  );
}

function stage$(
  result: ReturnType<AssembleListener<unknown>>,
  index: number,
): Observable<PromptAssembly> {
  if (isObservable(result)) {
    return result.pipe(
      take(1),
      throwIfEmpty(() =>
        new SystemPromptError(
          "INVALID_LISTENER_RESULT",
          `Assembly listener #${index + 1} returned an Observable that ` +
            `completed without a value; it must emit an assembly.`,
        )
      ),
      map((value) => checkListenerResult(value, index)),
    );
  }
  if (isPromiseLike(result)) {
    return from(result).pipe(map((value) => checkListenerResult(value, index)));
  }
  return of(checkListenerResult(result, index));
}

function checkListenerResult(value: unknown, index: number): PromptAssembly {
  const assembly = value as Partial<PromptAssembly> | null;
  if (
    typeof assembly === "object" && assembly !== null &&
    Array.isArray(assembly.sections) && Array.isArray(assembly.tools) &&
    typeof assembly.variables === "object" && assembly.variables !== null
  ) {
    return assembly as PromptAssembly;
  }
  throw new SystemPromptError(
    "INVALID_LISTENER_RESULT",
    `Assembly listener #${index + 1} returned ${quote(value)}; a listener ` +
      `must return an assembly ({ sections, tools, variables }): usually ` +
      `the result of next(), or the assembly it received.`,
  );
}

/** Errors the source with `signal.reason` as soon as `signal` aborts. */
function abortOn<T>(
  signal: AbortSignal | undefined,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    signal === undefined ? source : race(
      source,
      fromEvent(signal, "abort").pipe(map((): never => {
        throw signal.reason;
      })),
    );
}
