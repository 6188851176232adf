/**
 * What deferring tools saved a conversation (SPEC §10.3), read from its
 * recorded steps: the deferred definitions each request's tools carried
 * (`defer_loading: true`, at the top level or in a `namespace`), the ones
 * the history loaded (Anthropic's `tool_reference` blocks, OpenAI's
 * `tool_search_output` items), and the tokens of those not loaded yet.
 * Linear in the recording: each item is read once, each head's
 * definitions counted once. Pure.
 *
 * @module
 */

import type { CountTokens } from "../cache/simulator/types.ts";
import type { DeferredToolsReport } from "../cache/report/conversation_findings.ts";
import type { RecordingStep } from "./recording.ts";

/**
 * The deferred tools of the steps' requests, or `undefined` when none
 * carried one. `read` gives the items an answer added to the history.
 */
export function deferredReport(
  steps: readonly RecordingStep[],
  options: {
    readonly read: (response: unknown) => readonly unknown[];
    readonly countTokens: CountTokens;
  },
): DeferredToolsReport | undefined {
  const tools = new Set<string>();
  const found = new Set<string>();
  let definitions = new Map<string, number>();
  let head: Record<string, unknown> | undefined;
  let tokensNotSent = 0;
  for (const step of steps) {
    if (step.head !== undefined && step.head !== head) {
      head = step.head;
      definitions = deferredDefinitions(head, options.countTokens);
      for (const name of definitions.keys()) tools.add(name);
    }
    for (const item of step.tail) loaded(item, found);
    for (const [name, tokens] of definitions) {
      if (!found.has(name)) tokensNotSent += tokens;
    }
    try {
      for (const item of options.read(step.response)) loaded(item, found);
    } catch {
      // An answer the form cannot read loaded nothing the report can see.
    }
  }
  if (tools.size === 0) return undefined;
  return {
    tools: tools.size,
    found: [...found].filter((name) => tools.has(name)).length,
    tokensNotSent,
  };
}

/** A head's deferred definitions by name, with their tokens. */
function deferredDefinitions(
  head: Record<string, unknown>,
  countTokens: CountTokens,
): Map<string, number> {
  const definitions = new Map<string, number>();
  const add = (tool: unknown) => {
    const fn = tool as { defer_loading?: unknown; name?: unknown };
    if (fn?.defer_loading === true && typeof fn.name === "string") {
      definitions.set(fn.name, countTokens(JSON.stringify(tool)));
    }
  };
  for (const tool of Array.isArray(head.tools) ? head.tools : []) {
    const group = tool as { type?: unknown; tools?: unknown };
    if (group?.type === "namespace" && Array.isArray(group.tools)) {
      group.tools.forEach(add);
    } else add(tool);
  }
  return definitions;
}

/** Adds the tools an item (or a block inside it) loaded to `found`. */
function loaded(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const inner of value) loaded(inner, found);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const item = value as Record<string, unknown>;
  if (item.type === "tool_reference" && typeof item.tool_name === "string") {
    found.add(item.tool_name);
    return;
  }
  if (item.type === "tool_search_output" && Array.isArray(item.tools)) {
    for (const tool of item.tools as Record<string, unknown>[]) {
      const inner = tool?.type === "namespace" && Array.isArray(tool.tools)
        ? tool.tools as Record<string, unknown>[]
        : [tool];
      for (const fn of inner) {
        if (typeof fn?.name === "string") found.add(fn.name);
      }
    }
    return;
  }
  // Anthropic's references sit in a result block inside a message.
  for (const key in item) loaded(item[key], found);
}
