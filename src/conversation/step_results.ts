/**
 * The tool results around one step: which calls of an answer the
 * conversation answers itself (the gates' and namespaces' refusals, the
 * pair's searches, answered once the next step's assembly is known), and
 * the results the next request sends, in the calls' order.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";
import type { ConversationForm, ToolResultInput } from "./form.ts";
import { checkResultsGiven, type GivenResult, refusalsOf } from "./results.ts";
import { withNamespaceRefusals } from "./deferred.ts";
import {
  findToolsAnswer,
  PENDING_SEARCH,
  pendingSearches,
} from "./tool_pair.ts";
import type { ToolCall } from "./types.ts";

/**
 * The results the conversation gives to an answer's `calls` itself: a
 * refusal for a call the step's gates (`allowed`) or its namespaces did not
 * allow, and, when the request listed the pair, each search left pending.
 */
export function givenResults(
  form: Pick<ConversationForm, "resultContent">,
  calls: readonly ToolCall[],
  step: {
    readonly allowed: readonly string[] | undefined;
    readonly head: string | undefined;
    readonly pair: boolean;
  },
): Map<string, GivenResult> {
  return pendingSearches(
    withNamespaceRefusals(form, refusalsOf(form, calls, step.allowed), {
      calls,
      head: step.head,
    }),
    calls,
    step.pair,
  );
}

/**
 * The results of `calls` for the next request, in the calls' order: the
 * pending searches answered from `assembly` (written into `results`), then
 * every call checked to have its result.
 *
 * @throws {SystemPromptError} `TOOL_RESULTS_MISSING` for a call without one
 */
export function stepResults(
  form: Pick<ConversationForm, "resultContent">,
  calls: readonly ToolCall[],
  { results, assembly }: {
    readonly results: Map<string, GivenResult>;
    readonly assembly: PromptAssembly;
  },
): ToolResultInput[] {
  for (const call of calls) {
    if (results.get(call.id) !== PENDING_SEARCH) continue;
    results.set(call.id, {
      content: form.resultContent(
        findToolsAnswer(call.input, assembly),
        call.id,
      ),
      isError: false,
    });
  }
  checkResultsGiven(calls, results);
  return calls.map((call) => ({
    id: call.id,
    // The result answers the call the model made (the pair's call_tool).
    name: call.via ?? call.name,
    ...results.get(call.id)!,
  }));
}
