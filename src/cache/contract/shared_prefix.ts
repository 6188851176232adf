/**
 * `sharedPrefix` (SPEC 9.5): what a child scope's first request can read
 * from the cache its parent's request wrote, and the first divergence,
 * named by contributor. Pure.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../errors.ts";
import type { PromptExplanation } from "../../explain/explanation.ts";
import { renderPromptBlocks } from "../../render/blocks.ts";
import {
  contractEntries,
  type ContractEntry,
  entryLabel,
} from "./contract_entries.ts";
import type {
  SharedOptions,
  SharedPrefix,
  SharedPrefixSide,
} from "./golden_types.ts";
import type { ProviderRules, RuleTable } from "../simulator/rules.ts";

/**
 * What a child's first request shares with its parent's under `table`'s
 * provider (`sharedPrefix` of `./cache`, which gives the table).
 */
export function sharedPrefixWith(
  parent: PromptExplanation,
  child: PromptExplanation,
  options: SharedOptions,
  table: RuleTable,
): SharedPrefix {
  const { rules, countTokens, minimum } = readOptions(options, table);
  const before = contractEntries(parent, "sharedPrefix's parent");
  const after = contractEntries(child, "sharedPrefix's child");
  let index = 0;
  while (
    index < before.length && index < after.length &&
    sameEntry(before[index], after[index])
  ) index++;
  // The tokens before each boundary k (after the first k entries).
  const sums = [0];
  for (let k = 0; k < index; k++) {
    sums.push(sums[k] + countTokens(before[k].text));
  }
  const identicalTokens = sums[index];
  const parentEnds = blockEnds(parent);
  const childEnds = blockEnds(child);
  const markable = (k: number, tools: boolean) => {
    const entry = before[k - 1];
    return entry.part === "tools"
      ? tools
      : parentEnds.has(entry.name) && childEnds.has(entry.name);
  };
  let boundary = 0;
  if (rules.reads !== "automatic") {
    for (let k = index; k > 0; k--) {
      // Some marks go on tools; OpenAI's explicit marks on text only.
      if (markable(k, rules.marks?.onTools === true)) {
        boundary = k;
        break;
      }
    }
  }
  let prefixTokens = sums[boundary];
  if (rules.automatic !== undefined) {
    const step = rules.automatic.stepTokens;
    const automatic = Math.floor(identicalTokens / step) * step;
    if (automatic > prefixTokens) {
      prefixTokens = automatic;
      // The last whole entry within the rounded prefix.
      boundary = index;
      while (boundary > 0 && sums[boundary] > automatic) boundary--;
    }
  }
  const result: SharedPrefix = {
    tokens: prefixTokens >= minimum ? prefixTokens : 0,
    prefixTokens,
    identicalTokens,
  };
  if (prefixTokens > 0 && boundary > 0) {
    result.end = entryLabel(before[boundary - 1]);
  }
  if (index < before.length || index < after.length) {
    result.divergence = {
      ...side("parent", before[index]),
      ...side("child", after[index]),
    };
  }
  return result;
}

function side(
  key: "parent" | "child",
  entry: ContractEntry | undefined,
): { parent?: SharedPrefixSide; child?: SharedPrefixSide } {
  if (entry === undefined) return {};
  return {
    [key]: {
      entry: entryLabel(entry),
      registrar: entry.registrar,
      tier: entry.tier,
    },
  };
}

function sameEntry(a: ContractEntry, b: ContractEntry): boolean {
  return a.part === b.part && a.name === b.name && a.text === b.text;
}

/** The names of the sections that end a system block. */
function blockEnds(explanation: PromptExplanation): Set<string> {
  return new Set(
    renderPromptBlocks(explanation.assembly).map((block) =>
      block.sections.at(-1)!
    ),
  );
}

function readOptions(options: SharedOptions, table: RuleTable): {
  rules: ProviderRules;
  countTokens: SharedOptions["countTokens"];
  minimum: number;
} {
  const provider = options?.provider;
  const rules = table.named(provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `sharedPrefix's provider is ${quote(provider)}; one of ${
        table.ids.map((name) => JSON.stringify(name)).join(", ")
      }.`,
    );
  }
  const countTokens = options.countTokens;
  if (typeof countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `sharedPrefix needs options.countTokens, a function of a text; got ` +
        `${quote(countTokens)}.`,
    );
  }
  const minimum = options.minPrefixTokens ?? rules.minPrefixTokens;
  if (!Number.isSafeInteger(minimum) || minimum < 0) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `sharedPrefix's minPrefixTokens is ${
        quote(minimum)
      }; a whole number of tokens (default ${rules.minPrefixTokens}).`,
    );
  }
  return { rules, countTokens, minimum };
}
