/**
 * Live values under random command sequences (SPEC 7.8), checked against a
 * model: registrations of Observable-valued variables in the global and a
 * scope layer, values of the right and the wrong type, errors, completions,
 * disposals (then late values), and registrar `invalidate()`. After every
 * command, the change events it caused and the scope's assembly must match
 * the model; a synchronous burst of commands gives at most one view, equal
 * to a fresh assembly.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BehaviorSubject, Observable, Subject } from "rxjs";
import {
  type Disposer,
  type PromptChange,
  type PromptView,
  SystemPrompt,
  SystemPromptError,
} from "../../mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

const SEED = 20261214;
const NAMES = ["a", "b", "c"] as const;
const SCOPE = "s";

type Value = string | undefined | number;

type Command =
  | {
    op: "register";
    slot: number;
    mode: "cold" | "warm" | "failing";
    value: Value;
  }
  | { op: "emit"; slot: number; value: Value }
  | { op: "error"; slot: number }
  | { op: "complete"; slot: number }
  | { op: "dispose"; slot: number }
  | { op: "invalidate"; scoped: boolean };

/** Slot `i`: name `NAMES[i % 3]`, scope layer when `i >= 3`. */
interface Slot {
  subject: Subject<Value> | undefined;
  dispose: Disposer | undefined;
  status: "pending" | "value" | "error";
  value: Value;
  stopped: boolean;
}

const valueArb: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom("x", "y", "", "{{a}}"),
  fc.constant(undefined),
  fc.constant(7),
);
const slotArb = fc.integer({ min: 0, max: 5 });
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    op: fc.constant("register" as const),
    slot: slotArb,
    mode: fc.constantFrom("cold" as const, "warm" as const, "failing" as const),
    value: valueArb,
  }),
  fc.record({
    op: fc.constant("emit" as const),
    slot: slotArb,
    value: valueArb,
  }),
  fc.record({ op: fc.constant("error" as const), slot: slotArb }),
  fc.record({ op: fc.constant("complete" as const), slot: slotArb }),
  fc.record({ op: fc.constant("dispose" as const), slot: slotArb }),
  fc.record({ op: fc.constant("invalidate" as const), scoped: fc.boolean() }),
);

function nameOf(slot: number): string {
  return NAMES[slot % 3];
}

function scopeOf(slot: number): string | undefined {
  return slot >= 3 ? SCOPE : undefined;
}

function change(
  type: PromptChange["type"],
  slot: number,
): PromptChange {
  const event: PromptChange = { type, kind: "variable", name: nameOf(slot) };
  const scope = scopeOf(slot);
  if (scope !== undefined) event.scope = scope;
  return event;
}

class Harness {
  readonly prompt = new SystemPrompt({ includeHarnessIdentity: false });
  readonly slots: Slot[] = Array.from({ length: 6 }, () => ({
    subject: undefined,
    dispose: undefined,
    status: "pending" as const,
    value: undefined,
    stopped: true,
  }));
  readonly events: PromptChange[] = [];
  readonly #subscription = this.prompt.change$.subscribe((event) =>
    this.events.push(event)
  );

  registrar(slot: number) {
    const scope = scopeOf(slot);
    return scope === undefined ? this.prompt : this.prompt.scope(scope);
  }

  /** Runs `command`; returns the change events the model expects. */
  run(command: Command): PromptChange[] {
    if (command.op === "invalidate") {
      if (command.scoped) this.prompt.scope(SCOPE).invalidate();
      else this.prompt.invalidate();
      return [
        command.scoped ? { type: "invalidate", scope: SCOPE } : {
          type: "invalidate",
        },
      ];
    }
    const slot = this.slots[command.slot];
    const registered = slot.dispose !== undefined;
    switch (command.op) {
      case "register":
        return this.#register(command, registered);
      case "emit":
        slot.subject?.next(command.value);
        if (!registered || slot.stopped) return [];
        slot.status = "value";
        slot.value = command.value;
        return [change("update", command.slot)];
      case "error":
        slot.subject?.error(new Error(`boom ${command.slot}`));
        if (!registered || slot.stopped) return [];
        slot.status = "error";
        slot.stopped = true;
        return [change("update", command.slot)];
      case "complete":
        slot.subject?.complete();
        slot.stopped = true;
        return [];
      case "dispose": {
        if (!registered) return [];
        void slot.dispose!();
        slot.dispose = undefined;
        slot.stopped = true;
        return [change("unregister", command.slot)];
      }
    }
  }

  #register(
    command: Extract<Command, { op: "register" }>,
    registered: boolean,
  ): PromptChange[] {
    const slot = this.slots[command.slot];
    const subject = command.mode === "warm"
      ? new BehaviorSubject<Value>(command.value)
      : new Subject<Value>();
    const source = command.mode === "failing"
      ? new Observable<Value>((subscriber) => subscriber.error(new Error("x")))
      : subject;
    const register = () =>
      this.registrar(command.slot).variable(
        nameOf(command.slot),
        source as Observable<string>,
      );
    if (registered) {
      assert.throws(
        register,
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "DUPLICATE_VARIABLE",
      );
      return [];
    }
    slot.dispose = register();
    slot.subject = subject;
    slot.stopped = command.mode === "failing";
    slot.status = command.mode === "warm"
      ? "value"
      : command.mode === "failing"
      ? "error"
      : "pending";
    slot.value = command.mode === "warm" ? command.value : undefined;
    return [change("register", command.slot)];
  }

  /** What assemble({ scope }) must give: variables, or the failing name. */
  expected(): { variables: Record<string, string | undefined> } | {
    failing: string;
  } {
    const variables: Record<string, string | undefined> = {};
    for (const [index, name] of NAMES.entries()) {
      const near = this.slots[index + 3];
      const far = this.slots[index];
      const slot = near.dispose !== undefined
        ? near
        : far.dispose !== undefined
        ? far
        : undefined;
      if (slot === undefined) continue;
      if (slot.status === "error" || typeof slot.value === "number") {
        return { failing: name };
      }
      variables[name] = slot.status === "pending"
        ? undefined
        : slot.value as string | undefined;
    }
    return { variables };
  }

  async check(): Promise<void> {
    const expected = this.expected();
    if ("failing" in expected) {
      await assert.rejects(
        this.prompt.assemble({ scope: SCOPE }),
        (error: unknown) =>
          error instanceof SystemPromptError &&
          error.code === "PROVIDER_FAILED" &&
          error.message.includes(`variable "${expected.failing}"`),
      );
    } else {
      const assembly = await this.prompt.assemble({ scope: SCOPE });
      assert.deepEqual(assembly.variables, expected.variables);
    }
  }

  async close(): Promise<void> {
    this.#subscription.unsubscribe();
    await this.prompt.dispose();
  }
}

describe("live values, model-based", () => {
  it("change events and assemblies follow the model after every command", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(commandArb, { maxLength: 30 }),
        async (commands) => {
          const harness = new Harness();
          try {
            for (const command of commands) {
              harness.events.length = 0;
              const expected = harness.run(command);
              assert.deepEqual(harness.events, expected);
              await harness.check();
            }
          } finally {
            await harness.close();
          }
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(150) },
    );
  });

  it("a synchronous burst of commands gives at most one view, equal to a fresh assembly", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(commandArb, { maxLength: 10 }),
        fc.array(commandArb, { minLength: 1, maxLength: 40 }),
        async (setup, burst) => {
          const harness = new Harness();
          const views: PromptView[] = [];
          const subscription = harness.prompt.watch({ scope: SCOPE })
            .subscribe((view) => views.push(view));
          try {
            for (const command of setup) harness.run(command);
            await macrotask();
            const before = views.length;
            harness.events.length = 0;
            for (const command of burst) harness.run(command);
            const changed = harness.events.length > 0;
            await macrotask();
            assert.equal(views.length - before, changed ? 1 : 0);
            const latest = views[views.length - 1];
            const expected = harness.expected();
            if ("failing" in expected) assert.ok("error" in latest);
            else {
              assert.ok("assembly" in latest);
              assert.deepEqual(latest.assembly.variables, expected.variables);
            }
          } finally {
            subscription.unsubscribe();
            await harness.close();
          }
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(100) },
    );
  });
});

function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
