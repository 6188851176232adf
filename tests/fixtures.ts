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
