/**
 * One assembly of a config's view, rendered, as the commands use it.
 *
 * @module
 */

import {
  type AssembleContext,
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
} from "../mod.ts";
import type { PromptConfig, Target } from "./config.ts";
import { within, withSignal } from "./deadline.ts";

/** An assembly with its rendered system prompt and runtime context. */
export interface Rendered {
  readonly assembly: PromptAssembly;
  readonly prompt: string;
  readonly runtimeContext: string;
}

/** Options of {@linkcode renderTarget} and {@linkcode assembleWithin}. */
export interface Bounded {
  /** How long the assembly may take (`--timeout`, default 10 s). */
  readonly timeoutMs?: number;
}

/**
 * Assembles and renders `target` of `config`. An assembly or render error
 * rejects as it is (a finding); a failing `context` function, or an
 * assembly that does not settle in time, rejects with a `CliError` (a
 * config error).
 */
export async function renderTarget(
  config: PromptConfig,
  target: Target,
  options: Bounded = {},
): Promise<Rendered> {
  const assembly = await assembleWithin(
    config,
    target,
    (context) => config.prompt.assemble(context),
    options,
  );
  return rendered(assembly);
}

/**
 * Runs `assemble` on `target`'s context (with a signal that aborts at the
 * time limit) within the limit.
 *
 * @throws {CliError} naming the config and the target when it does not
 * settle in time
 */
export function assembleWithin<T>(
  config: PromptConfig,
  target: Target,
  assemble: (context: AssembleContext) => Promise<T>,
  options: Bounded = {},
): Promise<T> {
  const context = config.context(target.key);
  return within(
    {
      timeoutMs: options.timeoutMs,
      what: `config ${config.source}: the assembly of ${
        describeTarget(target)
      }`,
      why: "a provider or a listener never answered; it was aborted",
    },
    (signal) => assemble(withSignal(context, signal)),
  );
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

/**
 * Disposes a config: its own `dispose` export first (its timers stop
 * before the registry they call goes), then its registry, each within the
 * time limit: a failing or hanging teardown cannot change the result.
 */
export async function disposeConfig(
  config: PromptConfig,
  options: Bounded = {},
): Promise<void> {
  const { dispose } = config;
  const teardowns = [
    ...(dispose === undefined ? [] : [() => dispose()]),
    () => config.prompt.dispose(),
  ];
  for (const teardown of teardowns) {
    try {
      await within(
        { timeoutMs: options.timeoutMs, what: `config ${config.source}` },
        teardown,
      );
    } catch {
      // The command's output is already written; teardown is best effort.
    }
  }
}
