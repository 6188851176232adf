/**
 * `deno task bench:cache`: every example session (examples/sessions/) run
 * once and written every way, simulated under every provider's rules with
 * `o200k_base` token counts. Prints, per session and provider, each way's
 * efficiency (cached ÷ input), the best-layout bound (÷ input), each way ÷
 * the bound, the same ratio for the tools and system prompt alone, and the
 * cost (÷ the cost without a cache), then the mean per provider.
 *
 * ```sh
 * deno task bench:cache            # the table
 * deno task bench:cache --markdown # the README's table
 * ```
 *
 * @module
 */

import {
  bestLayoutTokens,
  type CacheProvider,
  type CacheSession,
  simulateCache,
} from "../src/cache/mod.ts";
import { requestsOf, runSession } from "../cli/session.ts";
import { tokenCounter } from "../cli/tokens.ts";
import { WAYS } from "../examples/sessions/ways.ts";
import { SESSIONS } from "../examples/sessions/mod.ts";
import type { WayWire } from "../cli/readme_way.ts";

const PROVIDERS: readonly CacheProvider[] = [
  "anthropic",
  "openai",
  "openai-explicit",
];

/** One row of the table. */
export interface BenchRow {
  session: string;
  provider: CacheProvider;
  way: string;
  efficiency: number;
  bound: number;
  ratio: number;
  promptRatio: number;
  cost: number;
}

/** Runs every session every way; the rows of the table. */
export async function benchRows(
  sessions: Readonly<Record<string, SessionModule>> = SESSIONS,
  options: { limit?: number } = {},
): Promise<BenchRow[]> {
  const count = memo(await tokenCounter());
  const rows: BenchRow[] = [];
  for (const [name, module] of Object.entries(sessions)) {
    const steps = await runSession(await module.default(), WAYS, {
      limit: options.limit,
      volatileSections: module.volatileSections,
    });
    for (const provider of PROVIDERS) {
      const wire: WayWire = provider === "anthropic" ? "anthropic" : "openai";
      for (const way of Object.keys(WAYS)) {
        const requests = requestsOf(steps, way, wire);
        const { totals } = simulateCache(requests, {
          provider,
          countTokens: count,
        });
        const bound = bestLayoutTokens(requests, count).totals;
        const promptCached = simulateCache(requests, {
          provider,
          countTokens: count,
        }).requests.reduce(
          (sum, r) => sum + Math.min(r.cachedTokens, r.promptTokens),
          0,
        );
        rows.push({
          session: name,
          provider,
          way,
          efficiency: totals.cachedTokens / totals.inputTokens,
          bound: bound.boundTokens / bound.inputTokens,
          ratio: totals.cachedTokens / bound.boundTokens,
          promptRatio: promptCached / bound.promptBoundTokens,
          cost: totals.cost / totals.inputTokens,
        });
      }
    }
  }
  return rows;
}

/** A session module of examples/sessions/. */
export interface SessionModule {
  default: () => Promise<CacheSession>;
  volatileSections?: readonly string[];
}

function memo(count: (text: string) => number): (text: string) => number {
  const counts = new Map<string, number>();
  return (text) => {
    let n = counts.get(text);
    if (n === undefined) counts.set(text, n = count(text));
    return n;
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const fixed = (value: number) => value.toFixed(2);

/** The rows as a table (Markdown with `markdown`). */
export function table(rows: readonly BenchRow[], markdown: boolean): string[] {
  const header = [
    "session",
    "provider",
    "way",
    "efficiency",
    "bound",
    "÷ bound",
    "prompt ÷ bound",
    "cost",
  ];
  const cells = rows.map((row) => [
    row.session,
    row.provider,
    row.way,
    percent(row.efficiency),
    percent(row.bound),
    fixed(row.ratio),
    fixed(row.promptRatio),
    fixed(row.cost),
  ]);
  for (const provider of PROVIDERS) {
    for (const way of Object.keys(WAYS)) {
      const mine = rows.filter((row) =>
        row.provider === provider && row.way === way
      );
      if (mine.length === 0) continue;
      const mean = (key: keyof BenchRow) =>
        mine.reduce((sum, row) => sum + (row[key] as number), 0) / mine.length;
      cells.push([
        "mean",
        provider,
        way,
        percent(mean("efficiency")),
        percent(mean("bound")),
        fixed(mean("ratio")),
        fixed(mean("promptRatio")),
        fixed(mean("cost")),
      ]);
    }
  }
  if (markdown) {
    return [
      `| ${header.join(" | ")} |`,
      `|${header.map((_, i) => i < 3 ? " --- " : " ---: ").join("|")}|`,
      ...cells.map((row) => `| ${row.join(" | ")} |`),
    ];
  }
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => row[i].length))
  );
  const line = (row: string[]) =>
    row.map((cell, i) =>
      i < 3 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])
    )
      .join("  ");
  return [line(header), ...cells.map(line)];
}

if (import.meta.main) {
  const started = performance.now();
  const rows = await benchRows();
  const markdown = Deno.args.includes("--markdown");
  console.log(
    `Cache report, ${new Date().toISOString().slice(0, 10)}: tokens counted ` +
      `with o200k_base (Anthropic's tokenizer differs: an estimate).`,
  );
  console.log(
    "efficiency = cached ÷ input; bound = best layout ÷ input; cost = price ÷ price without a cache.",
  );
  for (const line of table(rows, markdown)) console.log(line);
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
