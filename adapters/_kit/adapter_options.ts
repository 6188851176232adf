/**
 * The options every stateless adapter reads the same way: an options
 * object read once (a getter or Proxy that throws named), `gating`, the
 * active tools, and the cache marks' shapes.
 * Internal: not a subpath export.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote, readGuarded } from "../../src/errors.ts";
import type { AdapterInput } from "./assembly_input.ts";

/** Anthropic's cache marker, checked from the `cache` option. */
export type CacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" };

/** Bedrock's cache point (`CachePointBlock`). */
export type CachePoint = { type: "default"; ttl?: "5m" | "1h" };

/**
 * Bedrock's cache point for the marker the `cache` option asked for: the
 * same lifetime, or none.
 */
export function cachePointOf(control: CacheControl): CachePoint {
  return control.ttl === undefined
    ? { type: "default" }
    : { type: "default", ttl: control.ttl };
}

/**
 * The adapter's options, checked to be an object (or absent), with each of
 * `keys` read once. What a getter or Proxy throws is `INVALID_CONFIG` naming
 * `adapter`, with the thrown value as `cause`.
 */
export function readOptions<K extends string>(
  options: unknown,
  adapter: string,
  keys: readonly K[],
): Partial<Record<K, unknown>> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${adapter}'s options must be an object; got ${quote(options)}.`,
    );
  }
  return readingOptions(() => {
    const read: Partial<Record<K, unknown>> = {};
    for (const key of keys) read[key] = (options as Record<K, unknown>)[key];
    return read;
  }, `${adapter} could not read its options`);
}

/**
 * `read()`, where what a getter or Proxy of the options throws becomes
 * `INVALID_CONFIG` with `what` and the thrown value as `cause`.
 */
export function readingOptions<T>(read: () => T, what: string): T {
  return readGuarded(
    read,
    "INVALID_CONFIG",
    () =>
      `${what} (a getter or Proxy threw); pass plain options, such as ` +
      `{ cache: true }.`,
  );
}

/**
 * The names the gates left active, among the assembly's tools, or
 * `undefined` when the assembly has no `activeTools` (every tool active).
 */
export function activeNamesOf(
  input: AdapterInput,
): ReadonlySet<string> | undefined {
  return input.activeTools === undefined
    ? undefined
    : new Set(input.activeTools);
}

/**
 * Whether the `gating` option keeps inactive tools listed (`"keep"`) or
 * leaves them out (`"remove"`, the default); `INVALID_CONFIG` otherwise.
 */
export function gatingOf(gating: unknown): boolean {
  if (gating === undefined || gating === "remove") return false;
  if (gating === "keep") return true;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `gating is ${quote(gating)}; it must be "remove" (the default: inactive ` +
      `tools are left out) or "keep" (every tool stays listed, for the ` +
      `cache, and allowedTools names the active ones).`,
  );
}

/**
 * The names of `tools` that `active` allows, in tool order: what a
 * `gating: "keep"` request returns as `allowedTools`.
 */
export function allowedToolNames(
  tools: readonly { readonly name: string }[],
  active: ReadonlySet<string>,
): string[] {
  return tools.flatMap((tool) => active.has(tool.name) ? [tool.name] : []);
}
