/**
 * `rxprompt inspect CONFIG [--scope NAME]`: a table of the sections (order,
 * name, registrar, layer, characters, tokens, breakpoint) and the tools
 * (name, registrar, tokens), with totals. Tokens are `o200k_base`; the
 * provenance comes from the registry's `explain()` when it has one, else
 * the registrar and layer columns show `-`.
 *
 * @module
 */

import {
  type AssembleContext,
  type PromptAssembly,
  renderPrompt,
  type SystemPrompt,
} from "../mod.ts";
import type { Args } from "./args.ts";
import {
  describeTarget,
  disposeConfig,
  rendered,
  targetJson,
} from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import { loadConfig, target as targetOf } from "./config.ts";
import type { Output } from "./output.ts";
import { type CountTokens, requestTokens, tokenCounter } from "./tokens.ts";

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
}

type Explain = (
  context: AssembleContext,
  options: { countTokens: CountTokens },
) => Promise<Explanation>;

/** Runs `inspect`; resolves to the exit code. */
export async function inspect(args: Args, output: Output): Promise<number> {
  const config = await loadConfig(args.configs[0], {
    timeoutMs: args.timeoutMs,
  });
  try {
    const target = targetOf(config, args.scope);
    const count = await tokenCounter();
    let table: Table;
    try {
      table = await tabulate(config.prompt, config.context(target.key), count);
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
    await disposeConfig(config);
  }
}

/** The tables and totals of one assembly. */
interface Table {
  sections: SectionRow[];
  tools: ToolRow[];
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
  count: CountTokens,
): Promise<Table> {
  const explain = (prompt as { explain?: unknown }).explain;
  const explanation = typeof explain === "function"
    ? await (explain as Explain).call(prompt, context, { countTokens: count })
    : undefined;
  const assembly = explanation?.assembly ?? await prompt.assemble(context);
  const { prompt: text } = rendered(assembly);
  // One accounting for the rows and the totals, so that they add up.
  const counted = requestTokens(count, assembly);
  const sections = assembly.sections.map((section, index): SectionRow => {
    const origin = explanation?.sections[index];
    const alone = renderPrompt({
      sections: [section],
      tools: [],
      variables: assembly.variables,
    });
    return {
      order: section.order,
      name: section.name,
      registrar: origin?.registrar ?? "-",
      layer: origin?.layer ?? "-",
      characters: alone.length,
      tokens: counted.sections[index],
      breakpoint: section.cacheBreakpoint === true,
    };
  });
  const tools = assembly.tools.map((tool, index): ToolRow => ({
    name: tool.name,
    registrar: explanation?.tools[index]?.registrar ?? "-",
    tokens: counted.tools[index],
  }));
  const promptTokens = sum(counted.sections);
  const tokens = counted.total;
  return {
    sections,
    tools,
    totals: {
      sections: sections.length,
      characters: text.length,
      promptTokens,
      tools: tools.length,
      toolTokens: tokens - promptTokens,
      tokens,
    },
    provenance: explanation !== undefined,
  };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
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
      ["name", "registrar", "tokens"],
      ...table.tools.map((
        row,
      ) => [row.name, row.registrar, String(row.tokens)]),
    ], [false, false, true])),
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
