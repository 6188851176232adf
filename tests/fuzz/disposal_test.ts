/**
 * Fuzz: disposal races. Random programs of registrations, forks, scopes,
 * effects, disposals (repeated, nested, from change$ subscribers) and
 * assemblies, run with awaits in between. Every failure is typed; once the
 * attacking registrar is disposed, every registration it made has been
 * unregistered exactly once and the workload renders the same bytes.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type Registrar, renderPrompt } from "../../mod.ts";
import { assertTyped, FUZZ_LABEL, FUZZ_OPTIONS } from "./hostile.ts";
import { assertWorkload, workloadBytes, workloadRegistry } from "./workload.ts";

type Step =
  | { op: "section" | "variable" | "fork" | "scope" | "effect"; on: number }
  | {
    op: "dispose" | "disposeInSubscriber" | "assemble" | "await";
    on: number;
  };

const stepArb: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom(
    "section",
    "variable",
    "fork",
    "scope",
    "effect",
    "dispose",
    "disposeInSubscriber",
    "assemble",
    "await",
  ),
  on: fc.nat({ max: 7 }),
}) as fc.Arbitrary<Step>;

function microtask(): Promise<void> {
  return Promise.resolve();
}

describe(`fuzz: disposal races ${FUZZ_LABEL}`, () => {
  it("any interleaving of registrations and disposals leaves nothing behind", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    let counter = 0;
    // An effect whose body fails after its registrar was disposed has nobody
    // awaiting it: the module reports it on console.error. Each report must
    // carry a typed error.
    const reportConsole = console.error;
    const reported: unknown[][] = [];
    console.error = (...args: unknown[]) => void reported.push(args);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(stepArb, { maxLength: 24 }),
          async (steps) => {
            const live = new Map<string, number>();
            const subscription = prompt.change$.subscribe((change) => {
              if (change.name?.startsWith("fz") !== true) return;
              const key = `${change.kind}:${change.name}`;
              const count = (live.get(key) ?? 0) +
                (change.type === "register" ? 1 : -1);
              assert.ok(count === 0 || count === 1, `${key} counted ${count}`);
              live.set(key, count);
            });
            const root = prompt.fork({ label: "fuzz" });
            const registrars: Registrar[] = [root];
            const pending: Promise<unknown>[] = [];
            function pick(index: number): Registrar {
              return registrars[index % registrars.length];
            }
            function typed(run: () => unknown): void {
              try {
                run();
              } catch (error) {
                assertTyped(error);
              }
            }
            for (const step of steps) {
              const registrar = pick(step.on);
              const name = `fz${counter++}`;
              switch (step.op) {
                case "section":
                  typed(() =>
                    registrar.section({ name, order: 50, text: name })
                  );
                  break;
                case "variable":
                  typed(() => registrar.variable(name, () => name));
                  break;
                case "fork":
                  typed(() => registrars.push(registrar.fork()));
                  break;
                case "scope":
                  typed(() => registrars.push(registrar.scope({ step: name })));
                  break;
                case "effect":
                  typed(() =>
                    registrar.effect(async function* (signal) {
                      yield registrar.section({ name, order: 60, text: name });
                      await microtask();
                      if (signal.aborted) return;
                      yield pick(step.on + 1).variable(name, () => name);
                    })
                  );
                  break;
                case "dispose":
                  pending.push(registrar.dispose());
                  break;
                case "disposeInSubscriber": {
                  const once = prompt.change$.subscribe(() => {
                    once.unsubscribe();
                    pending.push(registrar.dispose());
                  });
                  typed(() =>
                    pick(step.on + 1).section({ name, order: 70, text: name })
                  );
                  once.unsubscribe();
                  break;
                }
                case "assemble":
                  pending.push(
                    prompt.assemble().then(
                      renderPrompt,
                      (error) => assertTyped(error),
                    ),
                  );
                  break;
                case "await":
                  await microtask();
                  break;
              }
            }
            await root.dispose();
            for (const result of await Promise.allSettled(pending)) {
              if (result.status === "rejected") assertTyped(result.reason);
            }
            subscription.unsubscribe();
            for (const [key, count] of live) {
              assert.equal(count, 0, `${key} is still registered`);
            }
            assert.ok(registrars.every((registrar) => registrar.disposed));
            await assertWorkload(prompt, reference);
          },
        ),
        FUZZ_OPTIONS,
      );
    } finally {
      console.error = reportConsole;
    }
    for (const args of reported) assertTyped(args.at(-1));
    await prompt.dispose();
  });
});
