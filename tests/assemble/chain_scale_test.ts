/**
 * Scope chains at depth (SPEC 7.3: an assembly costs what the layers it
 * reads cost). A chain of thousands of one-section layers assembles in time
 * linear in layers + entries: sixteen times the layers take about sixteen
 * times as long, not 256 (issue 21, defect 4). Ratios of the same work at two sizes, never wall-clock bounds.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt, SystemPrompt } from "../../mod.ts";

type Context = { scope?: string };

/**
 * Sixteen times the layers: linear gives 16, quadratic 256. The bound
 * leaves room for the memory hierarchy and a loaded machine: past a few
 * thousand layers the layers no longer fit in the CPU caches and the time
 * per layer grows (measured on a loaded 2-core machine: 1.3 µs per layer
 * at 1,000, up to 8 µs at 16,000, ratios 27 to 120 for a linear merge).
 * Issue 21's figures (35 / 133 / 444 ms at 2,000 / 4,000 / 8,000) are the
 * quadratic shape this rules out; `mergeSorted`'s own test counts its
 * reads, without a clock.
 */
const SMALL = 1_000;
const LARGE = 16_000;
const BOUND = 160;

/** Scope `s{i}` bound to `s{i-1}`, root first. */
function bindChain(prompt: SystemPrompt<Context>, depth: number): void {
  for (let index = 1; index < depth; index++) {
    prompt.bindScope(`s${index}`, `s${index - 1}`);
  }
}

/**
 * A chain of `depth` layers, each with one section and one variable; every
 * tenth layer also shadows a section of a farther one.
 */
function chain(depth: number): SystemPrompt<Context> {
  const prompt = new SystemPrompt<Context>({ includeHarnessIdentity: false });
  bindChain(prompt, depth);
  for (let index = 0; index < depth; index++) {
    const layer = prompt.scope(`s${index}`);
    layer.variable(`v${index}`, () => `${index}`);
    layer.section({
      name: `section:${index}`,
      order: index % 50,
      text: `Layer {{v${index}}}.`,
    });
    if (index % 10 === 9) {
      layer.section({ name: `section:${index - 5}`, order: 0, text: "" });
    }
  }
  return prompt;
}

/**
 * One assembly after a change to the nearest layer, so that no merge of
 * the layers is reused from the previous assembly.
 */
async function changedAssembly(
  prompt: SystemPrompt<Context>,
  depth: number,
  round: number,
): Promise<number> {
  const scope = `s${depth - 1}`;
  prompt.scope(scope).section({
    name: `extra:${round}`,
    order: 25,
    text: "",
  });
  const start = performance.now();
  const assembly = await prompt.assemble({ scope });
  const elapsed = performance.now() - start;
  const names = new Set(assembly.sections.map((section) => section.name));
  assert.ok(names.has(`extra:${round}`) && names.has(`section:${depth - 1}`));
  return elapsed;
}

/** Best of `rounds` interleaved runs of `small` and `large`. */
async function bestRatio(
  small: (round: number) => Promise<number> | number,
  large: (round: number) => Promise<number> | number,
  rounds: number,
): Promise<{ small: number; large: number; ratio: number }> {
  let bestSmall = Infinity;
  let bestLarge = Infinity;
  for (let round = 0; round < rounds; round++) {
    bestSmall = Math.min(bestSmall, await small(round));
    bestLarge = Math.min(bestLarge, await large(round));
  }
  return {
    small: bestSmall,
    large: bestLarge,
    ratio: bestLarge / Math.max(bestSmall, 0.01),
  };
}

describe("scope chains thousands of layers deep", () => {
  it(`assembling ${LARGE} layers costs less than ${BOUND}× ${SMALL} (linear: 16×)`, async () => {
    const small = chain(SMALL);
    const large = chain(LARGE);
    const prompt = renderPrompt(
      await small.assemble({ scope: `s${SMALL - 1}` }),
    );
    assert.ok(prompt.startsWith("Layer 0.\n\nLayer 100."), prompt.slice(0, 40));
    assert.ok(prompt.includes(`Layer ${SMALL - 1}.`));
    assert.ok(!prompt.includes("Layer 4."), "shadowed by an empty section");
    const { ratio, small: a, large: b } = await bestRatio(
      (round) => changedAssembly(small, SMALL, round),
      (round) => changedAssembly(large, LARGE, round),
      9,
    );
    assert.ok(
      ratio < BOUND,
      `${SMALL} layers: ${a.toFixed(2)}ms, ${LARGE} layers: ${
        b.toFixed(2)
      }ms ` +
        `(ratio ${ratio.toFixed(1)}; linear is 16, quadratic 256)`,
    );
    await small.dispose();
    await large.dispose();
  });

  it("a bind that would close a cycle through a long chain is still refused", () => {
    const prompt = new SystemPrompt<Context>();
    bindChain(prompt, LARGE);
    assert.throws(
      () => prompt.bindScope("s0", `s${LARGE - 1}`),
      (error: unknown) =>
        (error as { code?: string }).code === "SCOPE_CYCLE" &&
        (error as Error).message.includes(`${LARGE - 1} bindings`),
    );
    assert.throws(() => prompt.bindScope("x", "x"), { code: "SCOPE_CYCLE" });
  });
});
