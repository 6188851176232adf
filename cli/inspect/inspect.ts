/**
 * `rxprompt inspect CONFIG [--scope NAME]`: a table of the sections (order,
 * name, registrar, layer, characters, tokens, breakpoint), the tools (name,
 * registrar, tokens, active), the deferred tools (apart, out of the totals),
 * the tools a listener removed, and the runtime
 * context entries, with totals. Tokens are counted as SPEC 8.9 says (each
 * section's rendered text, each tool's JSON), so the rows add up to the
 * totals. Tokens are `o200k_base`; the
 * provenance comes from the registry's `explain()` when it has one, else
 * the registrar and layer columns show `-`.
 *
 * @module
 */

import {
  type AssembleContext,
  countAssemblyTokens,
  type PromptAssembly,
  renderPrompt,
  type SystemPrompt,
} from "../../mod.ts";
import type { Args } from "../args.ts";
import {
  assembleWithin,
  describeTarget,
  disposeConfig,
  rendered,
  targetJson,
} from "../assembly.ts";
import { CliError, describeError } from "../cli_error.ts";
import { loadConfig, target as targetOf } from "../config.ts";
import { serveInspect } from "./serve.ts";
import type { Output } from "../output.ts";
import { TextMap } from "../../src/shared/text_map.ts";
import { type CountTokens, tokenCounter } from "../tokens.ts";

/** One row of the sections table. */
export interface SectionRow {
  order: number;
  name: string;
  registrar: string;
  layer: string;
  characters: number;
  tokens: number;
  breakpoint: boolean;
}

/** One row of the tools table. */
export interface ToolRow {
  name: string;
  registrar: string;
  tokens: number;
  /** False for a tool a gate made inactive (absent: every tool is active). */
  active?: boolean;
}

/** One row of the runtime context table. */
export interface RuntimeContextRow {
  order: number;
  name: string;
  registrar: string;
  layer: string;
  characters: number;
  tokens: number;
}

/** A tool the registry contributed that is not in the assembly. */
export interface RemovedToolRow {
  name: string;
  /**
   * Who removed it: `"listener"` (an `onAssemble` listener, after `next()`).
   * Gates keep a tool in the list and mark it inactive (`active: false` in
   * the tools table); a future source of removals adds its own value here.
   */
  by: "listener";
}

/** Where an entry came from, as `explain()` reports it (SPEC 7.2). */
interface Origin {
  name: string;
  registrar?: string;
  layer?: string;
  tokens?: number;
  start?: number;
  end?: number;
}

interface Explanation {
  assembly: PromptAssembly;
  sections: Origin[];
  tools: Origin[];
  deferredTools?: Origin[];
  runtimeContext?: Origin[];
}

type Explain = (
  context: AssembleContext,
  options: { countTokens: CountTokens },
) => Promise<Explanation>;

/** Runs `inspect` (with `--serve`, the page); resolves to the exit code. */
export async function inspect(args: Args, output: Output): Promise<number> {
  if (args.serve) return await serveInspect(args, output);
  const config = await loadConfig(args.configs[0], {
    timeoutMs: args.timeoutMs,
  });
  try {
    const target = targetOf(config, args.scope);
    const count = await tokenCounter();
    let table: Table;
    try {
      table = await assembleWithin(
        config,
        target,
        (context) => tabulate(config.prompt, context, count),
        args,
      );
    } catch (error) {
      if (error instanceof CliError) throw error;
      output.error(
        `inspect of ${describeTarget(target)} failed: ${describeError(error)}`,
      );
      return 1;
    }
    if (args.json) {
      output.line(
        JSON.stringify({ scope: targetJson(target), ...table }, null, 2),
      );
    } else {
      for (const line of tableLines(table, describeTarget(target), output)) {
        output.line(line);
      }
    }
    return 0;
  } finally {
    await disposeConfig(config, args);
  }
}

/** The tables and totals of one assembly. */
interface Table {
  sections: SectionRow[];
  tools: ToolRow[];
  /**
   * The deferred tools (SPEC §10.3): listed only when the model finds
   * them, so outside the totals; absent when there are none.
   */
  deferredTools?: ToolRow[];
  runtimeContext: RuntimeContextRow[];
  removedTools: RemovedToolRow[];
  totals: {
    sections: number;
    characters: number;
    promptTokens: number;
    tools: number;
    toolTokens: number;
    tokens: number;
  };
  provenance: boolean;
}

async function tabulate(
  prompt: SystemPrompt,
  context: AssembleContext,
  counter: CountTokens,
): Promise<Table> {
  const count = memo(counter);
  // The innermost listener (registered last) sees the tools that reach the
  // end of the waterfall; those missing from the result were removed by a
  // listener on the way back.
  let reached: string[] | undefined;
  const spy = prompt.onAssemble(async (assembly, _context, next) => {
    reached = assembly.tools.map((tool) => tool.name);
    return await next();
  });
  let explanation: Explanation | undefined;
  let assembly: PromptAssembly;
  try {
    const explain = (prompt as { explain?: unknown }).explain;
    explanation = typeof explain === "function"
      ? await (explain as Explain).call(prompt, context, { countTokens: count })
      : undefined;
    assembly = explanation?.assembly ?? await prompt.assemble(context);
  } finally {
    await spy();
  }
  const { prompt: text } = rendered(assembly);
  // SPEC 8.9's one counting: each non-empty section's rendered text plus
  // each tool's JSON, separators not counted, so the rows add up.
  const tokens = countAssemblyTokens(assembly, count);
  const alone = (section: PromptAssembly["sections"][number]) =>
    renderPrompt({
      sections: [section],
      tools: [],
      variables: assembly.variables,
    });
  const sections = assembly.sections.map((section, index): SectionRow => {
    const origin = explanation?.sections[index];
    return {
      order: section.order,
      name: section.name,
      registrar: origin?.registrar ?? "-",
      layer: origin?.layer ?? "-",
      characters: alone(section).length,
      tokens: tokens.sections[index],
      breakpoint: section.cacheBreakpoint === true,
    };
  });
  const active = assembly.activeTools === undefined
    ? undefined
    : new Set(assembly.activeTools);
  const tools = assembly.tools.map((tool, index): ToolRow => ({
    name: tool.name,
    registrar: explanation?.tools[index]?.registrar ?? "-",
    tokens: tokens.tools[index],
    ...(active === undefined ? {} : { active: active.has(tool.name) }),
  }));
  const deferredTools = assembly.deferredTools?.map((tool, index) => ({
    name: tool.name,
    registrar: explanation?.deferredTools?.[index]?.registrar ?? "-",
    tokens: count(JSON.stringify(tool)),
    ...(active === undefined ? {} : { active: active.has(tool.name) }),
  }));
  const context$ = (assembly as { runtimeContext?: PromptAssembly["sections"] })
    .runtimeContext ?? [];
  const runtimeContext = context$.map((entry, index): RuntimeContextRow => {
    const origin = explanation?.runtimeContext?.[index];
    const text = alone(entry);
    return {
      order: entry.order,
      name: entry.name,
      registrar: origin?.registrar ?? "-",
      layer: origin?.layer ?? "-",
      characters: text.length,
      tokens: text === "" ? 0 : count(text),
    };
  });
  const final = new Set(assembly.tools.map((tool) => tool.name));
  const removedTools = (reached ?? [])
    .filter((name) => !final.has(name))
    .map((name): RemovedToolRow => ({ name, by: "listener" }));
  const promptTokens = sum(tokens.sections);
  return {
    sections,
    tools,
    ...(deferredTools === undefined ? {} : { deferredTools }),
    runtimeContext,
    removedTools,
    totals: {
      sections: sections.length,
      characters: text.length,
      promptTokens,
      tools: tools.length,
      toolTokens: tokens.total - promptTokens,
      tokens: tokens.total,
    },
    provenance: explanation !== undefined,
  };
}

/** `count`, called once per distinct text. */
function memo(count: CountTokens): CountTokens {
  const counted = new TextMap<number>();
  return (text) => {
    let tokens = counted.get(text);
    if (tokens === undefined) counted.set(text, tokens = count(text));
    return tokens;
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function tableLines(table: Table, what: string, output: Output): string[] {
  const { bold, dim } = output.style;
  const { totals } = table;
  const lines = [
    bold(`Sections of ${what}`),
    ...columns([
      ["order", "name", "registrar", "layer", "chars", "tokens", "breakpoint"],
      ...table.sections.map((row) => [
        String(row.order),
        row.name,
        row.registrar,
        row.layer,
        String(row.characters),
        String(row.tokens),
        row.breakpoint ? "yes" : "",
      ]),
    ], [true, false, false, false, true, true, false]),
    "",
    bold("Tools"),
    ...(table.tools.length === 0 ? [dim("(none)")] : columns([
      ["name", "registrar", "tokens", "active"],
      ...table.tools.map((row) => [
        row.name,
        row.registrar,
        String(row.tokens),
        row.active === false ? "no (gated)" : "yes",
      ]),
    ], [false, false, true, false])),
    ...(table.deferredTools === undefined ? [] : [
      "",
      bold(
        "Deferred tools (listed when the model finds them; not in the total)",
      ),
      ...columns([
        ["name", "registrar", "tokens", "active"],
        ...table.deferredTools.map((row) => [
          row.name,
          row.registrar,
          String(row.tokens),
          row.active === false ? "no (gated)" : "yes",
        ]),
      ], [false, false, true, false]),
    ]),
    ...(table.removedTools.length === 0 ? [] : [
      "",
      bold("Tools removed from the assembly"),
      ...columns([
        ["name", "removed by"],
        ...table.removedTools.map((row) => [row.name, REMOVED_BY[row.by]]),
      ], [false, false]),
    ]),
    ...(table.runtimeContext.length === 0 ? [] : [
      "",
      bold("Runtime context (sent after the cached prefix; not in the total)"),
      ...columns([
        ["order", "name", "registrar", "layer", "chars", "tokens"],
        ...table.runtimeContext.map((row) => [
          String(row.order),
          row.name,
          row.registrar,
          row.layer,
          String(row.characters),
          String(row.tokens),
        ]),
      ], [true, false, false, false, true, true]),
    ]),
    "",
    `${bold("Total")}: ${plural(totals.sections, "section")}, ` +
    `${plural(totals.characters, "character")}, ` +
    `${plural(totals.promptTokens, "token")} (system prompt); ` +
    `${plural(totals.tools, "tool")}, ` +
    `${plural(totals.toolTokens, "token")} (JSON); ` +
    `${plural(totals.tokens, "token")} in all (o200k_base)`,
  ];
  if (!table.provenance) {
    lines.push(dim("registrar and layer need a registry with explain()"));
  }
  return lines;
}

const REMOVED_BY: Record<RemovedToolRow["by"], string> = {
  listener: "an onAssemble listener",
};

/** Rows padded into columns; `right` aligns numbers to the right. */
function columns(rows: string[][], right: boolean[]): string[] {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => row[column].length))
  );
  return rows.map((row) =>
    row.map((cell, column) =>
      right[column]
        ? cell.padStart(widths[column])
        : cell.padEnd(widths[column])
    ).join("  ").trimEnd()
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
