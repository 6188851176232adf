/**
 * SPEC 7.1, 8.1–8.5: for random sets of sections, variables, tool
 * providers and tool gates (with random stability, live sources and references), every
 * registration order gives a byte-identical assembly (its `activeTools`
 * included), prompt, prompt blocks,
 * adapter requests (with cache and gates) and promptCacheKey. Listeners take
 * random positions too, but keep one relative order (they run in
 * registration order by design).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { of } from "rxjs";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import {
  promptCacheKey,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import {
  type AssembleListener,
  type PromptAssembly,
  type Registrar,
  renderPrompt,
  renderPromptBlocks,
  type Stability,
  SystemPrompt,
  TOOL_ORDER_REST,
} from "../../mod.ts";
import { tool } from "../fixtures.ts";

/** Fixed, so a failure replays; fast-check also prints it on failure. */
const SEED = 20261202;
const RUNS = 200;

const SECTION_NAMES = ["a", "B", "b", "é", "tools:shell", "z", "Z", "_x"];
const ORDERS = [-100, -1, 0, 0.5, 100, 150];
const VARIABLE_NAMES = ["a", "b", "model", "cwd", "a_b", "ab", "z9"];
const TOOL_NAMES = ["read", "Read", "write", "é", "shell", "a-b", "z"];

const plainTextArb = fc.string({
  unit: fc.constantFrom("a", "B", " ", "é", "\n", "{", "}"),
  maxLength: 8,
}).filter((text) => !text.includes("{{") && !text.includes("}}"));

/** Plain text, or text referencing a variable (which may be volatile). */
const textArb = fc.oneof(
  { weight: 3, arbitrary: plainTextArb },
  {
    weight: 1,
    arbitrary: fc.constantFrom("On {{model}}.", "{{a}} and {{cwd}}", "{{b}}"),
  },
);

const stabilityArb = fc.constantFrom<Stability | undefined>(
  undefined,
  undefined,
  "stable",
  "agent",
  "volatile",
);

const sectionsArb = (extraNames: readonly string[]) =>
  fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...SECTION_NAMES, ...extraNames),
      order: fc.constantFrom(...ORDERS),
      text: textArb,
      form: fc.constantFrom("string", "function", "observable"),
      cacheBreakpoint: fc.boolean(),
      stability: stabilityArb,
    }),
    { selector: (section) => section.name, maxLength: 6 },
  );

const variablesArb = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom(...VARIABLE_NAMES),
    value: fc.option(plainTextArb, { nil: undefined }),
    live: fc.boolean(),
    stability: stabilityArb,
  }),
  { selector: (variable) => variable.name, maxLength: 5 },
);

/** Unique tool names of one layer, spread over up to three providers. */
const providersArb = fc.uniqueArray(fc.constantFrom(...TOOL_NAMES), {
  maxLength: 6,
}).chain((names) =>
  fc.array(fc.nat({ max: 2 }), {
    minLength: names.length,
    maxLength: names.length,
  }).map((bins) =>
    [0, 1, 2].map((bin) => names.filter((_, index) => bins[index] === bin))
      .filter((group) => group.length > 0)
  )
).chain((groups) =>
  fc.tuple(
    fc.constant(groups),
    fc.array(fc.tuple(stabilityArb, fc.boolean()), {
      minLength: groups.length,
      maxLength: groups.length,
    }),
  ).map(([groups, settings]) =>
    groups.map((names, index) => ({
      names,
      stability: settings[index][0],
      live: settings[index][1],
    }))
  )
);

/** Tool gates: each answers a subset of the known names, or nothing. */
const gatesArb = fc.array(
  fc.option(fc.subarray(TOOL_NAMES), { nil: undefined }),
  { maxLength: 3 },
);

const layerArb = (extraSectionNames: readonly string[]) =>
  fc.record({
    sections: sectionsArb(extraSectionNames),
    variables: variablesArb,
    providers: providersArb,
    gates: gatesArb,
  });

const toolOrderArb = fc.option(
  fc.tuple(fc.shuffledSubarray(TOOL_NAMES), fc.nat()).map(([names, at]) =>
    names.toSpliced(at % (names.length + 1), 0, TOOL_ORDER_REST)
  ),
  { nil: undefined },
);

type Layer = typeof layerArb extends (...args: never[]) => fc.Arbitrary<infer L>
  ? L
  : never;

/** One registration, as a step applied to the global or scope registrar. */
type Step = (global: Registrar, scoped: Registrar) => void;

function stepsOf(
  layer: Layer,
  pick: (g: Registrar, s: Registrar) => Registrar,
): Step[] {
  const steps: Step[] = [];
  for (const section of layer.sections) {
    const { name, order, text, form, cacheBreakpoint, stability } = section;
    steps.push((g, s) =>
      void pick(g, s).section({
        name,
        order,
        text: form === "function"
          ? () => text
          : form === "observable"
          ? of(text)
          : text,
        cacheBreakpoint,
        stability,
      })
    );
  }
  for (const answer of layer.gates) {
    steps.push((g, s) => void pick(g, s).toolGate(() => answer));
  }
  if (layer.gates.length > 0) {
    // Gates name known tools: a catalog keeps every name known.
    steps.push((g, s) =>
      void pick(g, s).tools(() => ({ schemas: [], knownNames: TOOL_NAMES }))
    );
  }
  for (const { name, value, live, stability } of layer.variables) {
    steps.push((g, s) =>
      void pick(g, s).variable(name, live ? of(value) : () => value, {
        stability,
      })
    );
  }
  for (const { names, stability, live } of layer.providers) {
    const result = () => ({
      schemas: names.map((name) =>
        tool(name, `${name} tool`, {
          type: "object",
          properties: { [name]: { type: "string" } },
        })
      ),
      knownNames: TOOL_NAMES,
    });
    steps.push((g, s) =>
      void pick(g, s).tools(live ? of(result()) : result, { stability })
    );
  }
  return steps;
}

const LISTENERS: AssembleListener[] = [
  (assembly, _context, next) => {
    assembly.variables.from_listener = "set";
    return next();
  },
  async (_assembly, _context, next) => {
    const result = await next();
    result.sections.push({ name: "footer", order: 999, text: "End." });
    return result;
  },
];
const LISTENER = Symbol("listener");

/** `steps` in `order`, the listeners keeping their relative order. */
function arrange(
  steps: readonly Step[],
  order: readonly number[],
): (Step | typeof LISTENER)[] {
  return order.map((index) => index < steps.length ? steps[index] : LISTENER);
}

async function outputs(
  toolOrder: readonly string[] | undefined,
  registrations: readonly (Step | typeof LISTENER)[],
): Promise<string[]> {
  const prompt = new SystemPrompt({ persona: "Persona.", toolOrder });
  const scoped = prompt.scope("agent");
  let listener = 0;
  for (const registration of registrations) {
    if (registration === LISTENER) {
      prompt.onAssemble(LISTENERS[listener++]);
    } else registration(prompt, scoped);
  }
  const results: string[] = [];
  for (const context of [{}, { scope: "agent" }]) {
    let assembly: PromptAssembly;
    try {
      assembly = await prompt.assemble(context);
    } catch (error) {
      // A rejection (an order listing no known tool) must be stable too.
      results.push(`rejected: ${(error as Error).message}`);
      continue;
    }
    const keys = Object.keys(assembly.variables).filter((key) =>
      key !== "from_listener"
    );
    assert.deepEqual(keys, keys.toSorted(), "variables in code-unit order");
    results.push(JSON.stringify(assembly));
    const gated = {
      ...assembly,
      activeTools: assembly.tools.map((entry) => entry.name).filter((_, i) =>
        i % 2 === 0
      ),
    };
    const requests: (() => unknown)[] = [
      () => renderPrompt(assembly),
      () => renderPromptBlocks(assembly),
      () => toMessages(assembly, { cache: true }),
      () => toMessages(gated, { cache: true, gating: "keep" }),
      () => toChatCompletions(gated, { cache: true }),
      () => toResponses(gated, { cache: { ttl: "12h" } }),
      () => promptCacheKey(assembly, { session: "s" }),
    ];
    for (const request of requests) {
      try {
        results.push(JSON.stringify(request()));
      } catch (error) {
        results.push(`failed: ${(error as Error).message}`);
      }
    }
  }
  await prompt.dispose();
  return results;
}

describe("assemble: determinism property", () => {
  it(`gives byte-identical assemblies and prompts under every registration order (seed ${SEED}, ${RUNS} runs)`, async () => {
    const scenarioArb = fc.record({
      global: layerArb([]),
      scoped: layerArb(["deployment:persona", "harness:identity"]),
      toolOrder: toolOrderArb,
    }).chain((scenario) => {
      const steps = [
        ...stepsOf(scenario.global, (g) => g),
        ...stepsOf(scenario.scoped, (_, s) => s),
      ];
      const indices = Array.from(
        { length: steps.length + LISTENERS.length },
        (_, index) => index,
      );
      return fc.tuple(
        fc.constant(scenario),
        fc.constant(steps),
        fc.shuffledSubarray(indices, {
          minLength: indices.length,
          maxLength: indices.length,
        }),
      );
    });
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ([scenario, steps, order]) => {
        const identity = Array.from(
          { length: steps.length + LISTENERS.length },
          (_, index) => index,
        );
        const expected = await outputs(
          scenario.toolOrder,
          arrange(steps, identity),
        );
        const permuted = await outputs(
          scenario.toolOrder,
          arrange(steps, order),
        );
        assert.deepEqual(permuted, expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`a listener that only calls next() changes nothing: the build settles stability itself (seed ${SEED}, ${RUNS} runs)`, async () => {
    const scenarioArb = fc.record({
      global: layerArb([]),
      scoped: layerArb(["deployment:persona", "harness:identity"]),
      toolOrder: toolOrderArb,
    });
    const passThrough: AssembleListener = (_assembly, _context, next) => next();
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const steps = [
          ...stepsOf(scenario.global, (g) => g),
          ...stepsOf(scenario.scoped, (_, s) => s),
        ];
        const without = await outputs(scenario.toolOrder, steps);
        const withListener = await outputs(scenario.toolOrder, [
          ...steps,
          (global) => global.onAssemble(passThrough),
        ]);
        assert.deepEqual(withListener, without);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
