/**
 * `assemble` and `assemble` + `renderPrompt` on W1, the realistic harness
 * workload of `w1.ts`; then the same with 20,000 other scopes registered.
 */
import { renderPrompt } from "../../mod.ts";
import { buildW1, W1_CONTEXT } from "./w1.ts";

const plain = buildW1();
const crowded = buildW1({ otherScopes: 20_000 });
const context = W1_CONTEXT;

const sample = await plain.assemble(context);
const rendered = renderPrompt(sample);
console.log(
  `workload: ${sample.sections.length} sections, ${sample.tools.length} ` +
    `tools, ${Object.keys(sample.variables).length} variables, ` +
    `${rendered.length} characters rendered`,
);

Deno.bench("assemble", { group: "assemble", baseline: true }, async () => {
  await plain.assemble(context);
});
Deno.bench("assemble, 20,000 other scopes", { group: "assemble" }, async () => {
  await crowded.assemble(context);
});
Deno.bench(
  "assemble + renderPrompt",
  { group: "assemble + render", baseline: true },
  async () => {
    renderPrompt(await plain.assemble(context));
  },
);
Deno.bench(
  "assemble + renderPrompt, 20,000 other scopes",
  { group: "assemble + render" },
  async () => {
    renderPrompt(await crowded.assemble(context));
  },
);
