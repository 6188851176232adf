/**
 * `rxprompt report FILE [--provider P] [--json]`: the cache report of a
 * recorded conversation (SPEC 9.3): the JSON-lines recording a
 * conversation writes (`save()`, `onRecord`) read back, each request's
 * body rebuilt, and `conv.report()` printed: per request the reported
 * input, cache reads and writes beside the simulator's estimate, and for
 * each request that read less than it could the verdict, the provider's
 * reason and the registration behind it, and what it told the model
 * inline (SPEC 10.1: a section, tool or effort change sent after the
 * history, not a miss); the totals observed and simulated, and where they
 * differ.
 *
 * @module
 */

import { type AssembleContext, SystemPromptError } from "../mod.ts";
import {
  conversationFormNamed,
  type FormTable,
  formTable,
  TABLE,
} from "../adapters/forms.ts";
import { resumeConversation } from "../src/conversation/start.ts";
import type { ProviderForm } from "../src/conversation/form.ts";
import type {
  CacheProvider,
  CacheReportRequest,
  PromptCacheReport,
} from "../adapters/cache/mod.ts";
import type { ConversationPrompt } from "../src/conversation/types.ts";
import type { ConversationReportOptions } from "../src/conversation/observer_types.ts";
import type { Args } from "./args.ts";
import { CliError, describeError } from "./cli_error.ts";
import { within } from "./deadline.ts";
import type { Output } from "./output.ts";
import { chunkCounter, headSharingCounter } from "./token_heads.ts";
import { tokenCounter } from "./tokens.ts";

const NOTE = "Estimates count tokens with o200k_base; the provider's own " +
  "tokenizer differs, so observed and simulated figures differ a little.";

/** A recording read and reported. */
export interface RecordingReport {
  /** The recording's path, as given. */
  file: string;
  /** The form the conversation spoke (`anthropic-messages`, ...). */
  form: string;
  /** The conversation's session id. */
  session: string;
  /** The cache rules the report applied. */
  provider: CacheProvider;
  /** The recording's last line was cut mid-way and left out. */
  truncated: boolean;
  report: PromptCacheReport;
}

/** Runs `report`; resolves to the exit code. */
export async function report(args: Args, output: Output): Promise<number> {
  const [file] = args.configs;
  const result = await reportOfFile(file, {
    timeoutMs: args.timeoutMs,
    ...(args.provider === undefined ? {} : { provider: args.provider }),
  });
  if (args.json) {
    output.line(JSON.stringify(
      { ...result, tokenizer: "o200k_base", note: NOTE },
      null,
      2,
    ));
    return 0;
  }
  // One write: a line each cost a write through the stream, 10,000 rows.
  output.line(reportLines(result).join("\n"));
  return 0;
}

/**
 * Reads the recording at `file` and reports it.
 *
 * @throws {CliError} naming the file and what is wrong with it
 */
export async function reportOfFile(
  file: string,
  options: {
    timeoutMs?: number;
    provider?: CacheProvider;
    /** The forms a recording may be of (default: the package's). */
    forms?: readonly ProviderForm[];
  },
): Promise<RecordingReport> {
  // The tokenizer's module loads while the recording is read.
  const counter = tokenCounter();
  counter.catch(() => {}); // awaited below, unless the read fails first
  const text = await within(
    {
      what: `recording ${file}`,
      verb: "was not read",
      ...(options.timeoutMs === undefined
        ? {}
        : { timeoutMs: options.timeoutMs }),
    },
    () => readText(file),
  );
  const countTokens = headSharingCounter(chunkCounter(await counter));
  try {
    const table = options.forms === undefined
      ? TABLE
      : formTable(options.forms);
    const { form, conv, provider } = resumed(text, table);
    const report = conv.report({
      countTokens,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
    });
    return {
      file,
      form,
      session: conv.session,
      provider: options.provider ?? provider,
      truncated: conv.resumed?.truncated ?? false,
      report,
    };
  } catch (error) {
    if (error instanceof CliError) {
      throw new CliError(`recording ${file}: ${error.message}`);
    }
    if (error instanceof SystemPromptError) {
      throw new CliError(`recording ${file}: ${describeError(error)}`);
    }
    throw error;
  }
}

/** A prompt the report never assembles (it only reads what was sent). */
const NO_PROMPT: ConversationPrompt<AssembleContext> = {
  assemble: () =>
    Promise.reject(new Error("a recorded conversation is not assembled")),
};

interface Reportable {
  readonly session: string;
  readonly resumed: { readonly truncated: boolean } | undefined;
  report(options: ConversationReportOptions): PromptCacheReport;
}

/**
 * The recording resumed as the conversation its header names, and the
 * cache rules its report follows.
 */
function resumed(
  text: string,
  table: FormTable,
): { form: string; conv: Reportable; provider: CacheProvider } {
  const header = headerOf(text);
  const form = conversationFormNamed(header.provider, table.forms);
  if (form === undefined) {
    const names = table.forms.filter((known) => "builder" in known).map((
      known,
    ) => known.id);
    throw new CliError(
      `its header names the form ${
        JSON.stringify(header.provider)
      }; a conversation recording is of ${names.slice(0, -1).join(", ")} or ${
        names.at(-1)
      }`,
    );
  }
  // The saved options pass the form's own resume checks (stream, inline).
  const conv = resumeConversation(
    form,
    NO_PROMPT,
    text,
    header.options,
    table.context,
  );
  return {
    form: form.id,
    conv,
    provider: form.cache.rulesOf(header.options).id as CacheProvider,
  };
}

/** The first line's provider and options, or a one-line error. */
function headerOf(
  text: string,
): { provider: unknown; options: Record<string, unknown> } {
  const end = text.indexOf("\n");
  let value: unknown;
  try {
    value = JSON.parse(end === -1 ? text : text.slice(0, end));
  } catch {
    throw new CliError(
      `its first line is not JSON; a recording is the JSON lines a ` +
        `conversation writes (save(), onRecord), a header first`,
    );
  }
  const header = value as
    | {
      format?: unknown;
      form?: unknown;
      provider?: unknown;
      options?: unknown;
    }
    | null;
  if (
    typeof header !== "object" || header === null ||
    header.format !== "rxprompt-conversation" ||
    typeof header.options !== "object" || header.options === null
  ) {
    throw new CliError(
      `its first line is not a conversation header { format: ` +
        `"rxprompt-conversation", version, form, session, options }`,
    );
  }
  return {
    // Version 2 names the form `form`; version 1, `provider`.
    provider: header.form ?? header.provider,
    options: header.options as Record<string, unknown>,
  };
}

/** `node:fs/promises`' readFile, under a computed specifier (cli/node.ts). */
async function readText(file: string): Promise<string> {
  const fs = await import(["node", "fs/promises"].join(":")) as {
    readFile(path: string, encoding: "utf8"): Promise<string>;
  };
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    throw new CliError(
      code === "ENOENT"
        ? `recording ${file} not found`
        : `recording ${file} could not be read: ${describeError(error)}`,
    );
  }
}

/** The report as text: a line per request, the misses, the totals. */
export function reportLines(result: RecordingReport): string[] {
  const { report, file } = result;
  const lines = [
    `rxprompt report ${file}: ${report.requests.length} requests of a ` +
    `conversation over ${result.form} (session ${result.session}), cache ` +
    `rules ${result.provider}.`,
  ];
  if (result.truncated) {
    lines.push(
      `The recording's last line was cut mid-way: read up to its last ` +
        `complete record.`,
    );
  }
  lines.push(NOTE, "");
  const rows = report.requests.map(row);
  const header = ["step", "input", "read", "written", "estimate", "verdict"];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((cells) => cells[i].length))
  );
  const pad = (cells: string[]) =>
    cells.map((cell, i) =>
      i === cells.length - 1 ? cell : cell.padStart(widths[i])
    ).join("  ").trimEnd();
  lines.push(pad(header), ...rows.map(pad));
  const misses = report.requests.filter((request) =>
    request.judgement?.missed === true
  );
  if (misses.length > 0) lines.push("", "Misses:");
  for (const request of misses) lines.push(...missLines(request));
  const totals = report.totals;
  lines.push(
    "",
    `Observed: hit ratio ${percent(totals.hitRatio)}, ` +
      `${totals.cacheReadTokens} read of ${totals.inputTokens} input tokens, ` +
      `${totals.cacheWriteTokens} written, re-write factor ${
        totals.rewriteFactor === undefined
          ? "n/a"
          : totals.rewriteFactor.toFixed(2)
      }${
        totals.cost === undefined
          ? " (cost: a write of unknown lifetime has no price)"
          : `, cost ${round(totals.cost)} input-token units`
      }.`,
  );
  if (totals.estimate !== undefined) {
    lines.push(
      `Simulated: hit ratio ${percent(totals.estimatedHitRatio)}, ` +
        `${totals.estimate.cachedTokens} read of ` +
        `${totals.estimate.inputTokens} input tokens, ` +
        `${totals.estimate.writtenTokens} written.`,
    );
  } else if (totals.estimateError !== undefined) {
    lines.push(`Simulated: not available (${totals.estimateError}).`);
  }
  if (totals.differsFromEstimate) {
    lines.push(
      `Observed and simulated differ by more than 5 points of hit ratio: ` +
        `the misses above say where the provider served less (or more) ` +
        `than the bytes allowed.`,
    );
  }
  if (report.deferred !== undefined) {
    const { tools, found, tokensNotSent } = report.deferred;
    lines.push(
      `Deferred tools: ${found} of ${tools} found; ${tokensNotSent} tokens ` +
        `of definitions not sent (summed over the requests).`,
    );
  }
  if (report.storage !== undefined) {
    const { entries, writtenTokens, tokenHours, storageCost } = report.storage;
    lines.push(
      `Stored cache entries: ${entries}, ${writtenTokens} tokens written, ` +
        `${round(tokenHours)} token-hours stored, storage cost ${
          round(storageCost)
        } input-token units (each entry until replaced or expired).`,
    );
  }
  const compactions = compactionsOf(report.requests);
  if (compactions !== undefined) lines.push(compactionLine(compactions));
  const verdicts = Object.entries(totals.verdicts).filter(([, n]) => n > 0);
  lines.push(
    `Misses by verdict: ${
      verdicts.length === 0
        ? "none"
        : verdicts.map(([verdict, n]) => `${verdict} ${n}`).join(", ")
    }${
      totals.unreadableRequests === 0
        ? ""
        : `; ${totals.unreadableRequests} request(s) with unreadable usage`
    }.`,
  );
  return lines;
}

/** What a report's compactions cost (SPEC 10.2). */
export interface CompactionFigures {
  /** The summarizing requests (`compact()`, `compactAt`). */
  summaries: number;
  /** Their input tokens, and what of it they read from the cache. */
  inputTokens: number;
  cachedTokens: number;
  /** The provider's compactions inside a step (threshold). */
  inside: number;
  /** The requests after a swap (the verdict `compaction`). */
  swaps: number;
}

/**
 * The compactions of a report's requests: the summarizing requests and
 * the share of their input read from the cache, the provider's own, the
 * rewrites after them; `undefined` when there were none.
 */
export function compactionsOf(
  requests: readonly CacheReportRequest[],
): CompactionFigures | undefined {
  const figures = {
    summaries: 0,
    inputTokens: 0,
    cachedTokens: 0,
    inside: 0,
    swaps: 0,
  };
  for (const request of requests) {
    if (request.summarizes === true) {
      figures.summaries++;
      figures.inputTokens += request.inputTokens ?? 0;
      figures.cachedTokens += request.cacheReadTokens ?? 0;
    }
    if (request.compaction !== undefined) figures.inside++;
    if (request.judgement?.verdict === "compaction") figures.swaps++;
  }
  return figures.summaries + figures.inside + figures.swaps === 0
    ? undefined
    : figures;
}

/** The report's line on its compactions. */
export function compactionLine(figures: CompactionFigures): string {
  const share = figures.inputTokens === 0
    ? undefined
    : figures.cachedTokens / figures.inputTokens;
  return `Compactions: ${figures.summaries} summarizing request(s), ` +
    `${figures.cachedTokens} of their ${figures.inputTokens} input tokens ` +
    `read from the cache (${percent(share)}); ${figures.inside} inside a ` +
    `step; ${figures.swaps} rewrite(s) after one (verdict compaction).`;
}

function row(request: CacheReportRequest): string[] {
  const judgement = request.judgement;
  const missed = judgement?.missed === true
    ? `${judgement.verdict ?? "unknown"}${
      judgement.expired === true ? " (expired)" : ""
    }`
    : "";
  // A compaction: the summarizing request, or the provider's inside a step.
  const compaction = request.compaction;
  const verdict = [
    request.summarizes === true ? "summary" : "",
    compaction === undefined ? "" : `compacted (+${compaction.inputTokens} ` +
      `input, ${compaction.cacheReadTokens} read, ` +
      `${compaction.cacheWriteTokens} written)`,
    missed,
    inlineText(request.inline),
  ].filter((part) => part !== "").join(", ");
  return [
    String(request.index + 1),
    figure(request.inputTokens),
    figure(request.cacheReadTokens),
    figure(request.cacheWriteTokens),
    request.estimate === undefined
      ? "-"
      : `${request.estimate.cachedTokens}${
        request.differsFromEstimate ? "*" : ""
      }`,
    verdict,
  ];
}

/**
 * What a request told the model inline (SPEC 10.1), in words:
 * `inline: section git changed; tool browse added; effort high`, each told
 * again after a compaction marked `(again)`; `""` for none.
 */
export function inlineText(
  changes: CacheReportRequest["inline"],
): string {
  if (changes === undefined || changes.length === 0) return "";
  return `inline: ${
    changes.map((change) =>
      `${
        change.kind === "effort"
          ? `effort ${change.name}`
          : `${change.kind} ${change.name} ${change.change}`
      }${change.restated === true ? " (again)" : ""}`
    ).join("; ")
  }`;
}

function missLines(request: CacheReportRequest): string[] {
  const judgement = request.judgement!;
  const lines = [
    `  step ${request.index + 1}: ${judgement.verdict ?? "unknown"}: ${
      judgement.reason ?? "no reason"
    }`,
  ];
  const contributor = judgement.contributor;
  if (contributor !== undefined) {
    lines.push(
      `    contributor: ${contributor.kind} ${contributor.name} ` +
        `(${contributor.change}) registered by ${
          contributor.registrar ?? contributor.layer ?? "?"
        }${
          contributor.scope === undefined
            ? ""
            : ` in scope ${String(contributor.scope)}`
        }${
          contributor.variable === undefined
            ? ""
            : `, through variable ${contributor.variable.name}`
        }${contributor.gate === undefined ? "" : `, gate ${contributor.gate}`}`,
    );
  }
  const provider = judgement.provider;
  if (provider.status !== "none") {
    lines.push(
      `    provider: ${provider.status}${
        provider.reason === undefined ? "" : ` ${provider.reason}`
      }${
        provider.missedTokens === undefined
          ? ""
          : `, ${provider.missedTokens} tokens missed`
      }${
        judgement.providerAgrees === false ? " (the bytes say otherwise)" : ""
      }`,
    );
  }
  return lines;
}

function figure(value: number | undefined): string {
  return value === undefined ? "?" : String(value);
}

function percent(value: number | undefined): string {
  return value === undefined ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
