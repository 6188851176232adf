/**
 * Deferred tools in a conversation (SPEC §10.3): what the conversation
 * itself needs of them besides the form's own fields. A deferred tool the
 * model found is called like a listed one, so with gates its active name
 * is allowed as a listed tool's is. Pure.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";
import type { ConversationForm, FormBuilder } from "./form.ts";
import type { GivenResult } from "./results.ts";
import type { ToolCall } from "./types.ts";

/**
 * Whether a conversation sends deferred tools through the search-and-call
 * pair (`tool_pair.ts`): its options' choice (`FormBuilder.deferredTools`,
 * Anthropic's and Responses' `toolSearch: "pair"`), else its form's.
 */
export function sendsPair(
  form: Pick<ConversationForm, "deferredTools">,
  builder: Pick<FormBuilder<unknown, unknown>, "deferredTools">,
): boolean {
  return (builder.deferredTools ?? form.deferredTools) === "pair";
}

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

/**
 * `refusals` with a refusal for each call naming a namespace that does not
 * hold its tool in the request's tools block (`head`, the recorded head as
 * JSON: its `tools`' `namespace` entries). A call without a namespace is
 * left alone.
 */
export function withNamespaceRefusals(
  form: Pick<ConversationForm, "resultContent">,
  refusals: Map<string, GivenResult>,
  step: { readonly calls: readonly ToolCall[]; readonly head?: string },
): Map<string, GivenResult> {
  const named = step.calls.filter((call) => call.namespace !== undefined);
  if (named.length === 0) return refusals;
  const holders = new Map<string, string[]>();
  const head = step.head === undefined ? {} : JSON.parse(step.head);
  for (const tool of Array.isArray(head.tools) ? head.tools : []) {
    if (tool?.type !== "namespace" || !Array.isArray(tool.tools)) continue;
    for (const fn of tool.tools) {
      holders.set(fn?.name, [...holders.get(fn?.name) ?? [], tool.name]);
    }
  }
  for (const call of named) {
    const holding = holders.get(call.name) ?? [];
    if (refusals.has(call.id) || holding.includes(call.namespace!)) continue;
    const where = holding.length === 0
      ? "no namespace holds it"
      : `it is in the namespace ${JSON.stringify(holding[0])}`;
    const text = `Tool ${JSON.stringify(call.name)} is not in the namespace ${
      JSON.stringify(call.namespace)
    }; ${where}. Call it there instead.`;
    refusals.set(call.id, {
      content: form.resultContent(text, call.id),
      isError: true,
    });
  }
  return refusals;
}
