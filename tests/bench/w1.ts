/**
 * W1, the realistic harness workload of the benches: 57 sections holding
 * 200 references, 12 variables, 20 tools with JSON-schema parameters over
 * two providers, a `toolOrder`, 2 listeners (one sync, one async wrapping
 * `next()`) and one scope with its own persona and variable; about 8 KB
 * rendered.
 */
import { SystemPrompt, TOOL_ORDER_REST } from "../../mod.ts";

/** The context W1 assembles with. */
export interface W1Context {
  scope?: string;
  model?: string;
}

/** The context of every W1 assembly. */
export const W1_CONTEXT: W1Context = {
  scope: "reviewer",
  model: "example-model",
};

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

/** Options of {@linkcode buildW1}. */
export interface W1Options {
  /** Other scopes, each with one section (default 0). */
  otherScopes?: number;
  /** Whether the two listeners are registered (default true). */
  listeners?: boolean;
}

/** A registry holding W1. */
export function buildW1(options: W1Options = {}): SystemPrompt<W1Context> {
  const { otherScopes = 0, listeners = true } = options;
  const prompt = new SystemPrompt<W1Context>({
    persona: "You are {{agent_name}}, running on {{model}} in {{cwd}}.",
    toolOrder: ["read_file", "write_file", TOOL_ORDER_REST, "finish"],
  });
  for (const [index, name] of VARIABLES.entries()) {
    prompt.variable(
      name,
      (context) => name === "model" ? context.model : `value-${index}`,
    );
  }
  registerSections(prompt);
  const tools = w1Tools();
  prompt.tools(() => ({ schemas: tools.slice(0, 12) }));
  prompt.tools(() => ({ schemas: tools.slice(12) }));
  if (listeners) {
    prompt.onAssemble((assembly, _context, next) => {
      assembly.variables.date = "2026-12-02";
      return next();
    });
    prompt.onAssemble(async (_assembly, _context, next) => {
      const result = await next();
      result.sections.push({ name: "zz:footer", order: 999, text: "End." });
      return result;
    });
  }
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

/** 55 sections plus the 2 built-ins: 200 references (the persona holds 3). */
function registerSections(prompt: SystemPrompt<W1Context>): void {
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
}

function w1Tools(): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}[] {
  return Array.from({ length: 20 }, (_, index) => ({
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
}
