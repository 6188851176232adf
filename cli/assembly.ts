/**
 * One assembly of a config's view, rendered, as the commands use it.
 *
 * @module
 */

import {
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
} from "../mod.ts";
import type { PromptConfig, Target } from "./config.ts";

/** An assembly with its rendered system prompt and runtime context. */
export interface Rendered {
  readonly assembly: PromptAssembly;
  readonly prompt: string;
  readonly runtimeContext: string;
}

/**
 * Assembles and renders `target` of `config`. An assembly or render error
 * rejects as it is (a finding); a failing `context` function rejects with a
 * `CliError` (a config error).
 */
export async function renderTarget(
  config: PromptConfig,
  target: Target,
): Promise<Rendered> {
  const assembly = await config.prompt.assemble(config.context(target.key));
  return rendered(assembly);
}

/** Renders an assembly's system prompt and runtime context. */
export function rendered(assembly: PromptAssembly): Rendered {
  return {
    assembly,
    prompt: renderPrompt(assembly),
    runtimeContext: renderRuntimeContext(assembly),
  };
}

/** A target for a message: `the global view` or `scope "NAME"`. */
export function describeTarget(target: Target): string {
  return target.name === undefined
    ? "the global view"
    : `scope ${JSON.stringify(target.name)}`;
}

/** A target for JSON: the scope's name, or `null` for the global view. */
export function targetJson(target: Target): string | null {
  return target.name ?? null;
}

/** Disposes a config's registry; a failing teardown cannot change the result. */
export async function disposeConfig(config: PromptConfig): Promise<void> {
  try {
    await config.prompt.dispose();
  } catch {
    // The command's output is already written; teardown is best effort.
  }
}
