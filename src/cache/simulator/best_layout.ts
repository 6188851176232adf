/**
 * `bestLayoutTokens`: the upper bound of what any layout could have cached
 * (SPEC 8.8, 8.13 point 7): per request, the tokens of the content units
 * unchanged since the previous request of the same thread, as if they came
 * first. Units are each tool, each system block split at blank lines (the
 * section separator, so a section or runtime-context entry is one unit),
 * and each message content block. A thread's first request is compared
 * with the session's previous request.
 *
 * @module
 */

import { bodyError, kind, type ParsedBody } from "./blocks.ts";
import type { ProviderRules } from "./rules.ts";
import { memoised } from "./prefixes.ts";
import { guarded, readList, readRequest } from "./simulate.ts";
import type {
  BestLayout,
  BestLayoutRequest,
  CacheRequest,
  CountTokens,
} from "./types.ts";
import { SystemPromptError } from "../../errors.ts";
import { TextMap } from "../../shared/text_map.ts";

interface Unit {
  /** The unit's content, numbered: equal contents, equal numbers. */
  readonly key: number;
  readonly tokens: number;
  readonly prompt: boolean;
}

/**
 * The best-layout bound (`bestLayoutTokens` of `./cache`, which gives the
 * rules a body of unknown provider is read with, most particular first).
 */
export function bestLayoutOf(
  requests: readonly CacheRequest[],
  countTokens: CountTokens,
  bodyOrder: readonly ProviderRules[],
): BestLayout {
  if (typeof countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `countTokens is not a function; expected (text) => a non-negative integer`,
    );
  }
  const list = readList(requests, "bestLayoutTokens");
  const count = memoised(countTokens);
  // Units are compared by number: a map keyed by their long texts would
  // chain them (V8 hashes a long string by its length alone).
  const numbers = new TextMap<number>();
  /** Unit number → its tokens. */
  const tokens: number[] = [];
  const lastOfThread = new Map<string, Map<number, number>>();
  let previousUnits: Map<number, number> | undefined;
  let previousTime: number | undefined;
  const results: BestLayoutRequest[] = [];
  list.forEach((request, at) => {
    const { units, thread, time } = guarded(at, () => {
      const { body, thread, time } = readRequest(request, previousTime);
      return {
        units: unitsOf(body, { count, numbers, tokens, bodyOrder }),
        thread: thread ?? "",
        time,
      };
    });
    previousTime = time;
    const before = new Map(lastOfThread.get(thread) ?? previousUnits ?? []);
    const result: BestLayoutRequest = {
      inputTokens: 0,
      boundTokens: 0,
      promptTokens: 0,
      promptBoundTokens: 0,
    };
    const now = new Map<number, number>();
    for (const unit of units) {
      now.set(unit.key, (now.get(unit.key) ?? 0) + 1);
      result.inputTokens += unit.tokens;
      if (unit.prompt) result.promptTokens += unit.tokens;
      const left = before.get(unit.key) ?? 0;
      if (left === 0) continue;
      before.set(unit.key, left - 1);
      result.boundTokens += unit.tokens;
      if (unit.prompt) result.promptBoundTokens += unit.tokens;
    }
    lastOfThread.set(thread, now);
    previousUnits = now;
    results.push(result);
  });
  const totals: BestLayoutRequest = {
    inputTokens: 0,
    boundTokens: 0,
    promptTokens: 0,
    promptBoundTokens: 0,
  };
  for (const result of results) {
    totals.inputTokens += result.inputTokens;
    totals.boundTokens += result.boundTokens;
    totals.promptTokens += result.promptTokens;
    totals.promptBoundTokens += result.promptBoundTokens;
  }
  return { requests: results, totals };
}

function unitsOf(
  body: unknown,
  { count, numbers, tokens, bodyOrder }: {
    count: CountTokens;
    numbers: TextMap<number>;
    tokens: number[];
    bodyOrder: readonly ProviderRules[];
  },
): Unit[] {
  const units: Unit[] = [];
  // A unit's text follows from its key: counted once per number.
  const unit = (key: string, text: string, prompt: boolean): Unit => {
    let number = numbers.get(key);
    if (number === undefined) {
      number = numbers.size;
      numbers.set(key, number);
      tokens.push(count(text));
    }
    return { key: number, tokens: tokens[number], prompt };
  };
  for (const block of anyBody(body, bodyOrder).blocks) {
    if (block.part !== "system") {
      units.push(
        unit(
          `${block.part}\u0000${block.key}`,
          block.text,
          block.part === "tools",
        ),
      );
      continue;
    }
    // Each piece keeps its trailing blank line: the pieces add up to the text.
    for (const piece of block.text.split(/(?<=\n\n)/)) {
      units.push(unit(`system\u0000${piece}`, piece, true));
    }
  }
  return units;
}

/**
 * A body of any accepted shape (the bound has no provider): read with the
 * first rules, most particular first, that claim it.
 */
function anyBody(
  body: unknown,
  bodyOrder: readonly ProviderRules[],
): ParsedBody {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw bodyError(
      `the body is ${kind(body)}; expected a Messages, Chat Completions, ` +
        `Responses, Converse or generateContent request body (an object)`,
    );
  }
  const record = body as Record<string, unknown>;
  const rules = bodyOrder.find((rules) => rules.claimsBody(record))!;
  return rules.readBody(record);
}
