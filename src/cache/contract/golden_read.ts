/**
 * A golden manifest's content read from an untrusted value (a parsed file,
 * or what a caller passed to `compareGoldenManifests`): every field's shape,
 * copied as it is read, then what `goldenManifest` always writes and a
 * comparison relies on. Pure.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../errors.ts";
import { compareCodeUnits } from "../../shared/util.ts";
import type {
  GoldenManifestEntry,
  GoldenManifestScope,
  GoldenManifestTier,
} from "./golden_types.ts";

/** `the global view` or `scope "NAME"`. */
export function describeScope(scope: string | null): string {
  return scope === null ? "the global view" : `scope ${JSON.stringify(scope)}`;
}

/**
 * Reads a manifest's `scopes`, copying what it reads: every field of its
 * shape, no other key (a scope's `deferred` only with `deferred`: a
 * version 1 file has none).
 *
 * @throws {SystemPromptError} `INVALID_MANIFEST` naming the field's path
 */
export function readGoldenScopes(
  value: unknown,
  { deferred = true }: { deferred?: boolean } = {},
): GoldenManifestScope[] {
  return array(value, "scopes").map((scope, index) =>
    readScope(scope, index, deferred)
  );
}

/**
 * Checks what `goldenManifest` always writes: each scope once, the global
 * view first and then the scopes in code-unit order; tiers in wire order
 * (tools, then system), a tier a run of one part and one stability; each
 * tool and section once per view; every `tokens` the sum of what it holds.
 *
 * @throws {SystemPromptError} `INVALID_MANIFEST` naming the field's path
 */
export function checkGoldenScopes(
  scopes: readonly GoldenManifestScope[],
): void {
  scopes.forEach((scope, index) => {
    const first = scopes.findIndex((other) => other.scope === scope.scope);
    if (first !== index) {
      throw invalid(
        `scopes[${index}] lists ${describeScope(scope.scope)} twice ` +
          `(scopes[${first}] is the same view)`,
      );
    }
    const previous = scopes[index - 1];
    if (previous !== undefined && !scopeBefore(previous.scope, scope.scope)) {
      throw invalid(
        `scopes[${index}] (${describeScope(scope.scope)}) comes after ` +
          `${describeScope(previous.scope)}: out of order (the global view ` +
          `first, then the scopes in code-unit order)`,
      );
    }
    checkScope(scope, `scopes[${index}]`);
  });
}

/** Whether `a` comes before `b` in a manifest (never equal here). */
function scopeBefore(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === null;
  return compareCodeUnits(a, b) < 0;
}

function checkScope(scope: GoldenManifestScope, path: string): void {
  const names = new Set<string>();
  scope.tiers.forEach((tier, at) => {
    const previous = scope.tiers[at - 1];
    if (
      previous !== undefined &&
      (previous.part === "system" && tier.part === "tools" ||
        previous.part === tier.part && previous.tier === tier.tier)
    ) {
      throw invalid(
        `${path}.tiers[${at}] (${tier.part}, ${tier.tier}) cannot follow ` +
          `${path}.tiers[${at - 1}] (${previous.part}, ${previous.tier}): ` +
          `tiers are in wire order (tools, then system), each a run of one ` +
          `part and one tier`,
      );
    }
    tier.entries.forEach((entry, n) => {
      const label = `${tier.part === "tools" ? "tool" : "section"}:` +
        entry.name;
      if (names.has(label)) {
        throw invalid(
          `${path}.tiers[${at}].entries[${n}] lists ${label} twice in the ` +
            `view`,
        );
      }
      names.add(label);
    });
    sumOf(tier.tokens, tier.entries, `${path}.tiers[${at}].tokens`, "entries'");
  });
  sumOf(scope.tokens, scope.tiers, `${path}.tokens`, "tiers'");
  if (scope.deferred?.length === 0) {
    throw invalid(
      `${path}.deferred is empty; a view without deferred tools has no ` +
        `"deferred"`,
    );
  }
  scope.deferred?.forEach((entry, n) => {
    const label = `tool:${entry.name}`;
    if (names.has(label)) {
      throw invalid(
        `${path}.deferred[${n}] lists ${label}, which the view already ` +
          `lists or defers`,
      );
    }
    names.add(label);
  });
}

/** `tokens` must be what `parts` add up to. */
function sumOf(
  tokens: number,
  parts: readonly { tokens: number }[],
  path: string,
  what: string,
): void {
  const sum = parts.reduce((total, part) => total + part.tokens, 0);
  if (sum !== tokens) {
    throw invalid(
      `${path} is ${tokens}, but its ${what} tokens add up to ${sum}`,
    );
  }
}

function readScope(
  value: unknown,
  index: number,
  deferred: boolean,
): GoldenManifestScope {
  const path = `scopes[${index}]`;
  const scope = object(value, path);
  const withDeferred = deferred && Object.hasOwn(scope, "deferred");
  keys(
    scope,
    withDeferred
      ? ["scope", "tokens", "tiers", "deferred"]
      : ["scope", "tokens", "tiers"],
    path,
  );
  if (scope.scope !== null && typeof scope.scope !== "string") {
    throw invalid(`${path}.scope is ${quote(scope.scope)}; a name or null`);
  }
  const read: GoldenManifestScope = {
    scope: scope.scope,
    tokens: count(scope.tokens, `${path}.tokens`),
    tiers: array(scope.tiers, `${path}.tiers`).map((tier, at) =>
      readTier(tier, `${path}.tiers[${at}]`)
    ),
  };
  if (withDeferred) {
    read.deferred = array(scope.deferred, `${path}.deferred`).map((
      entry,
      at,
    ) => readEntry(entry, `${path}.deferred[${at}]`));
  }
  return read;
}

function readTier(value: unknown, path: string): GoldenManifestTier {
  const tier = object(value, path);
  keys(tier, ["part", "tier", "tokens", "entries"], path);
  if (tier.part !== "tools" && tier.part !== "system") {
    throw invalid(`${path}.part is ${quote(tier.part)}; "tools" or "system"`);
  }
  if (tier.tier !== "stable" && tier.tier !== "agent") {
    throw invalid(`${path}.tier is ${quote(tier.tier)}; "stable" or "agent"`);
  }
  return {
    part: tier.part,
    tier: tier.tier,
    tokens: count(tier.tokens, `${path}.tokens`),
    entries: array(tier.entries, `${path}.entries`).map((entry, at) =>
      readEntry(entry, `${path}.entries[${at}]`)
    ),
  };
}

function readEntry(value: unknown, path: string): GoldenManifestEntry {
  const entry = object(value, path);
  keys(entry, ["registrar", "name", "sha256", "tokens"], path);
  for (const key of ["registrar", "name"] as const) {
    if (typeof entry[key] !== "string") {
      throw invalid(`${path}.${key} is ${quote(entry[key])}; a string`);
    }
  }
  if (
    typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(entry.sha256)
  ) {
    throw invalid(`${path}.sha256 is ${quote(entry.sha256)}; 64 hex digits`);
  }
  return {
    registrar: entry.registrar as string,
    name: entry.name as string,
    sha256: entry.sha256,
    tokens: count(entry.tokens, `${path}.tokens`),
  };
}

/** `value` as an object, else `INVALID_MANIFEST` naming `path`. */
export function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(`${path} is ${quote(value)}; an object`);
  }
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) {
    throw invalid(`${path} is ${quote(value)}; an array`);
  }
  return value;
}

function count(value: unknown, path: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw invalid(`${path} is ${quote(value)}; a whole number of tokens`);
  }
  return value as number;
}

/** `value` has exactly the keys `expected`, else `INVALID_MANIFEST`. */
export function keys(
  value: Record<string, unknown>,
  expected: readonly string[],
  path: string,
): void {
  const extra = Object.keys(value).find((key) => !expected.includes(key));
  const missing = expected.find((key) => !Object.hasOwn(value, key));
  if (extra !== undefined || missing !== undefined) {
    throw invalid(
      `${path} ${
        extra !== undefined
          ? `has an unknown key ${JSON.stringify(extra)}`
          : `has no ${JSON.stringify(missing)}`
      }; its keys are ${expected.join(", ")}`,
    );
  }
}

/** An `INVALID_MANIFEST` error. */
export function invalid(message: string): SystemPromptError {
  return new SystemPromptError("INVALID_MANIFEST", message);
}
