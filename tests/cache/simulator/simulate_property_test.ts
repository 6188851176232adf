/**
 * Properties of `simulateCache` over generated sessions (fixed seed):
 * cached never exceeds input, a repeated request is served at least as
 * much as the one it repeats, and appending messages never lowers what the
 * cache serves.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CacheProvider,
  type CacheRequest,
  simulateCache,
} from "../../../adapters/cache/mod.ts";

const SEED = 8_082_026;
const RUNS = 200;
const PROVIDERS: CacheProvider[] = ["anthropic", "openai", "openai-explicit"];
const count = (text: string): number => text.length;

const TOOLS = ["read", "write", "shell", "search"];
const SYSTEMS = ["r".repeat(700), "s".repeat(400), "t".repeat(900)];

interface Shape {
  tools: string[];
  system: number[];
  messages: string[];
  /** Block indexes (in the conversation) carrying a marker. */
  marks: number[];
  gap: number;
}

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  tools: fc.subarray(TOOLS),
  system: fc.array(fc.nat(SYSTEMS.length - 1), { minLength: 1, maxLength: 3 }),
  messages: fc.array(
    fc.constantFrom("a".repeat(300), "b".repeat(200), "c".repeat(50), "d"),
    { maxLength: 8 },
  ),
  marks: fc.uniqueArray(fc.nat(10), { maxLength: 3 }),
  gap: fc.constantFrom(1000, 60_000, 400_000),
});

/** A body for `provider` with markers on the marked system/message blocks. */
function body(shape: Shape, provider: CacheProvider, extra: string[] = []) {
  const system = shape.system.map((n) => SYSTEMS[n]);
  const messages = [...shape.messages, ...extra];
  const marked = (at: number) => shape.marks.includes(at);
  if (provider === "anthropic") {
    return {
      tools: shape.tools.map((name) => ({ name, input_schema: {} })),
      system: system.map((text, at) => ({
        type: "text",
        text,
        ...(marked(at) ? { cache_control: { type: "ephemeral" } } : {}),
      })),
      messages: messages.map((text, n) => ({
        role: n % 2 === 0 ? "user" : "assistant",
        content: [{
          type: "text",
          text,
          ...(marked(system.length + n) && n < shape.messages.length
            ? { cache_control: { type: "ephemeral" } }
            : {}),
        }],
      })),
    };
  }
  const part = (text: string, at: number) => ({
    type: "text",
    text,
    ...(marked(at) ? { prompt_cache_breakpoint: { mode: "explicit" } } : {}),
  });
  return {
    tools: shape.tools.map((name) => ({
      type: "function",
      function: { name, parameters: {} },
    })),
    messages: [
      { role: "system", content: system.map(part) },
      ...messages.map((text, n) => ({
        role: n % 2 === 0 ? "user" : "assistant",
        content: [
          n < shape.messages.length
            ? part(text, system.length + n)
            : { type: "text", text },
        ],
      })),
    ],
  };
}

function session(shapes: Shape[], provider: CacheProvider): CacheRequest[] {
  let time = 0;
  return shapes.map((shape) => {
    time += shape.gap;
    return { body: body(shape, provider), time };
  });
}

const sessionArb = fc.tuple(
  fc.array(shapeArb, { minLength: 1, maxLength: 8 }),
  fc.constantFrom(...PROVIDERS),
);

describe(`simulateCache properties (fast-check seed ${SEED})`, () => {
  it("never serves or writes more than the input", () => {
    fc.assert(
      fc.property(sessionArb, ([shapes, provider]) => {
        const { requests, totals } = simulateCache(session(shapes, provider), {
          provider,
          countTokens: count,
        });
        for (const result of requests) {
          assert.ok(result.cachedTokens >= 0);
          assert.ok(result.cachedTokens <= result.inputTokens);
          assert.ok(
            result.cachedTokens + result.writtenTokens <= result.inputTokens,
          );
          assert.equal(
            result.firstMiss === undefined,
            result.cachedTokens === result.inputTokens,
          );
        }
        assert.ok(totals.cachedTokens <= totals.inputTokens);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("serves a request identical to its predecessor at least as much", () => {
    fc.assert(
      fc.property(sessionArb, ([shapes, provider]) => {
        const requests = session(shapes, provider);
        const last = requests[requests.length - 1];
        requests.push({ body: last.body, time: last.time! + 1000 });
        const results =
          simulateCache(requests, { provider, countTokens: count })
            .requests;
        const [before, after] = results.slice(-2);
        assert.ok(
          after.cachedTokens >= before.cachedTokens,
          `${after.cachedTokens} < ${before.cachedTokens}`,
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("never serves less when messages are appended to the next request", () => {
    fc.assert(
      fc.property(
        sessionArb,
        shapeArb,
        fc.array(fc.constantFrom("e".repeat(100), "f"), {
          minLength: 1,
          maxLength: 4,
        }),
        ([shapes, provider], next, appended) => {
          const earlier = session(shapes, provider);
          const time = earlier[earlier.length - 1].time! + next.gap;
          const served = (extra: string[]) =>
            simulateCache(
              [...earlier, { body: body(next, provider, extra), time }],
              { provider, countTokens: count },
            ).requests[earlier.length].cachedTokens;
          assert.ok(served(appended) >= served([]));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
