/**
 * What the registry reports as it changes: `change$`'s events and the views
 * `watch()` emits.
 *
 * @module
 */

import type { PromptDiff } from "./diff/types.ts";
import type { PromptAssembly, ScopeKey } from "./types.ts";

/**
 * One event of `change$`: a registration, an unregistration, or an
 * `invalidate()`. Scoped changes carry their scope key.
 *
 * @example
 * ```ts
 * import type { PromptChange } from "@rxprompt/system-prompt";
 *
 * const change: PromptChange = { type: "register", kind: "section", name: "rules" };
 * ```
 */
export interface PromptChange {
  /** What happened; `update` is a new value of a live registration. */
  type:
    | "register"
    | "unregister"
    | "invalidate"
    | "update"
    | "bind"
    | "unbind";
  /** What kind of registration changed; absent for the other types. */
  kind?:
    | "section"
    | "tools"
    | "variable"
    | "listener"
    | "runtimeContext"
    | "suppressor"
    | "toolGate";
  /** The section or variable name; absent for tools and listeners. */
  name?: string;
  /** The scope key of a scoped change (the child of a bind); absent for a global one. */
  scope?: ScopeKey;
  /** The parent scope key of a `bind` or `unbind`. */
  parent?: ScopeKey;
}

/**
 * What `watch()` emits: a rendered assembly, or the error that prevented it.
 * A rendered view after the first also carries `diff`: what changed since
 * the previous rendered view of the same subscription, and where the prompt
 * cache breaks (`diffAssemblies(previous, assembly)`).
 *
 * @example
 * ```ts
 * import type { PromptView } from "@rxprompt/system-prompt";
 *
 * function show(view: PromptView): string {
 *   if ("error" in view) return `failed: ${String(view.error)}`;
 *   const broken = view.diff?.cache.brokenBy;
 *   return broken === undefined ? view.prompt : `cache broken by ${broken}`;
 * }
 * ```
 */
export type PromptView =
  | { assembly: PromptAssembly; prompt: string; diff?: PromptDiff }
  | { error: unknown };
