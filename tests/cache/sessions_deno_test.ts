/**
 * The example sessions stay working: every session, every way, a few steps,
 * simulated under every provider's rules. Deno-only: the examples are not
 * in the npm package.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { bestLayoutTokens, simulateCache } from "../../src/cache/mod.ts";
import { requestsOf, runSession } from "../../cli/session.ts";
import { SESSIONS } from "../../examples/sessions/mod.ts";
import { REGISTRATIONS, WAYS } from "../../examples/sessions/ways.ts";

const STEPS = 3;
const count = (text: string): number => Math.ceil(text.length / 4);

describe("example sessions", () => {
  for (const [name, module] of Object.entries(SESSIONS)) {
    it(`${name}: every way builds requests that every provider's rules read`, async () => {
      for (const registration of ["0.2", "readme"] as const) {
        const ways = Object.fromEntries(
          Object.entries(WAYS).filter(([way]) =>
            REGISTRATIONS[way] === registration
          ),
        );
        const session = await module.default({ registration });
        assert.ok(session.steps.length >= 40, "at least 40 steps");
        const steps = await runSession(session, ways, {
          limit: STEPS,
          volatileSections: module.volatileSections,
        });
        assert.equal(steps.length, STEPS);
        // The conversation grows by a user and an assistant turn per step.
        assert.equal(steps[2].messages.length, steps[1].messages.length + 2);
        for (const way of Object.keys(ways)) {
          for (
            const provider of [
              "anthropic",
              "openai",
              "openai-explicit",
            ] as const
          ) {
            const requests = requestsOf(
              steps,
              way,
              provider === "anthropic" ? "anthropic" : "openai",
            );
            const { requests: results } = simulateCache(requests, {
              provider,
              countTokens: count,
            });
            const bound = bestLayoutTokens(requests, count);
            assert.equal(results[0].cachedTokens, 0);
            if (name !== "sub-agents") {
              // One thread: the second step reads the first's prefix.
              assert.ok(results[1].cachedTokens > 0, `${way} ${provider}`);
              assert.ok(bound.requests[1].boundTokens > 0);
            }
          }
        }
      }
    });
  }
});
