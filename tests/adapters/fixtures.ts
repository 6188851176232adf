/** Assemblies, registries and checks shared by the adapter tests. */

import assert from "node:assert/strict";
import { rejects } from "../assertions.ts";
import {
  type AssembledSection,
  type PromptAssembly,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";

/** A hand-built assembly, optionally with a runtime context. */
export type TestAssembly = PromptAssembly & {
  runtimeContext?: AssembledSection[];
};

/** A tool whose parameters are an object schema with one string property. */
export function toolNamed(
  name: string,
  parameters: Record<string, unknown> = {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  },
): ToolSchema {
  return { name, description: `The ${name} tool.`, parameters };
}

/**
 * Three sections (the middle one a cache breakpoint), two tools, two
 * variables and a runtime context of one non-empty and one empty section.
 */
export function sampleAssembly(): TestAssembly {
  return {
    sections: [
      { name: "identity", order: -100, text: "You are a coding agent." },
      {
        name: "rules",
        order: 50,
        text: "Work in {{cwd}}.",
        cacheBreakpoint: true,
      },
      { name: "tools:shell", order: 110, text: "Prefer short commands." },
    ],
    tools: [toolNamed("read_file"), toolNamed("shell")],
    variables: { cwd: "/work/app", day: "Monday" },
    runtimeContext: [
      { name: "date", order: 0, text: "Today is {{day}}." },
      { name: "empty", order: 1, text: "" },
    ],
  };
}

/** One plugin's registrations, applied through its own fork. */
export type Plugin = (prompt: SystemPrompt) => void;

/**
 * Three plugins: files (a section and two tools), shell (a section and a
 * tool whose schema has no `type`) and the `cwd` variable.
 */
export const PLUGINS: readonly Plugin[] = [
  (prompt) => {
    const files = prompt.fork();
    files.section({
      name: "tools:files",
      order: 120,
      text: "Read before writing.",
    });
    files.tools(() => ({
      schemas: [toolNamed("write_file"), toolNamed("read_file")],
    }));
  },
  (prompt) => {
    const shell = prompt.fork();
    shell.section({
      name: "tools:shell",
      order: 110,
      text: "Commands run in {{cwd}}.",
    });
    shell.tools(() => ({
      schemas: [{
        name: "shell",
        description: "Run a command.",
        parameters: { properties: { command: { type: "string" } } },
      }],
    }));
  },
  (prompt) => {
    prompt.variable("cwd", () => "/work/app");
  },
];

/**
 * A registry built from `plugins` in the given order, with a listener that
 * marks `breakpoints` as cache breakpoints (the listener runs after the
 * registry's own, deterministic ordering).
 */
export function buildRegistry(
  plugins: readonly Plugin[],
  breakpoints: readonly string[] = [],
): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  for (const plugin of plugins) plugin(prompt);
  if (breakpoints.length > 0) {
    prompt.onAssemble((assembly) => {
      for (const section of assembly.sections) {
        if (breakpoints.includes(section.name)) section.cacheBreakpoint = true;
      }
      return assembly;
    });
  }
  return prompt;
}

/**
 * Asserts that `adapter` rejects the assembly of {@linkcode PLUGINS} after a
 * listener added a second tool named `name` at the `front` or the `back` of
 * the tools: the registry's own duplicate check has run by then, so only the
 * adapter can catch it.
 */
export async function assertRejectsAddedTool(
  adapter: (assembly: PromptAssembly) => unknown,
  { name, at }: { name: string; at: "front" | "back" },
): Promise<void> {
  const prompt = buildRegistry(PLUGINS);
  prompt.onAssemble((assembly) => {
    if (at === "front") assembly.tools.unshift(toolNamed(name));
    else assembly.tools.push(toolNamed(name));
    return assembly;
  });
  const assembly = await prompt.assemble();
  await prompt.dispose();
  assert.throws(
    () => adapter(assembly),
    rejects("DUPLICATE_TOOL", JSON.stringify(name)),
  );
}

/**
 * Asserts that `adapter` sends the sample's runtime context as a user
 * message, and no runtime context when the assembly's is `[]`.
 */
export function assertRuntimeContextMessage(
  adapter: (assembly: TestAssembly) => { runtimeContext?: unknown },
): void {
  assert.deepEqual(adapter(sampleAssembly()).runtimeContext, {
    role: "user",
    content: "Today is Monday.",
  });
  const blank = { ...sampleAssembly(), runtimeContext: [] };
  assert.equal("runtimeContext" in adapter(blank), false);
}
