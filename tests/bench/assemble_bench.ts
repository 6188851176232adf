/**
 * `assemble` and `assemble` + `renderPrompt` on a realistic harness workload:
 * 57 sections holding 200 references, 12 variables, 20 tools with
 * parameters, 2 listeners and one scope; then the same with 20,000 other
 * scopes registered.
 */
import { renderPrompt, SystemPrompt, TOOL_ORDER_REST } from "../../mod.ts";

interface Context {
  scope?: string;
  model?: string;
}

const VARIABLES = [
  "model",
  "cwd",
  "os",
  "shell",
  "date",
  "user",
  "project",
  "branch",
  "language",
  "timezone",
  "max_tokens",
  "agent_name",
];

function buildRegistry(otherScopes: number): SystemPrompt<Context> {
  const prompt = new SystemPrompt<Context>({
    persona: "You are {{agent_name}}, running on {{model}} in {{cwd}}.",
    toolOrder: ["read_file", "write_file", TOOL_ORDER_REST, "finish"],
  });
  for (const [index, name] of VARIABLES.entries()) {
    prompt.variable(
      name,
      (context) => name === "model" ? context.model : `value-${index}`,
    );
  }
  // 55 sections plus the 2 built-ins; 200 references in all (the persona
  // holds 3).
  let references = 3;
  for (let index = 0; index < 55; index++) {
    const count = index < 32 ? 4 : 3;
    references += count;
    const uses = Array.from(
      { length: count },
      (_, k) => `{{${VARIABLES[(index + k) % VARIABLES.length]}}}`,
    ).join(" and ");
    prompt.section({
      name: `plugin:${String(index).padStart(2, "0")}`,
      order: 100 + (index % 40),
      text: `Guidance ${index}: `.padEnd(80, "lorem ipsum ") +
        ` Mind ${uses} while you work.`,
    });
  }
  if (references !== 200) throw new Error(`${references} references`);
  const tools = Array.from({ length: 20 }, (_, index) => ({
    name: index === 0
      ? "read_file"
      : index === 1
      ? "write_file"
      : index === 2
      ? "finish"
      : `tool_${String(19 - index).padStart(2, "0")}`,
    description: `Tool number ${index}, which does one thing well.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "A path." },
        mode: { type: "string", enum: ["a", "b", "c"] },
        count: { type: "integer", minimum: 0 },
      },
      required: ["path"],
    },
  }));
  prompt.tools(() => ({ schemas: tools.slice(0, 12) }));
  prompt.tools(() => ({ schemas: tools.slice(12) }));
  prompt.onAssemble((assembly, _context, next) => {
    assembly.variables.date = "2026-12-02";
    return next();
  });
  prompt.onAssemble(async (_assembly, _context, next) => {
    const result = await next();
    result.sections.push({ name: "zz:footer", order: 999, text: "End." });
    return result;
  });
  const reviewer = prompt.scope("reviewer");
  reviewer.section({
    name: "deployment:persona",
    order: 0,
    text: "You review code on {{model}}.",
  });
  reviewer.variable("project", () => "review-project");
  for (let index = 0; index < otherScopes; index++) {
    prompt.scope(`agent-${index}`).section({
      name: "deployment:persona",
      order: 0,
      text: `Agent ${index}.`,
    });
  }
  return prompt;
}

const plain = buildRegistry(0);
const crowded = buildRegistry(20_000);
const context: Context = { scope: "reviewer", model: "example-model" };

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
