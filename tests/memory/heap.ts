/**
 * Heap measurement for the memory tests: a settled heap after collection,
 * and the reason to skip where no collectable V8 heap is available.
 */

import process from "node:process";

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Why a test of heap `what` (e.g. "heap slopes") is skipped here, or `false`:
 * it runs on V8 (Deno, Node) with an exposed `gc()` only.
 */
export function heapSkip(what: string): string | false {
  return "Bun" in globalThis
    ? `${what} are checked on V8 (Deno, Node), not on Bun's JavaScriptCore`
    : typeof gc !== "function"
    ? "needs an exposed gc(): run with --v8-flags=--expose-gc (Deno) or " +
      "NODE_OPTIONS=--expose-gc (Node; Node 24's --test does not pass " +
      "--expose-gc on to the test files)"
    : false;
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Heap used after three collections, each after a macrotask. */
export async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await macrotask();
    gc!();
  }
  return process.memoryUsage().heapUsed;
}
