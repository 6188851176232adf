/**
 * The cache contract's view of one assembly (SPEC 9.5): its prefix as
 * provider-neutral entries in wire order (each tool's JSON, then each
 * non-empty section's rendered text), each with its contributor and tier.
 * Read from what `explain()` returns, which alone knows the registrar
 * behind each entry. Pure.
 *
 * @module
 */

import type { PromptExplanation } from "../../explain/explanation.ts";
import type { Stability } from "../../types.ts";
import { quote, SystemPromptError } from "../../errors.ts";

/** One tool or section of a request's prefix, in wire order. */
export interface ContractEntry {
  readonly part: "tools" | "system";
  /** The tool's or the section's name. */
  readonly name: string;
  /** The registrar label that contributed it, or `listener`. */
  readonly registrar: string;
  readonly tier: Stability;
  /** The provider-neutral text: the tool's JSON, the section's render. */
  readonly text: string;
}

/** `tool:NAME` or `section:NAME`, as the other reports spell entries. */
export function entryLabel(entry: { part: string; name: string }): string {
  return `${entry.part === "tools" ? "tool" : "section"}:${entry.name}`;
}

/**
 * The entries of an explanation, tools first, in wire order.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY` when `explanation` is not
 * what `explain()` returns
 */
export function contractEntries(
  explanation: PromptExplanation,
  what: string,
): ContractEntry[] {
  const { assembly, prompt, sections, tools } = readExplanation(
    explanation,
    what,
  );
  const toolOrigins = new Map(tools.map((tool) => [tool.name, tool]));
  const toolStability = assembly.toolStability ?? {};
  const entries: ContractEntry[] = assembly.tools.map((tool) => ({
    part: "tools",
    name: tool.name,
    registrar: contributor(toolOrigins.get(tool.name)?.registrar),
    tier: Object.hasOwn(toolStability, tool.name)
      ? toolStability[tool.name]
      : "stable",
    text: JSON.stringify(tool),
  }));
  for (const section of sections) {
    if (section.end <= section.start) continue;
    entries.push({
      part: "system",
      name: section.name,
      registrar: contributor(section.registrar),
      tier: section.stability ?? "stable",
      text: prompt.slice(section.start, section.end),
    });
  }
  return entries;
}

/**
 * The deferred tools of an explanation (`explain().deferredTools`), in
 * canonical order, each with its contributor and tier: outside the prefix
 * that {@linkcode contractEntries} reads (`[]` when there are none).
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY` when `explanation` is not
 * what `explain()` returns
 */
export function deferredContractEntries(
  explanation: PromptExplanation,
  what: string,
): ContractEntry[] {
  const { assembly, deferredTools: origins } = readExplanation(
    explanation,
    what,
  );
  const deferred: unknown = assembly.deferredTools;
  if (deferred === undefined) return [];
  if (!Array.isArray(deferred) || !Array.isArray(origins ?? [])) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `${what} has deferred tools that are not a list; pass what ` +
        `prompt.explain(context) resolves to.`,
    );
  }
  const registrars = new Map(
    (origins ?? []).map((origin) => [origin.name, origin.registrar]),
  );
  const toolStability = assembly.toolStability ?? {};
  return (deferred as PromptExplanation["assembly"]["tools"]).map((tool) => ({
    part: "tools",
    name: tool.name,
    registrar: contributor(registrars.get(tool.name)),
    tier: Object.hasOwn(toolStability, tool.name)
      ? toolStability[tool.name]
      : "stable",
    text: JSON.stringify(tool),
  }));
}

function contributor(registrar: string | undefined): string {
  return registrar ?? "listener";
}

function readExplanation(
  explanation: PromptExplanation,
  what: string,
): PromptExplanation {
  const valid = typeof explanation === "object" && explanation !== null &&
    typeof explanation.prompt === "string" &&
    Array.isArray(explanation.sections) && Array.isArray(explanation.tools) &&
    typeof explanation.assembly === "object" &&
    explanation.assembly !== null && Array.isArray(explanation.assembly.tools);
  if (!valid) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `${what} is ${
        typeof explanation === "object" && explanation !== null
          ? "not an explanation"
          : quote(explanation)
      }; pass what prompt.explain(context) resolves to (it names the ` +
        `registrar behind each section and tool).`,
    );
  }
  return explanation;
}
