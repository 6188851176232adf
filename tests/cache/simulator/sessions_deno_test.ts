/**
 * The example sessions stay working: every session, every way, a few steps,
 * simulated under every provider's rules. Deno-only: the examples are not
 * in the npm package.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  bestLayoutTokens,
  simulateCache,
} from "../../../adapters/cache/mod.ts";
import { requestsOf, runSession } from "../../../cli/session.ts";
import type { SessionRequest } from "../../../adapters/cache/mod.ts";
import { SESSIONS } from "../../../examples/sessions/mod.ts";
import {
  default as onCall,
  MCP_BACK,
  MCP_DROP,
} from "../../../examples/sessions/on_call.ts";
import { REGISTRATIONS, WAYS } from "../../../examples/sessions/ways.ts";

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
              provider === "anthropic" ? "anthropic-messages" : "openai-chat",
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

  it("on-call: fan-outs of more than 20 new blocks, person pauses of 5-20 minutes, an MCP server that drops and comes back", async () => {
    const requests: { toolCalls: number; awaiting?: string }[] = [];
    const session = await onCall();
    const steps = await runSession({
      ...session,
      steps: session.steps.map((step, index) => async () => {
        const request = await step(index) as SessionRequest;
        requests.push({
          toolCalls: request.messages.at(-2)?.toolCalls?.length ?? 0,
          awaiting: request.awaiting,
        });
        return request;
      }),
    }, {});
    // A call and its result are a block each, with the answer's text.
    assert.ok(requests.some((request) => 2 * request.toolCalls + 1 > 20));
    const minutes = steps.slice(1).map((step, at) =>
      (step.time - steps[at].time) / 60_000
    );
    const pauses = minutes.filter((gap) => gap >= 5 && gap <= 21);
    assert.ok(pauses.length >= 5, String(minutes));
    // The step before each pause says a person answers next.
    minutes.forEach((gap, at) => {
      if (gap >= 5) assert.equal(requests[at].awaiting, "person");
    });
    const tools = (at: number) =>
      steps[at].assembly.tools.map((tool) => tool.name).filter((name) =>
        name.startsWith("status_")
      );
    assert.equal(tools(MCP_DROP - 1).length, 3);
    assert.deepEqual(tools(MCP_DROP), []);
    assert.deepEqual(tools(MCP_BACK - 1), []);
    assert.deepEqual(
      tools(MCP_BACK).filter((name) => !tools(MCP_DROP - 1).includes(name)),
      ["status_incident_postmortem"],
    );
  });
});
