/**
 * Scope chains cost what the layers read cost: the same registrations (60
 * sections, 12 variables, 20 tools in 4 providers, 4 runtime contexts, 3
 * listeners), with the scoped part spread over a 3-deep chain
 * (`agent` → `team` → `preset`) or held by one scope. Target: the chain
 * within 1.3× of the single scope.
 */
import { type Registrar, renderPrompt, SystemPrompt } from "../../mod.ts";

interface Context {
  scope?: string;
}

const CHAIN = ["preset", "team", "agent"];

/** Registers the workload's `part` of `parts` through `registrar`. */
function registerPart(
  registrar: Registrar<Context>,
  part: number,
  parts: number,
): void {
  for (let index = part; index < 12; index += parts) {
    registrar.variable(`var_${index}`, () => `value ${index}`);
  }
  for (let index = part; index < 60; index += parts) {
    registrar.section({
      name: `plugin:${String(index).padStart(2, "0")}`,
      order: 100 + (index % 40),
      text: `Guidance ${index}: mind {{var_${index % 12}}} while you work.`,
    });
  }
  for (let provider = part; provider < 4; provider += parts) {
    const schemas = Array.from({ length: 5 }, (_, k) => ({
      name: `tool_${provider}_${k}`,
      description: `Tool ${provider}.${k}.`,
      parameters: { type: "object", properties: { path: { type: "string" } } },
    }));
    registrar.tools(() => ({ schemas }));
  }
  for (let index = part; index < 4; index += parts) {
    registrar.runtimeContext({
      name: `fact_${index}`,
      order: index,
      text: `Fact ${index}.`,
    });
  }
  for (let index = part; index < 3; index += parts) {
    registrar.onAssemble((_assembly, _context, next) => next());
  }
}

/** A quarter of the workload global, three quarters scoped (one or three layers). */
function buildRegistry(chain: boolean): SystemPrompt<Context> {
  const prompt = new SystemPrompt<Context>();
  registerPart(prompt, 0, 4);
  if (chain) {
    prompt.bindScope("team", "preset");
    prompt.bindScope("agent", "team");
    for (const [index, key] of CHAIN.entries()) {
      registerPart(prompt.scope(key), index + 1, 4);
    }
  } else {
    const agent = prompt.scope("agent");
    for (let part = 1; part < 4; part++) registerPart(agent, part, 4);
  }
  return prompt;
}

const single = buildRegistry(false);
const chained = buildRegistry(true);
const context: Context = { scope: "agent" };

const a = renderPrompt(await single.assemble(context));
const b = renderPrompt(await chained.assemble(context));
if (a !== b) throw new Error("the two workloads must assemble the same prompt");

Deno.bench(
  "assemble, one scope",
  { group: "chain", baseline: true },
  async () => {
    await single.assemble(context);
  },
);
Deno.bench("assemble, 3-deep chain", { group: "chain" }, async () => {
  await chained.assemble(context);
});

/**
 * Issue 21, defect 4: a chain thousands of layers deep, one section per
 * layer, assembled after a change to its nearest layer (so no merge is
 * reused), against the same sections in one layer. Linear: the chain's time
 * grows with its depth, about 4× from 2,000 to 8,000 layers (it was 12×).
 */
const DEEP = [2_000, 8_000];

function deepChain(depth: number): SystemPrompt<Context> {
  const prompt = new SystemPrompt<Context>();
  for (let index = 1; index < depth; index++) {
    prompt.bindScope(`layer${index}`, `layer${index - 1}`);
  }
  for (let index = 0; index < depth; index++) {
    prompt.scope(`layer${index}`).section({
      name: `section:${index}`,
      order: index % 50,
      text: `Section ${index}.`,
    });
  }
  return prompt;
}

function oneLayer(depth: number): SystemPrompt<Context> {
  const prompt = new SystemPrompt<Context>();
  const layer = prompt.scope(`layer${depth - 1}`);
  for (let index = 0; index < depth; index++) {
    layer.section({
      name: `section:${index}`,
      order: index % 50,
      text: `Section ${index}.`,
    });
  }
  return prompt;
}

for (const depth of DEEP) {
  for (
    const [shape, build] of [["chain", deepChain], [
      "one layer",
      oneLayer,
    ]] as const
  ) {
    const prompt = build(depth);
    const scope = `layer${depth - 1}`;
    let round = 0;
    Deno.bench(
      `assemble after a change, ${depth} sections, ${shape}${
        shape === "chain" ? ` (${depth} layers)` : ""
      }`,
      { group: `deep chain ${depth}`, baseline: shape === "one layer" },
      async () => {
        const dispose = prompt.scope(scope).section({
          name: `extra:${round++}`,
          order: 25,
          text: "",
        });
        await prompt.assemble({ scope });
        await dispose();
      },
    );
  }
}
