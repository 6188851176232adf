/**
 * `rxprompt simulate SESSION [--provider P] [--json]`: runs a session
 * module's steps, builds each step's request the README's way
 * (`readme_way.ts`), and reports how much the provider's prompt cache would
 * serve (SPEC 8.8): per step and in total the efficiency (cached ÷ input),
 * the best-layout bound and the ratio, the same ratio for the tools and
 * system prompt alone, the cost, and for each step below the bound the
 * first miss and what `diffAssemblies` says changed.
 *
 * @module
 */

import {
  diffAssemblies,
  type PromptAssembly,
  renderRuntimeContext,
} from "../mod.ts";
import {
  bestLayoutTokens,
  type CacheProvider,
  type CacheSimulation,
  simulateCache,
} from "../adapters/cache/mod.ts";
import { type Args, PROVIDERS } from "./args.ts";
import { describeError } from "./cli_error.ts";
import type { Output } from "./output.ts";
import { TextMap } from "../src/shared/text_map.ts";
import { readmeWay, wayFormFor } from "./readme_way.ts";
import {
  loadSession,
  requestsOf,
  runSession,
  type RunStep,
} from "./session.ts";
import { type CountTokens, tokenCounter } from "./tokens.ts";

const NOTE = "Tokens are counted with o200k_base; Anthropic's tokenizer " +
  "differs and framing tokens are not counted, so the figures are an estimate.";

/** One step of the report. */
export interface SimulatedStep {
  step: number;
  thread: string;
  inputTokens: number;
  cachedTokens: number;
  writtenTokens: number;
  boundTokens: number;
  promptCachedTokens: number;
  promptBoundTokens: number;
  cost: number;
  firstMiss?: { block: string; reason: string };
  /** What changed since the thread's previous step (below the bound only). */
  changed?: string;
}

/** Runs `simulate`; resolves to the exit code. */
export async function simulate(args: Args, output: Output): Promise<number> {
  const [path] = args.configs;
  const { timeoutMs } = args;
  const session = await loadSession(path, { timeoutMs });
  const steps = await runSession(session, { readme: readmeWay }, {
    timeoutMs,
    source: path,
  });
  const count = memoised(await tokenCounter());
  const providers = args.provider === undefined ? PROVIDERS : [args.provider];
  const report: Record<string, { steps: SimulatedStep[]; totals: Totals }> = {};
  for (const provider of providers) {
    try {
      report[provider] = simulateSteps(steps, { provider, count });
    } catch (error) {
      output.error(`cannot simulate ${provider}: ${describeError(error)}`);
      return 1;
    }
  }
  if (args.json) {
    output.line(JSON.stringify(
      { session: path, tokenizer: "o200k_base", note: NOTE, providers: report },
      null,
      2,
    ));
    return 0;
  }
  output.line(
    `rxprompt simulate ${path}: ${steps.length} steps, requests ` +
      `built the README's way.`,
  );
  output.line(NOTE);
  for (const [provider, { steps: rows, totals }] of Object.entries(report)) {
    output.line("");
    output.line(output.style.bold(provider));
    for (const line of table(rows, totals)) output.line(line);
  }
  return 0;
}

/**
 * One provider's report of a session's steps: a row per step and the
 * totals (`inspect --serve` charts the same rows).
 *
 * @throws what `simulateCache` throws for a body it cannot read
 */
export function simulateSteps(
  steps: readonly RunStep[],
  { provider, count }: { provider: CacheProvider; count: CountTokens },
): { steps: SimulatedStep[]; totals: Totals } {
  const requests = requestsOf(steps, "readme", wayFormFor(provider));
  const simulation: CacheSimulation = simulateCache(requests, {
    provider,
    countTokens: count,
  });
  const bound = bestLayoutTokens(requests, count);
  const rows = steps.map((step, index): SimulatedStep => {
    const result = simulation.requests[index];
    const limit = bound.requests[index];
    const row: SimulatedStep = {
      step: index,
      thread: step.thread,
      inputTokens: result.inputTokens,
      cachedTokens: result.cachedTokens,
      writtenTokens: result.writtenTokens,
      boundTokens: limit.boundTokens,
      promptCachedTokens: Math.min(result.cachedTokens, result.promptTokens),
      promptBoundTokens: limit.promptBoundTokens,
      cost: round(result.cost),
    };
    if (result.cachedTokens < limit.boundTokens) {
      if (result.firstMiss !== undefined) row.firstMiss = result.firstMiss;
      row.changed = changes(step);
    }
    return row;
  });
  return { steps: rows, totals: totalsOf(rows) };
}

/** A report's totals: the sums of its rows. */
export interface Totals {
  inputTokens: number;
  cachedTokens: number;
  writtenTokens: number;
  boundTokens: number;
  promptCachedTokens: number;
  promptBoundTokens: number;
  cost: number;
}

function totalsOf(rows: readonly SimulatedStep[]): Totals {
  const totals: Totals = {
    inputTokens: 0,
    cachedTokens: 0,
    writtenTokens: 0,
    boundTokens: 0,
    promptCachedTokens: 0,
    promptBoundTokens: 0,
    cost: 0,
  };
  for (const row of rows) {
    for (const key of Object.keys(totals) as (keyof Totals)[]) {
      totals[key] += row[key];
    }
  }
  totals.cost = round(totals.cost);
  return totals;
}

function table(rows: readonly SimulatedStep[], totals: Totals): string[] {
  const header = [
    "step",
    "thread",
    "input",
    "cached",
    "efficiency",
    "bound",
    "÷ bound",
    "prompt ÷ bound",
    "cost",
  ];
  const cells = (label: string, thread: string, row: Totals): string[] => [
    label,
    thread,
    String(row.inputTokens),
    String(row.cachedTokens),
    percent(row.cachedTokens, row.inputTokens),
    String(row.boundTokens),
    ratio(row.cachedTokens, row.boundTokens),
    ratio(row.promptCachedTokens, row.promptBoundTokens),
    ratio(row.cost, row.inputTokens),
  ];
  const body = rows.map((row) => cells(String(row.step), row.thread, row));
  const total = cells("total", "", totals);
  const widths = header.map((title, i) =>
    Math.max(title.length, total[i].length, ...body.map((row) => row[i].length))
  );
  const line = (row: string[]) =>
    row.map((cell, i) =>
      i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])
    )
      .join("  ").trimEnd();
  const lines = [line(header)];
  rows.forEach((row, index) => {
    lines.push(line(body[index]));
    if (row.firstMiss !== undefined) {
      lines.push(
        `      first miss ${row.firstMiss.block}: ${row.firstMiss.reason}`,
      );
    }
    if (row.changed !== undefined) lines.push(`      changed: ${row.changed}`);
  });
  lines.push(line(total));
  lines.push(
    "efficiency = cached ÷ input; ÷ bound = cached ÷ the best layout's; " +
      "cost = price ÷ price without a cache (writes 1.25 or 2, reads 0.1)",
  );
  return lines;
}

/** What `diffAssemblies` says changed since the thread's previous step. */
function changes(step: RunStep): string {
  const before: PromptAssembly | undefined = step.previous ?? step.before;
  if (before === undefined) return "the first step (nothing before it)";
  let diff;
  try {
    diff = diffAssemblies(before, step.assembly);
  } catch (error) {
    return `cannot compare the assemblies: ${describeError(error)}`;
  }
  const parts: string[] = [];
  const list = (what: string, names: readonly string[]) => {
    if (names.length > 0) parts.push(`${what} ${names.join(", ")}`);
  };
  list("tools added", diff.tools.added);
  list("tools removed", diff.tools.removed);
  list("tools changed", diff.tools.changed);
  if (diff.tools.reordered) parts.push("tools reordered");
  list("sections added", diff.sections.added);
  list("sections removed", diff.sections.removed);
  list("sections changed", diff.sections.changed);
  if (renderRuntimeContext(before) !== renderRuntimeContext(step.assembly)) {
    parts.push("runtime context");
  }
  const where = step.previous === undefined
    ? " (the thread's first step, against the session's previous one)"
    : "";
  if (parts.length === 0) return `nothing in the prompt${where}`;
  return parts.join("; ") +
    (diff.cache.brokenBy === undefined
      ? ""
      : `; the cache breaks at ${diff.cache.brokenBy}`) +
    where;
}

function memoised(count: CountTokens): CountTokens {
  // A TextMap: V8 hashes a long string by its length alone.
  const counts = new TextMap<number>();
  return (text) => {
    let tokens = counts.get(text);
    if (tokens === undefined) counts.set(text, tokens = count(text));
    return tokens;
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "-" : `${(part / whole * 100).toFixed(1)}%`;
}

function ratio(part: number, whole: number): string {
  return whole === 0 ? "-" : (part / whole).toFixed(2);
}
