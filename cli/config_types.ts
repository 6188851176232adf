/**
 * The types of a config module's default export, for TypeScript configs:
 * `export default { prompt, scopes } satisfies RxpromptConfig;`.
 *
 * @module
 */

import type { AssembleContext, ScopeKey, SystemPrompt } from "../mod.ts";

/**
 * The object form of a config: the registry, its named scopes, and the
 * assembly context of each view.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import type { RxpromptConfigObject } from "@rxprompt/system-prompt/cli";
 *
 * const reviewer = { id: "reviewer" };
 * const prompt = new SystemPrompt();
 * prompt.scope(reviewer).section({ name: "role", order: 10, text: "Review." });
 * // The config's own timer: stopped when the config is replaced or ends.
 * const timer = setInterval(() => prompt.invalidate(), 60_000);
 * const config: RxpromptConfigObject = {
 *   prompt,
 *   scopes: { reviewer },
 *   dispose: () => clearInterval(timer),
 * };
 * config.dispose?.();
 * ```
 */
export interface RxpromptConfigObject<
  C extends AssembleContext = AssembleContext,
> {
  /** The registry the commands assemble. */
  prompt: SystemPrompt<C>;
  /** Scope name (for `--scope NAME`) → scope key, usually the agent object. */
  scopes?: Record<string, ScopeKey>;
  /**
   * The assembly context of a view: `scope` is `undefined` for the global
   * view; leave `scope` out of the result or pass the given one back.
   */
  context?: (scope?: ScopeKey) => C;
  /**
   * Stops what the config started besides its registry (a timer, a file
   * watcher, a client): called before the registry is disposed, when a
   * command ends and when `watch` or `inspect --serve` import the saved
   * config in its place (the old module's timers would otherwise call its
   * disposed registry). Awaited within `--timeout`.
   */
  dispose?: () => void | Promise<void>;
}

/**
 * What a config module's default export may be: a `SystemPrompt`, a
 * {@linkcode RxpromptConfigObject}, or a (possibly async) function
 * returning either. Import it as a type only: importing a value from
 * `@rxprompt/system-prompt/cli` runs the command.
 *
 * @example A TypeScript config checked against the type
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import type { RxpromptConfig } from "@rxprompt/system-prompt/cli";
 *
 * const prompt = new SystemPrompt();
 * prompt.section({ name: "rules", order: 10, text: "Be brief." });
 *
 * export default { prompt } satisfies RxpromptConfig;
 * ```
 */
export type RxpromptConfig<C extends AssembleContext = AssembleContext> =
  | SystemPrompt<C>
  | RxpromptConfigObject<C>
  | (() =>
    | SystemPrompt<C>
    | RxpromptConfigObject<C>
    | Promise<SystemPrompt<C> | RxpromptConfigObject<C>>);
