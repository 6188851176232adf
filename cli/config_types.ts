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
 * const config: RxpromptConfigObject = { prompt, scopes: { reviewer } };
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
