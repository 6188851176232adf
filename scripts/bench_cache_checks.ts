/**
 * The checks `deno task bench:cache` prints under its table (SPEC 9.8,
 * issues "request loop" and "save and resume"), each on the README's way
 * built through the conversation object:
 *
 * - `inlineToolChanges`: on a session whose MCP tool list changes, run
 *   with Anthropic `toolChanges: "inline"`, what each request after a
 *   change loses (its bound minus what it read) against the changed
 *   tools' own tokens;
 * - `resumedSession`: the session run once straight through, and once
 *   with a harness restart mid-way (the session built afresh, a fresh
 *   registry, each conversation saved with `save()` and resumed from the
 *   recording): the cached tokens per provider, and whether every body is
 *   the same byte for byte;
 * - `pauseLosses`: OpenAI automatic caching without the extended
 *   retention the README's way asks for when a person answers next.
 *
 * @module
 */

import {
  bestLayoutTokens,
  type CacheProvider,
  type CacheRequest,
  simulateCache,
} from "../adapters/cache/mod.ts";
import { requestsOf, runSession, type RunStep } from "../cli/session.ts";
import { readmeWay, readmeWayWith, wayFormFor } from "../cli/readme_way.ts";
import type { SessionModule } from "../examples/sessions/mod.ts";

/** What one tool-list change cost with inline tool changes. */
export interface ToolChangeLoss {
  /** The step that first saw the changed list. */
  step: number;
  /** The tools that went or came. */
  changed: string[];
  /** Their own tokens (their definitions as listed). */
  toolTokens: number;
  /** What that step and the next read less than their bound. */
  lost: number;
}

/** Each change of `module`'s tool list, run with inline tool changes. */
export async function inlineToolChanges(
  module: SessionModule,
  count: (text: string) => number,
): Promise<ToolChangeLoss[]> {
  const steps = await runSession(
    await module.default({ registration: "readme" }),
    { readme: readmeWayWith({ toolChanges: "inline" }) },
    { volatileSections: module.volatileSections },
  );
  const requests = requestsOf(steps, "readme", wayFormFor("anthropic"));
  const simulated = simulateCache(requests, {
    provider: "anthropic",
    countTokens: count,
  }).requests;
  const bound = bestLayoutTokens(requests, count).requests;
  const lost = (at: number) =>
    at < steps.length
      ? Math.max(0, bound[at].boundTokens - simulated[at].cachedTokens)
      : 0;
  const losses: ToolChangeLoss[] = [];
  for (let at = 1; at < steps.length; at++) {
    const before = toolsOf(steps[at - 1]);
    const now = toolsOf(steps[at]);
    const changed = [...new Set([...before.keys(), ...now.keys()])].filter(
      (name) => before.get(name) !== now.get(name),
    );
    if (changed.length === 0) continue;
    losses.push({
      step: at,
      changed,
      toolTokens: changed.reduce(
        (sum, name) => sum + count(before.get(name) ?? now.get(name)!),
        0,
      ),
      lost: lost(at) + lost(at + 1),
    });
  }
  return losses;
}

/** The step's tools: name → its definition's JSON. */
function toolsOf(step: RunStep): Map<string, string> {
  return new Map(
    step.assembly.tools.map((tool) => [tool.name, JSON.stringify(tool)]),
  );
}

/** A session run straight through and with a restart, compared. */
export interface ResumeComparison {
  /** The step the harness restarted before. */
  at: number;
  /** Provider → cached tokens straight through, and with the restart. */
  cached: Partial<Record<CacheProvider, { straight: number; resumed: number }>>;
  /** Every request body is the same byte for byte. */
  identical: boolean;
}

/** Runs `module` straight through and restarted before step `at`. */
export async function resumedSession(
  module: SessionModule,
  count: (text: string) => number,
  at: number,
): Promise<ResumeComparison> {
  const build = () => module.default({ registration: "readme" });
  const options = { volatileSections: module.volatileSections };
  const straight = await runSession(await build(), { readme: readmeWay }, {
    ...options,
  });
  const resumed = await runSession(await build(), { readme: readmeWay }, {
    ...options,
    restart: { at, session: build },
  });
  const cached = {} as ResumeComparison["cached"];
  let identical = true;
  for (const provider of PROVIDERS) {
    const form = wayFormFor(provider);
    const [a, b] = [straight, resumed].map((steps) =>
      requestsOf(steps, "readme", form)
    );
    identical &&= JSON.stringify(a) === JSON.stringify(b);
    cached[provider] = {
      straight: cachedTokens(a, provider, count),
      resumed: cachedTokens(b, provider, count),
    };
  }
  return { at, cached, identical };
}

const PROVIDERS: readonly CacheProvider[] = [
  "anthropic",
  "openai",
  "openai-explicit",
];

function cachedTokens(
  requests: readonly CacheRequest[],
  provider: CacheProvider,
  count: (text: string) => number,
): number {
  return simulateCache(requests, { provider, countTokens: count }).totals
    .cachedTokens;
}

/**
 * The OpenAI automatic ratio to the bound of `steps`' README way, as sent
 * and with the extended retention left out: what pauses cost without it.
 */
export function pauseLosses(
  steps: readonly RunStep[],
  count: (text: string) => number,
): { asSent: number; withoutRetention: number } {
  const requests = requestsOf(steps, "readme", wayFormFor("openai"));
  const without = requests.map((request) => {
    const { prompt_cache_retention: _dropped, ...body } = request
      .body as Record<string, unknown>;
    return { ...request, body };
  });
  const bound = bestLayoutTokens(requests, count).totals.boundTokens;
  const ratio = (list: readonly CacheRequest[]) =>
    cachedTokens(list, "openai", count) / bound;
  return { asSent: ratio(requests), withoutRetention: ratio(without) };
}
