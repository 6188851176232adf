/**
 * The report's reading of what each request told the model inline (SPEC
 * 10.1, issue 46): the section changes, the tools added or removed and the
 * effort a step sent after the history instead of editing its prefix, read
 * from the recording (`sectionChanges`, `inlineTools`, `effort`), and those
 * told again after a compaction marked `restated`. Pure, linear in the
 * recording.
 *
 * @module
 */

import type { PromptCacheReport } from "../cache/report/types.ts";
import type { InlineChange } from "../cache/report/conversation_findings.ts";
import type { RecordingStep } from "./recording.ts";
import type { ListedTool } from "./tool_set.ts";

/**
 * What each step told the model inline, by step (a summarizing request
 * tells nothing). `keepsTools`: the form's compaction keeps the tools
 * given inline (else a swap tells them again from the tools block).
 */
export function inlineChanges(
  steps: readonly RecordingStep[],
  keepsTools: boolean,
): InlineChange[][] {
  let listed: readonly ListedTool[] | undefined;
  let effective: readonly ListedTool[] | undefined;
  let effort: { head?: string; told: string } | undefined;
  let restating = false;
  // What the model was told inline, as told: a change told again after a
  // compaction is a restatement; one it never had is not.
  const sectionsTold = new Map<string, string>();
  let toolsTold: readonly ListedTool[] | undefined;
  return steps.map((step) => {
    if (step.kind === "compaction") return [];
    const restated = restating || step.swap !== undefined;
    const told: InlineChange[] = [];
    for (const change of step.sectionChanges ?? []) {
      const json = JSON.stringify(change);
      told.push({
        kind: "section",
        name: change.name,
        change: change.kind,
        ...(restated && sectionsTold.get(change.name) === json
          ? { restated: true }
          : {}),
      });
      sectionsTold.set(change.name, json);
    }
    if (step.inlineTools !== undefined) {
      const fromBlock = restated && !keepsTools;
      const before = fromBlock ? listed ?? [] : effective ?? listed ?? [];
      for (const change of toolChanges(before, step.inlineTools)) {
        told.push(
          fromBlock &&
            toldBefore(change, toolsTold ?? listed ?? [], step.inlineTools)
            ? { ...change, restated: true }
            : change,
        );
      }
      effective = step.inlineTools;
      toolsTold = effective;
    } else if (restated && !keepsTools) effective = undefined;
    if (step.tools !== undefined) listed = step.tools;
    const now = step.effort ?? effort;
    // Known to the model: the last effort told, or after a compaction the
    // head's only (the message that told it went with the summary).
    const known = restated ? effort?.head : effort?.told;
    if (
      effort !== undefined && now !== undefined && now.head === effort.head &&
      now.told !== known
    ) {
      told.push({
        kind: "effort",
        name: now.told,
        change: "changed",
        ...(restated && now.told === effort.told ? { restated: true } : {}),
      });
    }
    effort = now;
    restating = step.compacted === true;
    return told;
  });
}

/**
 * Whether a tool change told again from the tools block after a compaction
 * states what the model had been told before it: the tool as the model's
 * tools then (`before`) had it, or absent from both when removed.
 */
function toldBefore(
  change: InlineChange,
  before: readonly ListedTool[],
  now: readonly ListedTool[],
): boolean {
  const schemaIn = (tools: readonly ListedTool[]) =>
    JSON.stringify(
      tools.find(({ schema }) => schema.name === change.name)?.schema,
    );
  return schemaIn(before) === schemaIn(now);
}

/** `report` with each request's inline changes (a copy; itself when none). */
export function withInlineChanges(
  report: PromptCacheReport,
  steps: readonly RecordingStep[],
  keepsTools: boolean,
): PromptCacheReport {
  const told = inlineChanges(steps, keepsTools);
  if (told.every((changes) => changes.length === 0)) return report;
  return {
    ...report,
    requests: report.requests.map((request, index) =>
      (told[index]?.length ?? 0) === 0
        ? request
        : { ...request, inline: told[index] }
    ),
  };
}

/** The tools added, changed and removed from `before` to `after`. */
function toolChanges(
  before: readonly ListedTool[],
  after: readonly ListedTool[],
): InlineChange[] {
  const was = new Map(
    before.map((tool) => [tool.schema.name, JSON.stringify(tool.schema)]),
  );
  const changes: InlineChange[] = [];
  const present = new Set<string>();
  for (const tool of after) {
    const name = tool.schema.name;
    present.add(name);
    const old = was.get(name);
    if (old === JSON.stringify(tool.schema)) continue;
    changes.push({
      kind: "tool",
      name,
      change: old === undefined ? "added" : "changed",
    });
  }
  for (const name of was.keys()) {
    if (!present.has(name)) {
      changes.push({ kind: "tool", name, change: "removed" });
    }
  }
  return changes;
}
