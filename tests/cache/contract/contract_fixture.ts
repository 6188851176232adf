/**
 * A config with several plugins and scopes for the cache contract's tests
 * (SPEC 9.5): global plugins (files, shell, memory, an MCP-like volatile
 * tool, a clock in the runtime context), a `coder` scope with its persona
 * and tool, and a `reviewer` sub-agent bound to it with its own. Each
 * realistic edit is an option; `reverse` registers the same plugins in the
 * opposite order.
 */
import { SystemPrompt, TOOL_ORDER_REST } from "../../../mod.ts";
import {
  type GoldenManifest,
  goldenManifest,
} from "../../../adapters/cache/mod.ts";

/** The edits a pull request might make. */
export interface ContractEdits {
  /** The files plugin's (stable) guidance. */
  filesGuidance?: string;
  /** The shell tool's description. */
  shellDescription?: string;
  /** A tool order that puts write_file first. */
  reorderTools?: boolean;
  /** The reviewer's (agent-tier) persona. */
  reviewerPersona?: string;
  /** The memory plugin's (volatile) section. */
  memory?: string;
  /** The runtime context's date. */
  date?: string;
  /** Register the plugins in the opposite order. */
  reverse?: boolean;
}

const object = { type: "object", properties: {} } as const;

/** The registry and its views' scope keys. */
export function contractConfig(
  edits: ContractEdits = {},
): { prompt: SystemPrompt; scopes: string[] } {
  const prompt = new SystemPrompt({
    persona: "You are an agent of the Example harness.",
    ...(edits.reorderTools
      ? { toolOrder: ["write_file", TOOL_ORDER_REST] }
      : {}),
  });
  const plugins: ((prompt: SystemPrompt) => void)[] = [
    (prompt) => {
      const files = prompt.fork({ label: "files" });
      files.section({
        name: "tools:files",
        order: 100,
        text: edits.filesGuidance ??
          "Read a file before you edit it; keep edits small.",
      });
      files.tools(() => ({
        schemas: [
          {
            name: "read_file",
            description: "Read a file.",
            parameters: object,
          },
          {
            name: "write_file",
            description: "Write a file.",
            parameters: object,
          },
        ],
      }));
    },
    (prompt) => {
      const shell = prompt.fork({ label: "shell" });
      shell.section({
        name: "tools:shell",
        order: 110,
        text: "Prefer short commands; never run anything destructive.",
      });
      shell.tools(() => ({
        schemas: [{
          name: "shell",
          description: edits.shellDescription ?? "Run a shell command.",
          parameters: object,
        }],
      }));
    },
    (prompt) => {
      const memory = prompt.fork({ label: "memory" });
      memory.variable("notes", () => edits.memory ?? "none yet", {
        stability: "volatile",
      });
      memory.section({ name: "memory", order: 900, text: "Notes: {{notes}}" });
    },
    (prompt) => {
      prompt.fork({ label: "mcp" }).tools(() => ({
        schemas: [{
          name: "mcp_search",
          description: "Search the docs server.",
          parameters: object,
        }],
      }), { stability: "volatile" });
    },
    (prompt) => {
      prompt.fork({ label: "clock" }).runtimeContext({
        name: "date",
        order: 0,
        text: `Today is ${edits.date ?? "2026-12-05"}.`,
      });
    },
    (prompt) => {
      const coder = prompt.scope("coder", { label: "coder" });
      coder.section({
        name: "deployment:persona",
        order: 0,
        text: "You are a coding agent.",
      });
      coder.tools(() => ({
        schemas: [{
          name: "run_tests",
          description: "Run the tests.",
          parameters: object,
        }],
      }));
    },
    (prompt) => {
      const reviewer = prompt.scope("reviewer", { label: "reviewer" });
      reviewer.bindScope("reviewer", "coder");
      reviewer.section({
        name: "deployment:persona",
        order: 0,
        text: edits.reviewerPersona ?? "You review the coding agent's changes.",
      });
      reviewer.tools(() => ({
        schemas: [{
          name: "submit_review",
          description: "Submit the review.",
          parameters: object,
        }],
      }));
    },
  ];
  for (const plugin of edits.reverse ? plugins.toReversed() : plugins) {
    plugin(prompt);
  }
  return { prompt, scopes: ["coder", "reviewer"] };
}

/** A rough, deterministic counter: a token per four characters. */
export const countTokens = (text: string): number => Math.ceil(text.length / 4);

/** The manifest of the global view and both scopes, the registry disposed. */
export async function contractManifest(
  edits: ContractEdits = {},
): Promise<GoldenManifest> {
  const { prompt, scopes } = contractConfig(edits);
  try {
    const views = [
      { scope: null, explanation: await prompt.explain() },
      ...await Promise.all(
        scopes.map(async (scope) => ({
          scope,
          explanation: await prompt.explain({ scope }),
        })),
      ),
    ];
    return goldenManifest(edits.reverse ? views.toReversed() : views, {
      countTokens,
    });
  } finally {
    await prompt.dispose();
  }
}
