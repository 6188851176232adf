/**
 * The registration behind a layout change (SPEC 9.3): `diffAssemblies`
 * says what changed first in wire order, `explain()`'s origins say who
 * registered it.
 *
 * @module
 */

import { diffAssemblies } from "../../diff/diff.ts";
import type {
  Origin,
  PromptExplanation,
  SectionOrigin,
  ToolOrigin,
} from "../../explain/explanation.ts";
import type { CacheContributor } from "./types.ts";

/**
 * The contributor behind what changed between two explained assemblies:
 * the first change in wire order (`diffAssemblies`' `cache.brokenBy`: a
 * tool, else a section), with its registrar label, layer and scope from
 * `explain()`; for a section whose text changed through a variable, that
 * variable and its registrar; when only the active tools changed, the gate
 * that left a tool out. `undefined` when the tools and system prompt are
 * unchanged.
 *
 * @param previous `explain()` of the earlier request's assembly
 * @param current `explain()` of the later one
 * @returns the contributor, or `undefined`
 *
 * @example A plugin's variable changed a section
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { attributeChange } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt({ includeHarnessIdentity: false });
 * const git = prompt.fork({ label: "git" });
 * let branch = "main";
 * git.variable("branch", () => branch);
 * git.section({ name: "git", order: 20, text: "Branch: {{branch}}." });
 *
 * const before = await prompt.explain();
 * branch = "fix/cache";
 * const after = await prompt.explain();
 * const contributor = attributeChange(before, after);
 * console.log(contributor?.name, contributor?.registrar, contributor?.variable?.name);
 * // git registry/git branch
 * await prompt.dispose();
 * ```
 */
export function attributeChange(
  previous: PromptExplanation,
  current: PromptExplanation,
): CacheContributor | undefined {
  const diff = diffAssemblies(previous.assembly, current.assembly);
  const brokenBy = diff.cache.brokenBy;
  if (brokenBy?.startsWith("tool:")) {
    const name = brokenBy.slice("tool:".length);
    const origin = find(current.tools, name) ?? find(previous.tools, name);
    return {
      kind: "tool",
      name,
      change: changeOf(name, diff.tools),
      ...originOf(origin),
      brokenBy,
    };
  }
  if (brokenBy?.startsWith("section:")) {
    const name = brokenBy.slice("section:".length);
    const origin: SectionOrigin | undefined = find(current.sections, name) ??
      find(previous.sections, name);
    const contributor: CacheContributor = {
      kind: "section",
      name,
      change: changeOf(name, diff.sections),
      ...originOf(origin),
      brokenBy,
    };
    const variable = changedVariable(current, name, diff.variables.changed);
    if (variable !== undefined) contributor.variable = variable;
    return contributor;
  }
  const { added, removed } = diff.activeTools;
  const name = removed[0] ?? added[0];
  if (name === undefined) return undefined;
  const origin = find(current.tools, name);
  const contributor: CacheContributor = {
    kind: "activeTools",
    name,
    change: removed[0] !== undefined ? "removed" : "added",
    ...originOf(origin),
  };
  const gate = origin?.inactiveBy ??
    find(previous.tools, name)?.inactiveBy;
  if (gate !== undefined) contributor.gate = gate;
  return contributor;
}

/** How `name` changed between two lists a diff compared. */
function changeOf(
  name: string,
  { added, removed, changed }: {
    added: readonly string[];
    removed: readonly string[];
    changed: readonly string[];
  },
): CacheContributor["change"] {
  if (added.includes(name)) return "added";
  if (removed.includes(name)) return "removed";
  return changed.includes(name) ? "changed" : "reordered";
}

/** The first changed variable the section's text references. */
function changedVariable(
  explanation: PromptExplanation,
  section: string,
  changed: readonly string[],
): CacheContributor["variable"] {
  const text = explanation.assembly.sections.find((entry) =>
    entry.name === section
  )?.text;
  if (text === undefined || changed.length === 0) return undefined;
  for (const [, name] of text.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)) {
    if (!changed.includes(name)) continue;
    const origin = find(explanation.variables, name);
    if (origin === undefined) return { name, layer: "global" };
    return { name, ...originOf(origin), layer: origin.layer };
  }
  return undefined;
}

function find<T extends { name: string }>(
  list: readonly T[],
  name: string,
): T | undefined {
  return list.find((entry) => entry.name === name);
}

function originOf(
  origin: Origin | ToolOrigin | undefined,
): Pick<CacheContributor, "registrar" | "layer" | "scope"> {
  if (origin === undefined) return {};
  return {
    ...(origin.registrar !== undefined ? { registrar: origin.registrar } : {}),
    layer: origin.layer,
    ...(origin.scope !== undefined ? { scope: origin.scope } : {}),
  };
}
