/**
 * The types of the cache contract (SPEC 9.5): golden manifests, their
 * comparison, and what a child scope shares with its parent.
 *
 * @module
 */

import type { PromptExplanation } from "../../explain/explanation.ts";
import type { CountTokens } from "../simulator/types.ts";

/**
 * The format name a golden manifest carries.
 *
 * @example
 * ```ts
 * import { GOLDEN_MANIFEST_FORMAT } from "@rxprompt/system-prompt/cache";
 *
 * console.log(GOLDEN_MANIFEST_FORMAT); // "rxprompt-golden-manifest"
 * ```
 */
export const GOLDEN_MANIFEST_FORMAT = "rxprompt-golden-manifest";

/**
 * The newest format version this module writes and reads. Version 2 adds
 * each view's deferred tools (`GoldenManifestScope.deferred`); a manifest
 * with no deferred tools is written as version 1, byte for byte as before,
 * and version 1 files are read as they always were.
 *
 * @example
 * ```ts
 * import { GOLDEN_MANIFEST_VERSION } from "@rxprompt/system-prompt/cache";
 *
 * console.log(GOLDEN_MANIFEST_VERSION); // 2
 * ```
 */
export const GOLDEN_MANIFEST_VERSION = 2;

/**
 * One contributor's entry: a tool (its JSON) or a section (its rendered
 * text), hashed.
 *
 * @example
 * ```ts
 * import type { GoldenManifestEntry } from "@rxprompt/system-prompt/cache";
 *
 * const entry: GoldenManifestEntry = {
 *   registrar: "registry/files",
 *   name: "read_file",
 *   sha256: "0".repeat(64),
 *   tokens: 42,
 * };
 * ```
 */
export interface GoldenManifestEntry {
  /** The registrar label that contributed it (`listener` for a listener's). */
  registrar: string;
  /** The tool's or the section's name. */
  name: string;
  /** SHA-256 of the UTF-8 of the tool's JSON or the section's text, hex. */
  sha256: string;
  /** Its tokens, as the caller's counter counts them. */
  tokens: number;
}

/**
 * A run of entries of one part of the request (tools, or the system prompt)
 * and one tier, in wire order.
 *
 * @example
 * ```ts
 * import type { GoldenManifestTier } from "@rxprompt/system-prompt/cache";
 *
 * const tier: GoldenManifestTier = { part: "system", tier: "stable", tokens: 0, entries: [] };
 * ```
 */
export interface GoldenManifestTier {
  /** The request's tools, or its system prompt (tools come first). */
  part: "tools" | "system";
  /** The entries' stability (volatile ones are not in a manifest). */
  tier: "stable" | "agent";
  /** The sum of its entries' tokens. */
  tokens: number;
  /** Its tools or sections, in wire order. */
  entries: GoldenManifestEntry[];
}

/**
 * One view's manifest: its stable and agent tiers in wire order.
 *
 * @example
 * ```ts
 * import type { GoldenManifestScope } from "@rxprompt/system-prompt/cache";
 *
 * const view: GoldenManifestScope = { scope: null, tokens: 0, tiers: [] };
 * ```
 */
export interface GoldenManifestScope {
  /** The scope's name; `null` for the global view. */
  scope: string | null;
  /** The sum of its tiers' tokens. */
  tokens: number;
  /** Its tiers, in wire order. */
  tiers: GoldenManifestTier[];
  /**
   * Its deferred tools (`explain().deferredTools`), in canonical order,
   * whatever their stability: outside the cached prefix, so not in
   * `tokens`, and a change among them is no difference of the contract (a
   * tool moving between them and the tiers is). Absent when the view has
   * none (and then the manifest is version 1).
   */
  deferred?: GoldenManifestEntry[];
}

/**
 * A golden manifest: per scope, the cached tiers of the prompt (volatile
 * parts left out), contributor by contributor.
 *
 * @example
 * ```ts
 * import type { GoldenManifest } from "@rxprompt/system-prompt/cache";
 *
 * const empty: GoldenManifest = {
 *   format: "rxprompt-golden-manifest",
 *   version: 1,
 *   scopes: [],
 * };
 * ```
 */
export interface GoldenManifest {
  /** Always {@linkcode GOLDEN_MANIFEST_FORMAT}. */
  format: typeof GOLDEN_MANIFEST_FORMAT;
  /**
   * 2 ({@linkcode GOLDEN_MANIFEST_VERSION}) when a view has deferred
   * tools, else 1.
   */
  version: 1 | typeof GOLDEN_MANIFEST_VERSION;
  /** The global view first, then the scopes in code-unit order. */
  scopes: GoldenManifestScope[];
}

/**
 * One view to put in a manifest: its scope's name (`null` for the global
 * view) and what `prompt.explain(context)` resolved to for it.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import type { GoldenView } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt();
 * const view: GoldenView = { scope: null, explanation: await prompt.explain() };
 * await prompt.dispose();
 * ```
 */
export interface GoldenView {
  /** The scope's name; `null` for the global view. */
  scope: string | null;
  /** What `prompt.explain(context)` resolved to for that view. */
  explanation: PromptExplanation;
}

/**
 * Options of `goldenManifest`.
 *
 * @example
 * ```ts
 * import type { GoldenManifestOptions } from "@rxprompt/system-prompt/cache";
 *
 * const options: GoldenManifestOptions = { countTokens: (text) => Math.ceil(text.length / 4) };
 * ```
 */
export interface GoldenManifestOptions {
  /** Counts a text's tokens (the CLI uses `o200k_base`). */
  countTokens: CountTokens;
}

/**
 * What changed at a scope's first differing entry.
 *
 * @example
 * ```ts
 * import type { GoldenChange } from "@rxprompt/system-prompt/cache";
 *
 * const change: GoldenChange = "changed";
 * ```
 */
export type GoldenChange =
  | "changed"
  | "added"
  | "removed"
  | "moved"
  | "tier"
  | "contributor"
  | "scope added"
  | "scope removed";

/**
 * One scope whose cached tiers differ from the golden manifest: its first
 * differing entry, who contributed it, and what it costs.
 *
 * @example
 * ```ts
 * import type { GoldenDifference } from "@rxprompt/system-prompt/cache";
 *
 * const difference: GoldenDifference = {
 *   scope: "coder",
 *   entry: "section:rules",
 *   contributor: "registry/rules",
 *   change: "changed",
 *   rewriteTokens: 1200,
 *   message: 'scope "coder": section:rules of registry/rules changed',
 * };
 * ```
 */
export interface GoldenDifference {
  /** The scope's name; `null` for the global view. */
  scope: string | null;
  /** The first differing entry, `tool:NAME` or `section:NAME`; absent for a whole scope. */
  entry?: string;
  /** The registrar behind it: the current entry's, or the golden one's when it was removed. */
  contributor?: string;
  /** What changed there. */
  change: GoldenChange;
  /**
   * The tokens every later request writes to the cache again: the current
   * view's cached tiers from that entry on (the conversation after them
   * comes on top).
   */
  rewriteTokens: number;
  /**
   * The difference is a section changed, added or removed: a conversation
   * already running tells it inline, after its history (SPEC 10.1:
   * `changes: "inline"`, the default for sections), and writes none of
   * its prefix again; `rewriteTokens` is what new conversations (and
   * `changes: "rebuild"`) write. Absent otherwise.
   */
  inline?: true;
  /** One line that says all of it. */
  message: string;
}

/**
 * Options of `compareGoldenManifests`.
 *
 * @example
 * ```ts
 * import type { CompareGoldenOptions } from "@rxprompt/system-prompt/cache";
 *
 * const onlyCoder: CompareGoldenOptions = { scopes: ["coder"] };
 * ```
 */
export interface CompareGoldenOptions {
  /** Compare only these views (`null`: the global view); default all. */
  scopes?: readonly (string | null)[];
}

/** `sharedPrefix`'s options (`SharedPrefixOptions`, its provider an id). */
export interface SharedOptions {
  /** Whose caching rules decide where a shared prefix may end: a rules id. */
  provider: string;
  countTokens: CountTokens;
  minPrefixTokens?: number;
}

/**
 * Who contributed one side of a divergence.
 *
 * @example
 * ```ts
 * import type { SharedPrefixSide } from "@rxprompt/system-prompt/cache";
 *
 * const side: SharedPrefixSide = { entry: "section:persona", registrar: "registry/reviewer", tier: "agent" };
 * ```
 */
export interface SharedPrefixSide {
  /** `tool:NAME` or `section:NAME`. */
  entry: string;
  /** The registrar label that contributed it (`listener` for a listener's). */
  registrar: string;
  /** Its stability. */
  tier: "stable" | "agent" | "volatile";
}

/**
 * What a child's first request shares with its parent's.
 *
 * @example
 * ```ts
 * import type { SharedPrefix } from "@rxprompt/system-prompt/cache";
 *
 * const nothing: SharedPrefix = { tokens: 0, prefixTokens: 0, identicalTokens: 0 };
 * ```
 */
export interface SharedPrefix {
  /**
   * The tokens the child's first request can read from the cache its
   * parent's wrote: `prefixTokens`, or 0 below `minPrefixTokens`.
   */
  tokens: number;
  /**
   * The tokens of the longest identical prefix that ends where the
   * provider can cache (Anthropic: after a tool or a system block; OpenAI
   * explicit: after a system block, or as automatic caching; OpenAI
   * automatic: rounded down to 128 tokens).
   */
  prefixTokens: number;
  /** The tokens of the identical entries before the first divergence. */
  identicalTokens: number;
  /** The last entry of that prefix (where a fork's marker goes). */
  end?: string;
  /** The first entry that differs; absent when the two are identical. */
  divergence?: { parent?: SharedPrefixSide; child?: SharedPrefixSide };
}
