/**
 * renderPrompt from 1 MB to 4 MB of adversarial text grows about 4x
 * (`deno task test:slow`): `{{a}}` repeated, `{{a}}{{` repeated (a
 * reference, then an unclosed group: MALFORMED_REFERENCE) and `}}`
 * repeated. A ratio between two sizes of the same work, never a duration.
 *
 * What set the growth before: the one-pass render of a text the template
 * cache does not keep grew its output as a rope of one node per reference,
 * alive until the render returned; every young collection copied and
 * promoted it, and at 4 MB the heap grew into a full collection (11-15x
 * the 1 MB time). `}}` repeated is one `indexOf` over the text: rendering
 * the same 1 MB text again and again keeps it in the core's L2 cache and
 * the 4 MB one does not, which is the hardware's ratio, not the module's;
 * the sizes are interleaved here, so neither stays cached.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt } from "../../mod.ts";
import { clearTemplateCache } from "../../src/render/template_cache.ts";
import { rejects } from "../assertions.ts";

const MB = 1 << 20;

/** Linear is 4x; the rope's full collections made it 11x and more. */
const MAX_RATIO = 8;

function textOf(unit: string, bytes: number): string {
  return unit.repeat(Math.floor(bytes / unit.length));
}

function render(text: string): string {
  return renderPrompt({
    sections: [{ name: "s", order: 0, text }],
    tools: [],
    variables: { a: "value" },
  });
}

/**
 * The best time of `repeat` calls of `run` on the 4 MB text over the best
 * on the 1 MB text, the two sizes interleaved (so the small one is not
 * kept in a CPU cache by the calls before it); three attempts on a noisy
 * machine.
 */
function assertGrowth(
  unit: string,
  run: (text: string) => void,
  repeat = 1,
): void {
  const small = textOf(unit, MB);
  const large = textOf(unit, 4 * MB);
  function sample(text: string): number {
    clearTemplateCache();
    const started = performance.now();
    for (let index = 0; index < repeat; index++) run(text);
    return performance.now() - started;
  }
  sample(small); // warm up
  sample(large);
  const ratios: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    let bestSmall = Infinity;
    let bestLarge = Infinity;
    for (let round = 0; round < 7; round++) {
      bestSmall = Math.min(bestSmall, sample(small));
      bestLarge = Math.min(bestLarge, sample(large));
    }
    const ratio = bestLarge / bestSmall;
    if (ratio < MAX_RATIO) return;
    ratios.push(ratio.toFixed(1));
  }
  assert.fail(`4 MB of ${unit} took ${ratios.join("x, ")}x the 1 MB time`);
}

describe("renderPrompt: 1 MB to 4 MB grows about 4x", () => {
  it("`{{a}}` repeated (a reference each five bytes)", () => {
    assert.equal(render(textOf("{{a}}", 5_000)), "value".repeat(1_000));
    assertGrowth("{{a}}", render);
  });

  it("`x{{a}}` repeated (a literal between references)", () => {
    assert.equal(render(textOf("x{{a}}", 6_000)), "xvalue".repeat(1_000));
    assertGrowth("x{{a}}", render);
  });

  it("`{{a}}{{` repeated: the reference renders, then the unclosed group rejects", () => {
    const malformed = (text: string) =>
      assert.throws(() => render(text), rejects("MALFORMED_REFERENCE"));
    malformed(textOf("{{a}}{{", MB));
    assertGrowth("{{a}}{{", malformed, 50);
  });

  it("`}}` repeated: the text itself", () => {
    const text = textOf("}}", MB);
    assert.equal(render(text), text);
    assertGrowth("}}", render);
  });
});
