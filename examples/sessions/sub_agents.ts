/**
 * Session (b): a lead agent and three sub-agents (researcher, tester,
 * reviewer) bound to one preset with `bindScope`, each sub-agent its own
 * thread. The preset replaces the persona and adds a rule section and a
 * `report_to_lead` tool; each sub-agent adds its role. The delegated tasks
 * (runtime context) change whenever the lead hands work over. 42 steps:
 * three of the lead's, then three of a sub-agent's, in turn.
 *
 * ```sh
 * deno run -A cli/main.ts simulate examples/sessions/sub_agents.ts
 * ```
 *
 * @module
 */

import { SystemPrompt } from "../../mod.ts";
import type { CacheSession } from "../../adapters/cache/mod.ts";
import { Conversations, date, tool } from "./_common.ts";
import { CODING, instructions, RESEARCH, seeded } from "./_text.ts";

/** Sections the author knows to change during the session (none here). */
export const volatileSections: readonly string[] = [];

/** The number of steps. */
export const STEPS = 42;

const SUB_AGENTS = ["researcher", "tester", "reviewer"] as const;

const TEAM_RULES = [
  "Split work into tasks a sub-agent can finish in a few steps, and say what done means.",
  "Keep the user informed of what each sub-agent is doing and why.",
  "Check a sub-agent's report before you act on it; ask again when it is vague.",
  "Do not start two sub-agents on the same files at once.",
  "Summarise the outcome of a delegated task in two or three sentences.",
  "Escalate to the user when a task needs a decision only they can make.",
];

const SUB_RULES = [
  "Work only on the task the lead gave you; report anything else you notice.",
  "End with a report to the lead: what you did, what you found, what is left.",
  "Quote file paths and line numbers for every claim about the code.",
  "Stop and report when the task turns out to be larger than described.",
];

/** The session: a fresh registry and conversation. */
export default function session(): Promise<CacheSession> {
  const random = seeded(22);
  const prompt = new SystemPrompt({
    persona: "You are Atlas, the lead agent of a small team of coding agents.",
  });
  prompt.section({
    name: "team",
    order: 10,
    text: instructions(random, "Working with sub-agents", TEAM_RULES, 1100),
  });
  prompt.tools(() => ({
    schemas: [
      tool("read_file", "Read a file of the workspace and return its text.", {
        path: "The file's path, relative to the workspace root.",
      }),
      tool("search", "Search the workspace for a regular expression.", {
        pattern: "The regular expression.",
        glob: "Optional glob limiting the files searched.",
      }),
      tool("shell", "Run a shell command in the workspace.", {
        command: "The command line.",
      }),
      tool("delegate", "Give a task to a sub-agent and wait for its report.", {
        agent: "researcher, tester or reviewer.",
        task: "What to do and what done means.",
      }),
    ],
  }));
  let tasks: string[] = [];
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `Today is ${date(2)}.`,
  });
  prompt.runtimeContext({
    name: "tasks",
    order: 10,
    text: () =>
      tasks.length === 0
        ? "No delegated tasks are open."
        : `Open delegated tasks: ${tasks.join("; ")}.`,
  });

  const preset = prompt.scope("sub-agent-preset", { label: "preset" });
  preset.section({
    name: "deployment:persona",
    order: 0,
    text: "You are a sub-agent of Atlas. You do one task and report back.",
  });
  preset.section({
    name: "sub-agent",
    order: 20,
    text: instructions(random, "Sub-agent rules", SUB_RULES, 500),
  });
  preset.tools(() => ({
    schemas: [
      tool("report_to_lead", "Send your final report to the lead agent.", {
        summary: "What you did, what you found and what is left.",
      }),
    ],
  }));
  const roles: Record<string, string> = {
    researcher: "You research: read code and documents, never edit them.",
    tester: "You write and run tests; you fix only test code.",
    reviewer: "You review diffs and comment; you never edit files.",
  };
  for (const agent of SUB_AGENTS) {
    prompt.bindScope(agent, "sub-agent-preset");
    prompt.scope(agent).section({
      name: "role",
      order: 30,
      text: roles[agent],
    });
  }

  const conversations = new Conversations(202);
  const steps = Array.from({ length: STEPS }, (_, index) => () => {
    const round = Math.floor(index / 6);
    const lead = index % 6 < 3;
    const agent = SUB_AGENTS[round % SUB_AGENTS.length];
    if (index % 6 === 3) {
      // The lead hands a task over: the open tasks change for everyone.
      tasks = [...tasks.slice(-1), `${agent}: task ${round + 1}`];
    }
    if (lead) {
      return { messages: conversations.turn("lead", CODING), thread: "lead" };
    }
    return {
      messages: conversations.turn(
        agent,
        agent === "researcher" ? RESEARCH : CODING,
      ),
      thread: agent,
      scope: agent,
    };
  });
  return Promise.resolve({ prompt, steps });
}
