import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
} from "../../mod.ts";
import { renderSections } from "../../src/render/interpolate.ts";
import {
  clearTemplateCache,
  templateCacheStats,
} from "../../src/render/template_cache.ts";
import { rejects } from "../assertions.ts";

type Variables = PromptAssembly["variables"];

function section(name: string, text: string, order = 0): AssembledSection {
  return { name, order, text };
}

function assembly(
  sections: AssembledSection[],
  variables: Variables = {},
): PromptAssembly {
  return { sections, tools: [], variables };
}

function render(text: string, variables: Variables = {}): string {
  return renderPrompt(assembly([section("s", text)], variables));
}

describe("renderPrompt: sections", () => {
  it("keeps the given section order (never re-sorts by order or name)", () => {
    const prompt = renderPrompt(assembly([
      section("zeta", "third-by-name", 50),
      section("alpha", "first-by-name", -5),
      section("mid", "second", 10),
    ]));
    assert.equal(prompt, "third-by-name\n\nfirst-by-name\n\nsecond");
  });

  it("joins the non-empty sections with exactly one blank line", () => {
    assert.equal(
      renderPrompt(assembly([section("a", "A\n"), section("b", "\nB")])),
      "A\n\n\n\nB",
    );
  });

  it("drops empty sections without leaving extra separators", () => {
    const prompt = renderPrompt(assembly([
      section("empty-first", ""),
      section("a", "A"),
      section("empty-middle", ""),
      section("empty-middle-2", ""),
      section("b", "B"),
      section("empty-last", ""),
    ]));
    assert.equal(prompt, "A\n\nB");
  });

  it("drops a section that becomes empty after substituting an empty value", () => {
    const prompt = renderPrompt(
      assembly([
        section("a", "A"),
        section("persona", "{{persona}}"),
        section("twice", "{{persona}}{{persona}}"),
        section("b", "B"),
      ], { persona: "" }),
    );
    assert.equal(prompt, "A\n\nB");
  });

  it("keeps a section of whitespace only (only the empty string is dropped)", () => {
    const prompt = renderPrompt(
      assembly(
        [section("a", "A"), section("ws", "{{x}} "), section("b", "B")],
        {
          x: "",
        },
      ),
    );
    assert.equal(prompt, "A\n\n \n\nB");
  });

  it("renders all-empty sections, and no sections, as the empty string", () => {
    assert.equal(renderPrompt(assembly([])), "");
    assert.equal(
      renderPrompt(
        assembly([section("a", ""), section("b", "{{v}}"), section("c", "")], {
          v: "",
        }),
      ),
      "",
    );
  });

  it("renders a single section without any separator", () => {
    assert.equal(
      renderPrompt(assembly([section("only", "just me")])),
      "just me",
    );
  });

  it("does not mutate the assembly", () => {
    const input = assembly([section("a", "{{x}}"), section("b", "")], {
      x: "1",
    });
    const before = structuredClone(input);
    assert.equal(renderPrompt(input), "1");
    assert.deepEqual(input, before);
  });

  it("rejects a section whose text is not a string, naming it", () => {
    const bad = {
      name: "fn-text",
      order: 0,
      text: 42,
    } as unknown as AssembledSection;
    assert.throws(
      () => renderPrompt(assembly([section("ok", "fine"), bad])),
      rejects("INVALID_SECTION", '"fn-text"', "number"),
    );
  });
});

describe("renderPrompt: substitution", () => {
  it("substitutes every reference, at the start, middle and end", () => {
    assert.equal(
      render("{{a}} and {{b_2}}: {{a}}{{a}}", { a: "x", b_2: "yy" }),
      "x and yy: xx",
    );
  });

  it("reads each variable once per render, however often it is referenced, cached or not", () => {
    // Past a quarter of the cache's bound, a text is rendered uncached.
    const padding = " ".repeat(1_100_000);
    for (const tail of ["", padding]) {
      let reads = 0;
      const variables = {
        get model(): string {
          reads++;
          return `m${reads}`;
        },
      };
      const sections = [
        section("a", `{{model}} {{model}}${tail}`),
        section("b", "again {{model}}"),
      ];
      const first = renderPrompt(assembly(sections, variables));
      assert.equal(first, `m1 m1${tail}\n\nagain m1`);
      assert.equal(reads, 1);
      const second = renderPrompt(assembly(sections, variables));
      assert.equal(second, `m2 m2${tail}\n\nagain m2`);
    }
  });

  it("renders a text of 60,000 references the cache does not keep, in runs, exactly", () => {
    // Past the first 1,024 references the one-pass render joins flat runs:
    // literals (empty ones too), escapes and the tail all stay in place.
    const parts: string[] = [];
    const expected: string[] = [];
    for (let index = 0; index < 60_000; index++) {
      if (index % 3 === 0) {
        parts.push("{{a}}");
        expected.push("A");
      } else if (index % 3 === 1) {
        parts.push(`-${index}{{bb}}`);
        expected.push(`-${index}BB`);
      } else {
        parts.push("\\\\{{a}}");
        expected.push("\\A");
      }
    }
    const text = parts.join("") + " tail {{";
    clearTemplateCache();
    assert.equal(
      render(text, { a: "A", bb: "BB" }),
      expected.join("") + " tail {{",
    );
    assert.equal(templateCacheStats().entries, 0);
    assert.throws(
      () => render(text + "{{missing}}", { a: "A", bb: "BB" }),
      rejects("MALFORMED_REFERENCE"),
    );
  });

  it("accepts every name matching ^[a-z][a-z0-9_]*$", () => {
    const variables = { a: "1", z9: "2", a_b: "3", x_: "4", q0_0: "5" };
    assert.equal(
      render("{{a}}{{z9}}{{a_b}}{{x_}}{{q0_0}}", variables),
      "12345",
    );
  });

  it("never rescans substituted text", () => {
    const variables = {
      a: "{{b}}",
      b: "B",
      open: "{{",
      close: "}}",
      brace: "{",
      bad: "{{ not a ref }}",
      unknown: "{{nope}}",
    };
    assert.equal(render("{{a}}", variables), "{{b}}");
    assert.equal(render("{{open}}b{{close}}", variables), "{{b}}");
    assert.equal(render("{{brace}}{{a}}", variables), "{{{b}}");
    assert.equal(
      render("[{{bad}}] [{{unknown}}]", variables),
      "[{{ not a ref }}] [{{nope}}]",
    );
    assert.equal(render("{{open}}", variables), "{{");
  });

  it("substitutes values verbatim, including $-patterns and newlines", () => {
    const value = "$& $1 $$ $` $'\n\n";
    assert.equal(render("<{{v}}>", { v: value }), `<${value}>`);
  });

  it("leaves text without any {{ untouched, including lone braces", () => {
    const text = "a } b }} c { d {x} }}}";
    assert.equal(render(text), text);
  });

  it("treats a lone }} as ordinary text, before and after references", () => {
    assert.equal(render("}} {{a}} }}", { a: "A" }), "}} A }}");
    assert.equal(render("{{a}}}", { a: "A" }), "A}");
    assert.equal(render("}}}}", { a: "A" }), "}}}}");
  });

  it("keeps a {{ verbatim when no }} follows it", () => {
    assert.equal(render("literal {{ here"), "literal {{ here");
    assert.equal(render("{{{{"), "{{{{");
    assert.equal(render("{{{"), "{{{");
    assert.equal(render("trailing {{"), "trailing {{");
    assert.equal(render("{{"), "{{");
    assert.equal(render("{{a}"), "{{a}");
    assert.equal(render("x {{a} y"), "x {{a} y");
    assert.equal(render("{{a{{b"), "{{a{{b");
    assert.equal(render("}} then {{ open"), "}} then {{ open");
  });

  it("keeps a trailing unclosed {{ after resolved references", () => {
    assert.equal(render("{{a}} {{ later", { a: "A" }), "A {{ later");
    assert.equal(render("{{a}}{{", { a: "A" }), "A{{");
    assert.equal(render("{{a}}{{a}", { a: "A" }), "A{{a}");
  });

  it("keeps a {{ verbatim even when another section has a }}", () => {
    const prompt = renderPrompt(
      assembly([section("open", "a {{ b"), section("close", "c }} d")]),
    );
    assert.equal(prompt, "a {{ b\n\nc }} d");
  });
});

describe("renderPrompt: malformed references", () => {
  for (
    const text of [
      "{{ model }}",
      "{{model }}",
      "{{}}",
      "{{Model}}",
      "{{MODEL}}",
      "{{1a}}",
      "{{a-b}}",
      "{{a.b}}",
      "{{_a}}",
      "{{é}}",
      "{{a\nb}}",
    ]
  ) {
    it(`rejects ${JSON.stringify(text)} as MALFORMED_REFERENCE`, () => {
      const inner = text.slice(2, -2);
      assert.throws(
        () =>
          renderPrompt(
            assembly([section("facts", `x ${text} y`)], {
              model: "m",
              [inner]: "registered anyway",
            }),
          ),
        rejects("MALFORMED_REFERENCE", '"facts"', JSON.stringify(text)),
      );
    });
  }

  for (
    const text of [
      "{{{model}}}",
      "{{{model}}",
      "{{a{b}} x",
      "{{a}b}}",
      "{{a} }}",
      "{{ {{model}}",
      "{{model{{model}}",
      "{{\n}} {{model}}",
      "prefix {{ and much later }}",
      "{{{{}}",
    ]
  ) {
    it(`rejects ${JSON.stringify(text)}: a {{ followed later by }}`, () => {
      assert.throws(
        () =>
          renderPrompt(
            assembly([section("tools:shell", text)], { model: "m" }),
          ),
        rejects("MALFORMED_REFERENCE", '"tools:shell"'),
      );
    });
  }

  it("rejects an unclosed {{ before a valid reference", () => {
    assert.throws(
      () => render("open {{ then {{model}}", { model: "m" }),
      rejects("MALFORMED_REFERENCE", '"s"'),
    );
  });

  it("rejects an unclosed {{ after a valid reference when a }} follows", () => {
    assert.throws(
      () => render("{{model}} {{ x }} ", { model: "m" }),
      rejects("MALFORMED_REFERENCE", '"s"'),
    );
  });

  it("checks malformation before whether the name is registered", () => {
    assert.throws(() => render("{{ nope }}"), rejects("MALFORMED_REFERENCE"));
  });
});

describe("renderPrompt: variables", () => {
  it("names the reference, the section and the registered variables in code-unit order", () => {
    // Code-unit order: "B" < "a" < "b1" < "b_1" < "z"; a locale order would
    // put "a" before "B" and "b_1" before "b1".
    const variables: Variables = {
      z: "1",
      b_1: "2",
      a: undefined,
      B: "3",
      b1: "4",
    };
    assert.throws(
      () =>
        renderPrompt(
          assembly(
            [section("ok", "{{z}}"), section("persona:x", "hi {{cwd}}")],
            variables,
          ),
        ),
      rejects(
        "UNKNOWN_VARIABLE",
        '"persona:x"',
        '"{{cwd}}"',
        /\bB, a, b1, b_1, z\b/,
      ),
    );
  });

  it("says that no variables are registered when there are none", () => {
    assert.throws(
      () => render("{{model}}"),
      rejects("UNKNOWN_VARIABLE", '"s"', '"{{model}}"', /no variables/),
    );
  });

  it("only resolves own keys: prototype names are unknown unless registered", () => {
    assert.throws(
      () => render("{{constructor}}", { model: "m" }),
      rejects("UNKNOWN_VARIABLE", '"{{constructor}}"', "model"),
    );
    const inherited = Object.create({ model: "from prototype" }) as Variables;
    inherited.cwd = "/work";
    assert.throws(
      () => render("{{cwd}} {{model}}", inherited),
      rejects("UNKNOWN_VARIABLE", '"{{model}}"', /registered variables: cwd\b/),
    );
  });

  it("resolves prototype names registered as own keys, also without a prototype", () => {
    assert.equal(render("{{constructor}}", { constructor: "C" }), "C");
    const bare = Object.create(null) as Variables;
    bare["constructor"] = "C";
    bare.model = "M";
    assert.equal(render("{{model}}/{{constructor}}", bare), "M/C");
    const empty = Object.create(null) as Variables;
    assert.throws(
      () => render("{{constructor}}", empty),
      rejects("UNKNOWN_VARIABLE", '"{{constructor}}"', /no variables/),
    );
  });

  it("rejects camel-case and underscore prototype names as malformed, even as own keys", () => {
    // `toString`, `hasOwnProperty` and `__proto__` can never be variable
    // names (^[a-z][a-z0-9_]*$), so they are malformed before any lookup.
    for (const name of ["toString", "hasOwnProperty", "__proto__", "valueOf"]) {
      const own = Object.create(null) as Variables;
      Object.defineProperty(own, name, { value: "v", enumerable: true });
      for (const variables of [{}, own]) {
        assert.throws(
          () => render(`{{${name}}}`, variables),
          rejects("MALFORMED_REFERENCE", `"{{${name}}}"`),
        );
      }
    }
  });

  it("rejects a registered variable whose value is undefined", () => {
    assert.throws(
      () =>
        renderPrompt(
          assembly([section("env", "cwd: {{cwd}}")], {
            cwd: undefined,
            model: "m",
          }),
        ),
      rejects("VARIABLE_WITHOUT_VALUE", '"env"', '"{{cwd}}"', /no value/),
    );
  });

  it("does not treat an undefined value as absent, nor an empty string as undefined", () => {
    assert.throws(
      () => render("{{x}}", { x: undefined }),
      rejects("VARIABLE_WITHOUT_VALUE"),
    );
    assert.equal(render("[{{x}}]", { x: "" }), "[]");
  });

  it("rejects a value that is not a string, naming the section", () => {
    const variables = { n: 1 } as unknown as Variables;
    assert.throws(
      () => render("{{n}}", variables),
      rejects("INVALID_VARIABLE_VALUE", '"s"', '"{{n}}"'),
    );
  });

  it("fails on the first bad section even when later ones are fine", () => {
    assert.throws(
      () =>
        renderPrompt(
          assembly([
            section("first", "ok"),
            section("second", "{{missing}}"),
            section("third", "{{ bad }}"),
          ]),
        ),
      rejects("UNKNOWN_VARIABLE", '"second"'),
    );
  });
});

describe("renderSections", () => {
  it('returns each section\'s rendered text in order, with "" for empty ones', () => {
    assert.deepEqual(
      renderSections(
        [
          { name: "a", order: 9, text: "A {{x}}" },
          { name: "empty", order: 0, text: "" },
          { name: "becomes-empty", order: 0, text: "{{e}}" },
          { name: "b", order: -1, text: "B" },
        ],
        { x: "1", e: "" },
      ),
      ["A 1", "", "", "B"],
    );
  });

  it("agrees with renderPrompt joined with blank lines", () => {
    const sections: AssembledSection[] = [
      { name: "a", order: 0, text: "{{x}}" },
      { name: "b", order: 0, text: "" },
      { name: "c", order: 0, text: "C {{x}}" },
    ];
    const variables = { x: "X" };
    assert.equal(
      renderSections(sections, variables).filter((t) => t !== "").join("\n\n"),
      renderPrompt({ sections, tools: [], variables }),
    );
  });

  it("checks its input and names the list given in its options", () => {
    const a = section("a", "A {{x}}");
    assert.throws(
      () => renderSections(undefined as unknown as AssembledSection[], {}),
      rejects("INVALID_ASSEMBLY", "sections is undefined"),
    );
    assert.throws(
      () =>
        renderSections([a, null] as unknown as AssembledSection[], {
          x: "",
        }, {
          list: "runtimeContext",
        }),
      rejects("INVALID_ASSEMBLY", "runtimeContext[1] is null"),
    );
    assert.throws(
      () =>
        renderSections([a], {}, {
          list: "runtimeContext",
        }),
      rejects("UNKNOWN_VARIABLE", 'Runtime context entry "a"', '"{{x}}"'),
    );
    assert.throws(
      () => renderSections([a], {}),
      rejects("UNKNOWN_VARIABLE", 'Section "a"', '"{{x}}"'),
    );
  });
});

describe("renderPrompt: a prompt larger than what a full cache admits", () => {
  function distinct(prefix: string, count: number): PromptAssembly {
    const sections: AssembledSection[] = [];
    for (let index = 0; index < count; index++) {
      sections.push(
        section(`s${index}`, `${prefix} ${index} ${"x".repeat(200)}`),
      );
    }
    return assembly(sections);
  }

  /** The module cache's stats after filling it, then rendering `prompt`. */
  function statsAfter(prompt: PromptAssembly) {
    clearTemplateCache();
    for (let batch = 0; batch < 14; batch++) {
      renderPrompt(distinct(`working set ${batch}`, 1_000));
    }
    renderPrompt(prompt);
    const stats = templateCacheStats();
    clearTemplateCache();
    return stats;
  }

  it("stops looking texts up after a run that mostly missed: the rest leaves the cache as it was", () => {
    const foreign = distinct("foreign", 8_192);
    // The first run (1,024 texts) mostly misses the full cache.
    const firstRun = { ...foreign, sections: foreign.sections.slice(0, 1_024) };
    const whole = statsAfter(foreign);
    assert.equal(whole.bytes > whole.maxBytes * 0.9, true, "the cache is full");
    assert.deepEqual(whole, statsAfter(firstRun));
  });
});
