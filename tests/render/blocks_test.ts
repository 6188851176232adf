import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import {
  type AssembledSection,
  type PromptAssembly,
  type PromptBlock,
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

const EXPLICIT = { breakpoints: "explicit" } as const;

describe('renderPromptBlocks, breakpoints: "explicit" (0.2\'s blocks)', () => {
  it("gives one block when no section is a breakpoint", () => {
    const assembly = assemblyOf([section("a", "A"), section("b", "B")]);
    assert.deepEqual(renderPromptBlocks(assembly, EXPLICIT), [
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
    assert.deepEqual(renderPromptBlocks(assembly, EXPLICIT), [
      { text: "A\n\n", sections: ["a"], cacheBreakpoint: true },
      { text: "B\n\nC\n\n", sections: ["b", "c"], cacheBreakpoint: true },
      { text: "D", sections: ["d"], cacheBreakpoint: true },
    ]);
  });

  it("ends without a trailing separator when the last section is a breakpoint", () => {
    const assembly = assemblyOf([section("a", "A"), section("b", "B", true)]);
    assert.deepEqual(renderPromptBlocks(assembly, EXPLICIT), [
      { text: "A\n\nB", sections: ["a", "b"], cacheBreakpoint: true },
    ]);
  });

  it("cuts at a breakpoint on an empty section, leaving the empty section unlisted", () => {
    const assembly = assemblyOf([
      section("a", "A"),
      section("empty", "", true),
      section("b", "B"),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly, EXPLICIT), [
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
    assert.deepEqual(renderPromptBlocks(assembly, EXPLICIT), [
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
    const blocks = renderPromptBlocks(
      assemblyOf([first, section("b", "B")]),
      EXPLICIT,
    );
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
        const blocks = renderPromptBlocks(assembly, EXPLICIT);
        assert.equal(blocks.map((block) => block.text).join(""), prompt);
        for (const block of blocks) {
          assert.notEqual(block.text, "");
          assert.equal(block.cacheBreakpoint, true);
          assert.equal("stability" in block, false);
        }
        // With every section stable, auto cuts where explicit does.
        assert.deepEqual(
          renderPromptBlocks(assembly),
          blocks.map((block) => ({ ...block, stability: "stable" })),
        );
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

describe('renderPromptBlocks, breakpoints: "auto" (SPEC 8.3)', () => {
  function withStability(
    name: string,
    text: string,
    stability?: "agent" | "volatile",
    cacheBreakpoint = false,
  ): AssembledSection {
    const entry = section(name, text, cacheBreakpoint);
    return stability === undefined ? entry : { ...entry, stability };
  }

  it("cuts at every stability boundary; a volatile block is no cache point", () => {
    const assembly = assemblyOf([
      withStability("identity", "I"),
      withStability("rules", "R"),
      withStability("persona", "P", "agent"),
      withStability("memory", "M", "volatile"),
      withStability("tail", "T"),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      {
        text: "I\n\nR\n\n",
        sections: ["identity", "rules"],
        cacheBreakpoint: true,
        stability: "stable",
      },
      {
        text: "P\n\n",
        sections: ["persona"],
        cacheBreakpoint: true,
        stability: "agent",
      },
      {
        text: "M\n\n",
        sections: ["memory"],
        cacheBreakpoint: false,
        stability: "volatile",
      },
      {
        text: "T",
        sections: ["tail"],
        cacheBreakpoint: true,
        stability: "stable",
      },
    ]);
    assert.deepEqual(
      renderPromptBlocks(assembly, EXPLICIT),
      [{
        text: "I\n\nR\n\nP\n\nM\n\nT",
        sections: ["identity", "rules", "persona", "memory", "tail"],
        cacheBreakpoint: true,
      }],
    );
  });

  it("empty sections make no boundary; explicit breakpoints still cut", () => {
    const assembly = assemblyOf([
      withStability("a", "A"),
      withStability("gone", "", "volatile"),
      withStability("b", "B", undefined, true),
      withStability("c", "C"),
      withStability("d", "D", "volatile", true),
    ]);
    assert.deepEqual(renderPromptBlocks(assembly), [
      {
        text: "A\n\nB\n\n",
        sections: ["a", "b"],
        cacheBreakpoint: true,
        stability: "stable",
      },
      {
        text: "C\n\n",
        sections: ["c"],
        cacheBreakpoint: true,
        stability: "stable",
      },
      {
        text: "D",
        sections: ["d"],
        cacheBreakpoint: false,
        stability: "volatile",
      },
    ]);
  });

  it("rejects a stability that is none with INVALID_ASSEMBLY, and a bad option with INVALID_CONFIG", () => {
    const odd = { name: "a", order: 0, text: "A", stability: "sometimes" };
    assert.throws(
      () =>
        renderPromptBlocks(assemblyOf([odd as unknown as AssembledSection])),
      rejects("INVALID_ASSEMBLY", "sections[0]", '"sometimes"'),
    );
    assert.throws(
      () =>
        renderPromptBlocks(assemblyOf([]), {
          breakpoints: "always" as "auto",
        }),
      rejects("INVALID_CONFIG", "breakpoints", '"always"'),
    );
    assert.throws(
      () => renderPromptBlocks(assemblyOf([]), 5 as never),
      rejects("INVALID_CONFIG", "options must be an object"),
    );
  });

  it("gives INVALID_CONFIG with the cause for an option a getter cannot give", () => {
    const boom = new Error("boom");
    const options = Object.defineProperty({}, "breakpoints", {
      get: () => {
        throw boom;
      },
    });
    assert.throws(
      () => renderPromptBlocks(assemblyOf([section("a", "A")]), options),
      (error) => {
        rejects("INVALID_CONFIG", "renderPromptBlocks", "getter")(error);
        assert.equal((error as Error).cause, boom);
        return true;
      },
    );
  });

  /** The reference model: group runs of equal stability, cut after breakpoints. */
  function referenceBlocks(
    sections: readonly AssembledSection[],
    texts: readonly string[],
  ): PromptBlock[] {
    const ranks = { stable: 0, agent: 1, volatile: 2 } as const;
    const names = ["stable", "agent", "volatile"] as const;
    const pieces: { name: string; text: string; rank: number; cut: boolean }[] =
      [];
    sections.forEach((entry, index) => {
      const rank = ranks[entry.stability ?? "stable"];
      if (texts[index] !== "") {
        pieces.push({ name: entry.name, text: texts[index], rank, cut: false });
      }
      if (entry.cacheBreakpoint === true && pieces.length > 0) {
        pieces[pieces.length - 1].cut = true;
      }
    });
    const blocks: PromptBlock[] = [];
    pieces.forEach((piece, index) => {
      const previous = pieces[index - 1];
      if (
        previous === undefined || previous.cut || previous.rank !== piece.rank
      ) {
        blocks.push({
          text: "",
          sections: [],
          cacheBreakpoint: piece.rank !== 2,
          stability: names[piece.rank],
        });
      }
      const block = blocks[blocks.length - 1];
      block.text += (index === pieces.length - 1)
        ? piece.text
        : piece.text + "\n\n";
      block.sections.push(piece.name);
    });
    return blocks;
  }

  it(`agrees with the reference model (fast-check seed ${SEED})`, () => {
    const itemsArb = fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 4 }),
        text: fc.constantFrom("", "x", "{{model}}", "{{empty}}"),
        cacheBreakpoint: fc.boolean(),
        stability: fc.constantFrom(undefined, "agent", "volatile"),
      }),
      { selector: (item) => item.name, maxLength: 10 },
    );
    fc.assert(
      fc.property(itemsArb, (items) => {
        const sections = items.map((
          { name, text, cacheBreakpoint, stability },
        ) =>
          withStability(
            name,
            text,
            stability as "agent" | "volatile" | undefined,
            cacheBreakpoint,
          )
        );
        const variables = { model: "m", empty: "" };
        const texts = sections.map((entry) =>
          renderPrompt(assemblyOf([entry], variables))
        );
        const assembly = assemblyOf(sections, variables);
        const blocks = renderPromptBlocks(assembly);
        assert.deepEqual(blocks, referenceBlocks(sections, texts));
        assert.equal(
          blocks.map((block) => block.text).join(""),
          renderPrompt(assembly),
        );
      }),
      { seed: SEED, numRuns: fuzzRuns(1000) },
    );
  });
});
