/**
 * Golden manifests (SPEC 9.5): per scope, the prompt's cached tiers in wire
 * order, contributor by contributor, hashed; and the comparison of two that
 * names the first differing entry, its contributor, and what it costs.
 * Pure.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../errors.ts";
import { sha256Hex } from "../../shared/sha256.ts";
import { callUserCode, describeError } from "../../shared/user_code.ts";
import { compareCodeUnits } from "../../shared/util.ts";
import {
  contractEntries,
  deferredContractEntries,
  entryLabel,
} from "./contract_entries.ts";
import {
  checkGoldenScopes,
  describeScope,
  readGoldenScopes,
} from "./golden_read.ts";
import {
  type CompareGoldenOptions,
  GOLDEN_MANIFEST_FORMAT,
  GOLDEN_MANIFEST_VERSION,
  type GoldenChange,
  type GoldenDifference,
  type GoldenManifest,
  type GoldenManifestEntry,
  type GoldenManifestOptions,
  type GoldenManifestScope,
  type GoldenManifestTier,
  type GoldenView,
} from "./golden_types.ts";

/**
 * The golden manifest of some views of a registry: for each, its stable and
 * agent tiers in wire order (the tools, then the system prompt's sections;
 * a tier is a run of entries of one part and one stability), each entry
 * its contributor (registrar label), name, SHA-256 of its provider-neutral
 * text (the tool's JSON, the section's rendered text) and tokens. Volatile
 * tools and sections are left out, and so is the runtime context: they may
 * change every step. The global view comes first, then the scopes in
 * code-unit order, so the manifest does not depend on the order the
 * registrations were made in or the views were listed.
 *
 * @param views each view's scope name (`null`: the global view) and what
 * `prompt.explain(context)` resolved to for it
 * @param options `countTokens`
 * @returns the manifest; {@linkcode formatGoldenManifest} writes it
 * @throws {SystemPromptError} `INVALID_CONFIG` for a scope listed twice or
 * a missing counter; `INVALID_ASSEMBLY` for a view that is not an
 * explanation; `PROVIDER_FAILED` naming the entry when `countTokens`
 * throws (its error as `cause`) or answers anything but a whole number of
 * tokens
 *
 * @example A manifest of the global view
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { goldenManifest } from "@rxprompt/system-prompt/cache";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.fork({ label: "rules" }).section({ name: "rules", order: 10, text: "Be brief." });
 * const manifest = goldenManifest(
 *   [{ scope: null, explanation: await prompt.explain() }],
 *   { countTokens: (text) => Math.ceil(text.length / 4) },
 * );
 * console.log(manifest.scopes[0].tiers.map((tier) => tier.entries.map((entry) => entry.registrar)));
 * // [["registry", "registry", "registry/rules"]]
 * await prompt.dispose();
 * ```
 */
export function goldenManifest(
  views: readonly GoldenView[],
  options: GoldenManifestOptions,
): GoldenManifest {
  const countTokens = options?.countTokens;
  if (typeof countTokens !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `goldenManifest needs options.countTokens, a function of a text; got ` +
        `${quote(countTokens)}.`,
    );
  }
  if (!Array.isArray(views)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `goldenManifest takes an array of { scope, explanation }; got ` +
        `${quote(views)}.`,
    );
  }
  const seen = new Set<string | null>();
  const scopes = views.map((view, index) => {
    const scope = view?.scope;
    if (scope !== null && typeof scope !== "string") {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `goldenManifest: view ${index}'s scope is ${quote(scope)}; a ` +
          `scope name (a string), or null for the global view.`,
      );
    }
    if (seen.has(scope)) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `goldenManifest: ${describeScope(scope)} is listed twice.`,
      );
    }
    seen.add(scope);
    return scopeManifest(scope, view.explanation, countTokens);
  });
  scopes.sort(byScope);
  return {
    format: GOLDEN_MANIFEST_FORMAT,
    // Version 1 says all that a manifest without deferred tools holds, and
    // keeps such a file's bytes what they always were.
    version: scopes.some((scope) => scope.deferred !== undefined)
      ? GOLDEN_MANIFEST_VERSION
      : 1,
    scopes,
  };
}

function scopeManifest(
  scope: string | null,
  explanation: GoldenView["explanation"],
  countTokens: (text: string) => number,
): GoldenManifestScope {
  const tiers: GoldenManifestTier[] = [];
  const what = `goldenManifest: ${describeScope(scope)}'s explanation`;
  for (const entry of contractEntries(explanation, what)) {
    if (entry.tier === "volatile") continue;
    const tokens = countEntry(
      countTokens,
      entry.text,
      () => `${entryLabel(entry)} of ${describeScope(scope)}`,
    );
    let last = tiers.at(-1);
    if (last?.part !== entry.part || last.tier !== entry.tier) {
      last = { part: entry.part, tier: entry.tier, tokens: 0, entries: [] };
      tiers.push(last);
    }
    last.tokens += tokens;
    last.entries.push({
      registrar: entry.registrar,
      name: entry.name,
      sha256: sha256Hex(entry.text),
      tokens,
    });
  }
  const tokens = tiers.reduce((sum, tier) => sum + tier.tokens, 0);
  const deferred = deferredContractEntries(explanation, what).map((entry) => ({
    registrar: entry.registrar,
    name: entry.name,
    sha256: sha256Hex(entry.text),
    tokens: countEntry(
      countTokens,
      entry.text,
      () => `deferred ${entryLabel(entry)} of ${describeScope(scope)}`,
    ),
  }));
  return deferred.length === 0
    ? { scope, tokens, tiers }
    : { scope, tokens, tiers, deferred };
}

/**
 * The counter on one entry's text, through the one path for user code:
 * what it throws, or an answer that is not a whole number of tokens, is
 * `PROVIDER_FAILED` naming the entry (a manifest of NaN tokens would hold
 * against any edit).
 */
function countEntry(
  countTokens: (text: string) => number,
  text: string,
  what: () => string,
): number {
  const tokens: unknown = callUserCode(
    countTokens,
    text,
    () => `token counter (countTokens) on ${what()}`,
  );
  if (Number.isSafeInteger(tokens) && (tokens as number) >= 0) {
    return tokens as number;
  }
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `goldenManifest: the token counter (countTokens) returned ` +
      `${quote(tokens)} for ${what()}; it must return a whole number of ` +
      `tokens, 0 or more.`,
  );
}

function byScope(a: GoldenManifestScope, b: GoldenManifestScope): number {
  if (a.scope === null || b.scope === null) {
    return a.scope === b.scope ? 0 : a.scope === null ? -1 : 1;
  }
  return compareCodeUnits(a.scope, b.scope);
}

/** An entry with its place in the wire order. */
interface Flat extends GoldenManifestEntry {
  part: GoldenManifestTier["part"];
  tier: GoldenManifestTier["tier"];
}

function flatten(scope: GoldenManifestScope): Flat[] {
  return scope.tiers.flatMap(({ part, tier, entries }) =>
    entries.map((entry) => ({ ...entry, part, tier }))
  );
}

/**
 * Compares a golden manifest with the current one, scope by scope: for each
 * view whose cached tiers differ, its first differing entry in wire order,
 * the contributor behind it (the current entry's registrar, or the golden
 * one's when it was removed), what changed (`changed` text, `added`,
 * `removed`, `moved` within the order, another `tier`, another
 * `contributor`, or a whole scope added or removed) and the tokens every
 * later request would write to the cache again (the current view's cached
 * tiers from that entry on). An empty array: the contract holds.
 *
 * @param golden the committed manifest (`parseGoldenManifest`)
 * @param current the manifest of the registry now (`goldenManifest`)
 * @param options `scopes`: compare only these views
 * @returns one difference per differing view, in the manifests' order
 * @throws {SystemPromptError} `INVALID_MANIFEST` for a side that is not a
 * manifest (a field of another shape, a getter that throws, a scope listed
 * twice or out of order, `tokens` that are not the sum of what they hold)
 *
 * @example A changed tool description fails, naming the plugin
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { compareGoldenManifests, goldenManifest } from "@rxprompt/system-prompt/cache";
 *
 * const countTokens = (text: string) => Math.ceil(text.length / 4);
 * async function manifestWith(description: string) {
 *   const prompt = new SystemPrompt();
 *   prompt.fork({ label: "shell" }).tools(() => ({
 *     schemas: [{ name: "shell", description, parameters: { type: "object" } }],
 *   }));
 *   const manifest = goldenManifest([{ scope: null, explanation: await prompt.explain() }], { countTokens });
 *   await prompt.dispose();
 *   return manifest;
 * }
 * const [difference] = compareGoldenManifests(
 *   await manifestWith("Run a command."),
 *   await manifestWith("Run a command (2026-12-05)."),
 * );
 * console.log(difference.entry, difference.contributor); // "tool:shell" "registry/shell"
 * ```
 */
export function compareGoldenManifests(
  golden: GoldenManifest,
  current: GoldenManifest,
  options: CompareGoldenOptions = {},
): GoldenDifference[] {
  const goldenScopes = readSide(golden, "golden");
  const currentScopes = readSide(current, "current");
  const only = options.scopes === undefined
    ? undefined
    : new Set(options.scopes);
  const before = new Map(goldenScopes.map((scope) => [scope.scope, scope]));
  const now = new Map(currentScopes.map((scope) => [scope.scope, scope]));
  const names = [...new Set([...before.keys(), ...now.keys()])]
    .filter((name) => only === undefined || only.has(name))
    .map((scope) => ({ scope, tokens: 0, tiers: [] }))
    .sort(byScope)
    .map(({ scope }) => scope);
  const differences: GoldenDifference[] = [];
  for (const scope of names) {
    const difference = compareScope(scope, before.get(scope), now.get(scope));
    if (difference !== undefined) differences.push(difference);
  }
  return differences;
}

/**
 * One side's scopes, read whole (a copy): a value of another shape, a
 * getter that throws or a revoked Proxy is `INVALID_MANIFEST`, never a raw
 * error.
 */
function readSide(
  manifest: GoldenManifest,
  side: "golden" | "current",
): GoldenManifestScope[] {
  const what = `compareGoldenManifests: the ${side} manifest`;
  const advice = "pass what goldenManifest or parseGoldenManifest returned.";
  if (typeof manifest !== "object" || manifest === null) {
    throw new SystemPromptError(
      "INVALID_MANIFEST",
      `${what} is ${quote(manifest)}; ${advice}`,
    );
  }
  try {
    const scopes = readGoldenScopes(manifest.scopes);
    checkGoldenScopes(scopes);
    return scopes;
  } catch (error) {
    if (error instanceof SystemPromptError) {
      throw new SystemPromptError(
        "INVALID_MANIFEST",
        `${what}: ${error.message}; ${advice}`,
      );
    }
    throw new SystemPromptError(
      "INVALID_MANIFEST",
      `${what} could not be read: ${describeError(error)}; ${advice}`,
      { cause: error },
    );
  }
}

function compareScope(
  scope: string | null,
  golden: GoldenManifestScope | undefined,
  current: GoldenManifestScope | undefined,
): GoldenDifference | undefined {
  const where = describeScope(scope);
  if (golden === undefined || current === undefined) {
    const change = golden === undefined ? "scope added" : "scope removed";
    const rewriteTokens = current?.tokens ?? 0;
    return {
      scope,
      change,
      rewriteTokens,
      message: golden === undefined
        ? `${where} is not in the golden manifest (${rewriteTokens} tokens ` +
          `of cached tiers); add it with --update`
        : `${where} is in the golden manifest but no longer checked`,
    };
  }
  const was = flatten(golden);
  const is = flatten(current);
  let index = 0;
  while (
    index < was.length && index < is.length && same(was[index], is[index])
  ) index++;
  if (index === was.length && index === is.length) return undefined;
  const rewriteTokens = is.slice(index).reduce(
    (sum, entry) => sum + entry.tokens,
    0,
  );
  const { change, entry, text } = describeChange(was, is, {
    index,
    deferred: { was: deferredNames(golden), is: deferredNames(current) },
  });
  // A running conversation tells a section's change after its history
  // (SPEC 10.1); its head, and so its cache, stays.
  const inline = entry.part === "system" &&
    (change === "changed" || change === "added" || change === "removed");
  return {
    scope,
    entry: entryLabel(entry),
    contributor: entry.registrar,
    change,
    rewriteTokens,
    ...(inline ? { inline } : {}),
    message: `${where}: ${text}; every later request writes ${rewriteTokens} ` +
      `token${rewriteTokens === 1 ? "" : "s"} of its cached tiers again${
        inline
          ? " (a conversation already running tells the change inline " +
            "and writes none of it again)"
          : ""
      }`,
  };
}

/** The names of a view's deferred tools. */
function deferredNames(scope: GoldenManifestScope): ReadonlySet<string> {
  return new Set((scope.deferred ?? []).map((entry) => entry.name));
}

function same(a: Flat, b: Flat): boolean {
  return a.part === b.part && a.name === b.name && a.sha256 === b.sha256 &&
    a.tier === b.tier && a.registrar === b.registrar;
}

/**
 * What changed at `index` of two views' flattened tiers; a tool that left
 * the tiers for the view's deferred tools (or came from them) is said so.
 */
function describeChange(
  was: readonly Flat[],
  is: readonly Flat[],
  { index, deferred }: {
    index: number;
    deferred: {
      readonly was: ReadonlySet<string>;
      readonly is: ReadonlySet<string>;
    };
  },
): { change: GoldenChange; entry: Flat; text: string } {
  const before = was[index];
  const now = is[index];
  const named = (entry: Flat) =>
    `${entryLabel(entry)} (${entry.tier} tier) of ${entry.registrar}`;
  const gone = (entry: Flat) =>
    entry.part === "tools" && deferred.is.has(entry.name)
      ? `${named(entry)} is now deferred (listed apart from the cached prefix)`
      : `${named(entry)} is gone`;
  const came = (entry: Flat) =>
    entry.part === "tools" && deferred.was.has(entry.name)
      ? `${named(entry)} was deferred and is now listed`
      : `${named(entry)} was added`;
  if (now === undefined) {
    return { change: "removed", entry: before, text: gone(before) };
  }
  if (before === undefined) {
    return { change: "added", entry: now, text: came(now) };
  }
  const key = (entry: Flat) => `${entry.part}:${entry.name}`;
  if (key(before) === key(now)) {
    if (before.sha256 !== now.sha256) {
      return {
        change: "changed",
        entry: now,
        text: `${named(now)} changed (${
          now.part === "tools" ? "its JSON" : "its text"
        }: ${before.tokens} tokens, now ${now.tokens})`,
      };
    }
    if (before.tier !== now.tier) {
      return {
        change: "tier",
        entry: now,
        text: `${entryLabel(now)} of ${now.registrar} moved from the ` +
          `${before.tier} tier to the ${now.tier} tier`,
      };
    }
    return {
      change: "contributor",
      entry: now,
      text: `${entryLabel(now)} is now contributed by ${now.registrar} ` +
        `(was ${before.registrar})`,
    };
  }
  const wasNames = new Set(was.map(key));
  const isNames = new Set(is.map(key));
  if (!wasNames.has(key(now))) {
    return {
      change: "added",
      entry: now,
      text: `${came(now)} before ${entryLabel(before)}`,
    };
  }
  if (!isNames.has(key(before))) {
    return {
      change: "removed",
      entry: before,
      text: `${gone(before)} (${entryLabel(now)} now comes there)`,
    };
  }
  return {
    change: "moved",
    entry: now,
    text: `the order changed: ${named(now)} now comes where ` +
      `${entryLabel(before)} was`,
  };
}
