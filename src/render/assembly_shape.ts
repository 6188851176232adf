/**
 * The shape checks of the renderers' input and their errors. The checks are
 * cheap type tests on the hot path; messages are built only on failure.
 * Internal: not exported from `mod.ts`.
 *
 * @module
 */

import { readGuarded, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";

/** The assembly key of a list of entries to render. */
export type RenderedList = "sections" | "runtimeContext";

/** The assembly key of a list an entry point reads. */
export type AssemblyList = RenderedList | "tools";

/**
 * An assembly's keys, each read once and checked: the lists an entry point
 * asked for are arrays (a list it did not ask for is `[]`), the variables an
 * object. The lists' entries are not read yet.
 */
export interface AssemblyParts {
  readonly sections: readonly AssembledSection[];
  readonly runtimeContext: readonly AssembledSection[];
  readonly tools: readonly unknown[];
  readonly variables: PromptAssembly["variables"];
}

/**
 * The one reader of an assembly every entry point shares (`renderPrompt`,
 * `renderRuntimeContext`, `renderPromptBlocks`, the wire adapters): checks
 * that `assembly` is an object, reads each of `lists` once, then
 * `variables`, and checks their shapes. An absent `runtimeContext` reads as
 * `[]`. Throws `INVALID_ASSEMBLY`; run it inside
 * {@linkcode readingAssembly}, which gives what a getter or Proxy throws the
 * same code.
 */
export function readAssembly(
  assembly: unknown,
  renderer: string,
  lists: readonly AssemblyList[],
): AssemblyParts {
  checkAssembly(assembly, renderer);
  const source = assembly as Record<AssemblyList | "variables", unknown>;
  const parts: Record<AssemblyList, readonly unknown[]> = {
    sections: NONE,
    runtimeContext: NONE,
    tools: NONE,
  };
  for (const list of lists) {
    const value = source[list];
    if (list === "runtimeContext" && value === undefined) continue;
    if (!Array.isArray(value)) throw invalidList(list, value);
    parts[list] = value;
  }
  const variables = source.variables;
  if (
    typeof variables !== "object" || variables === null ||
    Array.isArray(variables)
  ) throw invalidVariables(variables);
  return {
    ...parts,
    variables: variables as PromptAssembly["variables"],
  } as AssemblyParts;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * A list's entries read once each, into a plain array, each checked to be
 * an object (`INVALID_ASSEMBLY` naming the first that is not, so a list
 * claiming a huge length fails at its first hole instead of hanging).
 */
export function entriesOf(
  entries: readonly AssembledSection[],
  list: RenderedList,
): AssembledSection[] {
  const length = entries.length;
  const copy: AssembledSection[] = [];
  for (let index = 0; index < length; index++) {
    const entry: unknown = entries[index];
    if (typeof entry !== "object" || entry === null) {
      throw invalidEntry(`${list}[${index}]`, entry);
    }
    copy.push(entry as AssembledSection);
  }
  return copy;
}

/** Throws `INVALID_ASSEMBLY` unless `assembly` is an object. */
export function checkAssembly(assembly: unknown, renderer: string): void {
  if (typeof assembly === "object" && assembly !== null) return;
  throw new SystemPromptError(
    "INVALID_ASSEMBLY",
    `${renderer} received ${describeType(assembly)} instead of an assembly: ` +
      `pass an object { sections, tools, variables }, such as ` +
      `assemble() resolves to.`,
  );
}

/** `INVALID_ASSEMBLY`: a list of the assembly is not an array. */
export function invalidList(
  list: AssemblyList,
  value: unknown,
): SystemPromptError {
  const absent = list === "runtimeContext" ? " (or leave the key out)" : "";
  const entries = list === "tools"
    ? "tool schemas { name, description, parameters }"
    : "assembled sections { name, order, text }";
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `The assembly's ${list} is ${
      describeType(value)
    }; it must be an array of ${entries}${absent}.`,
  );
}

/**
 * `INVALID_ASSEMBLY`: an entry of a list is not an object. `path` is the
 * entry's key path, such as `sections[2]`.
 */
export function invalidEntry(path: string, value: unknown): SystemPromptError {
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `The assembly's ${path} is ${describeType(value)}; every entry ` +
      `must be an assembled section object { name, order, text }.`,
  );
}

/** `INVALID_ASSEMBLY`: the variables are not a plain object. */
export function invalidVariables(value: unknown): SystemPromptError {
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `The assembly's variables is ${
      describeType(value)
    }; it must be an object ` +
      `mapping each variable name to a string or undefined (use {} for none).`,
  );
}

/**
 * `render()`, where what a getter or Proxy of the assembly throws while it
 * is read becomes `INVALID_ASSEMBLY` with the thrown value as `cause`.
 */
export function readingAssembly<T>(render: () => T, renderer: string): T {
  return readGuarded(
    render,
    "INVALID_ASSEMBLY",
    () =>
      `${renderer} could not read the assembly (a getter or Proxy threw); ` +
      `pass plain data { sections, tools, variables }, such as assemble() ` +
      `resolves to.`,
  );
}

/** A value's kind for a message, never its content. Never throws. */
export function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}
