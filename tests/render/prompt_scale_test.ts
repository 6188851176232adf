/** renderPrompt in linear time on adversarial input (`deno task test:slow`). */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PromptAssembly, renderPrompt } from "../../mod.ts";
import { clearTemplateCache } from "../../src/render/template_cache.ts";
import { rejects } from "../assertions.ts";

function render(
  text: string,
  variables: PromptAssembly["variables"] = {},
): string {
  return renderPrompt({
    sections: [{ name: "s", order: 0, text }],
    tools: [],
    variables,
  });
}

/** The per-call time of `fn`, repeated for at least 10 ms. */
function timePerCall(fn: () => void): number {
  let calls = 0;
  let elapsed = 0;
  const start = performance.now();
  do {
    fn();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < 10);
  return elapsed / calls;
}

/**
 * Asserts that 4x the input takes under 10x the time (quadratic would be
 * 16x, and far more in practice). Samples of both sizes are interleaved and
 * the best of each is kept; a noisy machine gets up to three attempts. The
 * 1 s sampling budget only stops resampling runs that are too slow to need
 * it (a quadratic regression); the verdict is the ratio alone. Every call
 * starts from an empty template cache, so the parse itself is timed.
 */
function assertLinear(
  make: (n: number) => string,
  runParsed: (text: string) => void,
): void {
  const small = make(100_000);
  const large = make(400_000);
  function run(text: string): void {
    clearTemplateCache();
    runParsed(text);
  }
  run(small); // warm up
  const ratios: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = performance.now();
    let bestSmall = Infinity;
    let bestLarge = Infinity;
    for (let round = 0; round < 7; round++) {
      bestSmall = Math.min(bestSmall, timePerCall(() => run(small)));
      bestLarge = Math.min(bestLarge, timePerCall(() => run(large)));
      if (performance.now() - started > 1000) break;
    }
    const ratio = bestLarge / bestSmall;
    if (ratio < 10) return;
    ratios.push(ratio.toFixed(1));
    if (performance.now() - started > 1000) break;
  }
  assert.fail(`4x input took ${ratios.join("x, ")}x the time`);
}

describe("renderPrompt: linear time on adversarial input", () => {
  it("renders 400,000 `{{` with no `}}` verbatim, in linear time", () => {
    const text = "{{".repeat(400_000);
    assert.equal(render(text), text);
    assertLinear((n) => "{{".repeat(n), (t) => render(t));
  });

  it("rejects 400,000 `{{` followed by `}}` as malformed, in linear time", () => {
    assert.throws(
      () => render("{{".repeat(400_000) + "}}"),
      rejects("MALFORMED_REFERENCE", '"s"', /offset 0\b/),
    );
    assertLinear((n) => "{{".repeat(n) + "}}", (t) => {
      assert.throws(() => render(t), rejects("MALFORMED_REFERENCE"));
    });
  });

  it("rejects `{{a` repeated then `}}` as malformed, in linear time", () => {
    assert.throws(
      () => render("{{a".repeat(400_000) + "}}"),
      rejects("MALFORMED_REFERENCE", '"s"'),
    );
    assertLinear((n) => "{{a".repeat(n) + "}}", (t) => {
      assert.throws(() => render(t), rejects("MALFORMED_REFERENCE"));
    });
  });

  it("renders `{{a` repeated with no `}}` verbatim, in linear time", () => {
    assertLinear((n) => "{{a ".repeat(n), (t) => {
      assert.equal(render(t).length, t.length);
    });
  });

  it("renders `\\{{` repeated, then `}}`, as literal braces in linear time", () => {
    assert.equal(render("\\{{".repeat(1000) + "}}"), "{{".repeat(1000) + "}}");
    assertLinear((n) => "\\{{".repeat(n / 2) + "}}", (t) => {
      assert.equal(render(t).length, (t.length - 2) * 2 / 3 + 2);
    });
  });

  it("halves one long run of backslashes before `{{` in linear time", () => {
    assertLinear((n) => "\\".repeat(n) + "{{a}}", (t) => {
      assert.equal(render(t, { a: "x" }).length, (t.length - 5) / 2 + 1);
    });
  });

  it("renders `\\\\{{a}}` repeated (a backslash, then a reference) in linear time", () => {
    assertLinear((n) => "\\\\{{a}}".repeat(n / 4), (t) => {
      assert.equal(render(t, { a: "x" }).length, t.length * 2 / 7);
    });
  });

  it("renders many references in linear time", () => {
    const variables = { a: "x" };
    assert.equal(render("{{a}}".repeat(1000), variables), "x".repeat(1000));
    assertLinear((n) => "{{a}}-".repeat(n / 2), (t) => {
      assert.equal(render(t, variables).length, t.length / 3);
    });
  });
});
