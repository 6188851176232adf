/**
 * SPEC 8.10: `\{{` renders a literal `{{`; a run of n backslashes right
 * before `{{` renders ⌊n/2⌋ backslashes, and the `{{` is literal when n is
 * odd, a reference (read as in 4.5) when it is even. Everywhere else a
 * backslash is literal. Checked through every renderer: `renderPrompt`,
 * `renderRuntimeContext`, `renderPromptBlocks`, `explain()` offsets and
 * `diffAssemblies`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  diffAssemblies,
  type PromptAssembly,
  renderPrompt,
  renderPromptBlocks,
  renderRuntimeContext,
  SystemPrompt,
} from "../../mod.ts";
import { clearTemplateCache } from "../../src/render/template_cache.ts";
import { rejects } from "../assertions.ts";

type Variables = PromptAssembly["variables"];

function render(text: string, variables: Variables = {}): string {
  return renderPrompt({
    sections: [{ name: "s", order: 0, text }],
    tools: [],
    variables,
  });
}

/** `render` past a full template cache: the one-pass path, no template. */
function renderUncached(text: string, variables: Variables = {}): string {
  const lead = [];
  for (let index = 0; index < 2_048; index++) {
    lead.push({ name: "lead", order: 0, text: `escape lead ${index}` });
  }
  const filler = " {{x}}".padEnd(4096, ".");
  for (let index = 0; index < 1_200; index++) {
    render(`${index}${filler} escape`, { x: "v" });
  }
  const prompt = renderPrompt({
    sections: [...lead, { name: "s", order: 0, text }],
    tools: [],
    variables,
  });
  clearTemplateCache();
  return prompt.slice(prompt.lastIndexOf("\n\n") + 2);
}

const BS = "\\";

describe("renderPrompt: the \\{{ escape (SPEC 8.10)", () => {
  for (
    const [name, renderText] of [["cached", render], [
      "uncached",
      renderUncached,
    ]] as const
  ) {
    it(`renders \\{{ as a literal {{, dropping the backslash (${name})`, () => {
      assert.equal(renderText(`${BS}{{model}}`, { model: "m" }), "{{model}}");
      assert.equal(renderText(`a ${BS}{{ b`), "a {{ b");
      assert.equal(renderText(`${BS}{{`), "{{");
    });

    it(`keeps half of a run of backslashes before {{; an even run reads a reference (${name})`, () => {
      const variables = { x: "X" };
      for (let n = 0; n <= 7; n++) {
        const expected = BS.repeat(Math.floor(n / 2)) +
          (n % 2 === 1 ? "{{x}}" : "X");
        assert.equal(
          renderText(`${BS.repeat(n)}{{x}}.`, variables),
          `${expected}.`,
          `${n} backslashes`,
        );
      }
    });

    it(`mixes escaped and read groups in one text (${name})`, () => {
      assert.equal(
        renderText(`{{a}} ${BS}{{a}} ${BS}${BS}{{a}} ${BS}{{{a}}`, { a: "A" }),
        `A {{a}} ${BS}A {{{a}}`,
      );
      // After an escaped {{, the next {{ is read again.
      assert.equal(renderText(`${BS}{{{{a}}`, { a: "A" }), "{{A");
    });

    it(`keeps every other backslash (${name})`, () => {
      const text = `C:${BS}path${BS}${BS}x ${BS}} ${BS}{ {${BS}{ ${BS}`;
      assert.equal(renderText(text), text);
      assert.equal(
        renderText(`{{a}} ${BS}n ${BS}`, { a: "A" }),
        `A ${BS}n ${BS}`,
      );
    });

    it(`makes a {{ that would be malformed literal (${name})`, () => {
      assert.equal(renderText(`${BS}{{ model }}`), "{{ model }}");
      assert.equal(renderText(`${BS}{{}} and }}`), "{{}} and }}");
      assert.equal(renderText(`${BS}{{unknown}}`), "{{unknown}}");
    });

    it(`applies the escape where no }} follows (${name})`, () => {
      assert.equal(
        renderText(`{{ open ${BS}{{ and ${BS}${BS}{{`),
        `{{ open {{ and ${BS}{{`,
      );
      assert.equal(renderText(`${BS}${BS}{{`), `${BS}{{`);
      assert.equal(
        renderText(`{{a}} {{ then ${BS}{{`, { a: "A" }),
        "A {{ then {{",
      );
    });

    it(`stays strict: an even run before a bad group still throws (${name})`, () => {
      assert.throws(
        () => renderText(`${BS}${BS}{{ model }}`),
        rejects("MALFORMED_REFERENCE", '"s"'),
      );
      assert.throws(
        () => renderText(`${BS}{{a}} ${BS}${BS}{{nope}}`),
        rejects("UNKNOWN_VARIABLE", '"s"', "{{nope}}"),
      );
      // The offset of an unclosed {{ is in the section's own text.
      assert.throws(
        () => renderText(`${BS}{{x ${BS}${BS}{{ y { }}`),
        rejects("MALFORMED_REFERENCE", '"s"', /offset 7\b/),
      );
    });
  }

  it("never scans a substituted value for escapes", () => {
    assert.equal(render("{{v}}", { v: `${BS}{{x}}` }), `${BS}{{x}}`);
    assert.equal(render("{{v}}{{w}}", { v: BS, w: "{{" }), `${BS}{{`);
  });

  it("applies to runtime context entries alike", () => {
    assert.equal(
      renderRuntimeContext({
        sections: [],
        tools: [],
        variables: { d: "D" },
        runtimeContext: [{ name: "r", order: 0, text: `${BS}{{d}} {{d}}` }],
      }),
      "{{d}} D",
    );
  });
});

describe("the escape through the other renderers", () => {
  const assembly: PromptAssembly = {
    sections: [
      { name: "a", order: 0, text: `Use ${BS}{{name}} for a variable.` },
      { name: "b", order: 1, text: `${BS}${BS}{{v}}`, cacheBreakpoint: true },
      { name: "c", order: 2, text: "tail" },
    ],
    tools: [],
    variables: { v: "V" },
  };

  it("renderPromptBlocks renders each block with the escape applied", () => {
    const blocks = renderPromptBlocks(assembly);
    assert.deepEqual(
      blocks.map((block) => block.text).join(""),
      renderPrompt(assembly),
    );
    assert.equal(blocks[0].text, `Use {{name}} for a variable.\n\n${BS}V\n\n`);
  });

  it("explain() offsets slice the prompt to each section's rendered text", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.variable("v", () => "V");
    for (const section of assembly.sections) prompt.section(section);
    const explanation = await prompt.explain({}, {
      countTokens: (text) => text.length,
    });
    const texts = { a: "Use {{name}} for a variable.", b: `${BS}V`, c: "tail" };
    const sliced = Object.fromEntries(
      explanation.sections.filter((origin) => origin.name in texts).map((
        origin,
      ) => [origin.name, explanation.prompt.slice(origin.start, origin.end)]),
    );
    assert.deepEqual(sliced, texts);
    const tokens = explanation.sections.filter((origin) => origin.name in texts)
      .map((origin) => origin.tokens);
    assert.deepEqual(tokens, Object.values(texts).map((text) => text.length));
    await prompt.dispose();
  });

  it("diffAssemblies compares rendered texts: an escaped group does not change with its variable", () => {
    const escaped = (value: string): PromptAssembly => ({
      sections: [{ name: "s", order: 0, text: `${BS}{{v}} then {{w}}` }],
      tools: [],
      variables: { v: value, w: "W" },
    });
    const same = diffAssemblies(escaped("one"), escaped("two"));
    assert.deepEqual(same.sections.changed, []);
    assert.equal(same.cache.promptStablePrefix, "{{v}} then W".length);

    const read = (text: string): PromptAssembly => ({
      sections: [{ name: "s", order: 0, text }],
      tools: [],
      variables: { v: "V" },
    });
    const diff = diffAssemblies(read(`${BS}{{v}}`), read(`${BS}${BS}{{v}}`));
    assert.deepEqual(diff.sections.changed, ["s"]);
    assert.equal(diff.prompt.firstChangedOffset, 0);
    assert.equal(diff.cache.brokenBy, "section:s");
  });
});
