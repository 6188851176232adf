/**
 * Hostile assemblies for the adapter fuzz properties: missing keys, values
 * of the wrong type, duplicate tool names, and tool schemas of every JSON
 * type. An adapter must either return a well-formed output or throw a
 * `SystemPromptError` with a code.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { type PromptAssembly, SystemPromptError } from "../../mod.ts";

/** The fixed seed of every adapter fuzz property (printed in test names). */
export const HOSTILE_SEED = 7_062_026;

const JSON_TYPES = [
  "object",
  "array",
  "string",
  "number",
  "integer",
  "boolean",
  "null",
];

const toolNameArb = fc.oneof(
  // A small pool, so duplicates are frequent.
  fc.constantFrom("shell", "read_file", "Search-2", "__proto__", "constructor"),
  fc.constantFrom("mcp.read", "", "has space", "x".repeat(65), "7"),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(undefined, null, 3),
);

const schemaArb = fc.oneof(
  fc.constantFrom(null, 0, "object", true, [], [{ type: "object" }]),
  fc.record(
    {
      type: fc.oneof(
        fc.constantFrom(...JSON_TYPES),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      properties: fc.dictionary(
        fc.string({ maxLength: 4 }),
        fc.record({ type: fc.constantFrom(...JSON_TYPES) }),
        { maxKeys: 3 },
      ),
      required: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }),
);

const toolArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        name: toolNameArb,
        description: fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.constantFrom(undefined, 4),
        ),
        parameters: schemaArb,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, "shell", 3, []) },
);

const sectionArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        name: fc.oneof(fc.string({ maxLength: 4 }), fc.constant(undefined)),
        order: fc.integer(),
        text: fc.oneof(
          fc.constantFrom(
            "Hello.",
            "",
            "{{v}}",
            "{{missing}}",
            "{{ v }}",
            "{{u}}",
          ),
          fc.string({ maxLength: 8 }),
          fc.constantFrom(undefined, 5, null),
        ),
        cacheBreakpoint: fc.constantFrom(true, false, "yes", undefined),
        stability: fc.constantFrom("agent", "volatile", "often", 2, undefined),
      },
      { requiredKeys: ["text"] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, "section", 7) },
);

const saneSectionArb = fc.record(
  {
    name: fc.string({ maxLength: 4 }),
    order: fc.integer(),
    text: fc.constantFrom("Hello.", "", "{{v}}", "Literal {{ text", "Bye."),
    cacheBreakpoint: fc.constant(true),
    stability: fc.constantFrom("agent", "volatile"),
  },
  { requiredKeys: ["name", "order", "text"] },
);

const saneToolArb = fc.record({
  name: fc.constantFrom(
    "shell",
    "read_file",
    "Search-2",
    "__proto__",
    "constructor",
    "web-fetch",
  ),
  description: fc.string({ maxLength: 8 }),
  parameters: fc.record(
    {
      type: fc.constantFrom(...JSON_TYPES),
      properties: fc.dictionary(
        fc.string({ maxLength: 4 }),
        fc.record({ type: fc.constantFrom(...JSON_TYPES) }),
        { maxKeys: 2 },
      ),
    },
    { requiredKeys: [] },
  ),
});

/** Well-formed assemblies, with duplicate names and schemas of every JSON type. */
const saneAssemblyArb = fc.record(
  {
    sections: fc.array(saneSectionArb, { maxLength: 5 }),
    tools: fc.oneof(
      fc.uniqueArray(saneToolArb, {
        selector: (tool) => tool.name,
        maxLength: 5,
      }),
      fc.array(saneToolArb, { maxLength: 4 }),
    ),
    variables: fc.constant({ v: "value" }),
    runtimeContext: fc.array(saneSectionArb, { maxLength: 3 }),
    toolStability: fc.dictionary(
      fc.constantFrom("shell", "read_file", "Search-2", "web-fetch"),
      fc.constantFrom("agent", "volatile"),
    ),
    activeTools: fc.subarray(["shell", "read_file", "web-fetch", "gone"]),
  },
  { requiredKeys: ["sections", "tools", "variables"] },
);

const brokenAssemblyArb = fc.record(
  {
    sections: fc.oneof(
      { weight: 5, arbitrary: fc.array(sectionArb, { maxLength: 5 }) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, null, "s", {}) },
    ),
    tools: fc.oneof(
      { weight: 5, arbitrary: fc.array(toolArb, { maxLength: 5 }) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, null, {}, "shell") },
    ),
    variables: fc.constantFrom(
      { v: "value" },
      { v: "value", u: undefined },
      { v: 3 },
      {},
      undefined,
      null,
      "v",
    ),
    runtimeContext: fc.oneof(
      { weight: 4, arbitrary: fc.array(sectionArb, { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom(null, "date", 3) },
    ),
  },
  { requiredKeys: [] },
);

/** An assembly-shaped value: well-formed, or broken in any of many ways. */
export const hostileAssemblyArb: fc.Arbitrary<PromptAssembly> = fc.oneof(
  { weight: 3, arbitrary: saneAssemblyArb },
  { weight: 2, arbitrary: brokenAssemblyArb },
) as unknown as fc.Arbitrary<PromptAssembly>;

/** `undefined`, or options of the right and of the wrong shapes. */
export const hostileOptionsArb: fc.Arbitrary<
  Record<string, unknown> | undefined
> = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      strict: fc.constantFrom(true, false, "yes"),
      cache: fc.constantFrom(
        true,
        false,
        { ttl: "5m" },
        { ttl: "1h" },
        { ttl: "2h" },
        { ttl: "30m" },
        { ttl: "12h" },
      ),
      maxCacheBreakpoints: fc.constantFrom(0, 1, 3, 4, 5, -1, 2.5),
      breakpoints: fc.constantFrom("auto", "explicit", "sometimes"),
      gating: fc.constantFrom("remove", "keep", "hide"),
      toolChoiceMode: fc.constantFrom("auto", "required", "none"),
      promptCacheKey: fc.constantFrom("conversation-1", 7),
    },
    { requiredKeys: [] },
  ),
) as fc.Arbitrary<Record<string, unknown> | undefined>;

/**
 * Runs `adapter`; if it throws, the error must be a `SystemPromptError` with
 * a code. Returns the output, or `undefined` after an accepted throw.
 */
export function outputOrCode<T>(adapter: () => T): T | undefined {
  try {
    return adapter();
  } catch (error) {
    assert.ok(
      error instanceof SystemPromptError,
      `expected a SystemPromptError, got ${String(error)}`,
    );
    assert.equal(typeof error.code, "string");
    assert.ok(error.message.length > 0);
    return undefined;
  }
}

/** The wire rule of the OpenAI and Anthropic adapters. */
export const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Asserts that `names` are unique wire names. */
export function assertToolNames(names: readonly string[]): void {
  assert.equal(new Set(names).size, names.length, `duplicate in ${names}`);
  for (const name of names) assert.match(name, WIRE_NAME);
}

/** A plain JSON object (not null, not an array). */
export function assertSchemaObject(value: unknown): void {
  assert.equal(typeof value, "object");
  assert.notEqual(value, null);
  assert.equal(Array.isArray(value), false);
}

/** An optional runtime-context message: absent, or a non-empty user message. */
export function assertRuntimeContext(value: unknown): void {
  if (value === undefined) return;
  const message = value as { role: unknown; content: unknown };
  assert.equal(message.role, "user");
  assert.equal(typeof message.content, "string");
  assert.notEqual(message.content, "");
}
