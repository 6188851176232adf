/**
 * The growth of `simulateCache`'s cost with the requests, in process CPU
 * time (less sensitive than wall time to other processes on a shared
 * machine): the sessions of `tests/bench/cache_bench.ts` at 250 and 1,000
 * requests, the fastest of five rounds each after a forced collection, and
 * the exponent `log(t1000 / t250) / log 4` (1 is linear; the goal is ≤ 1.1).
 *
 * ```sh
 * deno run --allow-env --v8-flags=--expose-gc,--single-threaded-gc scripts/bench_cache_scale.ts
 * ```
 *
 * @module
 */

import process from "node:process";
import { type CacheProvider, simulateCache } from "../adapters/cache/mod.ts";
import { session } from "../tests/bench/cache_bench.ts";

const count = (text: string): number => Math.ceil(text.length / 4);
const SIZES = [250, 1_000];
const ROUNDS = 5;

for (const provider of ["anthropic", "openai", "openai-explicit"] as const) {
  const fastest = SIZES.map(() => Infinity);
  for (let round = 0; round < ROUNDS; round++) {
    SIZES.forEach((size, index) => {
      fastest[index] = Math.min(fastest[index], cpuMs(size, provider));
    });
  }
  const exponent = Math.log(fastest[1] / fastest[0]) / Math.log(4);
  console.log(
    `${provider.padEnd(15)} ${SIZES[0]} requests ${
      fastest[0].toFixed(0)
    } ms, ` +
      `${SIZES[1]} requests ${fastest[1].toFixed(0)} ms (CPU): exponent ` +
      exponent.toFixed(2),
  );
}

function cpuMs(size: number, provider: CacheProvider): number {
  const requests = session(size, provider);
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.cpuUsage();
  simulateCache(requests, { provider, countTokens: count });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
