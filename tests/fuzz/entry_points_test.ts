/**
 * Fuzz: hostile input at the entry points, `renderPromptBlocks`, the wire
 * adapters (`toChatCompletions`, `toResponses`, `toMessages`, `toAISDK`)
 * and `promptCacheKey`, with their 0.3 options (`breakpoints`, `gating`,
 * `toolChoiceMode`, `promptCacheKey`, `session`) and assembly keys
 * (`stability`, `toolStability`, `activeTools`): getters (throwing, or answering differently on each read),
 * Proxies (throwing, revoked), every JSON type, huge strings, in the
 * assembly, its entries and the options. Each call returns, or throws a
 * `SystemPromptError` with a code, never a raw error; a tool name that
 * reaches the wire follows the wire rule however often its getter changes
 * its answer.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type PromptAssembly, renderPromptBlocks } from "../../mod.ts";
import {
  promptCacheKey,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import {
  FUZZ_LABEL,
  FUZZ_OPTIONS,
  hostileArb,
  hostileFunctionArb,
  type Make,
  plain,
  recordOf,
  typedOrValue,
} from "./hostile.ts";

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Built once: a megabyte of text and a megabyte of `{{`. */
const HUGE_TEXT = "x".repeat(1 << 20);
const HUGE_BRACES = "{{".repeat(1 << 19);

const hugeArb: fc.Arbitrary<Make> = plain(
  fc.constantFrom(HUGE_TEXT, HUGE_BRACES, `{{v}}${HUGE_TEXT}`),
);

/** Any JSON value, of every JSON type. */
const jsonArb: fc.Arbitrary<Make> = plain(fc.jsonValue({ maxDepth: 2 }));

/**
 * An object whose `key` getter answers `first` on its first read and
 * `then` after: a value that passes a check once and is different when
 * read again.
 */
function flipping(
  key: string,
  first: unknown,
  then: unknown,
  rest: Record<string, unknown>,
): object {
  let reads = 0;
  return Object.defineProperty({ ...rest }, key, {
    get: () => reads++ === 0 ? first : then,
    enumerable: true,
  });
}

const flippingSectionArb: fc.Arbitrary<Make> = fc
  .constantFrom<[string, unknown, unknown]>(
    ["text", "A", 3],
    ["text", "A", "{{missing}}"],
    ["text", "{{v}}", null],
    ["name", "a", { not: "a name" }],
    ["cacheBreakpoint", true, false],
  )
  .map(([key, first, then]) => () =>
    flipping(key, first, then, { name: "s", order: 0, text: "T" })
  );

const flippingToolArb: fc.Arbitrary<Make> = fc
  .constantFrom<[string, unknown, unknown]>(
    ["name", "ok", "bad name with spaces"],
    ["name", "shell", ""],
    ["description", "Run.", 7],
    ["parameters", { type: "object" }, null],
    ["parameters", {}, { type: "string" }],
  )
  .map(([key, first, then]) => () =>
    flipping(key, first, then, {
      name: "tool",
      description: "",
      parameters: {},
    })
  );

/** A value of any kind: hostile, JSON, huge. */
const valueArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 3, arbitrary: hostileArb },
  { weight: 1, arbitrary: jsonArb },
  { weight: 1, arbitrary: hugeArb },
);

function listOf(entry: fc.Arbitrary<Make>): fc.Arbitrary<Make> {
  return fc.oneof(
    { weight: 1, arbitrary: valueArb },
    {
      weight: 4,
      arbitrary: fc.array(entry, { maxLength: 4 }).map((makes) => () =>
        makes.map((make) => make())
      ),
    },
  );
}

const sectionArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: valueArb },
  { weight: 1, arbitrary: flippingSectionArb },
  {
    weight: 4,
    arbitrary: recordOf({
      name: fc.oneof(plain(fc.string({ maxLength: 4 })), valueArb),
      order: fc.oneof(plain(fc.integer()), valueArb),
      text: fc.oneof(
        plain(fc.constantFrom("a", "{{v}}", "{{w}}", "{{", "", "{{x}}}}")),
        valueArb,
      ),
      cacheBreakpoint: fc.oneof(plain(fc.boolean()), valueArb),
      stability: fc.oneof(
        plain(fc.constantFrom("stable", "agent", "volatile", "often")),
        valueArb,
      ),
    }),
  },
);

const toolArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: valueArb },
  { weight: 1, arbitrary: flippingToolArb },
  {
    weight: 4,
    arbitrary: recordOf({
      name: fc.oneof(
        plain(fc.constantFrom("shell", "read_file", "__proto__", "a b", "")),
        valueArb,
      ),
      description: fc.oneof(plain(fc.string({ maxLength: 4 })), valueArb),
      parameters: fc.oneof(
        plain(fc.constantFrom({}, { type: "object" }, { type: "string" })),
        valueArb,
      ),
    }),
  },
);

const assemblyArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: valueArb },
  {
    weight: 6,
    arbitrary: recordOf({
      sections: listOf(sectionArb),
      tools: listOf(toolArb),
      variables: fc.oneof(
        valueArb,
        recordOf({ v: fc.oneof(plain(fc.string()), valueArb) }),
      ),
      runtimeContext: listOf(sectionArb),
      toolStability: fc.oneof(
        valueArb,
        recordOf({
          shell: fc.oneof(
            plain(fc.constantFrom("agent", "volatile", "stable", "x")),
            valueArb,
          ),
          ["__proto__"]: plain(fc.constantFrom("agent", "volatile")),
          read_file: plain(fc.constantFrom("volatile", undefined)),
        }),
      ),
      activeTools: fc.oneof(
        valueArb,
        plain(fc.subarray(["shell", "read_file", "__proto__", "gone", ""])),
        listOf(fc.oneof(plain(fc.constantFrom("shell", "x")), valueArb)),
      ),
    }),
  },
);

const optionsArb: fc.Arbitrary<Make> = fc.oneof(
  valueArb,
  recordOf({
    strict: fc.oneof(plain(fc.boolean()), valueArb),
    cache: fc.oneof(
      plain(
        fc.constantFrom(
          true,
          false,
          { ttl: "5m" },
          { ttl: "1h" },
          { ttl: "30m" },
          { ttl: "12h" },
        ),
      ),
      recordOf({
        ttl: fc.oneof(plain(fc.constantFrom("1h", "12h")), valueArb),
      }),
      valueArb,
    ),
    breakpoints: fc.oneof(
      plain(fc.constantFrom("auto", "explicit", "never")),
      valueArb,
    ),
    gating: fc.oneof(
      plain(fc.constantFrom("remove", "keep", "drop")),
      valueArb,
    ),
    toolChoiceMode: fc.oneof(
      plain(fc.constantFrom("auto", "required", "none")),
      valueArb,
    ),
    promptCacheKey: fc.oneof(plain(fc.constantFrom("key", "")), valueArb),
    session: fc.oneof(plain(fc.string({ maxLength: 4 })), valueArb),
    maxCacheBreakpoints: fc.oneof(
      plain(fc.integer({ min: -1, max: 5 })),
      valueArb,
    ),
    execute: fc.oneof(
      valueArb,
      recordOf({
        shell: fc.oneof(plain(fc.constant(() => "ran")), hostileFunctionArb),
        other: valueArb,
      }),
    ),
  }),
);

type Entry = (assembly: unknown, options?: unknown) => unknown;

/** Each entry point, and the tool names of what it returned. */
const ENTRY_POINTS: [string, Entry, (output: never) => unknown[]][] = [
  [
    "renderPromptBlocks",
    (assembly, options) =>
      renderPromptBlocks(assembly as PromptAssembly, options as never),
    () => [],
  ],
  [
    "promptCacheKey",
    (assembly, options) => {
      const key = promptCacheKey(assembly as PromptAssembly, options as never);
      assert.match(key, /^[0-9a-f]{16}$/);
      return key;
    },
    () => [],
  ],
  [
    "toChatCompletions",
    toChatCompletions as Entry,
    (output: ReturnType<typeof toChatCompletions>) =>
      (output.tools ?? []).map((tool) => tool.function.name),
  ],
  [
    "toResponses",
    toResponses as Entry,
    (output: ReturnType<typeof toResponses>) =>
      (output.tools ?? []).map((tool) => tool.name),
  ],
  [
    "toMessages",
    toMessages as Entry,
    (output: ReturnType<typeof toMessages>) =>
      (output.tools ?? []).map((tool) => tool.name),
  ],
  [
    "toAISDK",
    toAISDK as Entry,
    (output: ReturnType<typeof toAISDK>) => Object.keys(output.tools),
  ],
];

describe(`fuzz: the entry points and their 0.3 options ${FUZZ_LABEL}`, () => {
  for (const [name, entry, toolNames] of ENTRY_POINTS) {
    it(`${name} returns or throws a coded SystemPromptError, never a raw error`, () => {
      fc.assert(
        fc.property(assemblyArb, optionsArb, (makeAssembly, makeOptions) => {
          const output = typedOrValue(() =>
            entry(makeAssembly(), makeOptions())
          );
          if (output === undefined) return;
          for (const tool of toolNames(output as never)) {
            assert.equal(typeof tool, "string");
            if (name !== "toAISDK") assert.match(tool as string, WIRE_NAME);
          }
        }),
        FUZZ_OPTIONS,
      );
    });
  }
});
