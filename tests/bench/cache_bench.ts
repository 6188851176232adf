/**
 * Benchmarks of `simulateCache` (run with `deno bench tests/bench/`): a
 * session of 250, 500 and 1,000 requests of about 50,000 tokens each (ten
 * tools, a system prompt of three blocks, and a conversation window of the
 * latest 80 turns of about 500 tokens that moves by one user and one
 * assistant turn per request), under each provider's rules. Each distinct
 * block is counted once; the time per request should stay flat (linear
 * growth: exponent ≤ 1.1 between 250 and 1,000 requests).
 */

import { type CacheProvider, simulateCache } from "../../src/cache/mod.ts";

const WINDOW = 80;
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
  const turns = Array.from({ length: length * 2 + WINDOW }, (_, n) => turn(n));
  const marker = { type: "ephemeral" };
  return Array.from({ length }, (_, step) => {
    const window = turns.slice(step * 2, step * 2 + WINDOW);
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
            content: n === WINDOW - 1
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
            content: n === WINDOW - 1
              ? [{ type: "text", text, ...mark }]
              : text,
          })),
        ],
      },
    };
  });
}

for (const provider of ["anthropic", "openai", "openai-explicit"] as const) {
  for (const length of [250, 500, 1_000]) {
    const requests = session(length, provider);
    Deno.bench({
      name: `simulateCache ${provider}, ${length} requests of ~50k tokens`,
      group: `simulateCache ${provider}`,
      baseline: length === 250,
      fn() {
        simulateCache(requests, { provider, countTokens: count });
      },
    });
  }
}
