/**
 * Benchmarks of `simulateCache` (run with `deno bench tests/bench/`): a
 * session of 250, 500 and 1,000 requests of about 50,000 tokens each on
 * average (ten tools and a system prompt of three blocks, 9,000 tokens,
 * then a conversation that grows by a user and an assistant turn of about
 * 500 tokens per request and is compacted into a summary every 80
 * requests, at about 80,000 tokens), under each provider's rules. Each
 * distinct block is counted once; the time per request should stay flat
 * (linear growth: exponent ≤ 1.1 between 250 and 1,000 requests).
 */

import { type CacheProvider, simulateCache } from "../../adapters/cache/mod.ts";

const CYCLE = 80;
const count = (text: string): number => Math.ceil(text.length / 4);

function turn(n: number): string {
  return `Turn ${n}: ` + "the build fails on the second retry; ".repeat(52);
}

/** `length` requests of one session, built for `provider`. */
export function session(
  length: number,
  provider: CacheProvider,
): { body: unknown }[] {
  const tools = Array.from({ length: 10 }, (_, n) => ({
    name: `tool_${n}`,
    description: "Does one thing well. ".repeat(40),
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  }));
  const system = [0, 1, 2].map((n) =>
    `Section ${n}. ` + "Follow the rules. ".repeat(520)
  );
  const turns = Array.from({ length: length * 2 }, (_, n) => turn(n));
  const marker = { type: "ephemeral" };
  return Array.from({ length }, (_, step) => {
    const start = step - (step % CYCLE);
    const window = [
      `Summary of turns 0 to ${start * 2}: ` +
      "we fixed the retry loop. ".repeat(80),
      ...turns.slice(start * 2, step * 2 + 1),
    ];
    const last = window.length - 1;
    if (provider === "anthropic") {
      return {
        body: {
          tools: tools.map((tool, n) =>
            n === 9 ? { ...tool, cache_control: marker } : tool
          ),
          system: system.map((text, n) =>
            n === 2
              ? { type: "text", text, cache_control: marker }
              : { type: "text", text }
          ),
          messages: window.map((text, n) => ({
            role: n % 2 === 0 ? "user" : "assistant",
            content: n === last
              ? [{ type: "text", text, cache_control: marker }]
              : text,
          })),
        },
      };
    }
    const mark = { prompt_cache_breakpoint: { mode: "explicit" } };
    return {
      body: {
        tools: tools.map(({ name, description, input_schema }) => ({
          type: "function",
          function: { name, description, parameters: input_schema },
        })),
        messages: [
          {
            role: "system",
            content: system.map((text, n) =>
              n === 2 ? { type: "text", text, ...mark } : { type: "text", text }
            ),
          },
          ...window.map((text, n) => ({
            role: n % 2 === 0 ? "user" : "assistant",
            content: n === last ? [{ type: "text", text, ...mark }] : text,
          })),
        ],
      },
    };
  });
}

for (const provider of ["anthropic", "openai", "openai-explicit"] as const) {
  for (const length of [250, 500, 1_000]) {
    Deno.bench({
      name: `simulateCache ${provider}, ${length} requests of ~50k tokens`,
      group: `simulateCache ${provider}`,
      baseline: length === 250,
      fn(bench) {
        // Built per iteration and dropped after it: only the simulation is
        // timed, and no bench's input weighs on the others' collections.
        const requests = session(length, provider);
        bench.start();
        simulateCache(requests, { provider, countTokens: count });
        bench.end();
      },
    });
  }
}
