/** Assertions and small utilities shared by the test files. */

import assert from "node:assert/strict";
import {
  type AssembleContext,
  type PromptAssembly,
  type SystemPrompt,
  SystemPromptError,
} from "../mod.ts";

/**
 * A predicate for `assert.throws` / `assert.rejects`: a `SystemPromptError`
 * with exactly `code`, whose message contains every string part and matches
 * every pattern.
 */
export function rejects(
  code: string,
  ...parts: (string | RegExp)[]
): (error: unknown) => true {
  return (error) => {
    assert.ok(
      error instanceof SystemPromptError,
      `expected a SystemPromptError ${code}, got ${String(error)}`,
    );
    assert.equal(error.code, code, error.message);
    for (const part of parts) {
      if (typeof part === "string") {
        assert.ok(
          error.message.includes(part),
          `message ${JSON.stringify(error.message)} lacks ${
            JSON.stringify(part)
          }`,
        );
      } else {
        assert.match(error.message, part);
      }
    }
    return true;
  };
}

/** Resolves after one macrotask. */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The section names of an assembly, in order. */
export function sectionNames(assembly: PromptAssembly): string[] {
  return assembly.sections.map((section) => section.name);
}

/** Whether a section named `name` is in `prompt`'s assembly for `context`. */
export async function registered(
  prompt: SystemPrompt,
  name: string,
  context: AssembleContext = {},
): Promise<boolean> {
  return sectionNames(await prompt.assemble(context)).includes(name);
}

/** Whether `promise` settles within `turns` macrotasks. */
export async function settlesWithin(
  promise: Promise<unknown>,
  turns: number,
): Promise<boolean> {
  let settled = false;
  promise.then(() => settled = true, () => settled = true);
  for (let i = 0; i < turns && !settled; i++) await macrotask();
  return settled;
}

/** Awaits a few macrotasks and a short pause, so that pending views arrive. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await macrotask();
  await new Promise((resolve) => setTimeout(resolve, 15));
}
