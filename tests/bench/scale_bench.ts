/**
 * How the registry scales (run with `deno bench tests/bench/scale_bench.ts`;
 * the ratios are in `deno task bench:table`).
 *
 * - "register": 1,000 more sections into one layer already holding 1k, 10k
 *   or 100k (per-registration cost must not grow with the layer).
 * - "assemble": a registry of 1k, 10k or 100k sections.
 * - "scopes": an assembly of one scope among 1k or 100k scopes.
 * - "churn": registering and disposing a section in a layer of 100k.
 */
import { type Disposer, SystemPrompt } from "../../mod.ts";

const SIZES = [1_000, 10_000, 100_000];

function section(index: number): { name: string; order: number; text: string } {
  return {
    name: `rule:${index}`,
    order: (index * 7919) % 1000,
    text: `Rule ${index}: work carefully.`,
  };
}

function withSections(count: number): SystemPrompt {
  const prompt = new SystemPrompt();
  for (let index = 0; index < count; index++) prompt.section(section(index));
  return prompt;
}

function withScopes(count: number): SystemPrompt<{ scope?: string }> {
  const prompt = new SystemPrompt<{ scope?: string }>();
  for (let index = 0; index < count; index++) {
    prompt.scope(`agent-${index}`).section(section(index));
  }
  return prompt;
}

for (const size of SIZES) {
  const prompt = withSections(size);
  let next = size;
  Deno.bench({
    name: `register 1,000 sections into a layer of ${size}`,
    group: "register",
    baseline: size === SIZES[0],
    fn() {
      const disposers: Disposer[] = [];
      for (let index = 0; index < 1000; index++) {
        disposers.push(prompt.section(section(next++)));
      }
      // Back to `size`, so every run starts from the same layer.
      for (const dispose of disposers) dispose();
    },
  });
}

for (const size of SIZES) {
  const prompt = withSections(size);
  Deno.bench({
    name: `assemble ${size} sections`,
    group: "assemble",
    baseline: size === SIZES[0],
    async fn() {
      await prompt.assemble();
    },
  });
}

for (const size of [1_000, 100_000]) {
  const prompt = withScopes(size);
  Deno.bench({
    name: `assemble one scope among ${size}`,
    group: "scopes",
    baseline: size === 1_000,
    async fn() {
      await prompt.assemble({ scope: "agent-7" });
    },
  });
}

{
  const prompt = withSections(100_000);
  let next = 100_000;
  Deno.bench({
    name: "register and dispose one section in a layer of 100k",
    group: "churn",
    async fn() {
      await prompt.section(section(next++))();
    },
  });
}
