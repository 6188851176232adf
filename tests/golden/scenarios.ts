/**
 * The golden bodies' scripted scenarios (issue 45): each drives one
 * conversation variant through the request loop's cases (tool rounds,
 * parallel calls, errors, refusals, runtime-context changes, pauses, the
 * lookback, a thinking block last, tool-set changes, forks, resume) and
 * returns every body it built, in order. Random sessions of the property
 * tests, drawn with a fixed seed, add the cases nobody scripted.
 */
import fc from "fast-check";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import { FORMS } from "../conversation/forms.ts";
import { forkRegistry, schema } from "../conversation/helpers.ts";
import { runSession } from "../conversation/run_session.ts";
import { sessionArbitrary } from "../conversation/session.ts";
import {
  answerOf,
  countTokens,
  type Driven,
  steppedClock,
  type Turn,
  type Variant,
} from "./variants.ts";

/** A registry whose tools, gate and runtime context a scenario drives. */
interface Stage {
  readonly prompt: SystemPrompt;
  tools: ToolSchema[];
  active: string[] | undefined;
  branch: string;
}

function tool(name: string, description = `The ${name} tool.`): ToolSchema {
  return {
    name,
    description,
    parameters: { type: "object", properties: { path: { type: "string" } } },
  };
}

/** A coding agent: marked sections, a reviewer scope, a live tool source. */
function stage(): Stage {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  const state: Stage = {
    prompt,
    tools: [tool("read_file"), tool("shell"), tool("grep")],
    active: undefined,
    branch: "main",
  };
  prompt.section({
    name: "rules",
    order: 100,
    text: "Follow the house rules. ".repeat(40),
    cacheBreakpoint: true,
  });
  prompt.section({
    name: "style",
    order: 150,
    text: "Write plainly and test first. ".repeat(30),
    cacheBreakpoint: true,
  });
  prompt.section({ name: "notes", order: 900, text: "Be brief." });
  prompt.tools(() => ({ schemas: state.tools }));
  prompt.toolGate(() => state.active);
  prompt.runtimeContext({
    name: "git",
    order: 0,
    text: () => `On ${state.branch}.`,
  });
  const reviewer = prompt.scope("reviewer");
  reviewer.section({
    name: "review",
    order: 200,
    text: "Review every change. ".repeat(20),
    cacheBreakpoint: true,
  });
  reviewer.tools(() => ({ schemas: [tool("annotate")] }));
  return state;
}

/** A scenario's conversation: it numbers the answers and keeps the bodies. */
class Script {
  readonly bodies: unknown[] = [];
  #n = 0;
  #calls = 0;

  constructor(readonly variant: Variant, public conv: Driven) {}

  /** Records an answer with these calls (names), text and thinking. */
  answer(
    names: readonly string[],
    options: { text?: string; thinking?: boolean } = {},
  ): { id: string; name: string }[] {
    const turn: Turn = {
      n: ++this.#n,
      text: options.text ?? (names.length === 0 ? "Done." : ""),
      calls: names.map((name) => ({
        id: `call_${++this.#calls}`,
        name,
        input: { path: `${name}.ts` },
      })),
      ...(options.thinking === true ? { thinking: true } : {}),
    };
    return this.conv.record(answerOf(this.variant.kind, turn));
  }

  /** Answers every open call (`error` ones as errors). */
  results(error: readonly string[] = []): void {
    for (const call of this.conv.openCalls) {
      this.conv.toolResult(call.id, `ran ${call.name}`, {
        isError: error.includes(call.name),
      });
    }
  }

  async request(
    awaiting?: "person" | "agent",
    context?: { scope: string },
  ): Promise<void> {
    this.bodies.push(
      await this.conv.request(
        context,
        awaiting === undefined ? undefined : { awaiting },
      ),
    );
  }
}

function script(variant: Variant, stage: Stage, diagnostics = false): Script {
  return new Script(
    variant,
    variant.start(stage.prompt, {
      session: `golden-${variant.name}`,
      clock: steppedClock(),
      ...(diagnostics ? { diagnostics: true } : {}),
    }),
  );
}

/** Tool rounds: one call, parallel calls with an error, a pause, a new branch. */
async function roundTrip(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Fix the failing test.");
  await run.request();
  run.answer(["read_file"]);
  run.results();
  await run.request();
  run.answer(["read_file", "shell", "grep"]);
  run.results(["shell"]);
  await run.request();
  run.answer([]);
  run.conv.user("Thanks.");
  await run.request("person");
  run.answer([], { text: "Anything else?" });
  s.branch = "fix";
  run.conv.user("Yes: push it.");
  await run.request();
  run.answer(["shell"]);
  run.results();
  run.conv.user([{ type: "text", text: "And tag it." }]);
  await run.request("person");
  await s.prompt.dispose();
  return run.bodies;
}

/** A gate leaves one tool: a call of another is refused by the conversation. */
async function refusal(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Look around.");
  await run.request();
  s.active = ["read_file"];
  run.answer(["read_file"]);
  run.results();
  await run.request();
  run.answer(["shell", "read_file"]);
  run.results();
  await run.request();
  s.active = undefined;
  run.answer([]);
  run.conv.user("Go on.");
  await run.request();
  await s.prompt.dispose();
  return run.bodies;
}

/** Steps adding more parts than the lookback, and a thinking block last. */
async function lookback(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Read everything.");
  await run.request();
  run.answer(
    Array.from({ length: 25 }, (_, i) => ["read_file", "grep"][i % 2]),
  );
  run.results();
  await run.request();
  run.answer(["shell", "shell", "shell"]);
  run.results();
  await run.request();
  // The lookback's edge: 20 parts added (10 calls, 10 results), then 21.
  run.answer(Array.from({ length: 10 }, () => "grep"));
  run.results();
  await run.request();
  run.answer(Array.from({ length: 10 }, () => "grep"), { text: "All of it." });
  run.results();
  await run.request();
  run.answer([], { text: "Thinking it over.", thinking: true });
  // No new input: the history's last item is the answer.
  await run.request();
  run.answer(["grep"], { thinking: true });
  run.results();
  s.branch = "next";
  await run.request("person");
  await s.prompt.dispose();
  return run.bodies;
}

/** A tool added, dropped, redefined and added back. */
async function toolChanges(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Start.");
  await run.request();
  run.answer(["read_file"]);
  run.results();
  s.tools = [...s.tools, tool("write_file")];
  await run.request();
  run.answer(["write_file"]);
  run.results();
  s.tools = s.tools.filter((t) => t.name !== "grep");
  await run.request();
  run.answer([]);
  s.tools = s.tools.map((t) =>
    t.name === "shell" ? tool("shell", "Run a short command.") : t
  );
  run.conv.user("Use the shell.");
  await run.request();
  run.answer(["shell"]);
  run.results();
  s.tools = [...s.tools, tool("grep"), tool("edit")];
  s.active = ["grep", "edit", "read_file"];
  await run.request();
  run.answer([]);
  run.conv.user("Done?");
  await run.request("person");
  await s.prompt.dispose();
  return run.bodies;
}

/** A fork whose scope adds a tool and a section, then its own steps. */
async function fork(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Plan the change.");
  await run.request();
  run.answer(["read_file"]);
  run.results();
  await run.request();
  run.answer([]);
  const child = new Script(variant, run.conv.fork({ clock: steppedClock() }));
  child.conv.user("Review the change.");
  await child.request(undefined, { scope: "reviewer" });
  child.answer(["annotate"]);
  child.results();
  await child.request(undefined, { scope: "reviewer" });
  child.answer([]);
  child.conv.user("Resume and finish.");
  const resumed = new Script(
    variant,
    variant.resume(s.prompt, child.conv.save()),
  );
  await resumed.request(undefined, { scope: "reviewer" });
  run.conv.user("Meanwhile, go on.");
  await run.request();
  await s.prompt.dispose();
  return [...run.bodies, ...child.bodies, ...resumed.bodies];
}

/**
 * Forks with more marks than the budget: the parent's system ends with an
 * unmarked section after two marked ones; the reviewer adds a tool and
 * four marked sections, the auditor one marked section (so the shared
 * end's mark displaces one of the two before it).
 */
async function crowdedFork(variant: Variant): Promise<unknown[]> {
  const prompt = new SystemPrompt({ persona: "You are the lead agent." });
  prompt.tools(() => ({ schemas: [schema("read_file"), schema("shell")] }));
  for (const [index, name] of ["a", "b", "c"].entries()) {
    prompt.section({
      name,
      order: 100 * (index + 1),
      text: `Rule ${name}. `.repeat(50),
      ...(name === "c" ? {} : { cacheBreakpoint: true as const }),
    });
  }
  const reviewer = prompt.scope("reviewer");
  reviewer.tools(() => ({ schemas: [schema("annotate")] }));
  for (const name of ["d", "e", "f", "g"]) {
    reviewer.section({
      name: `review:${name}`,
      order: 400,
      text: `Review rule ${name}.`,
      cacheBreakpoint: true,
    });
  }
  prompt.scope("auditor").section({
    name: "audit",
    order: 400,
    text: "Audit everything.",
    cacheBreakpoint: true,
  });
  const run = new Script(
    variant,
    variant.start(prompt, {
      session: `golden-${variant.name}`,
      clock: steppedClock(),
    }),
  );
  run.conv.user("Plan the change.");
  await run.request();
  run.answer([], { text: "Planned." });
  for (const scope of ["reviewer", "auditor"]) {
    const child = new Script(variant, run.conv.fork({ clock: steppedClock() }));
    child.conv.user("Review the change.");
    await child.request(undefined, { scope });
    child.answer([], { text: "Fine." });
    child.conv.user("Anything else?");
    await child.request("person", { scope });
    run.bodies.push(...child.bodies);
  }
  await prompt.dispose();
  return [...run.bodies, ...await reviewedFork(variant)];
}

/** The fork tests' registry: the reviewer's four cuts crowd the budget. */
async function reviewedFork(variant: Variant): Promise<unknown[]> {
  const prompt = forkRegistry({
    style: false,
    reviewRules: ["a", "b", "c", "d"],
  });
  prompt.scope("lead").section({
    name: "lead",
    order: 500,
    text: "You lead the change.",
    cacheBreakpoint: true,
  });
  prompt.bindScope("reviewer", "lead");
  const run = new Script(
    variant,
    variant.start(prompt, {
      session: `golden-${variant.name}`,
      clock: steppedClock(),
    }),
  );
  run.conv.user("Plan the change.");
  await run.request(undefined, { scope: "lead" });
  run.answer([], { text: "Planned." });
  const child = new Script(variant, run.conv.fork({ clock: steppedClock() }));
  child.conv.user("Review the change.");
  await child.request(undefined, { scope: "reviewer" });
  await prompt.dispose();
  return [...run.bodies, ...child.bodies];
}

/** Saved mid-session (a round open) and resumed, twice. */
async function resume(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s);
  run.conv.user("Start.");
  await run.request();
  run.answer(["read_file", "shell"]);
  run.conv = variant.resume(s.prompt, run.conv.save());
  run.results();
  s.branch = "resumed";
  await run.request();
  run.answer([]);
  run.conv = variant.resume(s.prompt, run.conv.save());
  run.conv.user("Again.");
  await run.request("person");
  run.answer(["grep"]);
  run.results();
  await run.request();
  await s.prompt.dispose();
  return run.bodies;
}

/** The option variants' scenario: rounds, a pause, a fork, diagnostics. */
export async function options(variant: Variant): Promise<unknown[]> {
  const s = stage();
  const run = script(variant, s, true);
  run.conv.user("Start.");
  await run.request();
  run.answer(["read_file", "grep"]);
  run.results();
  s.branch = "fix";
  await run.request("person");
  run.answer([]);
  s.tools = [...s.tools, tool("edit")];
  run.conv.user("Edit it.");
  await run.request();
  run.answer(["edit"]);
  run.results();
  const child = new Script(variant, run.conv.fork({ clock: steppedClock() }));
  child.conv.user("Review it.");
  await child.request(undefined, { scope: "reviewer" });
  await run.request();
  await s.prompt.dispose();
  return [...run.bodies, ...child.bodies];
}

/** The scenarios every variant runs. */
export const SCENARIOS: Readonly<
  Record<string, (variant: Variant) => Promise<unknown[]>>
> = {
  "round-trip": roundTrip,
  refusal,
  lookback,
  "tool-changes": toolChanges,
  fork,
  "crowded-fork": crowdedFork,
  resume,
};

/** The random sessions (fixed seed) each form of the property tests runs. */
export async function randomSessions(): Promise<Map<string, unknown>> {
  const golden = new Map<string, unknown>();
  const sessions = fc.sample(sessionArbitrary, { seed: 45, numRuns: 24 });
  for (const form of FORMS) {
    for (const [index, steps] of sessions.entries()) {
      for (const resume of [false, true]) {
        if (resume && index % 3 !== 0) continue;
        const bodies = await runSession(form, steps, { resume });
        bodies.forEach((body, n) => {
          golden.set(`${form.name}/${index}${resume ? "r" : ""}/${n}`, body);
        });
      }
    }
  }
  return golden;
}

export { countTokens };
