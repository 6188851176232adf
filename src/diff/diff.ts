/**
 * `diffAssemblies`: what changed between two assemblies, and where the
 * prompt cache breaks.
 *
 * Pure: no state, no RxJS. Each side is read once, validated, and each of
 * its sections interpolated once; the rest is linear in the sizes of the
 * two assemblies, plus sorting the names it reports.
 *
 * @module
 */

import {
  compareByName,
  culprit,
  firstDifference,
  type NameChanges,
} from "./lists.ts";
import { type DiffSide, readSide, type RenderedSection } from "./side.ts";
import type { PromptDiff } from "./types.ts";
import type { PromptAssembly } from "../types.ts";
import { compareCodeUnits } from "../shared/util.ts";
import { type ReadonlyTextMap, TextMap } from "../shared/text_map.ts";

export type { PromptDiff };

/**
 * Compares two assemblies, typically two consecutive steps of one agent, and
 * says what changed and where the prompt cache breaks.
 *
 * - Tools are compared by name and JSON; a position change alone is
 *   `reordered`. Sections are compared by rendered text (so a variable's new
 *   value shows as a changed section) and `order`; `sections.firstChanged`
 *   names the section removed at the first differing position, else the one
 *   now there (empty sections included).
 * - `prompt` gives the first changed UTF-16 offset of `renderPrompt`'s output
 *   and the length of the common prefix.
 * - `deferredTools` (present when either side has deferred tools) lists
 *   the deferred tools added, removed and changed (by JSON); they are
 *   outside the cached prefix, so a change there leaves `cache` alone.
 * - `identical` covers the tools, the deferred tools, the prompt, the runtime context
 *   (`assembly.runtimeContext`, read as `[]` when absent) and the active
 *   tools (`activeTools`; absent means every tool is active).
 *   `runtimeContext` lists its entries by name, compared by rendered text and
 *   `order`. `activeTools` lists the tools that became active or inactive; a
 *   change of it alone leaves `cache` alone (the tools block is unchanged).
 *   A change that
 *   renders no byte (an unreferenced variable, an empty section) is listed
 *   but leaves `identical` true.
 * - `cache` covers the tools and the prompt only, in wire order: a tool
 *   change makes `promptStablePrefix` 0, and `brokenBy` names the earliest
 *   changed tool or, with stable tools, the earliest section whose rendered
 *   bytes changed. When only the runtime context changed, `identical` is
 *   false and `brokenBy` is absent.
 *
 * Both assemblies are rendered strictly, as `renderPrompt` would. An
 * assembly that cannot be rendered (an unknown variable, a malformed
 * reference) throws the render error's `SystemPromptError` code, with a
 * message that starts with which side failed (`before` or `after`) and the
 * original error as `cause`. A malformed assembly throws `INVALID_ASSEMBLY`,
 * `INVALID_SECTION`, `INVALID_TOOL_SCHEMA` or `INVALID_VARIABLE_VALUE`
 * naming the side and path; two sections or two tools of one name on one side
 * throw `DUPLICATE_SECTION` / `DUPLICATE_TOOL`.
 *
 * @param before the earlier assembly
 * @param after the later assembly
 * @returns the differences; every name list in code-unit order
 * @throws {SystemPromptError} for an assembly that is malformed or cannot be rendered
 *
 * @example Find what broke the cache between two steps
 * ```ts
 * import { diffAssemblies, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt({ includeHarnessIdentity: false });
 * let branch = "main";
 * prompt.variable("branch", () => branch);
 * prompt.section({ name: "rules", order: 10, text: "Be brief." });
 * prompt.section({ name: "git", order: 20, text: "Branch: {{branch}}." });
 *
 * const before = await prompt.assemble();
 * branch = "fix/cache";
 * const after = await prompt.assemble();
 *
 * const diff = diffAssemblies(before, after);
 * console.log(diff.sections.changed); // ["git"]
 * console.log(diff.variables.changed); // ["branch"]
 * console.log(diff.cache.brokenBy); // "section:git"
 * console.log(diff.cache.promptStablePrefix); // 19: "Be brief.\n\nBranch: " is still cached
 * await prompt.dispose();
 * ```
 */
export function diffAssemblies(
  before: PromptAssembly,
  after: PromptAssembly,
): PromptDiff {
  return diffSides(readSide(before, "before"), readSide(after, "after"));
}

/**
 * The diff of two sides already read (`readSide`): `watch()` reads each
 * view's assembly once and diffs it against the side it read for the view
 * before.
 */
export function diffSides(old: DiffSide, now: DiffSide): PromptDiff {
  const tools = diffTools(old, now);
  const { stablePrefix, section } = promptChange(old, now);
  const promptsEqual = section === undefined;
  const toolsStable = tools.firstChanged === undefined;
  const brokenBy = !toolsStable
    ? `tool:${
      culprit(tools.firstChanged!, old.tools, now.toolIndex, now.tools)
    }`
    : promptsEqual
    ? undefined
    : `section:${section}`;
  const activeTools = diffActive(old.active, now.active);
  const deferred = old.deferred.length === 0 && now.deferred.length === 0
    ? undefined
    : compareByName(
      old.deferredIndex,
      now.deferredIndex,
      (a, b) => old.deferred[a].json !== now.deferred[b].json,
    );
  return {
    identical: toolsStable && promptsEqual &&
      old.runtimeContext === now.runtimeContext &&
      activeTools.added.length === 0 && activeTools.removed.length === 0 &&
      (deferred === undefined || unchanged(deferred)),
    tools,
    ...(deferred === undefined ? {} : { deferredTools: deferred }),
    activeTools,
    sections: diffSections(old, now),
    variables: compareByName(old.variables, now.variables, (a, b) => a !== b),
    runtimeContext: compareByName(
      old.contextEntries,
      now.contextEntries,
      (a, b) => a.rendered !== b.rendered || a.order !== b.order,
    ),
    prompt: promptsEqual
      ? { stablePrefix }
      : { firstChangedOffset: stablePrefix, stablePrefix },
    cache: {
      toolsStable,
      promptStablePrefix: toolsStable ? stablePrefix : 0,
      ...(brokenBy === undefined ? {} : { brokenBy }),
    },
  };
}

function unchanged(changes: NameChanges): boolean {
  return changes.added.length === 0 && changes.removed.length === 0 &&
    changes.changed.length === 0;
}

function diffTools(old: DiffSide, now: DiffSide): PromptDiff["tools"] {
  const { tools: was, toolIndex } = old;
  const { tools: is } = now;
  // Reordered: the tools present on both sides, in each side's order, differ.
  const common = was.filter((tool) => now.toolIndex.has(tool.name));
  let position = 0;
  let reordered = false;
  for (const tool of is) {
    if (!toolIndex.has(tool.name)) continue;
    if (common[position++].name !== tool.name) reordered = true;
  }
  const firstChanged = firstDifference(
    was.length,
    is.length,
    (index) => was[index].json === is[index].json,
  );
  return {
    ...compareByName(
      toolIndex,
      now.toolIndex,
      (a, b) => was[a].json !== is[b].json,
    ),
    reordered,
    ...(firstChanged === undefined ? {} : { firstChanged }),
  };
}

/** Tools active only after, and only before (absent `activeTools`: all). */
function diffActive(
  was: ReadonlyTextMap<true>,
  is: ReadonlyTextMap<true>,
): PromptDiff["activeTools"] {
  const added = [...is.keys()].filter((name) => !was.has(name));
  const removed = [...was.keys()].filter((name) => !is.has(name));
  return {
    added: added.sort(compareCodeUnits),
    removed: removed.sort(compareCodeUnits),
  };
}

function diffSections(old: DiffSide, now: DiffSide): PromptDiff["sections"] {
  const was = old.sections;
  const is = now.sections;
  const same = (a: RenderedSection, b: RenderedSection): boolean =>
    a.rendered === b.rendered && a.order === b.order;
  const first = firstDifference(
    was.length,
    is.length,
    (index) =>
      was[index].name === is[index].name && same(was[index], is[index]),
  );
  return {
    ...compareByName(
      old.sectionIndex,
      now.sectionIndex,
      (a, b) => !same(was[a], is[b]),
    ),
    ...(first === undefined
      ? {}
      : { firstChanged: culprit(first, was, now.sectionIndex, is) }),
  };
}

/**
 * Where the prompts part, and the earliest section whose bytes changed
 * there (absent when the prompts are equal). Walks the sections that render
 * non-empty in parallel by text, skipping each equal one with one string
 * comparison; only the first differing one is compared code unit by code
 * unit. A difference exists when the prompts differ, since equal texts join
 * into equal prompts.
 */
function promptChange(
  old: DiffSide,
  now: DiffSide,
): { stablePrefix: number; section?: string } {
  const a = old.prompt;
  const b = now.prompt;
  if (a === b) return { stablePrefix: a.length };
  const before = old.sections.filter((section) => section.rendered !== "");
  const after = now.sections.filter((section) => section.rendered !== "");
  const index = firstDifference(
    before.length,
    after.length,
    (position) => before[position].rendered === after[position].rendered,
  )!;
  // Both prompts hold the equal sections and the blank lines between them.
  let equal = 0;
  for (let position = 0; position < index; position++) {
    equal += before[position].rendered.length + (position > 0 ? 2 : 0);
  }
  // The prompts differ, and past the end of either charCodeAt is NaN, which
  // equals nothing: the walk stops at the first difference or the end.
  let offset = equal;
  while (a.charCodeAt(offset) === b.charCodeAt(offset)) offset++;
  const afterNames = new TextMap<true>();
  for (const section of after) afterNames.set(section.name, true);
  return {
    stablePrefix: offset,
    section: culprit(index, before, afterNames, after),
  };
}
