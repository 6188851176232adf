/**
 * The shape checks of the renderers' input and their errors. The checks are
 * cheap type tests on the hot path; messages are built only on failure.
 * Internal: not exported from `mod.ts`.
 *
 * @module
 */

import { isSystemPromptError, SystemPromptError } from "../errors.ts";

/** The assembly key of a list of entries to render. */
export type RenderedList = "sections" | "runtimeContext";

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

/** `INVALID_ASSEMBLY`: the list to render is not an array. */
export function invalidList(
  list: RenderedList,
  value: unknown,
): SystemPromptError {
  const absent = list === "runtimeContext" ? " (or leave the key out)" : "";
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `The assembly's ${list} is ${
      describeType(value)
    }; it must be an array of ` +
      `assembled sections { name, order, text }${absent}.`,
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
  try {
    return render();
  } catch (error) {
    if (isSystemPromptError(error)) throw error;
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `${renderer} could not read the assembly (a getter or Proxy threw); ` +
        `pass plain data { sections, tools, variables }, such as assemble() ` +
        `resolves to.`,
      { cause: error },
    );
  }
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
