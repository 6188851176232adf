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
  SharedPrefix,
  SharedPrefixOptions,
  SharedPrefixSide,
} from "./golden_types.ts";
import type { ProviderRules } from "../simulator/rules.ts";
import { CACHE_PROVIDERS, rulesNamed } from "../simulator/rule_table.ts";

/**
 * The tokens a child's first request shares with its parent's, under one
 * provider's rules, and where they first differ.
 *
 * Both requests are read in wire order as provider-neutral entries: each
 * tool's JSON, then each non-empty section's rendered text (the figures
 * are an estimate: the provider's own framing is not counted). The shared
 * prefix is the longest run of identical entries that ends where the
 * provider can cache: on Anthropic after a tool or at the end of a system
 * block (where a marker can go; `renderPromptBlocks` cuts them); on OpenAI
 * explicit at the end of a system block, or as the automatic rule, which
 * rounds the identical tokens down to a multiple of 128. Below
 * `minPrefixTokens` (default 1024) nothing is cached. The divergence names
 * the first differing entry on each side and its registrar: a child whose
 * prompt differs at the first entry reuses nothing.
 *
 * @param parent what `prompt.explain({ scope: parent })` resolved to
 * @param child what `prompt.explain({ scope: child })` resolved to
 * @param options `provider`, `countTokens`, `minPrefixTokens`
 * @returns the shared tokens, the prefix they end at, and the divergence
 * @throws {SystemPromptError} `INVALID_CONFIG` for a bad option;
 * `INVALID_ASSEMBLY` for a side that is not an explanation
 *
 * @example A sub-agent with its own persona shares the stable tools and identity
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { sharedPrefix } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt();
 * prompt.fork({ label: "files" }).tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
 * }));
 * prompt.scope("coder").section({ name: "persona", order: -10, text: "You write code." });
 * prompt.scope("reviewer").section({ name: "persona", order: -10, text: "You review code." });
 * const shared = sharedPrefix(
 *   await prompt.explain({ scope: "coder" }),
 *   await prompt.explain({ scope: "reviewer" }),
 *   { provider: "anthropic", countTokens: (text) => text.length, minPrefixTokens: 0 },
 * );
 * console.log(shared.end, shared.divergence?.child?.entry); // "section:harness:identity" "section:persona"
 * await prompt.dispose();
 * ```
 */
export function sharedPrefix(
  parent: PromptExplanation,
  child: PromptExplanation,
  options: SharedPrefixOptions,
): SharedPrefix {
  const { rules, countTokens, minimum } = readOptions(options);
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

function readOptions(options: SharedPrefixOptions): {
  rules: ProviderRules;
  countTokens: SharedPrefixOptions["countTokens"];
  minimum: number;
} {
  const provider = options?.provider;
  const rules = rulesNamed(provider);
  if (rules === undefined) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `sharedPrefix's provider is ${quote(provider)}; one of ${
        CACHE_PROVIDERS.map((name) => JSON.stringify(name)).join(", ")
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
