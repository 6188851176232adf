/**
 * One request judged against the one before (SPEC 9.3, 9.8): did it read
 * less from the cache than the previous request's prefix allowed, and why.
 * The verdict comes from rxprompt's own comparison of the two bodies; the
 * provider's reason and tokens are reported beside it, never trusted over
 * the bytes.
 *
 * @module
 */

import {
  type BodyView,
  commonBlocks,
  viewOfBody,
} from "../simulator/body_view.ts";
import type { Block } from "../simulator/blocks.ts";
import { attributeChange } from "./contributor.ts";
import type { ProviderDiagnosis, ProviderMissReason } from "./usage_types.ts";
import type {
  BodyRegion,
  CacheEstimates,
  CacheJudgement,
  CacheVerdict,
  JudgeOptions,
  ReportedRequest,
} from "./types.ts";
import type { ProviderRules, RuleTable } from "../simulator/rules.ts";

import { quote, SystemPromptError } from "../../errors.ts";
import {
  estimateOf,
  estimatePredictsMiss,
  JUDGE_SLACK_TOKENS,
  prefixTokens,
  repeatedTokens,
} from "./prefix_tokens.ts";

const MINUTE = 60_000;

/**
 * Request options that key the cache besides the content: a change makes
 * the provider miss with identical bytes. `model` is judged first.
 */
const CACHE_KEYED_OPTIONS: readonly string[] = [
  "speed",
  "tool_choice",
  "thinking",
  "reasoning",
  "reasoning_effort",
  "verbosity",
  "output_config",
  "response_format",
  "text",
  "prompt_cache_key",
  "service_tier",
  "parallel_tool_calls",
];

/** The region each provider reason names. */
const REASON_REGIONS: Record<ProviderMissReason, readonly BodyRegion[]> = {
  model_changed: ["model"],
  system_changed: ["system"],
  tools_changed: ["tools"],
  messages_changed: ["messages"],
  input_changed: ["system", "messages"],
  context_compacted: ["messages"],
  prompt_cache_key_changed: ["options"],
  text_format_changed: ["options"],
  reasoning_effort_changed: ["options"],
  verbosity_changed: ["options"],
  service_tier_changed: ["options"],
};

/**
 * Judges `current` against `previous` under `table`'s provider
 * (`judgeRequest` of `./cache`, which gives the table).
 */
export function judgeRequestWith(
  pair: { previous: ReportedRequest; current: ReportedRequest },
  options: JudgeOptions,
  table: RuleTable,
): CacheJudgement {
  const { previous, current } = pair;
  const rules = table.named(options?.provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `judgeRequest's provider is ${quote(options?.provider)}; expected one ` +
        `of ${table.ids.map((name) => JSON.stringify(name)).join(", ")}.`,
    );
  }
  let before: BodyView;
  let after: BodyView;
  try {
    before = viewOfBody(previous.body, rules);
    after = viewOfBody(current.body, rules);
  } catch (error) {
    return unreadable(current, error);
  }
  return judgeViews(pair, { before, after }, {
    ...options,
    rules,
    estimates: () =>
      options.estimates ?? estimateOf(previous, current, options, table),
  });
}

/** The judgement when a body could not be read (`error`, its reason). */
export function unreadable(
  current: Pick<ReportedRequest, "usage">,
  error: unknown,
): CacheJudgement {
  return {
    verdict: "unknown",
    provider: current.usage.diagnosis ?? { status: "none" },
    reason: `a body could not be read: ${
      error instanceof Error ? error.message : String(error)
    }`,
  };
}

/**
 * {@linkcode judgeRequest} on the two bodies read (`before`, `after`);
 * `estimates` gives the simulator's estimates when they are needed.
 */
export function judgeViews(
  pair: {
    previous: Omit<ReportedRequest, "body">;
    current: Omit<ReportedRequest, "body">;
  },
  views: { before: BodyView; after: BodyView },
  options: Omit<JudgeOptions, "estimates"> & {
    rules: ProviderRules;
    estimates: () => CacheEstimates | undefined;
  },
): CacheJudgement {
  const { previous, current } = pair;
  const { before, after } = views;
  const { rules } = options;
  const provider: ProviderDiagnosis = current.usage.diagnosis ??
    { status: "none" };
  const minimum = options.minPrefixTokens ?? rules.minPrefixTokens;
  const previousPrefix = prefixTokens(previous.usage, before, rules, minimum);
  const read = current.usage.cacheReadTokens;
  if (previousPrefix === undefined || read === undefined) {
    return {
      ...(previousPrefix !== undefined
        ? { previousPrefixTokens: previousPrefix }
        : {}),
      ...(read !== undefined ? { readTokens: read } : {}),
      verdict: "unknown",
      provider,
      reason: previousPrefix === undefined
        ? "the previous request's usage could not be read"
        : "this request's cache reads could not be read",
    };
  }
  const common = commonBlocks(before, after);
  const repeated = repeatedTokens(
    { before, common, previousPrefix, total: previous.usage.inputTokens },
    options,
  );
  const missed = read + JUDGE_SLACK_TOKENS < previousPrefix;
  const readLessThanItCould = read + JUDGE_SLACK_TOKENS < repeated;
  const judgement: CacheJudgement = {
    previousPrefixTokens: previousPrefix,
    repeatedTokens: repeated,
    readTokens: read,
    missed,
    readLessThanItCould,
    provider,
    reason: missed
      ? ""
      : `read ${read} of the previous request's ${previousPrefix} prefix tokens`,
  };
  const estimates = options.estimates();
  const estimate = estimates?.current;
  if (estimate !== undefined) judgement.estimate = estimate;
  if (!missed) return judgement;

  const diverged = repeated + JUDGE_SLACK_TOKENS < previousPrefix;
  const model = changedOption(before.fields, after.fields, ["model"]);
  const option = changedOption(
    before.fields,
    after.fields,
    CACHE_KEYED_OPTIONS,
  );
  const lifetime = lifetimeOf(before, rules);
  const gap = current.time !== undefined && previous.time !== undefined
    ? current.time - previous.time
    : undefined;
  judgement.lifetimeMs = lifetime;
  const predicted = estimates === undefined ? undefined : estimatePredictsMiss(
    estimates,
    { before, after, common },
    options,
    minimum,
  );
  if (predicted !== undefined) judgement.estimatePredictsMiss = predicted;

  let verdict: CacheVerdict;
  if (model !== undefined) {
    verdict = "request";
    judgement.change = { region: "model", option: model };
    judgement.reason = `the model changed (${model})`;
  } else if (diverged) {
    const { block, how } = firstDifference(before, after, common);
    const region: BodyRegion = block.part;
    verdict = current.compacted === true
      ? "compaction"
      : region === "messages"
      ? "conversation"
      : "layout";
    judgement.change = { region, block: block.id };
    // Where the bodies part: the tokens of the previous prefix repeated
    // before the difference (what is lost is the rest of it).
    judgement.reason = `the bodies differ from ${block.id} (${region}, ` +
      `${how}), ${repeated} tokens into the previous prefix of ` +
      `${previousPrefix}`;
  } else if (option !== undefined) {
    verdict = "request";
    judgement.change = { region: "options", option };
    judgement.reason = `the request option ${option} changed`;
  } else if (current.compacted === true) {
    verdict = "compaction";
    judgement.reason = "identical bytes; the provider compacted the " +
      "conversation inside this request, and its answer was made on the " +
      "compacted history";
  } else if (gap !== undefined && gap > lifetime) {
    verdict = "provider";
    judgement.expired = true;
    judgement.reason = `identical bytes; ${formatMs(gap)} since the prefix ` +
      `was last read, past its ${formatMs(lifetime)} lifetime`;
  } else if (predicted === true) {
    verdict = "layout";
    judgement.reason = "identical bytes, but the marks could not reach the " +
      `previous prefix (the simulator predicts the miss: ${
        estimate?.firstMiss?.reason ?? "no read"
      })`;
  } else {
    verdict = "provider";
    if (gap !== undefined) judgement.expired = false;
    judgement.reason =
      "identical bytes and marks within the lifetime: an eviction or " +
      "routing on the provider's side";
  }
  judgement.verdict = verdict;
  const agrees = agreement(provider, judgement.change?.region, verdict);
  if (agrees !== undefined) judgement.providerAgrees = agrees;
  // Our bytes changed, or a gate changed tool_choice (allowed tools): the
  // assemblies say which registration did it.
  const ours = (verdict === "layout" && judgement.change !== undefined) ||
    (verdict === "request" && judgement.change?.option === "tool_choice");
  if (ours) {
    const contributor = previous.explanation !== undefined &&
        current.explanation !== undefined
      ? attributeChange(previous.explanation, current.explanation)
      : current.contributor;
    if (contributor !== undefined) judgement.contributor = contributor;
  }
  return judgement;
}

/**
 * The block where the two bodies part, at index `common`: this request's
 * block there (added, changed or moved), unless this request merely lacks
 * the earlier body's block (its own block there is one the earlier body
 * held further on): then the earlier body's, removed. So a tool added at
 * the end of the list is named, not the system block after it.
 */
function firstDifference(
  before: BodyView,
  after: BodyView,
  common: number,
): { block: Block; how: "added" | "removed" | "changed" | "moved" } {
  const earlier = common < before.length ? before.block(common) : undefined;
  const later = common < after.length ? after.block(common) : undefined;
  if (later === undefined) return { block: earlier!, how: "removed" };
  if (earlier === undefined || later.id === earlier.id) {
    return { block: later, how: earlier === undefined ? "added" : "changed" };
  }
  const held = (view: BodyView, block: Block) => {
    for (let index = common + 1; index < view.length; index++) {
      const other = view.block(index);
      if (
        other.id === block.id && other.key === block.key &&
        other.part === block.part
      ) return true;
    }
    return false;
  };
  if (!held(before, later)) return { block: later, how: "added" };
  if (!held(after, earlier)) return { block: earlier, how: "removed" };
  return { block: later, how: "moved" };
}

/** The first of `keys` whose JSON differs between the two bodies. */
function changedOption(
  before: unknown,
  after: unknown,
  keys: readonly string[],
): string | undefined {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return keys.find((key) => json(a[key]) !== json(b[key]));
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return String(value);
  }
}

/**
 * The previous prefix's lifetime: its last mark's `ttl` (a cache that
 * reads marks), a longer retention the body asks for
 * (`prompt_cache_retention: "24h"`), else the automatic entries' (or the
 * shortest mark's, 5 minutes).
 */
function lifetimeOf(body: BodyView, rules: ProviderRules): number {
  const mark = body.marks.at(-1);
  const last = mark === undefined ? undefined : body.marker(mark);
  if (rules.reads !== "automatic" && last !== undefined) return last.ttl;
  const retention = body.fields.prompt_cache_retention;
  const longer = typeof retention === "string"
    ? rules.automatic?.retention[retention]
    : undefined;
  if (longer !== undefined) return longer;
  return rules.automatic?.ttlMs ?? rules.marks!.ttls[0].ttl;
}

/** Whether the provider's reason names our region. */
function agreement(
  provider: ProviderDiagnosis,
  region: BodyRegion | undefined,
  verdict: CacheVerdict,
): boolean | undefined {
  if (provider.status === "hit") return false;
  if (provider.status !== "miss" || provider.reason === undefined) {
    return undefined;
  }
  if (region === undefined) return verdict !== "provider" ? undefined : false;
  return REASON_REGIONS[provider.reason].includes(region);
}

function formatMs(ms: number): string {
  if (ms % (60 * MINUTE) === 0) return `${ms / (60 * MINUTE)} h`;
  if (ms >= MINUTE) return `${Math.round(ms / 6_000) / 10} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
