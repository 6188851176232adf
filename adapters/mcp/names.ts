/**
 * MCP tool names → names every wire adapter accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`), one-to-one. Pure.
 *
 * @module
 */

import { compareCodeUnits } from "../../src/shared/util.ts";

/** The longest tool name the OpenAI and Anthropic APIs accept. */
export const MAX_TOOL_NAME = 64;

const OUTSIDE = /[^a-zA-Z0-9_-]/gu;

/**
 * One wire name per entry of `names` (same positions): `prefix` + the name
 * with every character outside `[a-zA-Z0-9_-]` replaced by `_`, cut to 64
 * code units. A collision gets a numeric suffix (`_2`, `_3`, …). Names that
 * need no change claim theirs first, then the others in code-unit order, so
 * the mapping does not depend on the server's listing order.
 */
export function wireNames(
  names: readonly string[],
  prefix: string,
): string[] {
  const wanted = names.map((name) => candidate(prefix, name));
  const order = names.map((_, index) => index).sort((a, b) => {
    const aKept = wanted[a] === prefix + names[a];
    const bKept = wanted[b] === prefix + names[b];
    if (aKept !== bKept) return aKept ? -1 : 1;
    return compareCodeUnits(names[a], names[b]) || a - b;
  });
  const taken = new Set<string>();
  const result: string[] = new Array(names.length);
  for (const index of order) {
    const name = free(wanted[index], taken);
    taken.add(name);
    result[index] = name;
  }
  return result;
}

function candidate(prefix: string, name: string): string {
  const wire = (prefix + name.replace(OUTSIDE, "_")).slice(0, MAX_TOOL_NAME);
  return wire === "" ? "_" : wire;
}

function free(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let suffix = 2;; suffix++) {
    const tail = `_${suffix}`;
    const name = wanted.slice(0, MAX_TOOL_NAME - tail.length) + tail;
    if (!taken.has(name)) return name;
  }
}
