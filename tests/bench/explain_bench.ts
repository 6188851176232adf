/**
 * What provenance costs when asked for: `explain` (with and without a token
 * counter) against `assemble` + `renderPrompt` on one workload: 40 sections
 * holding references, 8 variables, 20 tools over two providers, one
 * listener, and one scope shadowing a section, a variable and a tool.
 */
import { renderPrompt, SystemPrompt } from "../../mod.ts";

const VARIABLES = ["model", "cwd", "os", "shell", "date", "user", "branch"];

function buildRegistry(): SystemPrompt<{ scope?: string }> {
  const prompt = new SystemPrompt<{ scope?: string }>({
    persona: "You are a coding agent on {{model}} in {{cwd}}.",
  });
  for (const name of [...VARIABLES, "project"]) {
    prompt.variable(name, () => `value of ${name}`);
  }
  for (let index = 0; index < 40; index++) {
    const name = VARIABLES[index % VARIABLES.length];
    prompt.fork({ label: `plugin-${index}` }).section({
      name: `plugin:${String(index).padStart(2, "0")}`,
      order: 100 + (index % 20),
      text: `Guidance ${index} `.padEnd(120, "lorem ipsum ") + ` ({{${name}}})`,
    });
  }
  const tools = Array.from({ length: 20 }, (_, index) => ({
    name: `tool_${String(index).padStart(2, "0")}`,
    description: `Tool number ${index}, which does one thing well.`,
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, count: { type: "integer" } },
      required: ["path"],
    },
  }));
  prompt.tools(() => ({ schemas: tools.slice(0, 10) }));
  prompt.tools(() => ({ schemas: tools.slice(10) }));
  prompt.onAssemble(async (_assembly, _context, next) => {
    const result = await next();
    result.sections.push({ name: "zz:footer", order: 999, text: "End." });
    return result;
  });
  const reviewer = prompt.scope("reviewer", { label: "reviewer" });
  reviewer.section({ name: "plugin:03", order: 103, text: "Review only." });
  reviewer.variable("project", () => "review");
  reviewer.tools(() => ({
    schemas: [{ ...tools[0], description: "Scoped." }],
  }));
  return prompt;
}

const prompt = buildRegistry();
const context = { scope: "reviewer" };
const countTokens = (text: string): number => text.length >> 2;

Deno.bench(
  "assemble + renderPrompt",
  { group: "explain", baseline: true },
  async () => {
    renderPrompt(await prompt.assemble(context));
  },
);
Deno.bench("explain", { group: "explain" }, async () => {
  await prompt.explain(context);
});
Deno.bench("explain, with countTokens", { group: "explain" }, async () => {
  await prompt.explain(context, { countTokens });
});
