/**
 * The inspector page's request chart: one bar per request of cached,
 * written and uncached input tokens, each with its miss verdict and the
 * diff of that step's assembly against the thread's previous one.
 *
 * The chart's data model does not depend on where the figures come from:
 * `chartOfSimulation` fills it from a session module run through
 * `simulateCache` (what `rxprompt simulate` reports), and a recorded
 * conversation (JSON lines of request bodies and the provider's usage)
 * fills the same {@linkcode CacheChart} with `source.kind: "recording"`,
 * the reported tokens, and the provider's own diagnosis in the verdict.
 *
 * @module
 */

import { diffAssemblies, renderRuntimeContext } from "../../mod.ts";
import type {
  CacheProvider,
  CacheVerdict,
  PromptCacheReport,
} from "../../adapters/cache/mod.ts";
import { describeError } from "../cli_error.ts";
import { inlineText } from "../report.ts";
import type { RunStep } from "../session.ts";
import { simulateSteps } from "../simulate.ts";
import type { CountTokens } from "../tokens.ts";
import { type CompactionFigures, compactionsOf } from "../report.ts";

/** Where a chart's figures come from. */
export type ChartSource =
  | {
    /** Estimated: a session module's requests through `simulateCache`. */
    kind: "simulation";
    /** The session module's path, as given. */
    session: string;
    provider: CacheProvider;
  }
  | {
    /** Reported: a recorded conversation's usage, request by request. */
    kind: "recording";
    /** The recording's path, as given. */
    file: string;
    /** The form that answered (its usage fields name the tokens). */
    form: string;
  };

/**
 * Why a request read less from the cache than it could have. A simulation
 * says `layout` when the system prompt or the tools changed since the
 * thread's previous request and `conversation` otherwise; a recording
 * adds the provider's own verdicts (`request`, `provider`, `unknown`,
 * `compaction`) and its reason.
 */
export interface ChartVerdict {
  kind: CacheVerdict;
  /** The first block the cache did not serve, and why. */
  firstMiss?: { block: string; reason: string };
  /** What `diffAssemblies` says changed, in words. */
  changed?: string;
  /** The provider's own reason (a recording only). */
  providerReason?: string;
}

/** What changed in the assembly since the thread's previous request. */
export interface StepDiff {
  /** The request it is compared with; `null` for the first request. */
  against: number | null;
  sections: { added: string[]; removed: string[]; changed: string[] };
  tools: {
    added: string[];
    removed: string[];
    changed: string[];
    reordered: boolean;
  };
  runtimeContextChanged: boolean;
  /** Where the prompt cache breaks (`diffAssemblies`' `cache.brokenBy`). */
  brokenBy?: string;
  /** Set when the two assemblies could not be compared. */
  error?: string;
}

/** One request: one bar of the chart. */
export interface ChartRequest {
  /** 0-based, in send order. */
  index: number;
  thread: string;
  inputTokens: number;
  /** Read from the cache. */
  cachedTokens: number;
  /** Written to the cache. */
  writtenTokens: number;
  /** Neither read nor written: `input - cached - written`. */
  uncachedTokens: number;
  /** Present when the request read less than it could have. */
  verdict?: ChartVerdict;
  /**
   * Its part in a compaction (a recording only): `"summary"`, the
   * summarizing request; `"swap"`, the first request after the summary was
   * swapped in (its rewrite is the verdict `compaction`); `"inside"`, a
   * request the provider compacted inside (its threshold).
   */
  compaction?: "summary" | "swap" | "inside";
  /**
   * What a recorded conversation's request told the model inline, in words
   * (`inline: section git changed`): changes sent after the history, not
   * a miss.
   */
  inline?: string;
  diff: StepDiff;
}

/** A chart: its source, its requests and their totals. */
export interface CacheChart {
  source: ChartSource;
  requests: ChartRequest[];
  /** A recording's compactions, when it has any (`rxprompt report`'s). */
  compactions?: CompactionFigures;
  totals: {
    inputTokens: number;
    cachedTokens: number;
    writtenTokens: number;
    uncachedTokens: number;
  };
}

/**
 * One chart per provider of a session's steps (already run). A provider
 * whose rules cannot read the bodies is left out with its error.
 */
export function chartsOfSimulation(
  steps: readonly RunStep[],
  options: {
    session: string;
    providers: readonly CacheProvider[];
    count: CountTokens;
  },
): { charts: CacheChart[]; errors: string[] } {
  const diffs = steps.map(stepDiff);
  const charts: CacheChart[] = [];
  const errors: string[] = [];
  for (const provider of options.providers) {
    let report;
    try {
      report = simulateSteps(steps, { provider, count: options.count });
    } catch (error) {
      errors.push(`cannot simulate ${provider}: ${describeError(error)}`);
      continue;
    }
    const requests = report.steps.map((row, index): ChartRequest => ({
      index,
      thread: row.thread,
      inputTokens: row.inputTokens,
      cachedTokens: row.cachedTokens,
      writtenTokens: row.writtenTokens,
      uncachedTokens: row.inputTokens - row.cachedTokens - row.writtenTokens,
      ...(row.changed === undefined ? {} : {
        verdict: {
          kind: layoutChanged(diffs[index]) ? "layout" : "conversation",
          ...(row.firstMiss === undefined ? {} : { firstMiss: row.firstMiss }),
          changed: row.changed,
        },
      }),
      diff: diffs[index],
    }));
    charts.push({
      source: { kind: "simulation", session: options.session, provider },
      requests,
      totals: totalsOf(requests),
    });
  }
  return { charts, errors };
}

/** The sums of the requests' tokens. */
export function totalsOf(
  requests: readonly ChartRequest[],
): CacheChart["totals"] {
  const totals = {
    inputTokens: 0,
    cachedTokens: 0,
    writtenTokens: 0,
    uncachedTokens: 0,
  };
  for (const request of requests) {
    totals.inputTokens += request.inputTokens;
    totals.cachedTokens += request.cachedTokens;
    totals.writtenTokens += request.writtenTokens;
    totals.uncachedTokens += request.uncachedTokens;
  }
  return totals;
}

function layoutChanged(diff: StepDiff): boolean {
  return diff.brokenBy !== undefined || diff.sections.added.length > 0 ||
    diff.sections.removed.length > 0 || diff.sections.changed.length > 0 ||
    diff.tools.added.length > 0 || diff.tools.removed.length > 0 ||
    diff.tools.changed.length > 0 || diff.tools.reordered;
}

/** A step's assembly against the thread's previous one (else the session's). */
function stepDiff(
  step: RunStep,
  index: number,
  steps: readonly RunStep[],
): StepDiff {
  const none: StepDiff = {
    against: null,
    sections: { added: [], removed: [], changed: [] },
    tools: { added: [], removed: [], changed: [], reordered: false },
    runtimeContextChanged: false,
  };
  const before = step.previous ?? step.before;
  if (before === undefined) return none;
  const against = lastIndexOf(steps, index, before);
  try {
    const diff = diffAssemblies(before, step.assembly);
    return {
      against,
      sections: {
        added: [...diff.sections.added],
        removed: [...diff.sections.removed],
        changed: [...diff.sections.changed],
      },
      tools: {
        added: [...diff.tools.added],
        removed: [...diff.tools.removed],
        changed: [...diff.tools.changed],
        reordered: diff.tools.reordered,
      },
      runtimeContextChanged:
        renderRuntimeContext(before) !== renderRuntimeContext(step.assembly),
      ...(diff.cache.brokenBy === undefined
        ? {}
        : { brokenBy: diff.cache.brokenBy }),
    };
  } catch (error) {
    return { ...none, against, error: describeError(error) };
  }
}

function lastIndexOf(
  steps: readonly RunStep[],
  index: number,
  assembly: RunStep["assembly"],
): number | null {
  for (let i = index - 1; i >= 0; i--) {
    if (steps[i].assembly === assembly) return i;
  }
  return null;
}

/**
 * The chart of a recorded conversation (`rxprompt report`'s figures): the
 * reported tokens per request, and for each request that read less than
 * it could the verdict, the provider's reason and the registration behind
 * it. A recording holds the bodies, not the assemblies: the diff names
 * the contributor's change only.
 */
export function chartOfRecording(
  result: {
    file: string;
    form: string;
    session: string;
    report: PromptCacheReport;
  },
): CacheChart {
  const requests = result.report.requests.map((row): ChartRequest => {
    const input = row.inputTokens ?? 0;
    const cached = row.cacheReadTokens ?? 0;
    const written = row.cacheWriteTokens ?? 0;
    const judgement = row.judgement;
    const contributor = judgement?.contributor;
    const diff: StepDiff = {
      against: row.index === 0 ? null : row.index - 1,
      sections: { added: [], removed: [], changed: [] },
      tools: { added: [], removed: [], changed: [], reordered: false },
      runtimeContextChanged: false,
    };
    if (contributor !== undefined && contributor.kind !== "activeTools") {
      const list = contributor.kind === "tool" ? diff.tools : diff.sections;
      if (contributor.change === "reordered") diff.tools.reordered = true;
      else list[contributor.change].push(contributor.name);
    }
    const brokenBy = contributor?.brokenBy ?? judgement?.change?.block;
    if (brokenBy !== undefined) diff.brokenBy = brokenBy;
    const verdict: ChartVerdict | undefined = judgement?.missed === true
      ? {
        kind: judgement.verdict ?? "unknown",
        ...(judgement.change?.block === undefined ? {} : {
          firstMiss: {
            block: judgement.change.block,
            reason: judgement.reason ?? "",
          },
        }),
        changed: contributor === undefined
          ? judgement.reason ?? ""
          : `${contributor.kind} ${contributor.name} ${contributor.change} ` +
            `(${contributor.registrar ?? contributor.layer ?? "?"})`,
        ...(judgement.provider.reason === undefined
          ? {}
          : { providerReason: judgement.provider.reason }),
      }
      : undefined;
    const compaction = row.summarizes === true
      ? "summary"
      : row.compaction !== undefined
      ? "inside"
      : judgement?.verdict === "compaction"
      ? "swap"
      : undefined;
    return {
      index: row.index,
      thread: result.session,
      inputTokens: input,
      cachedTokens: cached,
      writtenTokens: written,
      uncachedTokens: Math.max(0, input - cached - written),
      ...(verdict === undefined ? {} : { verdict }),
      ...(compaction === undefined ? {} : { compaction }),
      ...(row.inline === undefined ? {} : { inline: inlineText(row.inline) }),
      diff,
    };
  });
  const compactions = compactionsOf(result.report.requests);
  return {
    source: { kind: "recording", file: result.file, form: result.form },
    requests,
    ...(compactions === undefined ? {} : { compactions }),
    totals: totalsOf(requests),
  };
}
