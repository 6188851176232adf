/**
 * The token memo: counts follow the values a text renders with, whatever
 * the order in which texts and values come back.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { countAssemblyTokens, type PromptAssembly } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tokensOf } from "../../src/budget/count.ts";
import { TokenMemo } from "../../src/budget/token_memo.ts";

function assemblyOf(
  texts: string[],
  variables: Record<string, string>,
): PromptAssembly {
  return {
    sections: texts.map((text, order) => ({ name: `s${order}`, order, text })),
    tools: [],
    variables,
  };
}

describe("TokenMemo across counts", () => {
  const chars = (text: string): number => text.length;

  it("recounts a text whose values changed since it was last counted", () => {
    const memo = new TokenMemo(chars);
    const steps: [string[], Record<string, string>, number[]][] = [
      [["v={{v}}"], { v: "a" }, [3]],
      [["v={{v}}"], { v: "bbbb" }, [6]],
      [["v={{v}}"], { v: "bbbb" }, [6]],
      // The text is left out while the values change, then comes back with
      // the values of the count just before it.
      [["other"], { v: "cc" }, [5]],
      [["v={{v}}"], { v: "cc" }, [4]],
      [["v={{v}}", "w={{w}}"], { v: "cc", w: "x" }, [4, 3]],
      [["v={{v}}", "w={{w}}"], { v: "cc", w: "xyz" }, [4, 5]],
    ];
    for (const [texts, variables, expected] of steps) {
      assert.deepEqual(
        tokensOf(assemblyOf(texts, variables), memo).sections,
        expected,
        `${texts} with ${JSON.stringify(variables)}`,
      );
    }
  });

  it("recounts steady steps whose texts move, come and go", () => {
    const memo = new TokenMemo(chars);
    const steps: [string[], number[], boolean[]][] = [
      [["a={{v}}", "bb"], [3, 2], [false, false]],
      [["a={{v}}", "bb"], [3, 2], [false, false]],
      [["bb", "a={{v}}"], [2, 3], [false, false]],
      [["bb"], [2], [false]],
      [["bb", "a={{v}}", ""], [2, 3, 0], [false, false, true]],
      [["bb", "a={{v}}", ""], [2, 3, 0], [false, false, true]],
      [["", "a={{v}}", "bb"], [0, 3, 2], [true, false, false]],
    ];
    for (const [texts, sections, empty] of steps) {
      const counted = tokensOf(assemblyOf(texts, { v: "x" }), memo);
      assert.deepEqual(
        { sections: counted.sections, empty: counted.empty },
        { sections, empty },
        `${JSON.stringify(texts)}`,
      );
      assert.equal(counted.total, sections.reduce((a, b) => a + b, 0));
    }
  });

  it("does not take a section's count from before a count that failed", () => {
    const memo = new TokenMemo(chars);
    assert.deepEqual(
      tokensOf(assemblyOf(["v={{v}}"], { v: "a" }), memo).sections,
      [3],
    );
    // New values, and a count that fails (an unknown variable) after
    // reading them.
    assert.throws(() =>
      tokensOf(assemblyOf(["v={{v}}", "{{nope}}"], { v: "bbbb" }), memo)
    );
    assert.deepEqual(
      tokensOf(assemblyOf(["v={{v}}"], { v: "bbbb" }), memo).sections,
      [6],
    );
  });

  it("calls the counter once per distinct rendered text", () => {
    const seen: string[] = [];
    const memo = new TokenMemo((text) => {
      seen.push(text);
      return text.length;
    });
    for (let step = 0; step < 3; step++) {
      tokensOf(assemblyOf(["a {{v}}", "b"], { v: "1" }), memo);
    }
    tokensOf(assemblyOf(["a {{v}}", "b"], { v: "2" }), memo);
    assert.deepEqual(seen, ["a 1", "b", "a 2"]);
  });

  it("fails a count as the render would once a variable it read is gone", () => {
    const memo = new TokenMemo(chars);
    tokensOf(assemblyOf(["{{a}}{{b}}"], { a: "1", b: "2" }), memo);
    assert.throws(
      () => tokensOf(assemblyOf(["{{a}}{{b}}"], { a: "1" }), memo),
      rejects("UNKNOWN_VARIABLE", '"{{b}}"'),
    );
  });
});

describe("countAssemblyTokens: what it accepts", () => {
  it("takes 0 from the counter", () => {
    const counted = countAssemblyTokens({
      sections: [{ name: "s", order: 0, text: "x" }],
      tools: [{ name: "t", description: "d", parameters: {} }],
      variables: {},
    }, () => 0);
    assert.deepEqual(counted, { sections: [0], tools: [0], total: 0 });
  });

  it("names the entry that cannot be counted", () => {
    const base = {
      sections: [{ name: "s", order: 0, text: "x" }],
      tools: [],
      variables: {},
    };
    assert.throws(
      () => countAssemblyTokens(null as unknown as PromptAssembly, () => 1),
      rejects("INVALID_ASSEMBLY", "countAssemblyTokens"),
    );
    assert.throws(
      () =>
        tokensOf(
          { ...base, tools: ["x"] as unknown as PromptAssembly["tools"] },
          new TokenMemo(() => 1),
        ),
      rejects("INVALID_ASSEMBLY", "tools[0]"),
    );
    const big = { name: "big", description: "d", parameters: { n: 1n } };
    assert.throws(
      () =>
        tokensOf(
          { ...base, tools: [big] as unknown as PromptAssembly["tools"] },
          new TokenMemo(() => 1),
        ),
      (error: unknown) => {
        rejects("INVALID_ASSEMBLY", 'Tool "big"')(error);
        assert.ok((error as Error).cause instanceof TypeError);
        return true;
      },
    );
    assert.throws(
      () =>
        tokensOf(
          {
            ...base,
            sections: [
              base.sections[0],
              null as unknown as PromptAssembly["sections"][number],
            ],
          },
          new TokenMemo(() => 1),
        ),
      rejects("INVALID_ASSEMBLY", "sections[1]"),
    );
  });
});
