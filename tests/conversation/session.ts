/**
 * Random conversation sessions for the property tests: each step may
 * change the runtime context, the gate and the tool list, and the model
 * answers with text or with up to 25 parallel tool calls.
 */
import fc from "fast-check";
import { schema } from "./helpers.ts";
import type { Agent } from "./helpers.ts";

/** One step of a session. */
export interface SessionStep {
  readonly branch: string;
  readonly gate: string[] | undefined;
  readonly tools: string[];
  readonly awaiting: "person" | "agent";
  readonly say: string | undefined;
  /** The tools the model calls (empty: a text answer). */
  readonly calls: string[];
  /** Results given in reverse order of the calls. */
  readonly reverse: boolean;
}

const NAMES = ["read_file", "shell", "grep", "write_file"];

/** A random session of 1 to 8 steps. */
export const sessionArbitrary: fc.Arbitrary<SessionStep[]> = fc.array(
  fc.record({
    branch: fc.constantFrom("main", "fix", "feat"),
    gate: fc.option(fc.subarray(NAMES), { nil: undefined }),
    tools: fc.subarray(NAMES, { minLength: 1 }),
    awaiting: fc.constantFrom("person" as const, "agent" as const),
    say: fc.option(fc.constantFrom("Go on.", "Why?", "Stop."), {
      nil: undefined,
    }),
    calls: fc.oneof(
      fc.constant([] as string[]),
      fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 25 }),
    ),
    reverse: fc.boolean(),
  }),
  { minLength: 1, maxLength: 8 },
);

/** Applies a step's registry state to the agent. */
export function applyStep(a: Agent, step: SessionStep): void {
  a.branch = step.branch;
  a.active = step.gate?.filter((name) => step.tools.includes(name));
  a.tools = NAMES.filter((name) => step.tools.includes(name)).map((name) =>
    schema(name)
  );
}
