import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import {
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
  SystemPromptError,
} from "../../mod.ts";

type Variables = PromptAssembly["variables"];
type Outcome = { text: string } | { code: string; section: string };

/**
 * The reference model: SPEC 4.5 and 8.10 read literally, one position at a
 * time, with no attempt at speed (a fresh `indexOf` per `{{` makes it
 * quadratic).
 */
function referenceRender(assembly: PromptAssembly): Outcome {
  const rendered: string[] = [];
  for (const { name, text } of assembly.sections) {
    const result = referenceInterpolate(text, assembly.variables);
    if (typeof result !== "string") return { code: result.code, section: name };
    if (result !== "") rendered.push(result);
  }
  return { text: rendered.join("\n\n") };
}

function referenceInterpolate(
  text: string,
  variables: Variables,
): string | { code: string } {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === "\\") {
      // A run of n backslashes: before a "{{", half of them stay and an odd
      // run makes the "{{" literal; anywhere else all of them stay.
      let n = 0;
      while (text[i + n] === "\\") n += 1;
      if (!text.startsWith("{{", i + n)) {
        out += text.slice(i, i + n);
        i += n;
        continue;
      }
      out += "\\".repeat(Math.floor(n / 2));
      i += n;
      if (n % 2 === 1) {
        out += "{{";
        i += 2;
      }
      continue;
    }
    if (!text.startsWith("{{", i)) {
      out += text[i];
      i += 1;
      continue;
    }
    // A complete group: "{{" + characters other than "{" and "}" + "}}".
    let j = i + 2;
    while (j < text.length && text[j] !== "{" && text[j] !== "}") j += 1;
    if (text.startsWith("}}", j)) {
      const inner = text.slice(i + 2, j);
      if (!/^[a-z][a-z0-9_]*$/.test(inner)) {
        return { code: "MALFORMED_REFERENCE" };
      }
      if (!Object.prototype.hasOwnProperty.call(variables, inner)) {
        return { code: "UNKNOWN_VARIABLE" };
      }
      const value = variables[inner];
      if (value === undefined) return { code: "VARIABLE_WITHOUT_VALUE" };
      out += value;
      i = j + 2;
      continue;
    }
    // Not a complete group: malformed if any "}}" follows, else plain text.
    if (text.indexOf("}}", i + 2) !== -1) {
      return { code: "MALFORMED_REFERENCE" };
    }
    out += "{";
    i += 1;
  }
  return out;
}

function actualRender(assembly: PromptAssembly): Outcome {
  try {
    return { text: renderPrompt(assembly) };
  } catch (error) {
    assert.ok(error instanceof SystemPromptError, String(error));
    return { code: error.code, section: error.message };
  }
}

const REGISTERED = ["model", "cwd", "a", "x_1", "constructor", "empty"];
const VALID_NAMES = [...REGISTERED, "unknown", "b"];
const INVALID_NAMES = ["", " model ", "Model", "1a", "a-b", "toString", "_a"];

const nameArb = fc.constantFrom(...VALID_NAMES, ...INVALID_NAMES);

const tokenArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(...VALID_NAMES).map((n) => `{{${n}}}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...INVALID_NAMES).map((n) => `{{${n}}}`),
  },
  { weight: 2, arbitrary: nameArb },
  { weight: 6, arbitrary: fc.constantFrom("x", " ", "\n", "é", "say ", ".") },
  { weight: 1, arbitrary: fc.constantFrom("{", "}", "{{", "}}") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("\\", "\\\\", "\\{{", "\\\\{{", "\\\\\\{{"),
  },
);

/** Texts whose only "}}" close groups exercise the verbatim "{{" rule. */
const textArb = fc.oneof(
  fc.array(tokenArb, { maxLength: 14 }).map((tokens) => tokens.join("")),
  fc.tuple(
    fc.array(
      fc.oneof(
        fc.constantFrom(...REGISTERED).map((n) => `{{${n}}}`),
        fc.constantFrom("x", " ", "{", "é"),
      ),
      { maxLength: 6 },
    ),
    fc.array(
      fc.constantFrom("{{", "{", "{{{", "x", "}", "{{a}", " ", "\\", "\\{{"),
      {
        maxLength: 6,
      },
    ),
  ).map(([head, tail]) =>
    (head.join("") + tail.join("")).replaceAll("}}", "}")
  ),
);

/** Whether some section keeps a "{{" that starts no complete group. */
function hasLiteralOpen(assembly: PromptAssembly): boolean {
  return assembly.sections.some((section) =>
    section.text.replaceAll(/\{\{[^{}]*\}\}/g, "").includes("{{")
  );
}

/** Whether some section holds a backslash right before a "{{". */
function hasEscape(assembly: PromptAssembly): boolean {
  return assembly.sections.some((section) => section.text.includes("\\{{"));
}

const valueArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom("", "v", "{{model}}", "{{", "}}", "{{ x }}"),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 4 }) },
);

const variablesArb: fc.Arbitrary<Variables> = fc.tuple(
  fc.uniqueArray(fc.tuple(fc.constantFrom(...REGISTERED), valueArb), {
    selector: ([name]) => name,
  }),
  fc.boolean(),
).map(([entries, bare]) => {
  const variables: Variables = bare ? Object.create(null) : {};
  for (const [name, value] of entries) variables[name] = value;
  return variables;
});

const assemblyArb: fc.Arbitrary<PromptAssembly> = fc.record({
  sections: fc.array(textArb, { maxLength: 4 }).map((texts) =>
    texts.map((text, index) => ({ name: `section-${index}`, order: 0, text }))
  ),
  tools: fc.constant([]),
  variables: variablesArb,
});

/** Fixed so that a failure replays: fast-check prints it with the path. */
const SEED = 20261202;
const DEFAULT_RUNS = 1000;
const RUNS = fuzzRuns(DEFAULT_RUNS);

describe(`renderPrompt: property (seed ${SEED})`, () => {
  it("agrees with a literal reference model on text or error code and section", () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(assemblyArb, (assembly) => {
        const expected = referenceRender(assembly);
        const actual = actualRender(assembly);
        const kind = "text" in expected
          ? (hasEscape(assembly)
            ? "escape"
            : hasLiteralOpen(assembly)
            ? "verbatim"
            : "text")
          : expected.code;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        if ("text" in expected) {
          assert.deepEqual(actual, expected);
        } else {
          assert.ok("code" in actual, `rendered ${JSON.stringify(actual)}`);
          assert.equal(actual.code, expected.code);
          assert.ok(
            actual.section.includes(`"${expected.section}"`),
            `${actual.section} does not name "${expected.section}"`,
          );
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator reaches every outcome, so agreement means something
    // (checked at the full run count only).
    for (
      const kind of [
        "text",
        "verbatim",
        "escape",
        "MALFORMED_REFERENCE",
        "UNKNOWN_VARIABLE",
        "VARIABLE_WITHOUT_VALUE",
      ]
    ) {
      if (RUNS < DEFAULT_RUNS) break;
      assert.ok((seen.get(kind) ?? 0) >= 20, `${kind}: ${seen.get(kind)}`);
    }
  });

  it("keeps a text without any }} verbatim when it has no complete group", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("{", "{{", "}", "x", " ", "model"), {
          maxLength: 20,
        }).map((parts) => parts.join("").replaceAll("}}", "} ")),
        (text) => {
          const assembly = {
            sections: [{ name: "s", order: 0, text }],
            tools: [],
            variables: {},
          };
          assert.equal(renderPrompt(assembly), text);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

/** Fills the module's template cache with texts no test renders again. */
function fillTemplateCache(): void {
  const filler = " {{x}}".padEnd(4096, ".");
  for (let index = 0; index < 1_200; index++) {
    renderPrompt({
      sections: [{ name: "filler", order: 0, text: `${index}${filler}` }],
      tools: [],
      variables: { x: "v" },
    });
  }
}

let unseen = 0;

/** Sections never rendered before: misses the full cache does not keep. */
function unseenSections(count: number): PromptAssembly["sections"] {
  const sections = [];
  for (let index = 0; index < count; index++) {
    sections.push({ name: "unseen", order: 0, text: `unseen ${unseen++}` });
  }
  return sections;
}

describe(`renderPrompt: property, past a full cache (seed ${SEED})`, () => {
  it("renders what the cache does not keep as the reference model does", () => {
    fillTemplateCache();
    const kinds = new Set<string>();
    fc.assert(
      fc.property(assemblyArb, (assembly) => {
        // A prompt whose first thousand texts miss the full cache renders
        // the rest straight from the text, without the cache.
        const lead = unseenSections(2_048);
        const expected = referenceRender(assembly);
        const actual = actualRender({
          ...assembly,
          sections: [...lead, ...assembly.sections],
        });
        if ("text" in expected) {
          kinds.add("text");
          const leadText = lead.map((section) => section.text).join("\n\n");
          assert.deepEqual(actual, {
            text: expected.text === ""
              ? leadText
              : `${leadText}\n\n${expected.text}`,
          });
        } else {
          kinds.add(expected.code);
          assert.ok("code" in actual, `rendered ${JSON.stringify(actual)}`);
          assert.equal(actual.code, expected.code);
          assert.ok(actual.section.includes(`"${expected.section}"`));
        }
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 4) },
    );
    if (RUNS >= DEFAULT_RUNS) assert.ok(kinds.size >= 4, [...kinds].join());
  });

  it("gives the same messages with and without the cache", () => {
    const texts = [
      "a {{model}} b {{cwd}}",
      "{{model}} then {{ model }}",
      "{{model}} then {{unknown}}",
      "{{empty}} has no value",
      "{{model}} {{ no close {{x}} later }}",
      "{{ open and }} {{model}}",
      "only {{ open",
    ];
    const variables = { model: "m", cwd: "/w", empty: undefined };
    for (const text of texts) {
      const section = { name: "probe", order: 0, text };
      // Cached: the text is admitted on its first render and hit afterwards.
      const cached = actualRender({
        sections: [section],
        tools: [],
        variables,
      });
      const uncached = actualRender({
        sections: [...unseenSections(2_048), section],
        tools: [],
        variables,
      });
      if ("code" in cached) assert.deepEqual(uncached, cached, text);
      else assert.ok("text" in uncached && uncached.text.endsWith(cached.text));
    }
  });
});

/** Fixed so that a failure replays: `fc.assert(..., { seed: RUNTIME_SEED })`. */
const RUNTIME_SEED = 20261202;

/** The outcome of `render`, with the error's entry name instead of its message. */
function outcomeOf(render: () => string): Outcome {
  try {
    return { text: render() };
  } catch (error) {
    assert.ok(error instanceof SystemPromptError, String(error));
    const entry = /^(?:Section|Runtime context entry) ("[^"]*")/.exec(
      error.message,
    );
    assert.ok(entry !== null, error.message);
    return { code: error.code, section: entry[1] };
  }
}

describe("renderRuntimeContext: property", () => {
  it(`agrees with renderPrompt on the same entries (seed ${RUNTIME_SEED})`, () => {
    let failures = 0;
    fc.assert(
      fc.property(assemblyArb, (assembly) => {
        const asSections = outcomeOf(() => renderPrompt(assembly));
        const asRuntimeContext = outcomeOf(() =>
          renderRuntimeContext({
            sections: [],
            tools: [],
            variables: assembly.variables,
            runtimeContext: assembly.sections,
          })
        );
        assert.deepEqual(asRuntimeContext, asSections);
        if ("code" in asSections) failures++;
      }),
      { numRuns: RUNS, seed: RUNTIME_SEED },
    );
    // Both texts and errors were compared.
    assert.ok(
      failures >= RUNS / 10 && failures <= RUNS * 9 / 10,
      `${failures} errors in ${RUNS} runs`,
    );
  });
});
