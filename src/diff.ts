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

import { compareCodeUnits } from "./_util.ts";
import { type DiffSide, readSide } from "./diff_input.ts";
import type { PromptAssembly } from "./types.ts";

/**
 * What changed between two assemblies (see {@linkcode diffAssemblies}).
 * Every list of names is in code-unit order.
 *
 * @example
 * ```ts
 * import type { PromptDiff } from "@rxprompt/system-prompt";
 *
 * function explain(diff: PromptDiff): string {
 *   if (diff.identical) return "same request";
 *   return diff.cache.brokenBy === undefined
 *     ? "same cached prefix; only the runtime context changed"
 *     : `cache broken by ${diff.cache.brokenBy}`;
 * }
 * ```
 */
export interface PromptDiff {
  /** Tools (names, JSON and order), rendered prompt and runtime context are all the same. */
  identical: boolean;
  /** The tool list, compared by name and by JSON. */
  tools: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose JSON differs. */
    changed: string[];
    /** Whether the tools present on both sides come in a different relative order. */
    reordered: boolean;
    /** The first index where the two tool lists differ; absent when they are equal. */
    firstChanged?: number;
  };
  /** The sections, compared by name, `order` and rendered text. */
  sections: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose rendered text or `order` differs. */
    changed: string[];
    /** The section at the first position where the two section lists differ. */
    firstChanged?: string;
  };
  /** The variables, compared by name and value. */
  variables: {
    /** Names present only after. */
    added: string[];
    /** Names present only before. */
    removed: string[];
    /** Names on both sides whose value differs (`undefined` counts as a value). */
    changed: string[];
  };
  /** The rendered system prompts, in UTF-16 code units. */
  prompt: {
    /** The first offset where the prompts differ; absent when they are equal. */
    firstChangedOffset?: number;
    /** The length of the prompts' common prefix. */
    stablePrefix: number;
  };
  /** The cache key's view: tools first, then the system prompt. */
  cache: {
    /** Whether the tool list is byte-for-byte the same. */
    toolsStable: boolean;
    /** `prompt.stablePrefix` when the tools are stable, else `0`. */
    promptStablePrefix: number;
    /** The earliest change in wire order: `"tool:NAME"` or `"section:NAME"`. */
    brokenBy?: string;
  };
}

/**
 * Compares two assemblies, typically two consecutive steps of one agent, and
 * says what changed and where the prompt cache breaks.
 *
 * - Tools are compared by name; a tool is `changed` when its JSON differs, and
 *   a change of relative position alone is `reordered`. `tools.firstChanged`
 *   is the first index where the lists differ.
 * - Sections are compared by their rendered text (so a variable's new value
 *   shows as a changed section) and their `order`. `sections.firstChanged` is
 *   the section at the first position where the lists differ (empty sections
 *   included): the one removed there, or else the one now there.
 * - `prompt` locates the first changed UTF-16 offset of `renderPrompt`'s
 *   output; `stablePrefix` is the length of the common prefix.
 * - `identical` covers the tools, the prompt and the runtime context
 *   (`assembly.runtimeContext`, read as `[]` when absent). A change that
 *   renders no byte (an unreferenced variable, an empty section) is listed
 *   but leaves `identical` true.
 * - `cache` covers the tools and the prompt only, in wire order: tools come
 *   before the system prompt, so a tool change makes `promptStablePrefix` 0,
 *   and `brokenBy` names the earliest changed tool (`"tool:NAME"`) or, with
 *   stable tools, the earliest section whose rendered bytes changed
 *   (`"section:NAME"`). Only the runtime context changed: `identical` is
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
  const old = readSide(before, "before");
  const now = readSide(after, "after");
  const tools = diffTools(old, now);
  const stablePrefix = commonPrefixLength(old.prompt, now.prompt);
  const promptsEqual = old.prompt === now.prompt;
  const toolsStable = tools.firstChanged === undefined;
  const brokenBy = !toolsStable
    ? `tool:${
      culprit(tools.firstChanged!, old.tools, now.toolIndex, now.tools)
    }`
    : promptsEqual
    ? undefined
    : `section:${firstRenderedChange(old, now)}`;
  return {
    identical: toolsStable && promptsEqual &&
      old.runtimeContext === now.runtimeContext,
    tools,
    sections: diffSections(old, now),
    variables: diffVariables(old, now),
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

interface Named {
  readonly name: string;
}

/** Names in `from` whose name `other` lacks, in code-unit order. */
function missingFrom(
  from: readonly Named[],
  other: ReadonlyMap<string, unknown>,
): string[] {
  const names: string[] = [];
  for (const { name } of from) if (!other.has(name)) names.push(name);
  return names.sort(compareCodeUnits);
}

/**
 * The name to blame at the first differing position `index`: the entry
 * removed there, else the entry now there, else (the list got shorter) the
 * entry that was there.
 */
function culprit(
  index: number,
  before: readonly Named[],
  afterNames: ReadonlyMap<string, unknown> | ReadonlySet<string>,
  after: readonly Named[],
): string {
  if (index < before.length && !afterNames.has(before[index].name)) {
    return before[index].name;
  }
  return index < after.length ? after[index].name : before[index].name;
}

/** The first index where `same` fails or one list ends first, if any. */
function firstDifference(
  beforeLength: number,
  afterLength: number,
  same: (index: number) => boolean,
): number | undefined {
  const shorter = Math.min(beforeLength, afterLength);
  for (let index = 0; index < shorter; index++) {
    if (!same(index)) return index;
  }
  return beforeLength === afterLength ? undefined : shorter;
}

function diffTools(old: DiffSide, now: DiffSide): PromptDiff["tools"] {
  const changed: string[] = [];
  const commonBefore: string[] = [];
  for (const tool of old.tools) {
    const index = now.toolIndex.get(tool.name);
    if (index === undefined) continue;
    commonBefore.push(tool.name);
    if (now.tools[index].json !== tool.json) changed.push(tool.name);
  }
  let common = 0;
  let reordered = false;
  for (const tool of now.tools) {
    if (!old.toolIndex.has(tool.name)) continue;
    if (commonBefore[common++] !== tool.name) reordered = true;
  }
  const firstChanged = firstDifference(
    old.tools.length,
    now.tools.length,
    (index) => old.tools[index].json === now.tools[index].json,
  );
  return {
    added: missingFrom(now.tools, old.toolIndex),
    removed: missingFrom(old.tools, now.toolIndex),
    changed: changed.sort(compareCodeUnits),
    reordered,
    ...(firstChanged === undefined ? {} : { firstChanged }),
  };
}

function diffSections(old: DiffSide, now: DiffSide): PromptDiff["sections"] {
  const changed: string[] = [];
  for (const section of old.sections) {
    const index = now.sectionIndex.get(section.name);
    if (index === undefined) continue;
    const other = now.sections[index];
    if (other.rendered !== section.rendered || other.order !== section.order) {
      changed.push(section.name);
    }
  }
  const first = firstDifference(
    old.sections.length,
    now.sections.length,
    (index) => {
      const a = old.sections[index];
      const b = now.sections[index];
      return a.name === b.name && a.order === b.order &&
        a.rendered === b.rendered;
    },
  );
  return {
    added: missingFrom(now.sections, old.sectionIndex),
    removed: missingFrom(old.sections, now.sectionIndex),
    changed: changed.sort(compareCodeUnits),
    ...(first === undefined ? {} : {
      firstChanged: culprit(
        first,
        old.sections,
        now.sectionIndex,
        now.sections,
      ),
    }),
  };
}

/**
 * The earliest section whose bytes changed in the prompt: the sections that
 * render non-empty, walked in parallel by text. Called only when the prompts
 * differ, so a difference exists (equal texts join into equal prompts).
 */
function firstRenderedChange(old: DiffSide, now: DiffSide): string {
  const before = old.sections.filter((section) => section.rendered !== "");
  const after = now.sections.filter((section) => section.rendered !== "");
  const index = firstDifference(
    before.length,
    after.length,
    (position) => before[position].rendered === after[position].rendered,
  )!;
  const afterNames = new Set(after.map((section) => section.name));
  return culprit(index, before, afterNames, after);
}

function diffVariables(
  old: DiffSide,
  now: DiffSide,
): PromptDiff["variables"] {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [name, value] of old.variables) {
    if (!now.variables.has(name)) removed.push(name);
    else if (now.variables.get(name) !== value) changed.push(name);
  }
  for (const name of now.variables.keys()) {
    if (!old.variables.has(name)) added.push(name);
  }
  return {
    added: added.sort(compareCodeUnits),
    removed: removed.sort(compareCodeUnits),
    changed: changed.sort(compareCodeUnits),
  };
}

function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) {
    index++;
  }
  return index;
}
