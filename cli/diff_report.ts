/**
 * A `PromptDiff` as lines a person reads: where the cache breaks first,
 * then what changed, then the prompt text around the first change.
 *
 * @module
 */

import type { PromptDiff } from "../mod.ts";
import { describeHits, type MarkerHit } from "./cache_hits.ts";
import type { Style } from "./output.ts";

/** How many characters of each prompt to show around the first change. */
const SHOWN = 60;
const BEFORE_CHANGE = 20;

/**
 * The report of `diff`, for `before` and `after` prompts as rendered, and
 * the Anthropic cache markers of the later request (see `markerHits`).
 */
export function diffReport(
  diff: PromptDiff,
  prompts: { before: string; after: string; hits?: readonly MarkerHit[] },
  style: Style,
): string[] {
  if (diff.identical) {
    return [
      style.green(
        "identical: same tools, system prompt and runtime context",
      ),
    ];
  }
  const lines = [cacheLine(diff, prompts, style)];
  const { tools, sections, variables, runtimeContext } = diff;
  const toolChanges = changes(tools, style);
  if (tools.reordered) toolChanges.push(style.yellow("reordered"));
  if (toolChanges.length > 0) lines.push(`tools: ${toolChanges.join("  ")}`);
  const sectionChanges = changes(sections, style);
  if (sectionChanges.length > 0) {
    lines.push(`sections: ${sectionChanges.join("  ")}`);
  }
  const variableChanges = changes(variables, style);
  if (variableChanges.length > 0) {
    lines.push(`variables: ${variableChanges.join("  ")}`);
  }
  const contextChanges = changes(runtimeContext, style);
  if (contextChanges.length > 0) {
    lines.push(`runtime context: ${contextChanges.join("  ")}`);
  }
  const offset = diff.prompt.firstChangedOffset;
  if (offset !== undefined) {
    lines.push(
      `system prompt: first change at offset ${offset}` +
        (sections.firstChanged === undefined
          ? ""
          : `, in section ${sections.firstChanged}`),
      `  ${style.red("-")} ${excerpt(prompts.before, offset)}`,
      `  ${style.green("+")} ${excerpt(prompts.after, offset)}`,
    );
  }
  return lines;
}

function cacheLine(
  diff: PromptDiff,
  prompts: { after: string; hits?: readonly MarkerHit[] },
  style: Style,
): string {
  const { brokenBy, toolsStable, promptStablePrefix } = diff.cache;
  if (brokenBy === undefined) {
    return style.green(
      "cache: intact (tools and system prompt unchanged; the runtime " +
        "context is not cached)",
    );
  }
  // Characters say how far the prompts agree; a provider like Anthropic
  // caches only up to a marker, so the markers that still hit are the gain.
  const kept = toolsStable
    ? `tools stable, ${promptStablePrefix} of ${prompts.after.length} ` +
      `system prompt characters unchanged`
    : "the tools changed, so nothing after them is cached";
  const hits = prompts.hits === undefined
    ? ""
    : `; Anthropic cache markers still hit: ${describeHits(prompts.hits)}`;
  return `${
    style.bold(style.red(`cache: broken by ${brokenBy}`))
  } (${kept}${hits})`;
}

/** `+added  -removed  ~changed` for one list. */
function changes(
  list: { added: string[]; removed: string[]; changed: string[] },
  style: Style,
): string[] {
  return [
    ...list.added.map((name) => style.green(`+${name}`)),
    ...list.removed.map((name) => style.red(`-${name}`)),
    ...list.changed.map((name) => style.yellow(`~${name}`)),
  ];
}

/** The prompt near `offset`, quoted so that line breaks show as `\n`. */
function excerpt(prompt: string, offset: number): string {
  const start = Math.max(0, offset - BEFORE_CHANGE);
  const end = Math.min(prompt.length, start + SHOWN);
  const text = JSON.stringify(prompt.slice(start, end));
  return (start > 0 ? "…" : "") + text + (end < prompt.length ? "…" : "");
}
