/**
 * Fuzz: hostile request lists, bodies and options at the cache report's
 * entry points. Each call returns a well-formed result or throws a
 * `SystemPromptError`; nothing raw escapes.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bestLayoutTokens,
  type CacheRequest,
  simulateCache,
} from "../../adapters/cache/mod.ts";
import {
  anyInputArb,
  FUZZ_LABEL,
  FUZZ_OPTIONS,
  hostileArb,
  type Make,
  plain,
  recordOf,
  typedOrValue,
} from "./hostile.ts";

/** A content block or part: plausible fields, each possibly hostile. */
const blockArb: fc.Arbitrary<Make> = fc.oneof(
  anyInputArb,
  recordOf({
    type: fc.oneof(
      plain(fc.constantFrom("text", "input_text", "tool_use")),
      hostileArb,
    ),
    text: fc.oneof(plain(fc.string()), hostileArb),
    cache_control: fc.oneof(
      plain(
        fc.constantFrom({ type: "ephemeral" }, {
          type: "ephemeral",
          ttl: "1h",
        }),
      ),
      hostileArb,
    ),
    prompt_cache_breakpoint: fc.oneof(
      plain(
        fc.constantFrom({ mode: "explicit" }, { mode: "explicit", ttl: "12h" }),
      ),
      hostileArb,
    ),
  }),
);

function listOf(item: fc.Arbitrary<Make>): fc.Arbitrary<Make> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.array(item, { maxLength: 4 }).map((makes) => () =>
        makes.map((make) => make())
      ),
    },
    { weight: 1, arbitrary: anyInputArb },
  );
}

const messageArb = recordOf({
  role: fc.oneof(
    plain(fc.constantFrom("user", "assistant", "system")),
    hostileArb,
  ),
  content: fc.oneof(plain(fc.string()), listOf(blockArb)),
});

const toolArb = recordOf({
  name: fc.oneof(plain(fc.string()), hostileArb),
  type: plain(fc.constant("function")),
  function: recordOf({ name: fc.oneof(plain(fc.string()), hostileArb) }),
  input_schema: anyInputArb,
  cache_control: anyInputArb,
});

const bodyArb: fc.Arbitrary<Make> = fc.oneof(
  anyInputArb,
  recordOf({
    tools: listOf(toolArb),
    system: fc.oneof(plain(fc.string()), listOf(blockArb)),
    messages: listOf(messageArb),
    input: fc.oneof(plain(fc.string()), listOf(fc.oneof(messageArb, blockArb))),
    instructions: fc.oneof(plain(fc.string()), hostileArb),
    prompt_cache_options: anyInputArb,
  }),
);

const requestsArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: anyInputArb },
  {
    weight: 4,
    arbitrary: fc.array(
      fc.oneof(
        anyInputArb,
        recordOf({
          body: bodyArb,
          time: fc.oneof(
            plain(fc.integer({ min: 0, max: 10_000_000 })),
            hostileArb,
          ),
          thread: fc.oneof(plain(fc.constantFrom("a", "b")), hostileArb),
        }),
      ),
      { maxLength: 4 },
    ).map((makes) => () => makes.map((make) => make())),
  },
);

const countArb: fc.Arbitrary<Make> = fc.oneof(
  plain(fc.constant((text: string) => text.length)),
  anyInputArb,
);

const optionsArb: fc.Arbitrary<Make> = fc.oneof(
  anyInputArb,
  recordOf({
    provider: fc.oneof(
      plain(fc.constantFrom("anthropic", "openai", "openai-explicit")),
      hostileArb,
    ),
    countTokens: countArb,
    minPrefixTokens: fc.oneof(plain(fc.nat(2000)), hostileArb),
  }),
);

function assertWellFormed(value: Record<string, unknown>): void {
  for (const [key, number] of Object.entries(value)) {
    if (key === "firstMiss") continue;
    assert.equal(typeof number, "number", key);
    assert.ok(
      Number.isFinite(number as number) && (number as number) >= 0,
      key,
    );
  }
}

describe(`simulateCache and bestLayoutTokens on hostile input ${FUZZ_LABEL}`, () => {
  it("simulateCache returns a well-formed result or throws a SystemPromptError", () => {
    fc.assert(
      fc.property(requestsArb, optionsArb, (requests, options) => {
        const result = typedOrValue(() =>
          simulateCache(
            requests() as CacheRequest[],
            options() as Parameters<typeof simulateCache>[1],
          )
        );
        if (result === undefined) return;
        for (const request of result.requests) {
          assertWellFormed(request as unknown as Record<string, unknown>);
          assert.ok(request.cachedTokens <= request.inputTokens);
          if (request.firstMiss !== undefined) {
            assert.match(request.firstMiss.block, /^(tool|system|message):/);
            assert.equal(typeof request.firstMiss.reason, "string");
          }
        }
        assertWellFormed(result.totals as unknown as Record<string, unknown>);
      }),
      FUZZ_OPTIONS,
    );
  });

  it("bestLayoutTokens returns a well-formed bound or throws a SystemPromptError", () => {
    fc.assert(
      fc.property(requestsArb, countArb, (requests, count) => {
        const result = typedOrValue(() =>
          bestLayoutTokens(
            requests() as CacheRequest[],
            count() as (text: string) => number,
          )
        );
        if (result === undefined) return;
        for (const request of result.requests) {
          assertWellFormed(request as unknown as Record<string, unknown>);
          assert.ok(request.boundTokens <= request.inputTokens);
          assert.ok(request.promptBoundTokens <= request.boundTokens);
        }
      }),
      FUZZ_OPTIONS,
    );
  });
});
