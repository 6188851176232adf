/**
 * Deferred tools in a conversation (SPEC §10.3): what the conversation
 * itself needs of them besides the form's own fields. A deferred tool the
 * model found is called like a listed one, so with gates its active name
 * is allowed as a listed tool's is. Pure.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";

/**
 * The names a step allows: `allowed` (the active listed tools, or
 * `undefined` when every one is) and the active deferred tools of the
 * assembly (`activeTools` holds them after the listed ones). Without
 * gates (`allowed` undefined), every call passes as before.
 */
export function allowedWithDeferred(
  allowed: string[] | undefined,
  assembly: Pick<PromptAssembly, "deferredTools" | "activeTools">,
): string[] | undefined {
  const deferred = assembly.deferredTools;
  if (allowed === undefined || deferred === undefined) return allowed;
  const active = assembly.activeTools === undefined
    ? undefined
    : new Set(assembly.activeTools);
  const names = deferred.flatMap(({ name }) =>
    active === undefined || active.has(name) ? [name] : []
  );
  return names.length === 0 ? allowed : [...allowed, ...names];
}
