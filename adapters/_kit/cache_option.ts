/**
 * The options every adapter and form reads the same way against its
 * provider's rules: `cache` (the lifetime of the marks it asks for) and
 * `maxCacheBreakpoints` (how many marks the prefix may take). One reader
 * each, the messages naming the rules' own lifetimes and limits.
 * Internal: not a subpath export.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type { ProviderRules } from "../../src/cache/simulator/rules.ts";
import { isJsonObject } from "./assembly_input.ts";
import { readingOptions } from "./adapter_options.ts";

/**
 * The lifetime the `cache` option asks for: `undefined` for no caching,
 * `{}` for the marks' default lifetime, `{ ttl }` for one of `rules`'.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for any other value
 */
export function cacheOption(
  cache: unknown,
  rules: ProviderRules,
): { ttl?: string } | undefined {
  if (cache === undefined || cache === false) return undefined;
  if (cache === true) return {};
  const ttl = readingOptions(
    () => isJsonObject(cache) ? cache.ttl : undefined,
    "could not read the cache option's ttl",
  );
  const labels = rules.marks?.ttls.map((known) => known.label) ?? [];
  if (typeof ttl === "string" && labels.includes(ttl)) return { ttl };
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `cache is ${quote(cache)}${
      typeof cache === "object" && cache !== null
        ? ` with ttl ${quote(ttl)}`
        : ""
    }; it must be true, false, or ${
      labels.map((label) => `{ ttl: "${label}" }`).join(" / ")
    }.`,
  );
}

/**
 * How many marks the `maxCacheBreakpoints` option lets the prefix (tools
 * and system) take, checked: an integer from 0 to `rules`' maximum, its
 * default when absent.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for any other value
 */
export function prefixMarkLimit(value: unknown, rules: ProviderRules): number {
  const { default: fallback, max } = rules.marks!.prefix;
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 0 ||
    value > max
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `maxCacheBreakpoints is ${quote(value)}; it must be an integer from 0 ` +
        `to ${max} (the API allows ${max} per request; the default, ` +
        `${fallback}, leaves room for the conversation).`,
    );
  }
  return value;
}
