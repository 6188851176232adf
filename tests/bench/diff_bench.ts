/**
 * Benchmarks of `diffAssemblies` (run with `deno bench tests/bench/`).
 *
 * Two consecutive steps of one agent: the same sections, tools and
 * variables, except one variable that the last section references. The
 * sizes grow tenfold, so a linear diff takes about ten times as long per
 * step; `renderPrompt` of both sides is the baseline it is compared with.
 */

import {
  diffAssemblies,
  type PromptAssembly,
  renderPrompt,
} from "../../mod.ts";

function step(size: number, branch: string): PromptAssembly {
  const sections = Array.from({ length: size }, (_, index) => ({
    name: `section-${String(index).padStart(6, "0")}`,
    order: index,
    text: `Rule ${index}: work in {{cwd}} on {{model}}; keep it short.`,
  }));
  sections.push({ name: "zz-git", order: size, text: "Branch: {{branch}}." });
  const tools = Array.from({ length: Math.ceil(size / 5) }, (_, index) => ({
    name: `tool_${index}`,
    description: `Tool number ${index}.`,
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, depth: { type: "number" } },
    },
  }));
  return {
    sections,
    tools,
    variables: { branch, cwd: "/work/app", model: "example-model" },
  };
}

for (const size of [100, 1_000, 10_000]) {
  const before = step(size, "main");
  const after = step(size, "fix/cache");
  Deno.bench({
    name: `diffAssemblies, ${size} sections`,
    group: `${size} sections`,
    baseline: false,
    fn: () => {
      diffAssemblies(before, after);
    },
  });
  Deno.bench({
    name: `renderPrompt of both sides, ${size} sections`,
    group: `${size} sections`,
    baseline: true,
    fn: () => {
      renderPrompt(before);
      renderPrompt(after);
    },
  });
}
