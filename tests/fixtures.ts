/** Shared fixtures of the test files: small builders and recorders. */

import type { Observable } from "rxjs";
import {
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  type PromptChange,
  type PromptSection,
  type ToolSchema,
} from "../mod.ts";
import {
  type OrderToolsOptions,
  toolPositions,
} from "../src/kinds/tool_order.ts";

/** A tool schema; `parameters` default to an empty object schema. */
export function tool(
  name: string,
  description: string = name,
  parameters: Record<string, unknown> = { type: "object" },
): ToolSchema {
  return { name, description, parameters };
}

/** The tools named `names`, in that order. */
export function tools(...names: string[]): ToolSchema[] {
  return names.map((name) => tool(name));
}

/** A section whose text defaults to its name. */
export function section(
  name: string,
  order = 0,
  text: string = name,
): PromptSection {
  return { name, order, text };
}

/** What {@linkcode recordChanges} delivers. */
export interface ChangeRecording {
  readonly changes: PromptChange[];
  completed(): boolean;
}

/** Records every change of `source.change$` and whether it completed. */
export function recordChanges(
  source: { readonly change$: Observable<PromptChange> },
): ChangeRecording {
  const changes: PromptChange[] = [];
  let done = false;
  source.change$.subscribe({
    next: (change) => changes.push(change),
    complete: () => done = true,
  });
  return { changes, completed: () => done };
}

/** Section names after the two built-ins. */
export function ownSections(assembly: PromptAssembly): string[] {
  return assembly.sections
    .map((section) => section.name)
    .filter((name) =>
      name !== HARNESS_IDENTITY_SECTION && name !== PERSONA_SECTION
    );
}

/** The tool names of an assembly, in order. */
export function toolNames(assembly: PromptAssembly): string[] {
  return assembly.tools.map((tool) => tool.name);
}

/** The text of the section `name`, if the assembly has one. */
export function textOf(
  assembly: PromptAssembly,
  name: string,
): string | undefined {
  return assembly.sections.find((section) => section.name === name)?.text;
}

/** A promise and the function that resolves it. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
} {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** What {@linkcode foreignSignal} returns. */
export interface ForeignSignal {
  /** The signal, as another realm or a polyfill would give it. */
  readonly signal: AbortSignal;
  /** Aborts it. */
  abort(reason: unknown): void;
  /** The abort listeners added and not yet removed or called. */
  readonly listeners: ReadonlyMap<unknown, unknown>;
}

/**
 * An AbortSignal that is not an instance of this realm's class (like one
 * from another realm or a polyfill), recording its abort listeners.
 */
export function foreignSignal(): ForeignSignal {
  const controller = new AbortController();
  const real = controller.signal;
  const wrappers = new Map<unknown, () => void>();
  const signal = {
    get aborted(): boolean {
      return real.aborted;
    },
    get reason(): unknown {
      return real.reason;
    },
    addEventListener(type: string, listener: () => void): void {
      const wrapper = () => {
        wrappers.delete(listener);
        listener();
      };
      wrappers.set(listener, wrapper);
      real.addEventListener(type, wrapper, { once: true });
    },
    removeEventListener(type: string, listener: () => void): void {
      const wrapper = wrappers.get(listener);
      wrappers.delete(listener);
      if (wrapper !== undefined) real.removeEventListener(type, wrapper);
    },
  };
  return {
    signal: signal as unknown as AbortSignal,
    abort: (reason) => controller.abort(reason),
    listeners: wrappers,
  };
}

/** The tools in the canonical order `toolPositions` gives, as a new array. */
export function orderTools(
  list: readonly ToolSchema[],
  options?: OrderToolsOptions,
): ToolSchema[] {
  return toolPositions(list, options).map((position) => list[position]);
}
