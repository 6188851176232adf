/**
 * SPEC 8.9 as properties (seeded): the pruned assembly fits whenever the
 * required sections and the tools do; nothing required is pruned; which
 * non-volatile sections are pruned does not depend on the volatile
 * sections' sizes; registration order changes nothing; within a tier a
 * higher priority is never pruned while a lower one survives; the counter
 * is called once per distinct text across repeated assemblies.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type AssembledSection,
  countAssemblyTokens,
  type PromptAssembly,
  SystemPrompt,
  SystemPromptError,
} from "../../mod.ts";
import { pruneToBudget, type SectionTerms } from "../../src/budget/prune.ts";
import { TokenMemo } from "../../src/budget/token_memo.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

const SEED = 20261203;
const RUNS = fuzzRuns(300);

const chars = (text: string): number => text.length;

type Stability = AssembledSection["stability"];

interface Entry {
  name: string;
  order: number;
  length: number;
  stability: Stability;
  priority: number;
  required: boolean;
}

const entryArb: fc.Arbitrary<Omit<Entry, "name">> = fc.record({
  order: fc.integer({ min: 0, max: 3 }),
  length: fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 30 }) },
  ),
  stability: fc.constantFrom<Stability>(undefined, "agent", "volatile"),
  priority: fc.integer({ min: -2, max: 2 }),
  required: fc.oneof(
    { weight: 4, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

/** Unique names from a small alphabet, upper and lower case: ties by name. */
const entriesArb: fc.Arbitrary<Entry[]> = fc.uniqueArray(
  fc.tuple(fc.stringMatching(/^[a-cA-C]{1,2}$/), entryArb),
  { selector: ([name]) => name, maxLength: 12 },
).map((pairs) => pairs.map(([name, entry]) => ({ ...entry, name })));

const toolsArb = fc.array(
  fc.record({
    name: fc.constantFrom("t1", "t2", "t3"),
    description: fc.string({ maxLength: 10 }),
  }).map(({ name, description }) => ({ name, description, parameters: {} })),
  { maxLength: 2 },
);

function sectionOf(entry: Entry): AssembledSection {
  const section: AssembledSection = {
    name: entry.name,
    order: entry.order,
    text: "x".repeat(entry.length),
  };
  if (entry.stability !== undefined) section.stability = entry.stability;
  return section;
}

function assemblyOf(
  entries: readonly Entry[],
  tools: PromptAssembly["tools"],
): PromptAssembly {
  return { sections: entries.map(sectionOf), tools, variables: {} };
}

function termsOf(entries: readonly Entry[]) {
  const terms = new Map<string, SectionTerms>(
    entries.map((entry) => [entry.name, {
      priority: entry.priority,
      required: entry.required,
    }]),
  );
  return terms;
}

type Outcome = PromptAssembly | { code: string };

function run(
  entries: readonly Entry[],
  tools: PromptAssembly["tools"],
  maxTokens: number,
): Outcome {
  try {
    return pruneToBudget(
      assemblyOf(entries, tools),
      { maxTokens, memo: new TokenMemo(chars) },
      { terms: termsOf(entries) },
    );
  } catch (error) {
    assert.ok(error instanceof SystemPromptError, String(error));
    return { code: error.code };
  }
}

function floorOf(
  entries: readonly Entry[],
  tools: PromptAssembly["tools"],
): number {
  let floor = 0;
  for (const tool of tools) floor += JSON.stringify(tool).length;
  for (const entry of entries) if (entry.required) floor += entry.length;
  return floor;
}

const caseArb = fc.record({
  entries: entriesArb,
  tools: toolsArb,
  maxTokens: fc.integer({ min: 1, max: 200 }),
});

const TIER = { volatile: 0, agent: 1 } as Record<string, number>;

describe(`budget: properties (seed ${SEED})`, () => {
  it("fits whenever the required sections and the tools do; otherwise BUDGET_EXCEEDED; nothing required is pruned", () => {
    let pruning = 0;
    let exceeded = 0;
    fc.assert(
      fc.property(caseArb, ({ entries, tools, maxTokens }) => {
        const outcome = run(entries, tools, maxTokens);
        if (floorOf(entries, tools) > maxTokens) {
          assert.deepEqual(outcome, { code: "BUDGET_EXCEEDED" });
          exceeded++;
          return;
        }
        assert.ok(!("code" in outcome), JSON.stringify(outcome));
        const { total } = countAssemblyTokens(outcome, chars);
        assert.ok(total <= maxTokens, `${total} > ${maxTokens}`);
        const pruned = new Set(outcome.pruned?.map((entry) => entry.name));
        if (pruned.size > 0) pruning++;
        for (const entry of entries) {
          if (entry.required || entry.length === 0) {
            assert.ok(!pruned.has(entry.name), entry.name);
          }
        }
        // What was pruned left the sections; the rest kept their order.
        assert.deepEqual(
          outcome.sections.map((section) => section.name),
          entries.filter((entry) => !pruned.has(entry.name)).map((entry) =>
            entry.name
          ),
        );
        // Pruning stops as soon as the prompt fits: the last one was needed.
        const last = outcome.pruned?.at(-1);
        if (last !== undefined) assert.ok(total + last.tokens > maxTokens);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    assert.ok(
      pruning >= RUNS / 10 && exceeded >= RUNS / 20,
      `${pruning}, ${exceeded}`,
    );
  });

  it("prunes the same non-volatile sections whatever the volatile sections' sizes", () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.array(fc.integer({ min: 0, max: 60 }), {
          minLength: 12,
          maxLength: 12,
        }),
        ({ entries, tools, maxTokens }, sizes) => {
          const resized = entries.map((entry, index) =>
            entry.stability === "volatile" && !entry.required
              ? { ...entry, length: sizes[index] }
              : entry
          );
          const nonVolatile = (outcome: Outcome) =>
            "code" in outcome
              ? outcome
              : (outcome.pruned ?? []).filter((pruned) =>
                entries.find((entry) => entry.name === pruned.name)
                  ?.stability !== "volatile"
              );
          assert.deepEqual(
            nonVolatile(run(resized, tools, maxTokens)),
            nonVolatile(run(entries, tools, maxTokens)),
          );
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("gives the same result for every order of the input sections", () => {
    fc.assert(
      fc.property(
        caseArb.chain((input) =>
          fc.tuple(
            fc.constant(input),
            fc.shuffledSubarray(input.entries, {
              minLength: input.entries.length,
            }),
          )
        ),
        ([{ entries, tools, maxTokens }, shuffled]) => {
          const a = run(entries, tools, maxTokens);
          const b = run(shuffled, tools, maxTokens);
          if ("code" in a) return assert.deepEqual(b, a);
          assert.ok(!("code" in b));
          assert.deepEqual(b.pruned, a.pruned);
          assert.deepEqual(
            b.sections.map((section) => section.name).sort(),
            a.sections.map((section) => section.name).sort(),
          );
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("never prunes a section while a lower-priority one of its tier survives", () => {
    fc.assert(
      fc.property(caseArb, ({ entries, tools, maxTokens }) => {
        const outcome = run(entries, tools, maxTokens);
        if ("code" in outcome) return;
        const pruned = new Set(outcome.pruned?.map((entry) => entry.name));
        const candidates = entries.filter((entry) =>
          !entry.required && entry.length > 0
        );
        const tier = (entry: Entry) => TIER[entry.stability ?? ""] ?? 2;
        for (const gone of candidates.filter((e) => pruned.has(e.name))) {
          for (const kept of candidates.filter((e) => !pruned.has(e.name))) {
            // A more volatile tier is emptied first.
            assert.ok(tier(kept) >= tier(gone), `${kept.name} / ${gone.name}`);
            if (tier(kept) === tier(gone)) {
              assert.ok(
                kept.priority >= gone.priority,
                `${gone.name} (${gone.priority}) pruned, ${kept.name} (${kept.priority}) kept`,
              );
            }
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe(`budget: a memo shared across assemblies (seed ${SEED})`, () => {
  it("prunes exactly as a fresh memo does, whatever came before", () => {
    const shared = new TokenMemo(chars);
    fc.assert(
      fc.property(
        caseArb,
        fc.constantFrom("a", "bb", "a{{v}}", "{{v}}{{v}}"),
        fc.constantFrom("", "v", "vv"),
        ({ entries, tools, maxTokens }, template, value) => {
          // Sections whose text reads a variable, so that the memo's
          // per-section entries meet changed values.
          const assembly = assemblyOf(entries, tools);
          assembly.sections = assembly.sections.map((section, index) =>
            index % 2 === 0
              ? { ...section, text: section.text + template }
              : section
          );
          assembly.variables = { v: value };
          const outcome = (memo: TokenMemo) => {
            try {
              return pruneToBudget(
                structuredClone(assembly),
                { maxTokens, memo },
                { terms: termsOf(entries) },
              );
            } catch (error) {
              assert.ok(error instanceof SystemPromptError, String(error));
              return { code: error.code };
            }
          };
          // Twice through the shared memo: the second is its steady state.
          const fresh = outcome(new TokenMemo(chars));
          assert.deepEqual(outcome(shared), fresh);
          assert.deepEqual(outcome(shared), fresh);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe(`budget: through a registry (seed ${SEED})`, () => {
  it("prunes the same for every registration order", async () => {
    await fc.assert(
      fc.asyncProperty(
        caseArb.chain((input) =>
          fc.tuple(
            fc.constant(input),
            fc.shuffledSubarray(input.entries, {
              minLength: input.entries.length,
            }),
          )
        ),
        async ([{ entries, maxTokens }, shuffled]) => {
          const outcomes = [];
          for (const order of [entries, shuffled]) {
            const prompt = new SystemPrompt({ includeHarnessIdentity: false });
            for (const entry of order) {
              prompt.section({
                name: entry.name,
                order: entry.order,
                text: "x".repeat(entry.length),
                priority: entry.priority,
                required: entry.required,
                stability: entry.stability ?? "stable",
              });
            }
            outcomes.push(
              await prompt.assemble({}, {
                budget: { maxTokens, countTokens: chars },
              }).catch((error: SystemPromptError) => ({ code: error.code })),
            );
            await prompt.dispose();
          }
          assert.deepEqual(outcomes[1], outcomes[0]);
        },
      ),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3) },
    );
  });

  it("calls the counter once per distinct text across repeated assemblies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.constantFrom("a", "b", "c", "d"), {
            minLength: 1,
            maxLength: 4,
          }),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        fc.integer({ min: 1, max: 40 }),
        async (steps, maxTokens) => {
          const prompt = new SystemPrompt({ includeHarnessIdentity: false });
          let values: string[] = [];
          prompt.variable("v", () => values.join(""));
          prompt.section({
            name: "fixed",
            order: 0,
            text: "fixed",
            required: true,
          });
          prompt.section({ name: "live", order: 1, text: "{{v}}" });
          prompt.section({ name: "more", order: 2, text: "more {{v}}" });
          const calls = new Map<string, number>();
          const countTokens = (text: string): number => {
            calls.set(text, (calls.get(text) ?? 0) + 1);
            return text.length;
          };
          for (let round = 0; round < 2; round++) {
            for (const step of steps) {
              values = step;
              await prompt.assemble({}, {
                budget: { maxTokens: maxTokens + 5, countTokens },
              });
            }
          }
          for (const [text, count] of calls) assert.equal(count, 1, text);
          await prompt.dispose();
        },
      ),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3) },
    );
  });
});
