import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  renderPromptBlocks,
  SystemPromptError,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

function section(
  name: string,
  text: string,
  cacheBreakpoint = false,
): AssembledSection {
  return cacheBreakpoint
    ? { name, order: 0, text, cacheBreakpoint: true }
    : { name, order: 0, text };
}

function assemblyOf(
  sections: AssembledSection[],
  variables: PromptAssembly["variables"] = {},
): PromptAssembly {
  return { sections, tools: [], variables };
}

describe("renderPromptBlocks", () => {
  it("gives one block when no section is a breakpoint", () => {
    const assembly = assemblyOf([section("a", "A"), section("b", "B")]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      { text: "A\n\nB", sections: ["a", "b"], cacheBreakpoint: true },
    ]);
  });

  it("cuts after each breakpoint, keeping the separator before the cut", () => {
    const assembly = assemblyOf([
      section("a", "A", true),
      section("b", "B"),
      section("c", "C", true),
      section("d", "D"),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      { text: "A\n\n", sections: ["a"], cacheBreakpoint: true },
      { text: "B\n\nC\n\n", sections: ["b", "c"], cacheBreakpoint: true },
      { text: "D", sections: ["d"], cacheBreakpoint: true },
    ]);
  });

  it("ends without a trailing separator when the last section is a breakpoint", () => {
    const assembly = assemblyOf([section("a", "A"), section("b", "B", true)]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      { text: "A\n\nB", sections: ["a", "b"], cacheBreakpoint: true },
    ]);
  });

  it("cuts at a breakpoint on an empty section, leaving the empty section unlisted", () => {
    const assembly = assemblyOf([
      section("a", "A"),
      section("empty", "", true),
      section("b", "B"),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      { text: "A\n\n", sections: ["a"], cacheBreakpoint: true },
      { text: "B", sections: ["b"], cacheBreakpoint: true },
    ]);
  });

  it("makes no cut that would leave an empty block", () => {
    const assembly = assemblyOf([
      section("first", "", true),
      section("a", "A", true),
      section("again", "", true),
      section("b", "B"),
      section("trailing", "", true),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      { text: "A\n\n", sections: ["a"], cacheBreakpoint: true },
      { text: "B", sections: ["b"], cacheBreakpoint: true },
    ]);
  });

  it("gives [] for an all-empty prompt", () => {
    assert.deepEqual(renderPromptBlocks(assemblyOf([])), []);
    const empty = assemblyOf([section("a", "", true), section("b", "{{v}}")], {
      v: "",
    });
    assert.deepEqual(renderPromptBlocks(empty), []);
  });

  it("interpolates variables like renderPrompt", () => {
    const assembly = assemblyOf(
      [section("a", "Model {{model}}", true), section("b", "{{cwd}}")],
      { model: "m-1", cwd: "/work" },
    );
    assert.deepEqual(renderPromptBlocks(assembly).map((block) => block.text), [
      "Model m-1\n\n",
      "/work",
    ]);
  });

  it("ignores a cacheBreakpoint that is not exactly true", () => {
    const odd = { name: "a", order: 0, text: "A", cacheBreakpoint: "yes" };
    const assembly = assemblyOf([
      odd as unknown as AssembledSection,
      section("b", "B"),
    ]);
    assert.equal(renderPromptBlocks(assembly).length, 1);
  });

  it("fails like renderPrompt, naming the section", () => {
    const assembly = assemblyOf([
      section("a", "A", true),
      section("b", "{{x}}"),
    ]);
    assert.throws(
      () => renderPromptBlocks(assembly),
      rejects("UNKNOWN_VARIABLE", '"b"', "{{x}}"),
    );
  });

  it("rejects sections that are not an array of objects with INVALID_ASSEMBLY, as renderPrompt does", () => {
    const notArray = { tools: [], variables: {}, sections: "a" };
    assert.throws(
      () => renderPromptBlocks(notArray as unknown as PromptAssembly),
      rejects("INVALID_ASSEMBLY", "sections is a string", "must be an array"),
    );
    const nullSection = assemblyOf([null as unknown as AssembledSection]);
    assert.throws(
      () => renderPromptBlocks(nullSection),
      rejects("INVALID_ASSEMBLY", "sections[0] is null"),
    );
  });

  it("fails at the first entry that is not an object, even under a huge claimed length", () => {
    const huge = new Proxy([] as AssembledSection[], {
      get: (target, key) =>
        key === "length" ? 2 ** 32 - 1 : Reflect.get(target, key),
    });
    assert.throws(
      () => renderPromptBlocks(assemblyOf(huge)),
      rejects("INVALID_ASSEMBLY", "sections[0] is undefined"),
    );
  });

  it("reads each section once: a text getter cannot render one text into the prompt and another into a block", () => {
    let reads = 0;
    const first = Object.defineProperty({ name: "a", order: 0 }, "text", {
      get: () => reads++ === 0 ? "A" : "changed",
      enumerable: true,
    }) as AssembledSection;
    const blocks = renderPromptBlocks(assemblyOf([first, section("b", "B")]));
    assert.deepEqual(blocks, [
      { text: "A\n\nB", sections: ["a", "b"], cacheBreakpoint: true },
    ]);
    assert.equal(reads, 1);
  });
});

const SEED = 20261202;

const textArb = fc.oneof(
  fc.constant(""),
  fc.constantFrom("{{model}}", "{{empty}}", "plain", "{{ not closed"),
  fc.string({ maxLength: 12 }),
);
const sectionsArb = fc.uniqueArray(
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 6 }),
    text: textArb,
    cacheBreakpoint: fc.boolean(),
  }),
  { selector: (item) => item.name, maxLength: 12 },
);

function toAssembly(
  items: { name: string; text: string; cacheBreakpoint: boolean }[],
): PromptAssembly {
  return assemblyOf(
    items.map(({ name, text, cacheBreakpoint }) =>
      section(name, text, cacheBreakpoint)
    ),
    { model: "m", empty: "" },
  );
}

describe(`renderPromptBlocks properties (fast-check seed ${SEED})`, () => {
  it("concatenates to renderPrompt, has no empty block, lists every non-empty section once", () => {
    fc.assert(
      fc.property(sectionsArb, (items) => {
        const assembly = toAssembly(items);
        let prompt: string;
        try {
          prompt = renderPrompt(assembly);
        } catch (error) {
          assert.ok(error instanceof SystemPromptError);
          assert.throws(
            () => renderPromptBlocks(assembly),
            rejects(error.code),
          );
          return;
        }
        const blocks = renderPromptBlocks(assembly);
        assert.equal(blocks.map((block) => block.text).join(""), prompt);
        for (const block of blocks) {
          assert.notEqual(block.text, "");
          assert.equal(block.cacheBreakpoint, true);
        }
        const nonEmpty = assembly.sections
          .filter((item) =>
            renderPrompt(assemblyOf([item], assembly.variables))
          )
          .map((item) => item.name);
        assert.deepEqual(blocks.flatMap((block) => block.sections), nonEmpty);
      }),
      { seed: SEED, numRuns: fuzzRuns(1000) },
    );
  });
});
