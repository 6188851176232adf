import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type AssembledSection,
  diffAssemblies,
  type PromptAssembly,
  type PromptDiff,
  renderPrompt,
  SystemPromptError,
} from "../../mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** Fixed so that a failure replays: fast-check prints it with the path. */
const SEED = 20261202;
const DEFAULT_RUNS = 1000;
const RUNS = fuzzRuns(DEFAULT_RUNS);
/**
 * Whether the generators' coverage is checked: only at the full run count,
 * since a run cut by RXPROMPT_FUZZ_RUNS may not reach every case.
 */
const FULL_RUN = RUNS >= DEFAULT_RUNS;

type Assembly = PromptAssembly & { runtimeContext?: AssembledSection[] };

// Small pools, so that two generated assemblies share names and texts, and
// names whose code-unit order differs from a locale order.
const SECTION_NAMES = ["a", "b", "B", "c", "é", "Z"];
const TOOL_NAMES = ["read", "write", "Shell", "é", "a"];
const TEXTS = ["", "x", "Hi {{name}}.", "{{model}}", "x\n\ny", "😀", "😃"];
const VALUES = ["Bob", "Ann", "m1", "😀"];

const sectionsArb = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom(...SECTION_NAMES),
    order: fc.constantFrom(-1, 0, 1),
    text: fc.constantFrom(...TEXTS),
  }),
  { selector: (section) => section.name, maxLength: 5 },
);

const toolsArb = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom(...TOOL_NAMES),
    description: fc.constantFrom("d", "e"),
    parameters: fc.constantFrom({}, { type: "object" }),
  }),
  { selector: (tool) => tool.name, maxLength: 4 },
);

// `name` and `model` always have values, so every generated assembly renders.
const variablesArb = fc.record({
  name: fc.constantFrom(...VALUES),
  model: fc.constantFrom(...VALUES),
}).chain((required) =>
  fc.dictionary(
    fc.constantFrom("cwd", "unused", "branch"),
    fc.option(fc.constantFrom(...VALUES), { nil: undefined }),
  ).map((extra) => ({ ...extra, ...required }))
);

const assemblyArb: fc.Arbitrary<Assembly> = fc.record({
  sections: sectionsArb,
  tools: toolsArb,
  variables: variablesArb,
  runtimeContext: fc.option(sectionsArb, { nil: undefined }),
}).map((assembly) => {
  if (assembly.runtimeContext === undefined) delete assembly.runtimeContext;
  return assembly;
});

/** One small edit, so that equal and nearly equal pairs are common. */
function edit(assembly: Assembly, kind: number, at: number): Assembly {
  const copy: Assembly = structuredClone(assembly);
  const pick = <T>(list: T[]): number => at % Math.max(list.length, 1);
  switch (kind) {
    case 0:
      copy.sections.splice(pick(copy.sections), 1);
      break;
    case 1:
      if (copy.sections.length > 0) {
        copy.sections[pick(copy.sections)].text += "!";
      }
      break;
    case 2:
      copy.tools.reverse();
      break;
    case 3:
      if (copy.tools.length > 0) {
        copy.tools[pick(copy.tools)].description += "!";
      }
      break;
    case 4:
      copy.variables.model = copy.variables.model === "m1" ? "m2" : "m1";
      break;
    case 5:
      copy.variables.unused = "changed";
      break;
    case 6:
      copy.runtimeContext = [{ name: "date", order: 0, text: "Monday" }];
      break;
  }
  return copy;
}

const pairArb: fc.Arbitrary<[Assembly, Assembly]> = fc.oneof(
  fc.tuple(assemblyArb, assemblyArb),
  fc.tuple(assemblyArb, fc.nat(7), fc.nat(10)).map((
    [assembly, kind, at],
  ) => [assembly, edit(assembly, kind, at)] as [Assembly, Assembly]),
);

function commonPrefix(a: string, b: string): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) {
    index++;
  }
  return index;
}

function setDifference(from: string[], other: string[]): string[] {
  const set = new Set(other);
  // Code-unit order: the default sort compares UTF-16 code units.
  return from.filter((name) => !set.has(name)).sort();
}

function names(list: { name: string }[]): string[] {
  return list.map((item) => item.name);
}

function renderRuntime(assembly: Assembly): string {
  return renderPrompt({
    sections: assembly.runtimeContext ?? [],
    tools: [],
    variables: assembly.variables,
  });
}

describe(`diffAssemblies: properties (seed ${SEED})`, () => {
  const options = { seed: SEED, numRuns: RUNS };

  it("reports every assembly as identical to itself and to a copy", () => {
    fc.assert(
      fc.property(assemblyArb, (assembly) => {
        assert.equal(diffAssemblies(assembly, assembly).identical, true);
        const diff = diffAssemblies(assembly, structuredClone(assembly));
        assert.equal(diff.identical, true);
        assert.equal(diff.prompt.stablePrefix, renderPrompt(assembly).length);
        assert.equal(diff.cache.brokenBy, undefined);
      }),
      options,
    );
  });

  it("gives the common prefix of the rendered prompts, and a first offset iff they differ", () => {
    let differing = 0;
    fc.assert(
      fc.property(pairArb, ([before, after]) => {
        const diff = diffAssemblies(before, after);
        const a = renderPrompt(before);
        const b = renderPrompt(after);
        assert.equal(diff.prompt.stablePrefix, commonPrefix(a, b));
        assert.equal("firstChangedOffset" in diff.prompt, a !== b);
        if (a !== b) {
          differing++;
          assert.equal(diff.prompt.firstChangedOffset, commonPrefix(a, b));
        }
      }),
      options,
    );
    if (FULL_RUN) {
      // Both branches are exercised, so the "iff" means something.
      assert.ok(differing > RUNS / 10, `${differing} differing`);
      assert.ok(differing < RUNS * 0.9, `${differing} differing`);
    }
  });

  it("lists exactly the set differences as added and removed, sorted", () => {
    fc.assert(
      fc.property(pairArb, ([before, after]) => {
        const diff = diffAssemblies(before, after);
        const pairs: [keyof PromptDiff & string, string[], string[]][] = [
          ["tools", names(before.tools), names(after.tools)],
          ["sections", names(before.sections), names(after.sections)],
          [
            "variables",
            Object.keys(before.variables),
            Object.keys(after.variables),
          ],
          [
            "runtimeContext",
            [...new Set(names(before.runtimeContext ?? []))],
            [...new Set(names(after.runtimeContext ?? []))],
          ],
        ];
        for (const [part, old, now] of pairs) {
          const lists = diff[part] as { added: string[]; removed: string[] };
          assert.deepEqual(lists.added, setDifference(now, old), part);
          assert.deepEqual(lists.removed, setDifference(old, now), part);
        }
      }),
      options,
    );
  });

  it("agrees with a direct reading on changed, identical and the cache", () => {
    fc.assert(
      fc.property(pairArb, ([before, after]) => {
        const diff = diffAssemblies(before, after);
        const toolsStable =
          JSON.stringify(before.tools) === JSON.stringify(after.tools);
        const promptsEqual = renderPrompt(before) === renderPrompt(after);
        assert.equal(diff.cache.toolsStable, toolsStable);
        assert.equal(
          diff.identical,
          toolsStable && promptsEqual &&
            renderRuntime(before) === renderRuntime(after),
        );
        assert.equal(
          diff.cache.promptStablePrefix,
          toolsStable ? diff.prompt.stablePrefix : 0,
        );
        assert.equal(
          diff.cache.brokenBy === undefined,
          toolsStable && promptsEqual,
        );
        if (!toolsStable) {
          assert.match(diff.cache.brokenBy!, /^tool:/);
        }
        const changedTools = before.tools.filter((tool) => {
          const other = after.tools.find((t) => t.name === tool.name);
          return other !== undefined &&
            JSON.stringify(other) !== JSON.stringify(tool);
        });
        assert.deepEqual(diff.tools.changed, names(changedTools).sort());
      }),
      options,
    );
  });
});

// Stand-ins for hostile objects, swapped in by `materialize` at run time:
// fast-check itself inspects generated values, which a revoked proxy forbids.
const REVOKED = Object.freeze({ hostile: "revoked proxy" });
const THROWING = Object.freeze({ hostile: "throwing getter" });

function materialize(value: unknown): unknown {
  if (value === REVOKED) {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  }
  if (value === THROWING) {
    return Object.defineProperty({}, "name", {
      enumerable: true,
      get() {
        throw new Error("hostile getter");
      },
    });
  }
  if (Array.isArray(value)) return value.map(materialize);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, materialize(item)]),
    );
  }
  return value;
}

/** Values that no assembly should hold, and a few that it may. */
const oddArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 2 }),
  fc.constantFrom(
    null,
    undefined,
    NaN,
    -0,
    1n,
    Symbol("odd"),
    () => "f",
    [],
    {},
    "",
    "{{model}}",
    "{{",
  ),
  fc.constantFrom(REVOKED, THROWING),
);

/** A section or tool entry with each key missing, odd or ordinary. */
const oddEntryArb: fc.Arbitrary<unknown> = fc.record({
  name: fc.oneof(oddArb, fc.constantFrom(...SECTION_NAMES, ...TOOL_NAMES)),
  order: fc.oneof(oddArb, fc.constant(0)),
  text: fc.oneof(oddArb, fc.constantFrom(...TEXTS)),
  description: fc.oneof(oddArb, fc.constant("d")),
  parameters: oddArb,
}, { requiredKeys: [] });

type Field = "sections" | "tools" | "variables" | "runtimeContext";
const FIELDS: Field[] = ["sections", "tools", "variables", "runtimeContext"];

/**
 * Almost-assemblies: a valid one with one field missing or odd, an odd or
 * duplicate entry in one list, an odd variable, or texts that cannot render.
 */
const hostileArb: fc.Arbitrary<unknown> = fc.oneof(
  oddArb,
  assemblyArb,
  fc.tuple(assemblyArb, fc.constantFrom(...FIELDS), fc.option(oddArb)).map(
    ([assembly, field, value]) => {
      const copy: Record<string, unknown> = { ...assembly };
      if (value === null) delete copy[field];
      else copy[field] = value;
      return copy;
    },
  ),
  fc.tuple(
    assemblyArb,
    fc.constantFrom<Field>("sections", "tools", "runtimeContext"),
    fc.oneof(oddArb, oddEntryArb, fc.constant("duplicate")),
  ).map(([assembly, field, entry]) => {
    const list: unknown[] = [...(assembly[field] as unknown[] ?? [])];
    list.push(entry === "duplicate" && list.length > 0 ? list[0] : entry);
    return { ...assembly, [field]: list };
  }),
  fc.tuple(
    assemblyArb,
    fc.constantFrom("name", "model", "cwd", "constructor"),
    fc.oneof(oddArb, fc.constant(undefined)),
  ).map(([assembly, name, value]) => ({
    ...assembly,
    variables: { ...assembly.variables, [name]: value },
  })),
  fc.tuple(
    assemblyArb,
    fc.constantFrom("{{ model }}", "{{nope}}", "{{a}} }}", "{{{x}}}"),
  ).map(([assembly, text]) => ({
    ...assembly,
    sections: [...assembly.sections, { name: "bad", order: 9, text }],
  })),
);

describe(`diffAssemblies: hostile input (seed ${SEED})`, () => {
  it("returns a diff or throws a SystemPromptError with a code, never anything else", () => {
    let results = 0;
    const codes = new Map<string, number>();
    fc.assert(
      fc.property(hostileArb, hostileArb, (before, after) => {
        let diff: PromptDiff;
        try {
          diff = diffAssemblies(
            materialize(before) as Assembly,
            materialize(after) as Assembly,
          );
        } catch (error) {
          assert.ok(error instanceof SystemPromptError, String(error));
          assert.equal(typeof error.code, "string");
          assert.match(error.message, /^diffAssemblies: .*(before|after)/);
          codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
          return;
        }
        results++;
        assert.equal(typeof diff.identical, "boolean");
        assert.equal(typeof diff.prompt.stablePrefix, "number");
      }),
      { seed: SEED, numRuns: RUNS },
    );
    if (!FULL_RUN) return;
    // The generator reaches results and every kind of rejection.
    assert.ok(results > 0, `${results} results`);
    for (
      const code of [
        "INVALID_ASSEMBLY",
        "INVALID_SECTION",
        "INVALID_TOOL_SCHEMA",
        "INVALID_VARIABLE_VALUE",
        "DUPLICATE_SECTION",
        "DUPLICATE_TOOL",
        "MALFORMED_REFERENCE",
        "UNKNOWN_VARIABLE",
        "VARIABLE_WITHOUT_VALUE",
      ]
    ) {
      assert.ok(codes.has(code), `${code}: ${[...codes.keys()]}`);
    }
  });
});
